#pragma once

#include "client/apicall.h"
#include "models/actiondetail.h"
#include "ui/decisiondialog.h"
#include "ui/draftstore.h"

#include <QHash>
#include <QObject>
#include <QPointer>

namespace cs {

class ActionDetailPane;
class ApiClient;
class ApproveDialog;

// The console's decisions on the action shown in the detail pane: approve, reject, look up,
// reconcile, follow up and close a failed refund's review item (issue 18). Opens the dialog for the shown action (one dialog at a time; a second
// request raises it), restores the reviewer's draft into it and saves it when the dialog closes
// unapplied, sends the decision through the ApiClient and applies the backend's answer to the
// dialog.
//
// One call in flight per dialog. The request's Idempotency-Key is kept with the draft until the
// backend answers (DraftStore::keyForRequest), so a resend after a lost answer, even from a
// reopened dialog or a restarted console, replays the first answer instead of acting twice. A
// lost answer or a refusal leaves the reviewer's input in the dialog; a decision overtaken by
// someone else (412, illegal state) reloads the action and shows what changed.
//
// It owns no widgets but the dialogs (parented to `dialogParent`) and tells the window what to
// show through signals: status messages, queue rows and details to refresh. Not thread-safe
// (GUI thread only); never waits in a nested event loop.
class DecisionController : public QObject
{
    Q_OBJECT

public:
    // `pane` is where the reviewer sees the action a decision applies to (its detail() and
    // permissions); `dialogParent` parents the dialogs (window-modal to it).
    DecisionController(ApiClient *client, const ActionDetailPane *pane, QWidget *dialogParent, QObject *parent = nullptr);
    ~DecisionController() override;

    // The dialog open now, or null.
    DecisionDialog *openDialog() const { return m_dialog; }
    // The drafts of the signed-in reviewer: MainWindow opens them once /me answers and closes
    // them when the user or backend changes.
    DraftStore &drafts() { return m_drafts; }
    const DraftStore &drafts() const { return m_drafts; }
    // Decisions sent whose answer has not arrived yet (still being sent or resent).
    int pendingDecisions() const;

    // The window now shows `detail` (`refreshOfShown`: a newer copy of the action it showed).
    // An open dialog on that action learns what changed under it; it then sends the new version
    // as If-Match, since the reviewer has been shown the change.
    void adoptShownDetail(const ActionDetail &detail, bool refreshOfShown);

public slots:
    void openApprove();
    void openReject();
    void openLookup();
    void openReconcile();
    void openFollowUp();
    // Issue 18: close a failed refund's review item with a note, without re-sending.
    void openCloseSettlement();
    void openCloseDiscrepancy(); // issue 33
    // `kind` is one of "approve", "reject", "lookup", "reconcile", "follow_up", "close_settlement"
    // (the Permissions keys); nothing happens without a shown action, and a refused permission
    // says why.
    void openDecision(const QString &kind);

signals:
    void statusMessage(const QString &text, int timeoutMs);
    // The backend applied the decision (or replayed its first answer).
    void decisionApplied(const QString &kind, const QString &actionId);
    // A decision changed this action, or created it (a follow-up): its queue row is outdated.
    void queueRowOutdated(const QString &actionId);
    // The backend applied a decision on this action: its detail, if shown, is outdated.
    void detailOutdated(const QString &actionId);
    // Whether a decision on this action was applied is unknown: reload what is shown, soon.
    void outcomeUnknown(const QString &actionId);
    // A newer detail of an action was read for a dialog: show it if it is the one shown.
    void detailRead(const ActionDetail &detail);
    // A decision is being resent while the backend does not answer; `pending` counts them all.
    void resending(int pending);

private:
    void showDialog(DecisionDialog *dialog);
    void submit(DecisionDialog *dialog);
    void onFinished(DecisionDialog *dialog, ApiCall *call, const DraftStore::Origin &origin);
    void applyResult(DecisionDialog *dialog, const ApiResponse &response, bool visible);
    // The drafts an operation that began in `origin` settles in: m_drafts while that session
    // lasts, else `other` opened on its file (the reviewer switched user or backend meanwhile).
    DraftStore *draftsOf(const DraftStore::Origin &origin, DraftStore &other);
    void reloadDialogAction(DecisionDialog *dialog, const QString &why);
    void runDialogLookup(DecisionDialog *dialog);
    // POST …/charge-lookups for an approve dialog that just opened (docs/API.md).
    void readCharge(ApproveDialog *dialog);

    ApiClient *m_client;
    const ActionDetailPane *m_pane;
    QWidget *m_dialogParent;
    DraftStore m_drafts;
    QPointer<DecisionDialog> m_dialog;
    QHash<DecisionDialog *, QPointer<ApiCall>> m_inFlight;
};

} // namespace cs
