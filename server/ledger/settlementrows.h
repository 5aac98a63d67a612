#pragma once

// Internal to server/ledger/: the settlement of a COMPLETED action's refund (issue 18,
// docs/SETTLEMENT.md, migration 14), written inside the transaction of whatever taught the ledger
// about it — the attempt or lookup that completed the action, a later lookup, a webhook — so
// that the settlement can never disagree with the evidence it rests on.

#include "server/ledger/ledgererror.h"
#include "server/ledger/ledgerrows.h"

#include "models/settlement.h"

#include <QDateTime>
#include <QSqlDatabase>
#include <QString>

#include <chrono>
#include <optional>

namespace cs::settlements {

// When the first scheduled look-up of a refund that completed unsettled is due. Webhook events
// usually settle it first; the follower (server/settlementfollower.h) then backs off.
constexpr std::chrono::minutes kFirstCheck{1};

// What one piece of evidence says about an action's refund.
struct Report
{
    QString refundId;
    QString status;
    QString failureReason;
    QString source;   // attempt | lookup | webhook | reconciliation | schedule
    QString evidence; // "attempt 1", "lookup 3 (event evt_…)"
    QString actor;    // who recorded it: the executor, the reconciler, "webhook", a supervisor
};

// The source of a lookup's report: webhook, schedule (asked by the follower) or lookup.
QString sourceOf(const ProviderLookup &lookup);
inline constexpr QLatin1String kFollowerName{"settlement"};

// `after` has just become COMPLETED in this transaction: inserts its settlement (the report's
// status, then any later status an earlier lookup of the same refund already showed — an event
// that arrived before the POST's own answer) and its first change row. Opens the review item
// when that status is failed or canceled.
LedgerError startIn(QSqlDatabase &db, const QDateTime &now, const rows::ActionRow &after, const Report &report);

// `row` is COMPLETED: applies a later report. A status that supersedes the recorded one
// (settlementSupersedes) is a change: a change row, the action's row saved (its state_version
// moves: the record the API shows changed) and an audit row "settlement". The same status again
// only refreshes confirmed_at. An older status, another refund or an unrecognised status changes
// nothing (the lookup row already keeps it as evidence). An action completed before migration 14
// has no settlement yet: the report starts one. *changed tells whether the status moved.
LedgerError observeIn(QSqlDatabase &db, const QDateTime &now, rows::ActionRow &row, const Report &report,
                      bool *changed = nullptr);

// The action's settlement with its history; nullopt when it has none.
bool loadIn(QSqlDatabase &db, const QString &actionId, std::optional<Settlement> *out, LedgerError *error);

} // namespace cs::settlements
