#pragma once

#include "models/actionchange.h"
#include "models/actionpagesource.h"
#include "models/actionquery.h"
#include "models/actionsummary.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <optional>

#include <functional>

namespace cs {

// The action queue: rows of the backend's action list for one ActionQuery, in the query's order
// (the backend sorts, so a sorted million-row ledger still opens one page at a time), loaded a page
// at a time through an ActionPageSource (canFetchMore / fetchMore), so a ledger of a million
// actions opens as fast as one of ten. Live changes (applyChange) update rows in place, insert new
// matching rows at their place among the loaded ones (announced by arrived()) and refresh the
// counts. A row that leaves the query (decided, or moved to a state the filter does not show)
// leaves the list at once — unless it is pinned (the row a person is reading or has selected:
// setPinned), which stays, updated, until it is no longer pinned. Rows whose sort key changed stay
// where they are until the next reload. reload() reads the list again without a reset: the rows
// are merged in place (inserted, removed, moved, updated), so a view's selection and scroll
// position survive a refresh or a reconnection. Not thread-safe.
class ActionQueueModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        StateColumn,
        AmountColumn,
        TargetColumn,
        OrderColumn,
        AgentColumn,
        AgeColumn,
        AttemptsColumn,
        LastEventColumn,
        IdColumn,
        ColumnCount
    };
    Q_ENUM(Column)

    // The backend sort key a column's header sorts by; none for the other columns. The age
    // column sorts by creation (ascending age = newest first).
    static std::optional<ActionQuery::SortKey> sortKeyForColumn(int column);
    static int columnForSortKey(ActionQuery::SortKey key);

    enum Role {
        ActionRole = Qt::UserRole + 1, // cs::ActionSummary
        ActionIdRole,                  // QString
        StateRole,                     // int(cs::ActionState)
        PossibleDuplicatesRole,        // int: ActionSummary::possibleDuplicates (issue 14)
        QuorumRole,                    // QString: "1 of 2" for a PENDING row under dual control, else ""
        SettlementStatusRole,          // QString: a COMPLETED row's refund status at the provider, else "" (issue 18)
        SettlementReviewRole,          // bool: its refund failed or was canceled afterwards, review item open
    };

    static constexpr int DefaultPageSize = 100;

    // Whether the row still needs a person's decision that `user` may give: a PENDING action not
    // approved yet (no key minted; and not signed by `user` under dual control), one whose confirmation is
    // unknown or that requires review, a failed refund or a discrepancy still open.
    static bool awaitsDecision(const ActionSummary &row, const QString &user);
    // Dual control's progress on a row ("1 of 2"), "" when the row needs one approver or is not PENDING.
    static QString quorumText(const ActionSummary &row);
    // What a row's settlement adds to its state (issue 18), one sentence for the tooltip; "" when
    // nothing (not COMPLETED, or the refund succeeded).
    static QString settlementText(const ActionSummary &row);

    explicit ActionQueueModel(ActionPageSource *source, QObject *parent = nullptr);

    // Replaces the rows with the first page of `query` (requested at once).
    void setQuery(const ActionQuery &query);
    ActionQuery query() const { return m_query; }
    // The same query again, read from the first page down to as many rows as are loaded now, then
    // merged into the loaded rows in place (no model reset): rows the backend no longer lists go,
    // new ones come at their place, moved ones move, changed ones change. Pinned rows stay.
    void reload();
    // After a failed page: asks for it again.
    void retry();

    void setPageSize(int rows);
    int pageSize() const { return m_pageSize; }

    StateCounts counts() const { return m_counts; }
    bool isLoading() const { return m_pageTicket != 0; }
    bool hasFailed() const { return !m_lastError.isEmpty(); }
    QString lastError() const { return m_lastError; }
    bool hasMore() const { return m_hasMore; }

    int rowOf(const QString &actionId) const; // -1 when not loaded
    ActionSummary summary(int row) const { return m_rows.at(row); }

    // Live update from the event stream.
    void applyChange(const ActionChange &change);
    // Asks the source for the action's current row and updates (or inserts) it.
    void refreshAction(const QString &actionId);
    // The rows a person holds (the view's current and selected rows). A pinned row that leaves the
    // query stays until it is unpinned; then it goes.
    void setPinned(const QSet<QString> &actionIds);
    QSet<QString> pinned() const { return m_pinned; }
    // Whether a loaded row no longer belongs to the query and stays only because it is pinned.
    bool hasLeft(const QString &actionId) const { return m_left.contains(actionId); }
    // Updates (or inserts, when it matches the query) a row the caller already has, e.g. from a
    // mutation's response. Older versions than the row's are ignored.
    void updateSummary(const ActionSummary &summary);

    // The clock the Age and Last event columns count from (tests inject one).
    void setClock(std::function<QDateTime()> clock);
    // Re-announces the time-relative columns (call every few seconds).
    void refreshRelativeTimes();

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;
    QHash<int, QByteArray> roleNames() const override;

signals:
    void countsChanged(const cs::StateCounts &counts);
    void pageLoaded(int rowsAdded, bool hasMore);
    void loadFailed(const QString &message);
    void loadingChanged(bool loading);
    // An action entered the list live (proposed, or moved into the filter's states): `loaded` when
    // its row was inserted among the loaded ones, false when its place is beyond them (it comes
    // with a later page).
    void arrived(const QString &actionId, bool loaded);
    // refreshAction()'s answer has been applied (found: the action exists and may be seen).
    void summaryAnswered(const QString &actionId, bool found);

private:
    void requestPage();
    void onPageReady(quint64 ticket, const ActionPage &page);
    void onPageFailed(quint64 ticket, const QString &message);
    void onSummaryReady(quint64 ticket, const ActionSummary &summary);
    void onSummaryFailed(quint64 ticket, const QString &actionId, bool notFound, const QString &message);
    void scheduleCountsRefresh();
    void setCounts(const StateCounts &counts);
    int insertPosition(const ActionSummary &summary) const;
    void rebuildIndex();
    void replaceRow(int row, const ActionSummary &summary);
    void removeRowAt(int row);
    // Pinned rows that left stay; others go.
    void leaveIfOutside(const QString &actionId);
    void finishReload();
    void mergeRows(QList<ActionSummary> fresh);

    QPointer<ActionPageSource> m_source;
    ActionQuery m_query;
    int m_pageSize = DefaultPageSize;
    QList<ActionSummary> m_rows;
    QHash<QString, int> m_rowById;
    QString m_cursor;
    bool m_hasMore = false;
    quint64 m_pageTicket = 0;   // the page request in flight, 0 when none
    quint64 m_countsTicket = 0; // the counts-only request in flight
    QString m_lastError;
    StateCounts m_counts;
    QHash<quint64, QString> m_summaryTickets; // ticket → action id
    QSet<QString> m_summaryInFlight;
    QSet<QString> m_summaryDirty;             // changed again while a request was in flight
    QTimer m_countsTimer;
    QSet<QString> m_pinned;
    QSet<QString> m_left;           // loaded, no longer matching, kept because pinned
    QSet<QString> m_liveRequests;   // summaries asked for because of a live change
    // reload(): the pages read so far, down to m_reloadDepth rows, merged when complete.
    bool m_reloading = false;
    int m_reloadDepth = 0;
    QList<ActionSummary> m_staged;
    QString m_stagedCursor;
    std::function<QDateTime()> m_clock;
};

} // namespace cs
