#include "ui/attentionnotifier.h"
#include "models/displayformat.h"
#include "ui/uilog.h"

#include <QStringList>

#include <algorithm>
#include <chrono>

namespace cs {

namespace {

constexpr std::size_t at(AttentionNotifier::Kind kind)
{
    return std::size_t(kind);
}

std::optional<AttentionNotifier::Kind> kindOf(ActionState state)
{
    switch (state) {
    case ActionState::RequiresReview:
        return AttentionNotifier::Kind::Review;
    case ActionState::ConfirmationUnknown:
        return AttentionNotifier::Kind::Unknown;
    case ActionState::Pending:
        return AttentionNotifier::Kind::Approval;
    default:
        return std::nullopt;
    }
}

// An event on an action the console has not seen before is news only if it is one that puts an
// action into the state (a proposal, a transition, a recovery): a look-up recorded on an action
// long in REQUIRES_REVIEW is not. A PENDING action is new only when proposed.
bool entersState(AttentionNotifier::Kind kind, const QString &event)
{
    if (kind == AttentionNotifier::Kind::Approval)
        return event == QLatin1String("proposed");
    static const QStringList entering = { QStringLiteral("proposed"), QStringLiteral("state_changed"),
                                          QStringLiteral("review_requested"), QStringLiteral("resubmission_conflict"),
                                          QStringLiteral("recovered") };
    return entering.contains(event);
}

// Joins the parts with " · " (a separator a translation may change).
QString joined(const QStringList &parts)
{
    QString text;
    for (const QString &part : parts)
        text = text.isEmpty() ? part : AttentionNotifier::tr("%1 \u00b7 %2").arg(text, part);
    return text;
}

constexpr int MaxRemembered = 50000; // actions whose state the notifier keeps (terminal ones are dropped)

} // namespace

AttentionNotifier::AttentionNotifier(QObject *parent)
    : QObject(parent)
    , m_clock([] {
        return qint64(std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count());
    })
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &AttentionNotifier::poll);
}

QList<AttentionNotifier::Kind> AttentionNotifier::kindsFor(const QString &role)
{
    if (role == QLatin1String("approver"))
        return { Kind::Approval };
    if (role == QLatin1String("supervisor"))
        return { Kind::Review, Kind::Unknown, Kind::Settlement };
    if (role == QLatin1String("admin"))
        return { Kind::Review, Kind::Unknown, Kind::Settlement, Kind::Approval };
    return {};
}

ActionState AttentionNotifier::stateOf(Kind kind)
{
    switch (kind) {
    case Kind::Review:
        return ActionState::RequiresReview;
    case Kind::Unknown:
        return ActionState::ConfirmationUnknown;
    case Kind::Settlement:
        return ActionState::Completed;
    case Kind::Approval:
        break;
    }
    return ActionState::Pending;
}

qint64 AttentionNotifier::countOf(Kind kind, const StateCounts &counts)
{
    if (kind == Kind::Approval) // approved ones waiting for the executor are no one's to approve
        return counts.count(ActionState::Pending) - counts.queued();
    return kind == Kind::Settlement ? counts.settlementReview() : counts.count(stateOf(kind));
}

QString AttentionNotifier::countsText(const Counts &counts)
{
    QStringList parts;
    if (const qint64 n = counts.of(Kind::Review))
        parts << tr("%n to review", nullptr, int(n));
    if (const qint64 n = counts.of(Kind::Unknown))
        parts << tr("%n unconfirmed", nullptr, int(n));
    if (const qint64 n = counts.of(Kind::Settlement))
        parts << tr("%n refund(s) failed", nullptr, int(n));
    if (const qint64 n = counts.of(Kind::Approval))
        parts << tr("%n to approve", nullptr, int(n));
    return joined(parts);
}

QString AttentionNotifier::windowTitle(const Counts &counts, const QString &backend)
{
    const QString waiting = countsText(counts);
    if (waiting.isEmpty())
        return backend.isEmpty() ? tr("Countersign") : tr("Countersign \u2014 %1").arg(backend);
    return backend.isEmpty() ? tr("Countersign \u2014 %1").arg(waiting)
                             : tr("Countersign \u2014 %1 \u2014 %2").arg(waiting, backend);
}

void AttentionNotifier::setRole(const QString &role)
{
    if (role == m_role)
        return;
    // m_settlementSeen stays: an item seen open is not news for the next user either (as m_seen).
    m_role = role;
    m_kinds = kindsFor(role);
    // What waited was news for the previous user.
    clearWaiting();
    m_resyncBaseline.reset();
    setCounts(m_stateCounts);
}

