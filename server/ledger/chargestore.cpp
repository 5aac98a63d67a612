#include "server/ledger/chargestore.h"

#include "models/refundstatus.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerrows.h"

#include <QSet>

#include <algorithm>

namespace cs {

using namespace sql;
using namespace rows;

namespace {

// The budget's key: the charge a FOUND snapshot names, else the target asked about.
QString chargeKeyOf(const ChargeSnapshot &snapshot)
{
    if (snapshot.result == ChargeSnapshot::Result::Found && !snapshot.chargeId.isEmpty())
        return snapshot.chargeId;
    return snapshot.targetId;
}

LedgerError checkSnapshot(const ChargeSnapshot &s)
{
    LedgerError e = requireText(s.targetId, QStringLiteral("target_id"));
    if (e.ok())
        e = requireText(s.askedBy, QStringLiteral("asked_by"));
    if (e.ok() && s.result == ChargeSnapshot::Result::Found
        && (s.chargeId.isEmpty() || s.currency.isEmpty() || s.amountCaptured < 0 || s.amountRefunded < 0)) {
        e = err(Code::Invalid, QStringLiteral("a FOUND charge snapshot needs the charge's id, currency and amounts"));
    }
    return e;
}

// The newest stored snapshot matching `where` (bound to `values`), FOUND or not.
bool newestSnapshot(QSqlDatabase &db, const QString &where, const QVariantList &values,
                    std::optional<ChargeStore::Recorded> *out, LedgerError *e)
{
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT seq, snapshot FROM charge_snapshots WHERE %1 ORDER BY read_at DESC, seq DESC LIMIT 1")
                    .arg(where),
             values, e)) {
        return false;
    }
    out->reset();
    if (!q.next())
        return true;
    QString why;
    const std::optional<ChargeSnapshot> parsed = ChargeSnapshot::fromJson(parseJson(q.value(1).toString()), &why);
    if (!parsed) {
        *e = err(Code::Storage, QStringLiteral("a stored charge snapshot does not parse: ") + why);
        return false;
    }
    *out = ChargeStore::Recorded{*parsed, q.value(0).toInt()};
    return true;
}

} // namespace

