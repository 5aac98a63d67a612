#pragma once

#include "models/settlement.h"

#include <QDateTime>
#include <QWidget>

#include <optional>

class QLabel;
class QTableView;

namespace cs {

class SettlementHistoryModel;

// A COMPLETED action's refund after the provider accepted it (issue 18), in the detail pane's
// Overview: the provider's status as last confirmed (when, and learned from what), the refund id,
// the failure reason, the next scheduled check while it settles, how a failure was decided (closed
// with a note, or re-proposed as a follow-up, which is a link), and every status change in a
// table (SettlementHistoryModel). Shows nothing for an action without a settlement.
class SettlementView : public QWidget
{
    Q_OBJECT

public:
    explicit SettlementView(QWidget *parent = nullptr);

    // `now` dates the next check ("in 4 min"); tests pass their own.
    void setSettlement(const std::optional<Settlement> &settlement,
                       const QDateTime &now = QDateTime::currentDateTimeUtc());
    SettlementHistoryModel *historyModel() const { return m_model; }
    QTableView *historyView() const { return m_history; }

    // One line for the status as a person reads it: "succeeded", "pending — settling at the
    // provider", "failed (declined)".
    static QString describeStatus(const Settlement &settlement);

signals:
    // The follow-up that re-proposed the failed refund was clicked.
    void actionActivated(const QString &actionId);

private:
    SettlementHistoryModel *m_model;
    QLabel *m_status;
    QLabel *m_refund;
    QLabel *m_confirmed;
    QLabel *m_nextCheck;
    QLabel *m_decision;
    QLabel *m_decisionCaption;
    QLabel *m_nextCheckCaption;
    QTableView *m_history;
};

} // namespace cs
