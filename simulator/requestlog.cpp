#include "simulator/requestlog.h"

#include <QJsonObject>

namespace cs::paysim {

void RequestLog::add(const Entry &entry)
{
    m_entries.append(entry);
    if (m_entries.size() > Capacity)
        m_entries.remove(0, m_entries.size() - Capacity);
}

void RequestLog::finish(const QString &requestId, int status, const QString &outcome, qint64 durationMs)
{
    for (qsizetype i = m_entries.size() - 1; i >= 0; --i) {
        if (m_entries[i].requestId == requestId) {
            m_entries[i].status = status;
            m_entries[i].outcome = outcome;
            m_entries[i].durationMs = durationMs;
            return;
        }
    }
}

QJsonArray RequestLog::toJson(int limit) const
{
    QJsonArray out;
    const qsizetype from = limit > 0 ? std::max<qsizetype>(0, m_entries.size() - limit) : 0;
    for (qsizetype i = from; i < m_entries.size(); ++i) {
        const Entry &e = m_entries[i];
        out.append(QJsonObject{
            {QStringLiteral("request_id"), e.requestId},
            {QStringLiteral("at_ms"), e.atMs},
            {QStringLiteral("method"), e.method},
            {QStringLiteral("path"), e.path},
            {QStringLiteral("idempotency_key"), e.idempotencyKey.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(e.idempotencyKey)},
            {QStringLiteral("fault"), e.fault.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(e.fault)},
            {QStringLiteral("rule_id"), e.ruleId.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(e.ruleId)},
            {QStringLiteral("status"), e.status == 0 ? QJsonValue(QJsonValue::Null) : QJsonValue(e.status)},
            {QStringLiteral("outcome"), e.outcome},
            {QStringLiteral("duration_ms"), e.durationMs},
        });
    }
    return out;
}

} // namespace cs::paysim
