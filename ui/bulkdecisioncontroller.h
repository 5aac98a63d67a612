#pragma once

#include "ui/bulkdecisiondialog.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>

class QWidget;

namespace cs {

class ApiCall;
class ApiClient;
class DraftStore;

// Approving or rejecting several actions at once (issue 19). open() reads each selected action
// afresh: one that is not PENDING, or that this user may not decide (the backend's permissions:
// four-eyes, role, already approved), is listed as skipped with the reason; the others are
// offered in one BulkDecisionDialog. Confirming sends one request per action — its own If-Match
// (the version just read) and its own Idempotency-Key — through the ordinary ApiClient calls, so
// each gets its own approval, key and four-eyes check on the server, and each row shows what
// became of it. "Retry failed" resends only the rows not done: a row whose answer was lost is
// resent exactly as before (same key, If-Match and body: the backend replays its first answer,
// nothing is decided twice); a row the backend refused is read again and, if still decidable,
// sent with its new version and a fresh key (the old one was spent by the refusal).
//
// The keys are kept in the reviewer's DraftStore (kind "bulk_approve" / "bulk_reject") until the
// backend answers, as the single dialogs' are. One bulk dialog at a time. GUI thread only; never
// waits in a nested event loop.
class BulkDecisionController : public QObject
{
    Q_OBJECT

public:
    BulkDecisionController(ApiClient *client, DraftStore *drafts, QWidget *dialogParent, QObject *parent = nullptr);
    ~BulkDecisionController() override;

    BulkDecisionDialog *openDialog() const { return m_dialog; }

public slots:
    // `kind`: "approve" or "reject". Raises the open bulk dialog instead, if there is one.
    void open(const QString &kind, const QStringList &actionIds);

signals:
    void statusMessage(const QString &text, int timeoutMs);
    void decisionApplied(const QString &kind, const QString &actionId);
    void queueRowOutdated(const QString &actionId);
    void detailOutdated(const QString &actionId);

private:
    void check(BulkDecisionDialog *dialog, const QString &actionId, bool thenSend);
    void sendReady(BulkDecisionDialog *dialog);
    void send(BulkDecisionDialog *dialog, int row);
    void onAnswer(BulkDecisionDialog *dialog, const QString &actionId, ApiCall *call);
    void retryFailed(BulkDecisionDialog *dialog);
    void releaseIfIdle(BulkDecisionDialog *dialog);

    ApiClient *m_client;
    DraftStore *m_drafts;
    QWidget *m_dialogParent;
    QPointer<BulkDecisionDialog> m_dialog;
    QHash<BulkDecisionDialog *, int> m_inFlight; // calls of each dialog not yet answered
};

} // namespace cs
