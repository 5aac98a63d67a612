#pragma once

#include "models/actiondetail.h"

#include <QHash>
#include <QWidget>

class QAction;
class QFormLayout;
class QLabel;
class QSplitter;
class QTabWidget;
class QTableView;
class QTimer;
class QToolButton;
class QFrame;

namespace cs {

class DetailsDisclosure;
class DiscrepancyBanner;

class AgentReasonsView;
class ApprovalTableModel;
class AttemptTableModel;
class ChargeStoryView;
class AuditTableModel;
class LookupTableModel;
class PayloadDiffWidget;
class ReconciliationTableModel;
class RelatedActionModel;
class SettlementView;
class TimelineWidget;

// Everything about the selected action: a header (amount, target, state; for a refund that failed
// after COMPLETED a banner with its two decisions, issue 18), the decision buttons with the reason
// each unavailable one is unavailable, and tabs — the refund's settlement at the provider (issue 18), — the agent's reasons, the
// charge's story and budget as last read (ChargeStoryView), the record with the requester's
// record and the quorum, the evidence
// (attempt history; provider lookups, the deciding ones first and repeated failures folded),
// approvals, reconciliations, the audit trail, related
// actions, the payload diff when a changed resubmission was caught — above a timeline picture.
// Refreshing with a newer detail of the same action updates the tables in place (selection and
// scroll positions survive live updates).
class ActionDetailPane : public QWidget
{
    Q_OBJECT

public:
    enum Tab { OverviewTab, EvidenceTab, ApprovalsTab, ReconciliationsTab, AuditTab, RelatedTab, DiffTab };
    Q_ENUM(Tab)

    explicit ActionDetailPane(QWidget *parent = nullptr);

    // The decision actions shown as buttons (approve, reject, look up, reconcile, follow up), in
    // order, each with the key of its entry in Permissions ("approve", "reject", ...).
    void setDecisionActions(const QList<QPair<QAction *, QString>> &actions);
    // Issue 18: the two ways to decide a refund that failed after COMPLETED, shown as buttons in
    // the banner that says so: propose it again (the follow-up action) or close it with a note.
    void setSettlementActions(QAction *followUp, QAction *close);
    // Issue 33: the banner over an action the provider contradicts carries this decision.
    void setDiscrepancyAction(QAction *close);

    void setDetail(const ActionDetail &detail);
    void showMessage(const QString &message); // no action: a placeholder text
    bool hasDetail() const { return m_hasDetail; }
    const ActionDetail &detail() const { return m_detail; }

    QTabWidget *tabs() const { return m_tabs; }
    void showTab(Tab tab);
    TimelineWidget *timeline() const { return m_timeline; }
    PayloadDiffWidget *diffWidget() const { return m_diff; }
    LookupTableModel *lookupModel() const { return m_lookups; }
    AttemptTableModel *attemptModel() const { return m_attempts; }
    QLabel *permissionReasonsLabel() const { return m_reasons; }
    AgentReasonsView *reasonsView() const { return m_reasonsView; }
    ChargeStoryView *chargeView() const { return m_chargeView; }
    SettlementView *settlementView() const { return m_settlementView; }
    // The banner over a refund that failed after COMPLETED while its review item is open.
    QFrame *settlementBanner() const { return m_settlementBanner; }
    DiscrepancyBanner *discrepancyBanner() const { return m_discrepancyBanner; }
    QByteArray splitterState() const;
    void restoreSplitterState(const QByteArray &state);

signals:
    void relatedActionActivated(const QString &actionId);
    // The "Show everything on this charge" link: the shown action's target (ch_… or pi_…).
    void chargeRequested(const QString &chargeOrIntentId);

protected:
    void changeEvent(QEvent *event) override;

private:
    QLabel *addField(QFormLayout *form, const QString &objectName, const QString &label, bool monospace = false,
                     QWidget *page = nullptr);
    // A table of the Evidence page: high enough for its rows, between five and twelve.
    void fitRows(QTableView *table);
    // Each table's columns at least as wide as their titles.
    void fitColumnsToTitles();
    // The banners' room while the same action is shown (`shown`: its height before the update):
    // it does not shrink, and it grows only once the pointer is off the tabs and buttons (checked
    // again every 250 ms until then). Another action gets the room it needs.
    void settleBannerZone(bool sameAction, bool pointerOnControls, int shown);
    bool pointerOnControls() const;
    QTableView *makeTable(const QString &objectName, const QString &accessibleName);
    void updateHeader();
    void updateSettlementBanner();
    void updateOverview();
    void updateReasons();
    void updateTabTitles();
    void updateTimelineTitle();

    ActionDetail m_detail;
    bool m_hasDetail = false;
    QList<QPair<QAction *, QString>> m_decisionActions;

    QLabel *m_placeholder;
    QWidget *m_content;
    QLabel *m_title;
    QLabel *m_stateChip;
    QLabel *m_subtitle;
    QFrame *m_reviewBanner;
    QLabel *m_reviewText;
    DetailsDisclosure *m_reviewDetails;
    QFrame *m_settlementBanner;
    DiscrepancyBanner *m_discrepancyBanner;
    QLabel *m_settlementText;
    QWidget *m_settlementTitle = nullptr;
    SettlementView *m_settlementView = nullptr;
    QWidget *m_buttonRow;
    QWidget *m_bannerZone;
    QTimer *m_bannerRelease;
    int m_bannerHeld = 0; // the zone's height held for the same action; 0: free
    QLabel *m_reasons;
    QSplitter *m_splitter;
    QTabWidget *m_tabs;
    QHash<QString, QLabel *> m_fields;
    AgentReasonsView *m_reasonsView = nullptr;
    ChargeStoryView *m_chargeView = nullptr;
    AttemptTableModel *m_attempts;
    LookupTableModel *m_lookups;
    ApprovalTableModel *m_approvals;
    ReconciliationTableModel *m_reconciliations;
    AuditTableModel *m_audit;
    RelatedActionModel *m_related;
    QTableView *m_relatedView;
    TimelineWidget *m_timeline;
    QLabel *m_timelineTitle = nullptr;
    PayloadDiffWidget *m_diff;
    QWidget *m_diffPage;
};

} // namespace cs
