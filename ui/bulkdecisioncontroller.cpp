#include "ui/bulkdecisioncontroller.h"
#include "client/apiclient.h"
#include "models/actiondetail.h"
#include "models/bulkdecisionmodel.h"
#include "models/displayformat.h"
#include "ui/approvedialog.h"
#include "ui/bulkdecisiondialog.h"
#include "ui/chargestoryview.h"
#include "ui/draftstore.h"
#include "ui/uilog.h"

#include <QJsonDocument>
#include <QUrl>

namespace cs {

namespace {

using Status = BulkDecisionModel::Status;

QString draftKey(const QString &kind, const QString &actionId)
{
    return DraftStore::keyFor(QStringLiteral("bulk_") + kind, actionId);
}

} // namespace

BulkDecisionController::BulkDecisionController(ApiClient *client, DraftStore *drafts, QWidget *dialogParent, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_drafts(drafts)
    , m_dialogParent(dialogParent)
{
}

BulkDecisionController::~BulkDecisionController() = default;

void BulkDecisionController::open(const QString &kind, const QStringList &actionIds)
{
    if (m_dialog) {
        m_dialog->show();
        m_dialog->raise();
        m_dialog->activateWindow();
        return;
    }
    if (actionIds.isEmpty() || (kind != QLatin1String("approve") && kind != QLatin1String("reject")))
        return;
    auto *dialog = new BulkDecisionDialog(kind, m_dialogParent);
    m_dialog = dialog;
    dialog->model()->setActions(actionIds);
    connect(dialog, &BulkDecisionDialog::confirmed, this, [this, dialog] {
        dialog->setConfirmed();
        sendReady(dialog);
    });
    connect(dialog, &BulkDecisionDialog::retryRequested, this, [this, dialog] { retryFailed(dialog); });
    connect(dialog, &QDialog::finished, this, [this, dialog] {
        if (m_dialog == dialog)
            m_dialog = nullptr;
        releaseIfIdle(dialog); // else once its last answer is in
    });
    for (const QString &id : actionIds)
        check(dialog, id, false);
    dialog->open();
}

// Reads the action and decides whether it can be offered: PENDING and permitted for this user.
void BulkDecisionController::check(BulkDecisionDialog *dialog, const QString &actionId, bool thenSend)
{
    BulkDecisionModel *model = dialog->model();
    model->setStatus(model->rowOf(actionId), Status::Checking);
    ++m_inFlight[dialog];
    ApiCall *call = m_client->action(actionId);
    connect(call, &ApiCall::finished, this, [this, dialog, actionId, thenSend](ApiCall *c) {
        --m_inFlight[dialog];
        BulkDecisionModel *model = dialog->model();
        const int row = model->rowOf(actionId);
        const ApiResponse &response = c->response();
        const std::optional<ActionDetail> detail = response.ok() ? ActionDetail::fromJson(response.object()) : std::nullopt;
        if (!detail) {
            model->setStatus(row, Status::Skipped,
                             response.ok() ? tr("the backend's answer could not be read")
                                           : tr("could not be read: %1").arg(response.error.userText()));
        } else {
            model->setRecord(row, detail->record);
            // What the single approve dialog would show first, and why the agent asked.
            QStringList warnings;
            const QDateTime now = QDateTime::currentDateTimeUtc();
            for (const WarningLine &w : ApproveDialog::duplicateWarnings(*detail, now))
                warnings << w.text;
            if (detail->charge) {
                for (const WarningLine &w : ChargeStoryView::warningLines(*detail->charge, now))
                    warnings << w.text;
            }
            model->setContext(row, warnings, detail->record.justification);
            const PermissionEntry *entry = detail->permissions.entry(dialog->kind());
            if (detail->record.state != ActionState::Pending)
                model->setStatus(row, Status::Skipped,
                                 tr("it is %1 now; only a PENDING action can be decided")
                                     .arg(display::stateName(detail->record.state)));
            else if (!entry || !entry->allowed)
                model->setStatus(row, Status::Skipped, entry && !entry->reason.isEmpty() ? entry->reason : tr("not allowed"));
            else
                model->setStatus(row, Status::Ready);
        }
        if (thenSend && model->row(row).status == Status::Ready && !model->isHeld(row))
            send(dialog, row);
        releaseIfIdle(dialog);
    });
}

void BulkDecisionController::sendReady(BulkDecisionDialog *dialog)
{
    BulkDecisionModel *model = dialog->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->row(row).status == Status::Ready && !model->isHeld(row))
            send(dialog, row);
    }
}

