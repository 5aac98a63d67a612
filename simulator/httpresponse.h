#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QPair>

namespace cs::paysim {

// One HTTP answer. Content-Length, Connection and Date are added when serialized.
struct HttpResponse
{
    int status = 200;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;

    static HttpResponse json(int status, const QJsonObject &body);
    // A JSON error body in Stripe's shape: {"error": {"type": ..., "message": ...}}.
    static HttpResponse plainError(int status, const QString &message);

    void setHeader(const QByteArray &name, const QByteArray &value);
    QByteArray header(QByteArrayView name) const;
    // date: the Date header's time (paysim's simulated clock: a provider's Date follows its own
    // clock); null: the wall clock.
    QByteArray serialize(bool keepAlive, const QDateTime &date = QDateTime()) const;

    static QByteArray reasonPhrase(int status);
};

} // namespace cs::paysim
