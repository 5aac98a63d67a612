#pragma once

#include "models/actionquery.h"
#include "models/actionsummary.h"

#include <QHash>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QButtonGroup;
class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;
class QTableView;

namespace cs {

class ActionQueueModel;

// The queue: quick state filters with their counts (and "Refund failed", issue 18), a text search (order, charge, action id,
// agent) and the sortable table of actions. Filters, search and sort order (the amount, age,
// attempts and last-event headers) go to the backend through the model's query; the table shows
// what the model has loaded and asks for more as it scrolls.
// Keeps the selected action selected across live updates, pages and reloads, and keeps the
// visible rows in place when new ones arrive above them. Several rows may be selected for a
// bulk decision; the current one is the action shown.
class QueueView : public QWidget
{
    Q_OBJECT

public:
    // RefundFailed (issue 18): COMPLETED actions whose refund failed or was canceled afterwards
    // and whose review item is open (GET /actions?settlement=review).
    // TwoRefunds (issue 33): final actions the provider contradicts — two refunds for one action,
    // or a refund that contradicts it — not closed yet (GET /actions?discrepancy=open).
    enum class Filter { Queue, Pending, Unknown, Review, All, RefundFailed, TwoRefunds };
    Q_ENUM(Filter)

    explicit QueueView(ActionQueueModel *model, QWidget *parent = nullptr);

    static QString filterName(Filter filter);   // "queue", "pending", ...
    static Filter filterFromName(const QString &name);
    static ActionQuery queryFor(Filter filter, const QString &search);

    Filter filter() const { return m_filter; }
    QString searchText() const;
    // Sets filter and search and asks the model for the first page.
    void apply(Filter filter, const QString &search);
    // Sets the order (what a header click does) and asks for the first page in it.
    void setSort(ActionQuery::SortKey key, bool descending);
    ActionQuery::SortKey sortKey() const { return m_sort; }
    bool sortDescending() const { return m_descending; }

    QString currentActionId() const { return m_selectedId; }
    // Selects the row of the action if it is loaded; returns whether it was.
    bool selectAction(const QString &actionId);
    // The selected rows' actions, in queue order (several for a bulk decision).
    QStringList selectedActionIds() const;

    QTableView *table() const { return m_table; }
    QLineEdit *searchEdit() const { return m_search; }
    QByteArray headerState() const;
    void restoreHeaderState(const QByteArray &state);

public slots:
    void focusSearch();
    void focusTable();

signals:
    void currentActionChanged(const QString &actionId);
    void filterChanged(cs::QueueView::Filter filter, const QString &search);
    void selectionChanged();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateCounts();
    void updateTwoRefundsVisibility();
    void updateStatus();
    void onCurrentChanged();
    void restoreSelection();
    void startSearchTimer();
    void showSortIndicator();
    void onSortIndicatorChanged(int column, Qt::SortOrder order);

    ActionQueueModel *m_model;
    ActionQuery::SortKey m_sort = ActionQuery::SortKey::CreatedAt;
    bool m_descending = true;
    QTableView *m_table;
    QLineEdit *m_search;
    QButtonGroup *m_filters;
    QHash<Filter, QToolButton *> m_filterButtons;
    QLabel *m_status;
    QPushButton *m_retry;
    QTimer m_searchTimer;
    Filter m_filter = Filter::Queue;
    QString m_selectedId;
    bool m_insertAboveTop = false;
    int m_scrollTarget = -1; // pending scroll position after inserts above the top row
};

} // namespace cs
