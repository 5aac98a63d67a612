#pragma once

#include "models/actionquery.h"
#include "models/actionsummary.h"

#include <QHash>
#include <QLocale>
#include <QSet>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include <optional>

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
//
// One selection: the table's selection model is the only truth. Its current row is the action
// shown and the one single-action commands act on (target(): only while it is the one row
// selected); several selected rows are what bulk commands act on. The current row is kept across
// live updates, pages, reloads and filter changes (the first row when the action held is not in
// the new list), moved by keyboard jumps like the arrows (Home/End and Ctrl+Home/End select), and
// pinned in the model so that it never leaves under the reader.
//
// A queue that holds still: arrivals, departures and reloads never move the row under the mouse
// pointer, the current row (when in view) or the top row — the scroll position follows them — and
// new rows out of view are announced ("3 new") until they have been in view.
//
// The order is the backend's: oldest first by default (what waits longest comes first), changed
// by the sortable headers and remembered with them.
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
    // The filter's query with the search as the backend reads it (searchParameter()).
    static ActionQuery queryFor(Filter filter, const QString &search, const QLocale &locale = QLocale());
    // An amount as the person writes it in their locale ("199,00" or "1.234,50" in German,
    // "1,234.50" in English) becomes the backend's form ("199.00", "1234.50"), which also finds
    // the actions of that amount; any other text is sent as typed.
    static QString searchParameter(const QString &text, const QLocale &locale);

    Filter filter() const { return m_filter; }
    QString searchText() const;
    // Sets filter and search and asks the model for the first page.
    void apply(Filter filter, const QString &search);
    // Sets the order (what a header click does) and asks for the first page in it.
    void setSort(ActionQuery::SortKey key, bool descending);
    ActionQuery::SortKey sortKey() const { return m_sort; }
    bool sortDescending() const { return m_descending; }

    // The current row's action ("" when there is none): what the detail shows.
    QString currentActionId() const;
    // The action single-action commands act on: the current row when it is the one row selected,
    // else "" (several rows selected, or the current row not selected).
    QString target() const;
    // Makes the action the current and only selected row: at once when it is loaded; else its
    // row is asked for, and if the filter does not show it the queue shows it under All, searched
    // by its id. Returns whether it was selected at once.
    bool selectAction(const QString &actionId);
    // The selected rows' actions, in queue order (several for a bulk decision).
    QStringList selectedActionIds() const;
    // After `user` decided the action: selects the next row after it that still awaits a decision
    // (ActionQueueModel::awaitsDecision), else the nearest one before it; returns its id ("" when
    // none is left, and the selection stays).
    QString advanceFrom(const QString &actionId, const QString &user);
    // New rows not yet in view, announced by the "N new" button.
    int unseenArrivals() const { return int(m_unseen.size()); }

    QTableView *table() const { return m_table; }
    QLineEdit *searchEdit() const { return m_search; }
    QByteArray headerState() const;
    void restoreHeaderState(const QByteArray &state);

public slots:
    void focusSearch();
    void focusTable();

signals:
    // The current row changed ("" when the list has none).
    void currentActionChanged(const QString &actionId);
    // target() may have changed.
    void targetChanged();
    void filterChanged(cs::QueueView::Filter filter, const QString &search);
    void selectionChanged();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Anchor
    {
        QString actionId;
        int y = 0;
    };
    Anchor anchor() const;
    void holdAnchor();
    void restoreAnchor();
    void updatePins();
    void onArrived(const QString &actionId, bool loaded);
    void updateUnseen();
    void showUnseen();
    void selectRow(int row);
    void extendTo(int row);
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
    bool m_descending = false; // oldest first
    QTableView *m_table;
    QLineEdit *m_search;
    QButtonGroup *m_filters;
    QHash<Filter, QToolButton *> m_filterButtons;
    QLabel *m_status;
    QPushButton *m_retry;
    QToolButton *m_newButton;
    QTimer m_searchTimer;
    Filter m_filter = Filter::Queue;
    QString m_heldId;   // the current row's action, kept to restore it after a reset
    QString m_revealId; // selectAction() of an action not loaded yet
    std::optional<Anchor> m_anchor; // held between a model change's "about to" and its "done"
    QSet<QString> m_unseen;         // arrivals not yet in view
    QSet<QString> m_beyond;         // … of which not loaded (a page further on)
};

} // namespace cs
