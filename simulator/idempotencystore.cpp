#include "simulator/idempotencystore.h"

#include "simulator/simdatabase.h"

#include <algorithm>

namespace cs::paysim {

IdempotencyStore::IdempotencyStore(SimDatabase *db)
    : m_db(db)
{
}

QString IdempotencyStore::mapKey(const QString &apiKey, const QString &key)
{
    // The API key cannot contain a newline (it came from one header line).
    return apiKey + u'\n' + key;
}

const IdempotencyRecord *IdempotencyStore::find(const QString &apiKey, const QString &key) const
{
    const auto it = m_records.constFind(mapKey(apiKey, key));
    return it == m_records.constEnd() ? nullptr : &it.value();
}

void IdempotencyStore::begin(const IdempotencyRecord &record)
{
    IdempotencyRecord r = record;
    r.inFlight = true;
    m_records.insert(mapKey(r.apiKey, r.key), r);
}

void IdempotencyStore::complete(const QString &apiKey, const QString &key, int status, const QByteArray &body,
                                const QString &requestId)
{
    auto it = m_records.find(mapKey(apiKey, key));
    if (it == m_records.end())
        return;
    it->inFlight = false;
    it->status = status;
    it->body = body;
    it->requestId = requestId;
    if (m_db)
        m_db->saveIdempotency(*it);
}

void IdempotencyStore::release(const QString &apiKey, const QString &key)
{
    auto it = m_records.find(mapKey(apiKey, key));
    if (it != m_records.end() && it->inFlight)
        m_records.erase(it);
}

int IdempotencyStore::prune(qint64 nowMs)
{
    int removed = 0;
    for (auto it = m_records.begin(); it != m_records.end();) {
        if (!it->inFlight && it->createdMs + m_windowMs <= nowMs) {
            if (m_db)
                m_db->deleteIdempotency(it->apiKey, it->key);
            it = m_records.erase(it);
            ++removed;
        } else {
            ++it;
        }
    }
    return removed;
}

void IdempotencyStore::clear()
{
    m_records.clear();
}

void IdempotencyStore::load(const QList<IdempotencyRecord> &records)
{
    for (const IdempotencyRecord &r : records)
        m_records.insert(mapKey(r.apiKey, r.key), r);
}

QList<IdempotencyRecord> IdempotencyStore::records() const
{
    QList<IdempotencyRecord> out = m_records.values();
    std::sort(out.begin(), out.end(), [](const IdempotencyRecord &a, const IdempotencyRecord &b) {
        return a.createdMs < b.createdMs || (a.createdMs == b.createdMs && a.key < b.key);
    });
    return out;
}

} // namespace cs::paysim
