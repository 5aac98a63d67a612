#pragma once

#include "server/api/actionpolicy.h"
#include "server/ledger/actionreader.h"
#include "server/ledger/approvalstore.h"

#include "models/actionrecord.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QMap>

#include <chrono>

namespace cs {

// The API's JSON views of actions (resources/openapi.yaml: Action, ActionSummary, StateCounts,
// Permissions). The wire shapes the console reads back are written by models/ (ActionRecord,
// ActionSummary, StateCounts::toJson): these views only add what the record does not know.
class ActionViews
{
public:
    // keyWindow − safetyMargin after the first attempt's start is when same-key retries stop.
    ActionViews(std::chrono::milliseconds keyWindow, std::chrono::milliseconds safetyMargin);

    // `Action`: the record plus key_window_ends_at (null until the first attempt).
    QJsonObject action(const ActionRecord &record, const QDateTime &firstAttemptAt) const;
    QDateTime keyWindowEndsAt(const QDateTime &firstAttemptAt) const;

    // ActionSummary::toJson of the row. `counts` must name every state (ActionReader::counts does);
    // a missing one is written as 0.
    // A list row; with `quorum` (a PENDING action under dual control), "1 of 2" too.
    static QJsonObject summary(const ActionReader::Summary &summary, const ApprovalStore::Quorum *quorum = nullptr);
    // related.possible_duplicates of an action detail: each PossibleDuplicate::toJson (the row,
    // relation "possible_duplicate", what is shared, the sentence with its age relative to `now`).
    static QJsonArray possibleDuplicates(const ActionRecord &of, const QList<ActionReader::PossibleDuplicate> &duplicates,
                                         const QDateTime &now);
    // StateCounts: one per state, and settlement_review (issue 18: not a state).
    // ... and discrepancies (issue 33: final actions the provider contradicts, open), and queued
    // (PENDING actions approved and waiting for the executor: part of PENDING's count).
    static QJsonObject counts(const QMap<ActionState, qint64> &counts, qint64 settlementReview = 0,
                              qint64 discrepancies = 0, qint64 queued = 0);
    static QJsonObject permission(const ActionPolicy::Verdict &verdict);

private:
    std::chrono::milliseconds m_keyWindow;
    std::chrono::milliseconds m_safetyMargin;
};

} // namespace cs
