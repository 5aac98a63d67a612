#include "models/actionquery.h"
#include "models/money.h"

#include <QStringList>

#include <tuple>

namespace cs {

ActionQuery ActionQuery::queue()
{
    ActionQuery query;
    query.states = { ActionState::Pending, ActionState::ConfirmationUnknown,
                     ActionState::RequiresReview };
    return query;
}

QString ActionQuery::stateParameter() const
{
    QStringList names;
    names.reserve(states.size());
    for (ActionState state : states)
        names.append(toWire(state));
    return names.join(QLatin1Char(','));
}

QString ActionQuery::settlementParameter() const
{
    return settlementReview ? QStringLiteral("review") : QString();
}

QString ActionQuery::sortParameter() const
{
    if (sort == SortKey::CreatedAt && descending)
        return {};
    QString name;
    switch (sort) {
    case SortKey::CreatedAt:
        name = QStringLiteral("created_at");
        break;
    case SortKey::Amount:
        name = QStringLiteral("amount");
        break;
    case SortKey::AttemptCount:
        name = QStringLiteral("attempt_count");
        break;
    case SortKey::LastEventAt:
        name = QStringLiteral("last_event_at");
        break;
    }
    return descending ? QLatin1Char('-') + name : name;
}

bool ActionQuery::before(const ActionSummary &a, const ActionSummary &b) const
{
    const auto key = [this](const ActionSummary &s) -> qint64 {
        switch (sort) {
        case SortKey::CreatedAt:
            return s.record.createdAt.toMSecsSinceEpoch();
        case SortKey::Amount:
            return s.record.amount; // after the currency, below
        case SortKey::AttemptCount:
            return s.attemptCount;
        case SortKey::LastEventAt:
            return s.lastEventAt.toMSecsSinceEpoch();
        }
        return 0;
    };
    // Codes are lowercase ASCII: QString's order is the ledger's (byte order).
    const auto currency = [this](const ActionSummary &s) {
        return sort == SortKey::Amount ? s.record.currency : QString();
    };
    const auto ka = std::make_tuple(currency(a), key(a), a.record.createdAt.toMSecsSinceEpoch(), a.record.id);
    const auto kb = std::make_tuple(currency(b), key(b), b.record.createdAt.toMSecsSinceEpoch(), b.record.id);
    return descending ? kb < ka : ka < kb;
}

bool ActionQuery::matches(const ActionSummary &row) const
{
    if (settlementReview && !row.settlementReview)
        return false;
    if (discrepancyOpen && !row.discrepancy)
        return false;
    if (awaitingDecision && row.queued) // a list row has no key: it says so
        return false;
    return matches(row.record);
}

bool ActionQuery::matches(const ActionRecord &record) const
{
    if (!states.isEmpty() && !states.contains(record.state))
        return false;
    if (awaitingDecision && record.isQueued())
        return false;
    const QString needle = search.trimmed();
    if (needle.isEmpty())
        return true;
    if (const auto amount = Money::searchedTenThousandths(needle);
        amount && *amount == Money::tenThousandths(record.amount, record.currency))
        return true;
    for (const QString *hay : { &record.id, &record.targetId, &record.businessReference,
                                &record.requestedBy, &record.clientReference }) {
        if (hay->contains(needle, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace cs
