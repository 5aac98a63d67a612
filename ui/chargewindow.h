#pragma once

#include "models/chargeoverview.h"

#include <QTimer>
#include <QWidget>

#include <optional>

class QCheckBox;
class QFrame;
class QLabel;
class QPushButton;
class QTableView;

namespace cs {

class BudgetBar;
class ChargeActionModel;
class ChargeRefundModel;
class ChargeSortFilterModel;

// The charge view (issue 17): everything on one charge or payment intent in a window of its own,
// beside the queue. A header (the charge, its payment intent, captured, currency, the purchase's
// age, the card, disputed or not), the budget as a bar with its legend (refunded at the provider,
// reserved in Countersign, left, of what was captured), a highlighted line for refunds made
// outside Countersign, the actions in Countersign with their states (double-click or Enter:
// actionActivated), the provider's refunds (made outside Countersign highlighted; those the
// provider's webhooks announced and no action matched among them, marked "not through
// Countersign — from a webhook" with their status and failure reason, issue 18), and a Refresh
// button with the time of the last read.
//
// It only displays: the ChargeController asks the backend and tells it what happened —
// setOverview() with an answer, setLoading() / setLookingUp() while a call is out, setOffline()
// when the backend does not answer, setFailed() when it refused. What was shown stays shown, with
// its age, until a newer answer replaces it.
class ChargeWindow : public QWidget
{
    Q_OBJECT

public:
    enum class Activity { Idle, Loading, LookingUp, Offline, Failed };
    Q_ENUM(Activity)

    explicit ChargeWindow(QWidget *parent = nullptr);

    // A new charge: clears what was shown and says it is loading.
    void showLoading(const QString &chargeOrIntentId);
    void setOverview(const ChargeOverview &overview);
    void setLoading();
    void setLookingUp();
    void setOffline(const QString &why);
    void setFailed(const QString &why);
    // Whether Refresh asks the provider (approvers, supervisors, admins) or only reads what is
    // recorded again (auditors: their role may not ask the provider).
    void setCanLookUp(bool canLookUp);

    QString targetId() const { return m_targetId; }
    const std::optional<ChargeOverview> &overview() const { return m_overview; }
    Activity activity() const { return m_activity; }
    bool canLookUp() const { return m_canLookUp; }

    QLabel *titleLabel() const { return m_title; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *factsLabel() const { return m_facts; }
    QLabel *disputeLabel() const { return m_dispute; }
    QLabel *budgetLabel() const { return m_budgetText; }
    QLabel *outsideLabel() const { return m_outsideText; }
    QLabel *refundTitleLabel() const { return m_refundTitle; }
    QFrame *outsideBanner() const { return m_outside; }
    QLabel *lastReadLabel() const { return m_lastRead; }
    BudgetBar *budgetBar() const { return m_bar; }
    QTableView *actionTable() const { return m_actionView; }
    QTableView *refundTable() const { return m_refundView; }
    QCheckBox *hideRejectedBox() const { return m_hideRejected; }
    QPushButton *refreshButton() const { return m_refresh; }
    ChargeActionModel *actionModel() const { return m_actions; }
    ChargeRefundModel *refundModel() const { return m_refunds; }
    ChargeSortFilterModel *actionProxy() const { return m_actionProxy; }
    ChargeSortFilterModel *refundProxy() const { return m_refundProxy; }

signals:
    void refreshRequested();
    void actionActivated(const QString &actionId);

protected:
    void changeEvent(QEvent *event) override;

private:
    void render();        // everything from m_overview
    void renderStatus();  // the activity line and the last read (ages move on)
    QTableView *makeTable(const QString &objectName, const QString &accessibleName);

    QString m_targetId;
    std::optional<ChargeOverview> m_overview;
    Activity m_activity = Activity::Idle;
    QString m_problem;
    bool m_canLookUp = true;
    QTimer m_ages; // relative times ("3 min ago") move on while the window is open

    ChargeActionModel *m_actions;
    ChargeRefundModel *m_refunds;
    ChargeSortFilterModel *m_actionProxy;
    ChargeSortFilterModel *m_refundProxy;

    QLabel *m_title;
    QLabel *m_subtitle;
    QLabel *m_status;
    QLabel *m_facts;
    QLabel *m_dispute;
    BudgetBar *m_bar;
    QLabel *m_budgetText;
    QFrame *m_outside;
    QLabel *m_outsideText;
    QLabel *m_actionTitle;
    QCheckBox *m_hideRejected;
    QTableView *m_actionView;
    QLabel *m_refundTitle;
    QTableView *m_refundView;
    QLabel *m_lastRead;
    QPushButton *m_refresh;
};

} // namespace cs
