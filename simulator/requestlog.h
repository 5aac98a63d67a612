#pragma once

#include <QJsonArray>
#include <QList>
#include <QString>

namespace cs::paysim {

// A bounded log of /v1 requests with the fault applied and what the client got, for demos and
// tests (GET /_sim/requests). Oldest entries fall off past Capacity. Not thread-safe.
class RequestLog
{
public:
    static constexpr int Capacity = 2000;

    struct Entry
    {
        QString requestId;
        qint64 atMs = 0; // simulator clock
        QString method;
        QString path;
        QString idempotencyKey;
        QString fault;  // applied fault name, or empty
        QString ruleId;
        int status = 0;         // 0 while pending or when no answer was written
        QString outcome = QStringLiteral("pending"); // pending | answered | replayed | dropped | reset
        qint64 durationMs = 0;
    };

    void add(const Entry &entry);
    void finish(const QString &requestId, int status, const QString &outcome, qint64 durationMs);
    QJsonArray toJson(int limit) const; // oldest first, the last `limit` entries
    int size() const { return static_cast<int>(m_entries.size()); }
    void clear() { m_entries.clear(); }

private:
    QList<Entry> m_entries;
};

} // namespace cs::paysim