LedgerError ChargeStore::recordIn(QSqlDatabase &db, const QDateTime &now, const ChargeSnapshot &snapshot, Recorded *out)
{
    LedgerError e = checkSnapshot(snapshot);
    if (!e.ok())
        return e;
    const QString key = chargeKeyOf(snapshot);
    Statement q(db);
    if (!run(q, QStringLiteral("INSERT INTO charges (charge_key, first_read_at) VALUES (?, ?) ON CONFLICT (charge_key) DO NOTHING"),
             {key, toMs(now)}, &e)) {
        return e;
    }
    Statement lock(db);
    if (!run(lock, QStringLiteral("SELECT charge_key FROM charges WHERE charge_key = ?") + rowLock(db), {key}, &e))
        return e;
    Statement next(db);
    if (!run(next, QStringLiteral("SELECT COALESCE(MAX(seq), 0) + 1 FROM charge_snapshots WHERE charge_key = ?"), {key}, &e)
        || !next.next()) {
        return e.ok() ? err(Code::Storage, QStringLiteral("cannot number the charge snapshot")) : e;
    }
    Recorded stored{snapshot, next.value(0).toInt()};
    stored.snapshot.excerpt = truncated(snapshot.excerpt, kExcerptLimit);
    if (!stored.snapshot.readAt.isValid())
        stored.snapshot.readAt = now;
    const QJsonObject json = stored.snapshot.toJson();
    Statement insert(db);
    if (!run(insert, QStringLiteral("INSERT INTO charge_snapshots (charge_key, seq, target_type, target_id, asked_by, read_at,"
                                    " result, currency, amount_captured, amount_refunded, snapshot)"
                                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
             {key, stored.seq, toWire(snapshot.targetType), snapshot.targetId, snapshot.askedBy,
              toMs(stored.snapshot.readAt), toWire(snapshot.result), text(snapshot.currency.toLower()),
              snapshot.amountCaptured, snapshot.amountRefunded, compactJson(json)},
             &e)) {
        return e;
    }
    QJsonObject after = json;
    after.insert(QLatin1String("seq"), stored.seq);
    const QString reason = snapshot.result == ChargeSnapshot::Result::Found
        ? QStringLiteral("%1 read: captured %2, refunded %3 (%4), %5 refund(s)%6")
              .arg(key)
              .arg(snapshot.amountCaptured)
              .arg(snapshot.amountRefunded)
              .arg(snapshot.currency)
              .arg(snapshot.refunds.size())
              .arg(snapshot.disputed ? QStringLiteral(", disputed") : QString())
        : QStringLiteral("%1 read: %2").arg(snapshot.targetId, toWire(snapshot.result));
    e = AuditChain::append(db, now, QString(), snapshot.askedBy, QStringLiteral("charge_read"), reason, {}, after);
    if (e.ok())
        *out = stored;
    return e;
}

LedgerError ChargeStore::budgetIn(QSqlDatabase &db, TargetType targetType, const QString &targetId,
                                  ChargeBudget::Stage stage, const QString &excludingActionId, ChargeBudget *out)
{
    *out = ChargeBudget();
    out->stage = stage;
    LedgerError e;
    // The charge: the target itself, or the charge a payment intent's snapshot named.
    QString key = targetId;
    if (targetType == TargetType::PaymentIntent) {
        Statement resolve(db);
        if (!run(resolve, QStringLiteral("SELECT charge_key FROM charge_snapshots WHERE target_id = ? AND result = 'FOUND'"
                                         " ORDER BY read_at DESC, seq DESC LIMIT 1"),
                 {targetId}, &e)) {
            return e;
        }
        if (!resolve.next()) {
            out->paymentIntentId = targetId;
            return {}; // never read: not known
        }
        key = resolve.value(0).toString();
    }
    out->chargeId = key;
    // The lock first: everything read after it is what is committed once it was granted.
    Statement lock(db);
    if (!run(lock, QStringLiteral("SELECT charge_key FROM charges WHERE charge_key = ?") + rowLock(db), {key}, &e))
        return e;
    if (!lock.next())
        return {}; // never read: not known
    std::optional<Recorded> newest;
    if (!newestSnapshot(db, QStringLiteral("charge_key = ? AND result = 'FOUND'"), {key}, &newest, &e))
        return e;
    if (!newest)
        return {};
    const ChargeSnapshot &s = newest->snapshot;
    out->known = true;
    out->paymentIntentId = s.paymentIntentId;
    out->currency = s.currency.toLower();
    out->snapshotSeq = newest->seq;
    out->readAt = s.readAt;
    out->captured = s.amountCaptured;
    out->refundedAtProvider = s.amountRefunded;

    QSet<QString> seenActions;
    QSet<QString> seenRefunds;
    for (const ChargeSnapshot::Refund &r : s.refunds) {
        seenRefunds.insert(r.id);
        if (!r.actionId.isEmpty())
            seenActions.insert(r.actionId);
    }
    const QString intent = s.paymentIntentId.isEmpty() ? key : s.paymentIntentId;
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT a.id, a.state, a.amount, a.currency, a.requested_by, a.created_at,"
                               " a.approval_version, a.idempotency_key,"
                               " (SELECT t.provider_object_id FROM attempts t WHERE t.action_id = a.id"
                               "   AND t.outcome = 'succeeded' ORDER BY t.seq DESC LIMIT 1),"
                               " s.status, s.refund_id"
                               " FROM actions a LEFT JOIN settlements s ON s.action_id = a.id"
                               " WHERE a.target_id IN (?, ?) AND a.state <> 'REJECTED' AND a.id <> ?"
                               " ORDER BY a.created_at, a.id"),
             {key, intent, text(excludingActionId)}, &e)) {
        return e;
    }
    while (q.next()) {
        ChargeBudget::Reservation r;
        r.actionId = q.value(0).toString();
        const std::optional<ActionState> state = stateFromWire(q.value(1).toString());
        if (!state)
            return err(Code::Storage, QStringLiteral("%1 has an unknown state").arg(r.actionId));
        r.state = *state;
        r.amount = q.value(2).toLongLong();
        r.currency = q.value(3).toString();
        r.requestedBy = q.value(4).toString();
        r.createdAt = fromMs(q.value(5).toLongLong());
        r.approved = q.value(6).toInt() > 0 && !q.value(7).toString().isEmpty();
        const QString refundId = q.value(8).toString();
        const bool settlementFailed = provesNotCommitted(q.value(9).toString()); // issue 18
        const QString settledRefundId = q.value(10).toString();
        bool held = true;
        switch (r.state) {
        case ActionState::Completed:
            // Already in the provider's refunded amount when the snapshot lists its refund; nothing
            // at all once its refund failed or was canceled after completion (issue 18: the money
            // came back to the charge, and a follow-up may ask for it again).
            held = !seenActions.contains(r.actionId) && (refundId.isEmpty() || !seenRefunds.contains(refundId))
                && !settlementFailed;
            // A read taken before the refund failed still counts it in amount_refunded; the
            // settlement is the newer word, so what that read counted is given back here too.
            if (settlementFailed) {
                for (const ChargeSnapshot::Refund &listed : s.refunds) {
                    if (listed.id == settledRefundId && listed.counts())
                        out->refundedAtProvider = std::max<qint64>(0, out->refundedAtProvider - listed.amount);
                }
            }
            break;
        case ActionState::Pending:
            held = stage == ChargeBudget::Stage::Proposal || (stage == ChargeBudget::Stage::Approval && r.approved);
            break;
        case ActionState::Rejected:
            held = false;
            break;
        case ActionState::Executing:
        case ActionState::ConfirmationUnknown:
        case ActionState::RequiresReview:
            break;
        }
        if (!held)
            continue;
        out->reserved += r.amount;
        out->reservations << r;
    }
    return {};
}

