#pragma once

#include "simulator/idempotencyrecord.h"

#include <QHash>
#include <QList>

namespace cs::paysim {

class SimDatabase;

// Stripe's idempotency layer state: one record per (API key, Idempotency-Key).
// A record is in flight from the moment a request passes validation until its answer is saved;
// then it holds the saved status and body, replayed to every later request with the same key and
// the same endpoint and parameters, until the key window (simulator clock) has passed.
// In-flight records are never persisted or pruned. Not thread-safe.
class IdempotencyStore
{
public:
    explicit IdempotencyStore(SimDatabase *db = nullptr);

    void setWindowMs(qint64 windowMs) { m_windowMs = windowMs; }
    qint64 windowMs() const { return m_windowMs; }

    const IdempotencyRecord *find(const QString &apiKey, const QString &key) const;
    void begin(const IdempotencyRecord &record);
    void complete(const QString &apiKey, const QString &key, int status, const QByteArray &body, const QString &requestId);
    // Forgets an in-flight record whose request saved nothing.
    void release(const QString &apiKey, const QString &key);
    // Removes completed records at least one window old; returns how many.
    int prune(qint64 nowMs);
    void clear();
    void load(const QList<IdempotencyRecord> &records);
    QList<IdempotencyRecord> records() const;

private:
    static QString mapKey(const QString &apiKey, const QString &key);

    SimDatabase *m_db;
    qint64 m_windowMs = 24LL * 3600 * 1000;
    QHash<QString, IdempotencyRecord> m_records;
};

} // namespace cs::paysim
