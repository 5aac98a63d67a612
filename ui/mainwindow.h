#pragma once

#include "actiondetail.h"
#include "apicall.h"
#include "decisiondialog.h"
#include "draftstore.h"
#include "tokenstore.h"

#include <QHash>
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
class ApiPageSource;
class ConsoleSettings;
class EventStreamClient;
class OfflineBanner;
class QueueView;
struct ActionChange;

// The review console: the queue beside the selected action's detail, the decision actions
// (each through the API, each confirmed in a dialog), the offline banner and the status bar
// (backend, user, role, live/offline). It owns no network code: everything goes through the
// ApiClient and the EventStreamClient it is given. Remembers its layout and filters.
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

    // "approve", "reject", "lookup", "reconcile", "follow_up"
    QAction *decisionAction(const QString &kind) const { return m_decisionActions.value(kind); }
    DecisionDialog *openDialog() const { return m_dialog; }
    QueueView *queueView() const { return m_queue; }
    ActionQueueModel *queueModel() const { return m_model; }
    ActionDetailPane *detailPane() const { return m_pane; }
    OfflineBanner *offlineBanner() const { return m_banner; }
    DraftStore &drafts() { return m_drafts; }
    QString userName() const { return m_user; }
    QString role() const { return m_role; }

    // Saves a picture of the window to `path` once the queue (and `actionId`'s detail, if given)
    // are shown, on `tab` ("overview", "evidence", "diff", ...); emits screenshotSaved.
    void scheduleScreenshot(const QString &path, const QString &actionId, const QString &tab);

public slots:
    void openApprove();
    void openReject();
    void openLookup();
    void openReconcile();
    void openFollowUp();
    void refresh();
    void editConnection();
    // Sign in with another token on the same backend (demo role switcher): who am I, the queue,
    // the detail and the event stream are reloaded.
    void switchToken(const QString &token);

signals:
    void identityKnown(const QString &user, const QString &role);
    void detailShown(const QString &actionId);
    void decisionApplied(const QString &kind, const QString &actionId);
    void screenshotSaved(const QString &path, bool ok);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildActions();
    void buildMenus();
    void restoreLayout();
    void saveLayout();
    void loadIdentity();
    void loadDetail(const QString &actionId);
    void showDetail(const ActionDetail &detail);
    void updateDecisionActions();
    void onActionChanged(const ActionChange &change);
    void onConnectionState();
    void onEventStreamState();
    void updateStatusBar();
    int pendingDecisions() const;

    void openDecision(const QString &kind);
    void showDialog(DecisionDialog *dialog);
    void submit(DecisionDialog *dialog);
    void onDecisionFinished(DecisionDialog *dialog, ApiCall *call, const DraftStore::Origin &origin);
    // The drafts an operation that began in `origin` settles in: m_drafts while that session
    // lasts, else `other` opened on its file (the reviewer switched user or backend meanwhile).
    DraftStore *draftsOf(const DraftStore::Origin &origin, DraftStore &other);
    void reloadDialogAction(DecisionDialog *dialog, const QString &why);
    void runDialogLookup(DecisionDialog *dialog);
    void maybeTakeScreenshot();

    ApiClient *m_client;
    EventStreamClient *m_events;
    ConsoleSettings *m_settings;
    QPointer<TokenStore> m_tokenStore;
    ApiPageSource *m_source;
    ActionQueueModel *m_model;
    QueueView *m_queue;
    ActionDetailPane *m_pane;
    OfflineBanner *m_banner;
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
    QPointer<ApiCall> m_detailCall;
    QTimer m_detailReload;
    QTimer m_relativeTimes;
    DraftStore m_drafts;
    QPointer<DecisionDialog> m_dialog;
    QHash<DecisionDialog *, QPointer<ApiCall>> m_inFlight;

    QString m_screenshotPath;
    QString m_screenshotAction;
    QString m_screenshotTab;
    bool m_firstPageShown = false;
};

} // namespace cs