void BulkDecisionController::send(BulkDecisionDialog *dialog, int row)
{
    BulkDecisionModel *model = dialog->model();
    const QString kind = dialog->kind();
    const ActionRecord &record = model->row(row).record;
    const QString id = record.id;
    const qint64 ifMatch = record.stateVersion;
    const QString encoded = QString::fromLatin1(QUrl::toPercentEncoding(id));
    const QString path = kind == QLatin1String("approve") ? QStringLiteral("/actions/%1/approvals").arg(encoded)
                                                          : QStringLiteral("/actions/%1/rejections").arg(encoded);
    QJsonObject body;
    if (kind == QLatin1String("reject"))
        body.insert(QStringLiteral("reason"), dialog->reason());
    body.insert(QStringLiteral("note"), dialog->note());

    // One key per action and request: the very same request again (after a lost answer) reuses
    // it, so the backend replays its first answer instead of deciding twice.
    const QByteArray identity = "POST " + path.toUtf8() + '\n' + QByteArray::number(ifMatch) + '\n'
        + QJsonDocument(body).toJson(QJsonDocument::Compact);
    const QString key = m_drafts->keyForRequest(draftKey(kind, id), identity, &ApiClient::mintIdempotencyKey);
    model->setStatus(row, Status::Sending);
    ++m_inFlight[dialog];
    ApiCall *call = m_client->post(path, body, ifMatch, key);
    qCInfo(lcUi) << "bulk" << kind << id << "If-Match" << ifMatch << "Idempotency-Key" << key;
    connect(call, &ApiCall::resending, this, [dialog, id](int sendCount, const ApiError &error) {
        BulkDecisionModel *model = dialog->model();
        model->setStatus(model->rowOf(id), Status::Sending,
                         tr("no answer (%1); sending the same request again, attempt %2")
                             .arg(error.userText())
                             .arg(sendCount + 1));
    });
    connect(call, &ApiCall::finished, this, [this, dialog, id](ApiCall *c) { onAnswer(dialog, id, c); });
}

void BulkDecisionController::onAnswer(BulkDecisionDialog *dialog, const QString &actionId, ApiCall *call)
{
    --m_inFlight[dialog];
    BulkDecisionModel *model = dialog->model();
    const int row = model->rowOf(actionId);
    const QString kind = dialog->kind();
    const ApiResponse &response = call->response();
    if (response.error.kind == ApiError::Kind::Cancelled || response.error.responseLost()) {
        // The key stays with the draft: Retry failed sends the same request with it.
        model->setStatus(row, Status::Unknown,
                         tr("%1; whether it was decided is unknown").arg(response.error.userText()));
    } else {
        m_drafts->resolve(draftKey(kind, actionId)); // answered: the key is spent
        if (response.ok()) {
            m_drafts->remove(draftKey(kind, actionId));
            const std::optional<Quorum> quorum = Quorum::fromJson(response.object());
            // Words for people: the approval's key is in the action's Evidence tab.
            QString message = kind == QLatin1String("approve") && response.httpStatus == 202 && quorum
                ? tr("signed (%1 of %2): nothing is sent until %2 different approvers have signed")
                      .arg(quorum->given.size())
                      .arg(quorum->required)
                : kind == QLatin1String("approve")
                ? tr("approved: the executor sends it once")
                : tr("rejected: %1").arg(display::rejectionReason(dialog->reason()));
            if (response.replayed)
                message += tr(" (the backend replayed its first answer)");
            model->setStatus(row, Status::Done, message);
            emit decisionApplied(kind, actionId);
            emit queueRowOutdated(actionId);
            emit detailOutdated(actionId);
        } else {
            const ApiError &error = response.error;
            QString why = error.title.isEmpty() ? error.userText() : error.title;
            if (!error.detail.isEmpty() && !error.title.isEmpty())
                why += QStringLiteral(": ") + error.detail;
            model->setStatus(row, Status::Refused, why);
            emit queueRowOutdated(actionId); // it may have changed under us
        }
    }
    if (model->count(Status::Sending) == 0 && model->count(Status::Checking) == 0) {
        emit statusMessage(tr("%1 of %2 decided; %3 not done.")
                               .arg(model->count(Status::Done))
                               .arg(model->rowCount() - model->count(Status::Skipped))
                               .arg(model->count(Status::Refused) + model->count(Status::Unknown)),
                           15000);
    }
    releaseIfIdle(dialog);
}

void BulkDecisionController::retryFailed(BulkDecisionDialog *dialog)
{
    BulkDecisionModel *model = dialog->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const BulkDecisionModel::Row &r = model->row(row);
        if (r.status == Status::Unknown)
            send(dialog, row); // exactly as before: same If-Match and body, so the same key
        else if (r.status == Status::Refused)
            check(dialog, r.record.id, true); // what it is now; sent again only if still decidable
    }
}

void BulkDecisionController::releaseIfIdle(BulkDecisionDialog *dialog)
{
    if (m_dialog == dialog || m_inFlight.value(dialog) > 0)
        return;
    m_inFlight.remove(dialog);
    dialog->deleteLater();
}

} // namespace cs
