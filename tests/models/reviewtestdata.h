#pragma once

// Shared by the tests of what the console says about an action in review (tst_reviewexplanation,
// tst_reviewevidence): a 40.00 USD refund of ch_1 on paysim whose one attempt's answer was lost,
// stopped for review by the reconciler at `stoppedAt` with the server's `reason` — the record, the
// attempt, the key window and the audit event of the stop. Look-ups are each test's own.

#include "models/actiondetail.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>

namespace cs::test {

inline ActionDetail stoppedForReview(const QString &id, const QDateTime &t0, const QDateTime &stoppedAt, const QString &reason)
{
    ActionDetail d;
    ActionRecord &r = d.record;
    r.id = id;
    r.targetId = QStringLiteral("ch_1");
    r.amount = 4000;
    r.currency = QStringLiteral("usd");
    r.provider = QStringLiteral("paysim");
    r.requestedBy = QStringLiteral("agent-7");
    r.approvalVersion = 1;
    r.state = ActionState::RequiresReview;
    r.reviewReason = reason;
    r.createdAt = t0.addSecs(-120);
    r.updatedAt = stoppedAt;
    Attempt a;
    a.actionId = r.id;
    a.seq = 1;
    a.startedAt = t0.addSecs(-60);
    a.finishedAt = t0.addSecs(-50);
    a.outcome = Attempt::Outcome::Unknown;
    a.errorExcerpt = QStringLiteral("connection reset");
    d.attempts = { a };
    d.keyWindowEndsAt = t0.addSecs(24 * 3600);
    AuditEvent stop;
    stop.actionId = r.id;
    stop.at = stoppedAt;
    stop.actor = QStringLiteral("reconciler");
    stop.event = QStringLiteral("state_changed");
    stop.reason = reason;
    stop.before = QJsonObject{ { QStringLiteral("state"), QStringLiteral("CONFIRMATION_UNKNOWN") } };
    stop.after = QJsonObject{ { QStringLiteral("state"), QStringLiteral("REQUIRES_REVIEW") } };
    d.audit = { stop };
    return d;
}

} // namespace cs::test
