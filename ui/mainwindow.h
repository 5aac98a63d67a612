#pragma once

#include "client/apicall.h"
#include "client/tokenstore.h"
#include "models/actiondetail.h"

#include <QHash>
#include <QSet>
#include <QMainWindow>
#include <QPointer>
#include <QTimer>

class QAction;
class QLabel;
class QSplitter;

namespace cs {

class ActionQueueModel;
class ActionDetailPane;
class ApiClient;
class AttentionController;
class ApiPageSource;
class BulkDecisionController;
class ChargeController;
class ConsoleSettings;
class DecisionController;
class EventStreamClient;
class ExecutionController;
class ExportController;
class OfflineBanner;
class QueueView;
struct ActionChange;

// The review console: the queue beside the selected action's detail, the decision actions
// (their QActions, menus and shortcuts; the dialogs, drafts and calls behind them are the
// DecisionController's), the offline banner, the Execution menu (its actions and dialogs are the
// ExecutionController's) and the status bar (execution paused or running, backend, user, role,
// live/offline). It owns no network code: everything goes through the ApiClient and the
// EventStreamClient it is given. Remembers its layout and filters.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    MainWindow(ApiClient *client, EventStreamClient *events, ConsoleSettings *settings, QWidget *parent = nullptr);
    ~MainWindow() override;

    void setTokenStore(TokenStore *store) { m_tokenStore = store; }
    // Who am I, the first queue page, the event stream.
    void start();

    // Selects the action in the queue when it is loaded, and shows its detail either way.
    void selectAction(const QString &actionId);
    QString currentActionId() const { return m_currentId; }

    // "approve", "reject", "lookup", "reconcile", "follow_up", "close_settlement"
    QAction *decisionAction(const QString &kind) const { return m_decisionActions.value(kind); }
    DecisionController *decisions() const { return m_decisions; }
    // Approve / reject the queue's selected actions at once ("approve", "reject").
    BulkDecisionController *bulkDecisions() const { return m_bulk; }
    QAction *bulkDecisionAction(const QString &kind) const
    {
        return kind == QLatin1String("approve") ? m_bulkApproveAction : m_bulkRejectAction;
    }
    // The stop switch: the status bar's execution indicator and the Execution menu's actions.
    ExecutionController *execution() const { return m_execution; }
    // The charge view (issue 17): its window and Action → Show charge (Ctrl+Shift+G).
    ChargeController *charges() const { return m_charges; }
    QAction *showChargeAction() const { return m_showChargeAction; }
    // File → Export: the current filter's actions, the shown action's history (CSV or JSON).
    ExportController *exports() const { return m_export; }
    QueueView *queueView() const { return m_queue; }
    ActionQueueModel *queueModel() const { return m_model; }
    ActionDetailPane *detailPane() const { return m_pane; }
    OfflineBanner *offlineBanner() const { return m_banner; }
    // Notifications (issue 17): the counts in the title, the status bar and the tray; notices.
    AttentionController *attention() const { return m_attention; }
    QString userName() const { return m_user; }
    QString role() const { return m_role; }
    // Whether the queue's first page since start() has arrived (firstPageShown was emitted).
    bool hasShownFirstPage() const { return m_firstPageShown; }

    // The first show of a window nobody sized fits it to its screen.
    void setVisible(bool visible) override;

public slots:
    void refresh();
    void editConnection();
    // Sign in with another token on the same backend (demo role switcher): who am I, the queue,
    // the detail and the event stream are reloaded.
    void switchToken(const QString &token);

signals:
    void identityKnown(const QString &user, const QString &role);
    // The queue's first page since start() is shown (and, without a selection, its first row
    // selected).
    void firstPageShown();
    void detailShown(const QString &actionId);
    void decisionApplied(const QString &kind, const QString &actionId);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildActions();
    void buildBulkDecisions();
    void buildMenus();
    void restoreLayout();
    void saveLayout();
    void loadIdentity();
    void loadDetail(const QString &actionId);
    void showDetail(const ActionDetail &detail);
    void updateDecisionActions();
    void updateBulkActions();
    void onDecisionApplied(const QString &kind, const QString &actionId, bool bulk);
    void onActionChanged(const ActionChange &change);
    void onConnectionState();
    void onEventStreamState();
    void updateStatusBar();
    void connectDecisions();

    ApiClient *m_client;
    EventStreamClient *m_events;
    ConsoleSettings *m_settings;
    QPointer<TokenStore> m_tokenStore;
    ApiPageSource *m_source;
    ActionQueueModel *m_model;
    QueueView *m_queue;
    ActionDetailPane *m_pane;
    OfflineBanner *m_banner;
    DecisionController *m_decisions = nullptr;
    BulkDecisionController *m_bulk = nullptr;
    ExecutionController *m_execution = nullptr;
    ExportController *m_export = nullptr;
    ChargeController *m_charges = nullptr;
    QAction *m_showChargeAction = nullptr;
    AttentionController *m_attention = nullptr;
    QAction *m_bulkApproveAction = nullptr;
    QAction *m_bulkRejectAction = nullptr;
    QSplitter *m_splitter;
    QLabel *m_backendLabel;
    QLabel *m_userLabel;
    QLabel *m_liveLabel;
    QHash<QString, QAction *> m_decisionActions;
    QAction *m_refreshAction = nullptr;
    QAction *m_findAction = nullptr;
    QAction *m_connectionAction = nullptr;

    QString m_user;
    QString m_role;
    QString m_currentId;
    QSet<QString> m_bulkDecided; // bulk decisions applied to the selected rows so far
    QPointer<ApiCall> m_detailCall;
    QTimer m_detailReload;
    QTimer m_relativeTimes;
    bool m_firstPageShown = false;
};

} // namespace cs