void AttentionNotifier::setCounts(const StateCounts &stateCounts)
{
    m_stateCounts = stateCounts;
    Counts counts;
    for (const Kind kind : std::as_const(m_kinds))
        counts.n[at(kind)] = countOf(kind, stateCounts);

    if (m_resyncBaseline) {
        // Events were skipped: what rose beyond the events that did arrive came unseen.
        for (const Kind kind : std::as_const(m_kinds)) {
            const qint64 unseen = counts.of(kind) - m_resyncBaseline->of(kind) - m_newSinceResync[at(kind)];
            if (unseen > 0 && m_enabled) {
                if (waiting() == 0)
                    m_firstWaitingAt = m_clock();
                m_unseen[at(kind)] += int(unseen);
            }
        }
        m_resyncBaseline.reset();
        schedule();
    }

    if (counts == m_counts)
        return;
    m_counts = counts;
    emit countsChanged(m_counts);
}

void AttentionNotifier::remember(const QString &actionId, ActionState state, bool seenEntering)
{
    if (isTerminal(state)) {
        m_seen.remove(actionId); // it never waits again
        return;
    }
    if (m_seen.size() >= MaxRemembered && !m_seen.contains(actionId))
        m_seen.clear(); // a bound, not a cache policy: at worst one action is reported twice
    Seen &seen = m_seen[actionId];
    seen.state = state;
    const auto kind = kindOf(state);
    if (kind && seenEntering)
        seen.kinds |= 1u << at(*kind);
}

bool AttentionNotifier::noteChange(const ActionChange &change)
{
    const auto kind = kindOf(change.state);
    const auto known = m_seen.constFind(change.actionId);
    bool entering = false;
    if (kind) {
        if (known == m_seen.cend())
            entering = entersState(*kind, change.event);
        else if (!(known->kinds & (1u << at(*kind))))
            entering = known->state != change.state || entersState(*kind, change.event);
    }
    // Remembered whether or not this role attends to it: after a role switch it is not news.
    remember(change.actionId, change.state, entering);
    // A settlement change says nothing of its status: the action is read before deciding.
    if (change.state == ActionState::Completed && change.event == QLatin1String("settlement")
        && attends(Kind::Settlement) && !m_settlementSeen.contains(change.actionId)) {
        emit settlementToCheck(change.actionId);
        return false;
    }
    const bool news = entering && attends(*kind);
    if (!news)
        return false;
    qCDebug(lcUi) << "attention:" << change.actionId << "entered" << toWire(change.state) << "by" << change.event;
    if (m_resyncBaseline)
        ++m_newSinceResync[at(*kind)];
    if (m_enabled) {
        if (waiting() == 0)
            m_firstWaitingAt = m_clock();
        m_waiting.append({ *kind, change.actionId, std::nullopt });
        schedule();
    }
    return true;
}

bool AttentionNotifier::noteSettlement(const ActionRecord &record, const Settlement &settlement)
{
    if (record.state != ActionState::Completed || !settlement.needsReview() || m_settlementSeen.contains(record.id))
        return false;
    if (m_settlementSeen.size() >= MaxRemembered)
        m_settlementSeen.clear(); // a bound, as for m_seen: at worst one item is reported twice
    // Remembered whether or not this role attends to it: after a role switch it is not news.
    m_settlementSeen.insert(record.id);
    if (!attends(Kind::Settlement))
        return false;
    qCDebug(lcUi) << "attention:" << record.id << "refund" << settlement.refundId << settlement.status
                  << "after COMPLETED: review item open";
    if (m_resyncBaseline)
        ++m_newSinceResync[at(Kind::Settlement)];
    if (m_enabled) {
        if (waiting() == 0)
            m_firstWaitingAt = m_clock();
        m_waiting.append({ Kind::Settlement, record.id, noticeForSettlement(record, settlement) });
        schedule();
    }
    return true;
}

void AttentionNotifier::noteKnown(const QList<ActionSummary> &rows)
{
    for (const ActionSummary &row : rows) {
        remember(row.id(), row.record.state, true);
        if (row.settlementReview)
            m_settlementSeen.insert(row.id());
    }
}

void AttentionNotifier::noteResync()
{
    m_resyncBaseline = m_counts;
    m_newSinceResync = {};
}

void AttentionNotifier::setNoticesEnabled(bool enabled)
{
    m_enabled = enabled;
    if (!enabled)
        clearWaiting();
}

bool AttentionNotifier::setIntervalSeconds(int seconds)
{
    if (seconds < 0 || seconds > MaxIntervalSeconds)
        return false;
    m_intervalMs = seconds * 1000;
    schedule();
    return true;
}

int AttentionNotifier::waiting() const
{
    int n = int(m_waiting.size());
    for (const int unseen : m_unseen)
        n += unseen;
    return n;
}

void AttentionNotifier::clearWaiting()
{
    m_waiting.clear();
    m_unseen = {};
    m_timer.stop();
}

void AttentionNotifier::schedule()
{
    if (waiting() == 0) {
        m_timer.stop();
        return;
    }
    qint64 due = m_firstWaitingAt + SettleMs;
    if (m_lastNoticeAt)
        due = std::max(due, *m_lastNoticeAt + m_intervalMs);
    m_timer.start(int(std::clamp<qint64>(due - m_clock(), 0, qint64(MaxIntervalSeconds) * 1000)));
}

