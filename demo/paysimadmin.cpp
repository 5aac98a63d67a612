#include "demo/paysimadmin.h"

#include <QJsonDocument>

namespace cs::demo {

PaysimAdminClient::PaysimAdminClient(QObject *parent)
    : QObject(parent)
{
}

void PaysimAdminClient::faults(Done done)
{
    send("GET", QStringLiteral("/_sim/faults"), QJsonObject(), std::move(done));
}

void PaysimAdminClient::addFaults(const QJsonArray &rules, Done done)
{
    send("POST", QStringLiteral("/_sim/faults"), QJsonObject{{QStringLiteral("rules"), rules}}, std::move(done));
}

void PaysimAdminClient::deleteFault(const QString &id, Done done)
{
    send("DELETE", QStringLiteral("/_sim/faults/") + id, QJsonObject(), std::move(done));
}

void PaysimAdminClient::clearFaults(Done done)
{
    send("DELETE", QStringLiteral("/_sim/faults"), QJsonObject(), std::move(done));
}

void PaysimAdminClient::refunds(Done done)
{
    send("GET", QStringLiteral("/_sim/refunds"), QJsonObject(), std::move(done));
}

void PaysimAdminClient::createCharges(const QList<qint64> &amounts, Done done)
{
    QJsonArray list;
    for (const qint64 amount : amounts)
        list.append(amount);
    send("POST", QStringLiteral("/_sim/charges"), QJsonObject{{QStringLiteral("amounts"), list}}, std::move(done));
}

void PaysimAdminClient::createChargesFrom(const QJsonObject &request, Done done)
{
    send("POST", QStringLiteral("/_sim/charges"), request, std::move(done));
}

void PaysimAdminClient::advanceClock(qint64 ms, Done done)
{
    send("POST", QStringLiteral("/_sim/clock"), QJsonObject{{QStringLiteral("advance_ms"), ms}}, std::move(done));
}

QJsonArray PaysimAdminClient::dataOf(const HttpReply &reply)
{
    return reply.json().value(QLatin1String("data")).toArray();
}

QString PaysimAdminClient::errorOf(const HttpReply &reply)
{
    const QString message = reply.json().value(QLatin1String("error")).toObject().value(QLatin1String("message")).toString();
    return message.isEmpty() ? reply.error : message;
}

void PaysimAdminClient::send(const QByteArray &verb, const QString &path, const QJsonObject &body, Done done)
{
    if (!m_base.isValid())
        return;
    DemoHttp::Headers headers;
    QByteArray payload;
    if (verb == "POST") {
        headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
        payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
    }
    m_http.request(verb, QUrl(m_base.toString() + path), headers, payload, std::move(done), 10000);
}

} // namespace cs::demo
