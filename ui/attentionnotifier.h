#pragma once

#include "models/actionchange.h"
#include "models/actionstate.h"
#include "models/actionsummary.h"
#include "models/settlement.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QObject>
#include <QString>
#include <QTimer>

#include <array>
#include <functional>
#include <optional>

namespace cs {

// What asks for the signed-in user's attention, and when to say so (issue 17, "Notifications").
//
// An approver is asked to approve new PENDING actions; a supervisor to look at actions that
// entered CONFIRMATION_UNKNOWN or REQUIRES_REVIEW, and at COMPLETED actions whose refund failed or
// was canceled afterwards (issue 18: a settlement review item, docs/SETTLEMENT.md); an admin all
// of it; agents and auditors nothing.
// The counts come from the backend's list counts (setCounts: GET /actions `counts`, every action
// the user may see whatever the queue's filter; `settlement_review` for the review items), so they
// are right after a reconnect; the event stream only says what changed (noteChange) and gives a
// notice its text.
//
// A settlement review item is not a state: the stream only says that a COMPLETED action's
// settlement changed (event "settlement"), not to what. noteChange then asks for the action
// (settlementToCheck); the caller reads it and hands its settlement to noteSettlement, which
// decides whether a review item opened. Each action's item opens at most once (the ledger never
// reopens one), so it is reported at most once.
//
// A notice is due a short settle time after the first change it reports (so that the queue has
// read the action's row for its text) and never sooner than the interval after the previous one;
// changes meanwhile collapse into one notice ("3 new to review"). Each action is reported at most
// once per state: an action enters each of the three states at most once (the state machine).
// Pure logic: no widgets, a clock that tests replace, poll() does what the timer would.
//
// Limits: the approval count is the backend's PENDING count, which also holds actions approved
// but not yet claimed by the executor (for a moment, or while execution is paused); the list
// counts carry no finer split. Not thread-safe.
class AttentionNotifier : public QObject
{
    Q_OBJECT

public:
    // Settlement: a refund that failed or was canceled after COMPLETED, its review item open.
    enum class Kind { Review, Unknown, Approval, Settlement };
    Q_ENUM(Kind)
    static constexpr int KindCount = 4;

    // How many actions of each kind wait for the signed-in user (0 for kinds the role does not do).
    struct Counts
    {
        std::array<qint64, KindCount> n{};
        qint64 of(Kind kind) const { return n[std::size_t(kind)]; }
        qint64 total() const { return n[0] + n[1] + n[2] + n[3]; }
        friend bool operator==(const Counts &, const Counts &) = default;
    };

    // One desktop notice. actionId is set when it reports one action (clicking it opens that
    // action); kind is the kind of everything it reports, or nothing when it mixes kinds.
    struct Notice
    {
        QString title;
        QString text;
        QString actionId;
        std::optional<Kind> kind;
    };

    static constexpr int SettleMs = 1000;
    static constexpr int DefaultIntervalSeconds = 30;
    static constexpr int MaxIntervalSeconds = 3600;

    explicit AttentionNotifier(QObject *parent = nullptr);

    // The kinds a role attends to ("approver", "supervisor", "admin"; others none).
    static QList<Kind> kindsFor(const QString &role);
    // The state an action is in while it waits as `kind` (COMPLETED for Settlement).
    static ActionState stateOf(Kind kind);
    // How many actions wait as `kind` by the backend's counts.
    static qint64 countOf(Kind kind, const StateCounts &counts);
    // "3 to review · 1 unconfirmed · 1 refund failed · 2 to approve" (the parts that are not zero);
    // "" when nothing waits.
    static QString countsText(const Counts &counts);
    // "Countersign — 3 to review · 2 to approve — http://127.0.0.1:8470", without the middle
    // part when nothing waits and without the backend when it is empty.
    static QString windowTitle(const Counts &counts, const QString &backend);

    void setRole(const QString &role);
    QString role() const { return m_role; }
    // The backend's counts per state (all six, every action the user may see).
    void setCounts(const StateCounts &counts);
    Counts counts() const { return m_counts; }