void AttentionNotifier::poll()
{
    if (waiting() == 0)
        return;
    const qint64 now = m_clock();
    qint64 due = m_firstWaitingAt + SettleMs;
    if (m_lastNoticeAt)
        due = std::max(due, *m_lastNoticeAt + m_intervalMs);
    if (now < due) {
        schedule();
        return;
    }
    Notice notice;
    if (m_waiting.size() == 1 && waiting() == 1) {
        const Waiting &only = m_waiting.constFirst();
        notice = only.notice ? *only.notice
                             : noticeFor(only.kind, only.actionId,
                                         m_rowLookup ? m_rowLookup(only.actionId) : std::optional<ActionSummary>());
    } else {
        std::array<int, KindCount> perKind = m_unseen;
        for (const Waiting &w : std::as_const(m_waiting))
            ++perKind[at(w.kind)];
        notice = noticeForMany(perKind);
    }
    m_lastNoticeAt = now;
    clearWaiting();
    emit noticeReady(notice);
}

QString AttentionNotifier::subjectOf(const ActionRecord &record, bool startsSentence)
{
    const QString amount = display::money(record.amount, record.currency);
    if (!record.businessReference.isEmpty())
        return startsSentence ? tr("The refund of %1 for %2").arg(amount, record.businessReference)
                              : tr("the refund of %1 for %2").arg(amount, record.businessReference);
    return startsSentence ? tr("A refund of %1").arg(amount) : tr("a refund of %1").arg(amount);
}

AttentionNotifier::Notice AttentionNotifier::noticeFor(Kind kind, const QString &actionId,
                                                       const std::optional<ActionSummary> &row)
{
    Notice notice;
    notice.actionId = actionId;
    notice.kind = kind;
    switch (kind) {
    case Kind::Review:
        // In words: the amount and the order; why (the provider's answers) is in the detail.
        notice.title = tr("Review needed");
        notice.text = row ? tr("%1 needs a person to decide what happened; nothing is sent again until then.")
                                .arg(subjectOf(row->record))
                          : tr("%1 needs review").arg(actionId);
        break;
    case Kind::Unknown:
        notice.title = tr("Outcome unknown");
        notice.text = row ? tr("Whether %1 went through is not known yet; Countersign is finding out.")
                                .arg(subjectOf(row->record, false))
                          : tr("Whether %1 went through is not known yet").arg(actionId);
        break;
    case Kind::Approval:
        notice.title = tr("Approval awaited");
        notice.text = row ? tr("%1 awaits approval, requested by %2").arg(subjectOf(row->record), row->record.requestedBy)
                          : tr("%1 awaits approval").arg(actionId);
        break;
    case Kind::Settlement:
        notice.title = tr("Refund failed");
        notice.text = tr("The refund of %1 failed after it was accepted: the customer has not been refunded").arg(actionId);
        break;
    }
    return notice;
}

AttentionNotifier::Notice AttentionNotifier::noticeForSettlement(const ActionRecord &record, const Settlement &settlement)
{
    Notice notice;
    notice.actionId = record.id;
    notice.kind = Kind::Settlement;
    notice.title = tr("Refund failed");
    // The provider's word in brackets: its failure_reason, or "canceled" when it gave none.
    const QString why = settlement.failureReason.isEmpty() ? settlement.status : settlement.failureReason;
    const QString order = record.businessReference.trimmed();
    if (settlement.refundId.isEmpty())
        notice.text = tr("The refund of %1 failed after it was accepted (%2): the customer has not been refunded")
                          .arg(record.id, why);
    else if (order.isEmpty())
        notice.text = tr("Refund %1 of %2 failed after it was accepted (%3): the customer has not been refunded")
                          .arg(settlement.refundId, record.id, why);
    else
        notice.text = tr("Refund %1 for order %2 failed after it was accepted (%3): the customer has not been refunded")
                          .arg(settlement.refundId, order, why);
    return notice;
}

AttentionNotifier::Notice AttentionNotifier::noticeForMany(const std::array<int, KindCount> &perKind)
{
    Notice notice;
    notice.title = tr("Countersign: new work");
    QStringList parts;
    int kinds = 0;
    for (const Kind kind : { Kind::Review, Kind::Unknown, Kind::Settlement, Kind::Approval }) {
        const int n = perKind[at(kind)];
        if (n <= 0)
            continue;
        ++kinds;
        notice.kind = kind;
        switch (kind) {
        case Kind::Review:
            parts << tr("%n new to review", nullptr, n);
            break;
        case Kind::Unknown:
            parts << tr("%n new unconfirmed", nullptr, n);
            break;
        case Kind::Approval:
            parts << tr("%n new to approve", nullptr, n);
            break;
        case Kind::Settlement:
            parts << tr("%n new failed refund(s)", nullptr, n);
            break;
        }
    }
    if (kinds != 1)
        notice.kind.reset();
    notice.text = joined(parts);
    return notice;
}

} // namespace cs
