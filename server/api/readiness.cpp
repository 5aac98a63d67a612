#include "server/api/readiness.h"

#include "server/ledger/ledgerdatabase.h"

#include <QJsonObject>

namespace cs {

namespace {

QString wireStatus(ProviderClient::Reachability::Status status)
{
    switch (status) {
    case ProviderClient::Reachability::Status::Reachable:
        return QStringLiteral("reachable");
    case ProviderClient::Reachability::Status::Unreachable:
        return QStringLiteral("unreachable");
    case ProviderClient::Reachability::Status::NotChecked:
        return QStringLiteral("not_checked");
    }
    return QString();
}

} // namespace

Readiness::Readiness(LedgerDatabase *database, ProviderClient *provider, QString version, Options options)
    : m_database(database), m_provider(provider), m_version(std::move(version)), m_options(options)
{
}

ApiResponse Readiness::check()
{
    const LedgerError ledger = m_database->probeWritable(m_options.ledgerWait);
    QJsonObject ledgerCheck{{QStringLiteral("status"), ledger.ok() ? QStringLiteral("ok") : QStringLiteral("failed")}};
    if (!ledger.ok())
        ledgerCheck.insert(QStringLiteral("detail"), ledger.message());

    bool providerOk = true;
    QJsonObject providerCheck;
    if (!m_provider) {
        providerCheck.insert(QStringLiteral("status"), QStringLiteral("not_configured"));
    } else {
        QMutexLocker lock(&m_probeMutex);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        // A good answer is trusted for providerEvery; a bad one is asked again at the next check, so
        // the instance is back in rotation as soon as the provider is.
        const bool fresh = m_lastProbeAt.isValid() && m_lastProbeAt <= now
            && m_lastProbeAt.msecsTo(now) < m_options.providerEvery.count()
            && m_lastProbe.status != ProviderClient::Reachability::Status::Unreachable;
        if (!fresh) {
            m_lastProbe = m_provider->probe();
            m_lastProbeAt = QDateTime::currentDateTimeUtc();
        }
        providerOk = m_lastProbe.status != ProviderClient::Reachability::Status::Unreachable;
        providerCheck = QJsonObject{{QStringLiteral("status"), wireStatus(m_lastProbe.status)},
                                    {QStringLiteral("detail"), m_lastProbe.detail},
                                    {QStringLiteral("checked_at"), m_lastProbeAt.toString(Qt::ISODateWithMs)}};
        if (m_lastProbe.httpStatus != 0)
            providerCheck.insert(QStringLiteral("http_status"), m_lastProbe.httpStatus);
    }

    const bool ready = ledger.ok() && providerOk;
    const QJsonObject body{{QStringLiteral("status"), ready ? QStringLiteral("ready") : QStringLiteral("not_ready")},
                           {QStringLiteral("version"), m_version},
                           {QStringLiteral("checks"), QJsonObject{{QStringLiteral("ledger"), ledgerCheck},
                                                                  {QStringLiteral("provider"), providerCheck}}}};
    return ApiResponse::json(ready ? 200 : 503, body, ready ? HeaderList() : HeaderList{{"Retry-After", "5"}});
}

} // namespace cs
