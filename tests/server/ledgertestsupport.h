#pragma once

// Shared by the ledger tests (and the benchmarks): a controllable clock and proposal fixtures.
// Header-only. A fresh ledger per test function: scratchledger.h.

#include "server/ledger/ledger.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <utility>

namespace cs::test {

// A clock the test moves by hand. Thread-safe (the ledger may call it from worker threads).
class ManualClock
{
public:
    explicit ManualClock(qint64 startMs = QDateTime(QDate(2026, 11, 29), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch())
        : m_ms(std::make_shared<std::atomic<qint64>>(startMs))
    {
    }

    Clock clock() const
    {
        auto ms = m_ms;
        return [ms] { return QDateTime::fromMSecsSinceEpoch(ms->load(), Qt::UTC); };
    }
    void advance(qint64 ms) { m_ms->fetch_add(ms); }
    QDateTime now() const { return QDateTime::fromMSecsSinceEpoch(m_ms->load(), Qt::UTC); }

private:
    std::shared_ptr<std::atomic<qint64>> m_ms;
};

// A policy of these rules at this version, as PolicyService would put it in force.
inline std::shared_ptr<const Policy> policyOf(QList<PolicyRule> rules, int version = 1)
{
    auto policy = std::make_shared<Policy>();
    policy->rules = std::move(rules);
    policy->version = version;
    return policy;
}

inline ProposalStore::ProposalInput sampleInput(const QString &clientReference, qint64 amount = 4000)
{
    ProposalStore::ProposalInput input;
    input.targetType = TargetType::Charge;
    input.targetId = QStringLiteral("ch_3NqFake0001");
    input.businessReference = QStringLiteral("order-1001");
    input.amount = amount;
    input.currency = QStringLiteral("usd");
    input.reason = QStringLiteral("requested_by_customer");
    input.clientReference = clientReference;
    input.provider = QStringLiteral("paysim");
    input.providerAccount = QStringLiteral("acct_demo");
    return input;
}

inline const QString &agent()
{
    static const QString name = QStringLiteral("agent-7");
    return name;
}

inline const QString &approver()
{
    static const QString name = QStringLiteral("alice");
    return name;
}

// The audit events of one action, oldest first ("proposed", "approved", ...).
inline QStringList eventsOf(Ledger &ledger, const QString &actionId)
{
    QStringList events;
    const auto audit = ledger.reader().audit(actionId);
    for (const AuditEvent &e : *audit)
        events << e.event;
    return events;
}

} // namespace cs::test