LedgerError ChargeStore::requireRoomIn(QSqlDatabase &db, const ActionRecord &action, ChargeBudget::Stage stage,
                                       const QString &what)
{
    ChargeBudget budget;
    LedgerError e = budgetIn(db, action.targetType, action.targetId, stage, action.id, &budget);
    if (!e.ok() || budget.fits(action.amount, action.currency))
        return e;
    QJsonObject detail = budget.toJson();
    detail.insert(QLatin1String("requested"), QJsonValue(action.amount));
    detail.insert(QLatin1String("requested_currency"), action.currency);
    return LedgerError(Code::OverBudget,
                       QStringLiteral("%1: over the charge's refundable amount: %2")
                           .arg(what, budget.describe(action.amount, action.currency)),
                       detail);
}

LedgerResult<ChargeStore::Recorded> ChargeStore::record(const ChargeSnapshot &snapshot)
{
    LedgerError error = checkSnapshot(snapshot);
    if (!error.ok())
        return error;
    Recorded out;
    error = m_db.write("recordChargeSnapshot", [&](QSqlDatabase &db, const QDateTime &now) {
        return recordIn(db, now, snapshot, &out);
    });
    return resultOf(error, out);
}

LedgerResult<std::optional<ChargeStore::Recorded>> ChargeStore::latest(const QString &targetId) const
{
    std::optional<Recorded> out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        newestSnapshot(db, QStringLiteral("target_id = ?"), {targetId}, &out, &e);
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<std::optional<ChargeStore::Recorded>> ChargeStore::shown(TargetType targetType,
                                                                      const QString &targetId) const
{
    std::optional<Recorded> out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        QString key = targetId;
        if (targetType == TargetType::PaymentIntent) {
            std::optional<Recorded> viaIntent;
            if (!newestSnapshot(db, QStringLiteral("target_id = ? AND result = 'FOUND'"), {targetId}, &viaIntent, &e))
                return e;
            if (viaIntent)
                key = viaIntent->snapshot.chargeId;
        }
        if (!newestSnapshot(db, QStringLiteral("charge_key = ? AND result = 'FOUND'"), {key}, &out, &e))
            return e;
        if (!out)
            newestSnapshot(db, QStringLiteral("target_id = ?"), {targetId}, &out, &e);
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<ChargeBudget> ChargeStore::budget(TargetType targetType, const QString &targetId, ChargeBudget::Stage stage,
                                               const QString &excludingActionId) const
{
    ChargeBudget out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        return budgetIn(db, targetType, targetId, stage, excludingActionId, &out);
    });
    return resultOf(error, out);
}

} // namespace cs
