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
// (newest first unless it sorts by another key: the backend sorts, so a sorted million-row ledger
// still opens one page at a time), loaded a page at a time through an ActionPageSource
// (canFetchMore / fetchMore), so a ledger of a million actions opens as fast as one of ten. Live
// changes (applyChange) update rows in place, insert new matching rows at their place among the
// loaded ones and refresh the counts; rows whose state leaves the filter, or whose sort key
// changed, stay where they are (updated) until the next reload, so a reviewer's selection never
// moves or disappears under them. Not thread-safe.
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

    // Dual control's progress on a row ("1 of 2"), "" when the row needs one approver or is not PENDING.
    static QString quorumText(const ActionSummary &row);
    // What a row's settlement adds to its state (issue 18), one sentence for the tooltip; "" when
    // nothing (not COMPLETED, or the refund succeeded).
    static QString settlementText(const ActionSummary &row);

    explicit ActionQueueModel(ActionPageSource *source, QObject *parent = nullptr);

    // Replaces the rows with the first page of `query` (requested at once).
    void setQuery(const ActionQuery &query);
    ActionQuery query() const { return m_query; }
    // The same query again from the first page (after a resync or a reconnect).
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
    std::function<QDateTime()> m_clock;
};

} // namespace cs
