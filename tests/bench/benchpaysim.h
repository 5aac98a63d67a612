#pragma once

// What the executor benchmarks share: a line on stdout, paysim's admin API called from the main
// thread, and CPU seconds of this process or of another one.

#include <QEventLoop>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QString>
#include <QUrl>

#include <cstdio>

#include <sys/resource.h>
#include <unistd.h>

namespace cs::bench {

inline void out(const QString &line)
{
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

// paysim as a separate process on an ephemeral port of 127.0.0.1 (in memory, no faults) → its
// base URL, or an empty one (and a line saying so) when it does not start.
inline QUrl startPaysim(QProcess &paysim, const QString &program)
{
    paysim.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    paysim.start(program, {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    if (!paysim.waitForStarted(5000) || !paysim.waitForReadyRead(5000)) {
        out(QStringLiteral("cannot start paysim"));
        return QUrl();
    }
    return QUrl(QString::fromLatin1(paysim.readLine().trimmed()));
}

// Blocking admin calls to paysim from the main thread.
class PaysimAdmin
{
public:
    explicit PaysimAdmin(QUrl base) : m_base(std::move(base)) {}
    QJsonObject call(const QByteArray &verb, const QString &path, const QJsonObject &body = {})
    {
        QUrl url = m_base;
        url.setPath(path);
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = m_network.sendCustomRequest(request, verb,
                                                           body.isEmpty() ? QByteArray()
                                                                          : QJsonDocument(body).toJson(QJsonDocument::Compact));
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
        const QJsonObject json = QJsonDocument::fromJson(reply->readAll()).object();
        reply->deleteLater();
        return json;
    }
    // paysim reset, then one charge large enough for every refund of a phase.
    QString freshCharge()
    {
        call("POST", QStringLiteral("/_sim/reset"));
        const QJsonObject created = call("POST", QStringLiteral("/_sim/charges"),
                                         QJsonObject{{QStringLiteral("amounts"), QJsonArray{qint64(900000000000)}}});
        return created.value(QStringLiteral("data")).toArray().at(0).toObject().value(QStringLiteral("id")).toString();
    }
    // Refunds per countersign_action_id (or per idempotency key when there is no action id).
    QHash<QString, int> groundTruth(int *total)
    {
        const QJsonArray rows = call("GET", QStringLiteral("/_sim/refunds")).value(QStringLiteral("data")).toArray();
        QHash<QString, int> perAction;
        for (const QJsonValue &row : rows)
            ++perAction[row.toObject().value(QStringLiteral("metadata")).toObject()
                            .value(QStringLiteral("countersign_action_id")).toString()];
        *total = int(rows.size());
        return perAction;
    }

private:
    QUrl m_base;
    QNetworkAccessManager m_network;
};

// CPU seconds used so far by this process.
inline double selfCpu()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// The fields after the command name of /proc/PID/stat (state is [0]); empty if it is gone.
inline QList<QByteArray> procStat(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return {};
    const QByteArray line = stat.readAll();
    return line.mid(line.lastIndexOf(')') + 2).split(' ');
}

// CPU seconds used so far by another process of this machine (0 if it is gone).
inline double processCpu(qint64 pid)
{
    const QList<QByteArray> fields = procStat(pid);
    // fields[11], [12]: utime, stime in clock ticks (fields 14 and 15 of the full line)
    return fields.size() > 12 ? double(fields.at(11).toLongLong() + fields.at(12).toLongLong()) / double(sysconf(_SC_CLK_TCK)) : 0;
}

} // namespace cs::bench
