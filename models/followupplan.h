#pragma once

#include "models/actiondetail.h"

#include <QList>
#include <QString>

#include <optional>

namespace cs {

// What a follow-up adjustment would refund: the desired total minus what provider evidence says
// the original action and its earlier follow-ups committed (DESIGN.md, "Follow-ups"). The
// console shows the parts and refuses while any outcome is unknown; the backend computes the
// same figure again and is the one that decides.
struct FollowUpPlan
{
    struct Part
    {
        QString actionId;
        bool isParent = false;
        ActionState state = ActionState::Pending;
        std::optional<qint64> committed; // minor units; nothing while unknown
        QString basis;                   // where the figure comes from, for a human
    };

    QString currency;
    QList<Part> parts;
    qint64 committed = 0;   // sum of the known parts
    bool possible = false;  // every outcome known and the action is an original
    QString blockedReason;  // why not, for a human

    // followUps: details of the parent's follow-ups; a follow-up listed in parent.followUps
    // without a detail counts by its summary (COMPLETED: its amount, REJECTED: 0).
    static FollowUpPlan compute(const ActionDetail &parent, const QList<ActionDetail> &followUps = {});

    // desired − committed, or nothing when not possible. May be ≤ 0 (nothing remains).
    std::optional<qint64> remainder(qint64 desiredTotal) const;
};

} // namespace cs