    // One `action.changed` event: whether it is an action entering a state the role attends to
    // (it then waits in the next notice); returns that decision.
    bool noteChange(const ActionChange &change);
    // The settlement of a COMPLETED action, read after settlementToCheck (`record` for the
    // notice's text): whether a review item opened that the role attends to (it then waits in the
    // next notice); returns that decision.
    bool noteSettlement(const ActionRecord &record, const Settlement &settlement);
    // Rows the queue has read (a page): their states are known, so a later event on one of them
    // that does not change its state is not news; a row whose review item is open is not news either.
    void noteKnown(const QList<ActionSummary> &rows);
    // The event stream skipped events (`resync`): the next counts say how many arrived unseen.
    void noteResync();

    // Desktop notices on or off (counts and the title go on either way). Off drops what waits.
    void setNoticesEnabled(bool enabled);
    bool noticesEnabled() const { return m_enabled; }
    // At most one notice per this many seconds (0..MaxIntervalSeconds; other values are refused
    // and false returned).
    bool setIntervalSeconds(int seconds);
    int intervalSeconds() const { return m_intervalMs / 1000; }

    // The row of an action, when the console has it, for a notice's text (reason, amount, agent).
    void setRowLookup(std::function<std::optional<ActionSummary>(const QString &)> lookup)
    {
        m_rowLookup = std::move(lookup);
    }
    // Milliseconds on a steady clock (tests replace it).
    void setClock(std::function<qint64()> clock) { m_clock = std::move(clock); }
    // Emits the notice now if one is due; what the timer calls.
    void poll();
    // How many changes wait for the next notice.
    int waiting() const;

    // The text of a notice about one action (its row, if known, for the reason or the amount).
    static Notice noticeFor(Kind kind, const QString &actionId, const std::optional<ActionSummary> &row);
    // "The refund of 40.00 USD for order-1042" (or "A refund of 40.00 USD" without an order): what
    // a notice is about, in the words people use; `startsSentence` false gives it in lower case.
    static QString subjectOf(const ActionRecord &record, bool startsSentence = true);
    // The text of a notice about a refund that failed after COMPLETED.
    static Notice noticeForSettlement(const ActionRecord &record, const Settlement &settlement);
    // The text of a notice about several: how many of each kind.
    static Notice noticeForMany(const std::array<int, KindCount> &perKind);

signals:
    void countsChanged(const cs::AttentionNotifier::Counts &counts);
    void noticeReady(const cs::AttentionNotifier::Notice &notice);
    // A COMPLETED action's settlement changed and the role attends to review items: read the
    // action and pass its settlement to noteSettlement.
    void settlementToCheck(const QString &actionId);

private:
    struct Waiting
    {
        Kind kind;
        QString actionId;
        std::optional<Notice> notice; // its text when known already (a settlement's)
    };
    bool attends(Kind kind) const { return m_kinds.contains(kind); }
    void schedule();
    void clearWaiting();
    // seenEntering: the action is known to be in `state` already (a page showed it, or an event
    // put it there), so later events in that state are not news.
    void remember(const QString &actionId, ActionState state, bool seenEntering);

    QString m_role;
    QList<Kind> m_kinds;
    StateCounts m_stateCounts;
    Counts m_counts;
    bool m_enabled = true;
    int m_intervalMs = DefaultIntervalSeconds * 1000;
    std::function<std::optional<ActionSummary>(const QString &)> m_rowLookup;
    std::function<qint64()> m_clock;

    // Each action's last known state, and the attention states it was seen entering (bit per Kind).
    struct Seen
    {
        ActionState state;
        unsigned kinds = 0;
    };
    QHash<QString, Seen> m_seen;
    // Actions whose settlement review item was seen open (a page showed it, or it was reported):
    // kept apart from m_seen, which forgets COMPLETED actions.
    QSet<QString> m_settlementSeen;

    QList<Waiting> m_waiting;
    std::array<int, KindCount> m_unseen{}; // counted after a resync, without an action id
    qint64 m_firstWaitingAt = 0;
    std::optional<qint64> m_lastNoticeAt;
    std::optional<Counts> m_resyncBaseline;
    std::array<int, KindCount> m_newSinceResync{}; // already waiting by their events
    QTimer m_timer;
};

} // namespace cs

Q_DECLARE_METATYPE(cs::AttentionNotifier::Counts)
Q_DECLARE_METATYPE(cs::AttentionNotifier::Notice)
