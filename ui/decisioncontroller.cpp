#include "ui/decisioncontroller.h"
#include "client/apiclient.h"
#include "models/displayformat.h"
#include "models/followupplan.h"
#include "ui/actiondetailpane.h"
#include "ui/approvedialog.h"
#include "ui/followupdialog.h"
#include "ui/lookupdialog.h"
#include "ui/reconciledialog.h"
#include "ui/rejectdialog.h"
#include "ui/settlementclosedialog.h"
#include "ui/discrepancyclosedialog.h"
#include "ui/uilog.h"

#include <QJsonDocument>

#include <memory>

namespace cs {

namespace {

// What a decision was about, in the words of the people who make it: the refund's amount and its
// order (or its charge), never the action's id.
QString subjectOf(const ActionRecord &r)
{
    const QString amount = display::money(r.amount, r.currency);
    if (!r.businessReference.isEmpty())
        return DecisionController::tr("the refund of %1 for %2").arg(amount, r.businessReference);
    return DecisionController::tr("the refund of %1 on %2").arg(amount, r.targetId);
}

} // namespace

DecisionController::DecisionController(ApiClient *client, const ActionDetailPane *pane, QWidget *dialogParent, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_pane(pane)
    , m_dialogParent(dialogParent)
{
}

DecisionController::~DecisionController() = default;

int DecisionController::pendingDecisions() const
{
    int n = 0;
    for (const QPointer<ApiCall> &call : m_inFlight) {
        if (call && !call->isFinished())
            ++n;
    }
    return n;
}

void DecisionController::adoptShownDetail(const ActionDetail &detail, bool refreshOfShown)
{
    if (!m_dialog || m_dialog->actionId() != detail.record.id || m_dialog->isSending())
        return;
    if (detail.record.stateVersion != m_dialog->ifMatch())
        m_dialog->updateDetail(detail, ActionDetail::describeChanges(m_dialog->detail(), detail));
    else if (refreshOfShown)
        m_dialog->updateDetail(detail, {}); // e.g. a new lookup to choose as evidence
}

void DecisionController::openApprove()
{
    openDecision(QStringLiteral("approve"));
}

void DecisionController::openReject()
{
    openDecision(QStringLiteral("reject"));
}

void DecisionController::openLookup()
{
    openDecision(QStringLiteral("lookup"));
}

void DecisionController::openReconcile()
{
    openDecision(QStringLiteral("reconcile"));
}

void DecisionController::openFollowUp()
{
    openDecision(QStringLiteral("follow_up"));
}

void DecisionController::openCloseSettlement()
{
    openDecision(QStringLiteral("close_settlement"));
}

void DecisionController::openCloseDiscrepancy()
{
    openDecision(QStringLiteral("close_discrepancy"));
}

void DecisionController::openDecision(const QString &kind)
{
    if (!m_pane->hasDetail())
        return;
    if (m_dialog) {
        m_dialog->show();
        m_dialog->raise();
        m_dialog->activateWindow();
        return;
    }
    const ActionDetail detail = m_pane->detail();
    if (const PermissionEntry *entry = detail.permissions.entry(kind); !entry || !entry->allowed) {
        emit statusMessage(entry ? entry->reason : QString(), 8000);
        return;
    }
    if (kind == QLatin1String("approve")) {
        auto *approve = new ApproveDialog(detail, m_dialogParent);
        showDialog(approve);
        readCharge(approve);
    }
    else if (kind == QLatin1String("reject"))
        showDialog(new RejectDialog(detail, m_dialogParent));
    else if (kind == QLatin1String("lookup"))
        showDialog(new LookupDialog(detail, m_dialogParent));
    else if (kind == QLatin1String("reconcile"))
        showDialog(new ReconcileDialog(detail, m_dialogParent));
    else if (kind == QLatin1String("close_settlement"))
        showDialog(new SettlementCloseDialog(detail, m_dialogParent));
    else if (kind == QLatin1String("close_discrepancy"))
        showDialog(new DiscrepancyCloseDialog(detail, m_dialogParent));
    else if (kind == QLatin1String("follow_up")) {
        // The remainder counts earlier follow-ups by their own provider evidence: fetch them.
        auto followUps = std::make_shared<QList<ActionDetail>>();
        auto remaining = std::make_shared<int>(int(detail.followUps.size()));
        const auto open = [this, detail, followUps] {
            showDialog(new FollowUpDialog(detail, FollowUpPlan::compute(detail, *followUps), m_dialogParent));
        };
        if (*remaining == 0) {
            open();
            return;
        }
        for (const ActionSummary &f : detail.followUps) {
            ApiCall *call = m_client->action(f.record.id);
            connect(call, &ApiCall::finished, this, [followUps, remaining, open](ApiCall *c) {
                if (c->response().ok()) {
                    if (std::optional<ActionDetail> d = ActionDetail::fromJson(c->response().object()))
                        followUps->append(*d);
                }
                if (--*remaining == 0)
                    open();
            });
        }
    }
}

void DecisionController::showDialog(DecisionDialog *dialog)
{
    m_dialog = dialog;
    const QString draftKey = DraftStore::keyFor(dialog->kind(), dialog->actionId());
    if (m_drafts.contains(draftKey))
        dialog->restoreDraft(m_drafts.draft(draftKey).fields);
    connect(dialog, &DecisionDialog::confirmed, this, [this, dialog] { submit(dialog); });
    connect(dialog, &QDialog::finished, this, [this, dialog, draftKey, origin = m_drafts.origin()](int result) {
        // Closed without being applied: keep what was typed for next time.
        DraftStore other;
        if (DraftStore *drafts = draftsOf(origin, other); drafts && result != QDialog::Accepted)
            drafts->saveFields(draftKey, dialog->draft());
        if (m_dialog == dialog)
            m_dialog = nullptr;
        if (!m_inFlight.value(dialog))
            dialog->deleteLater();
        // else: deleted when its call finishes (the decision is still being delivered)
    });
    if (auto *reconcile = qobject_cast<ReconcileDialog *>(dialog))
        connect(reconcile, &ReconcileDialog::lookupRequested, this, [this, dialog] { runDialogLookup(dialog); });
    dialog->open();
}

void DecisionController::submit(DecisionDialog *dialog)
{
    const QString id = dialog->actionId();
    const QString kind = dialog->kind();
    const qint64 ifMatch = dialog->ifMatch();
    const QString encoded = QString::fromLatin1(QUrl::toPercentEncoding(id));
    QString path;
    QJsonObject body;
    if (auto *d = qobject_cast<ApproveDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/approvals").arg(encoded);
        body.insert(QStringLiteral("note"), d->note());
    } else if (auto *d = qobject_cast<RejectDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/rejections").arg(encoded);
        body.insert(QStringLiteral("reason"), d->reason());
        body.insert(QStringLiteral("note"), d->note());
    } else if (qobject_cast<LookupDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/lookups").arg(encoded);
    } else if (auto *d = qobject_cast<ReconcileDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/reconciliations").arg(encoded);
        body.insert(QStringLiteral("outcome"), d->committedChosen() ? QStringLiteral("committed") : QStringLiteral("not_committed"));
        body.insert(QStringLiteral("evidence_lookup_seq"), d->evidenceLookupSeq());
        body.insert(QStringLiteral("note"), d->note());
    } else if (auto *d = qobject_cast<FollowUpDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/follow-ups").arg(encoded);
        body.insert(QStringLiteral("desired_total_amount"), QJsonValue(d->desiredTotal().value_or(0)));
        body.insert(QStringLiteral("note"), d->note());
    } else if (auto *d = qobject_cast<SettlementCloseDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/settlement/close").arg(encoded);
        body.insert(QStringLiteral("note"), d->note());
    } else if (auto *d = qobject_cast<DiscrepancyCloseDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/discrepancy/close").arg(encoded);
        body.insert(QStringLiteral("note"), d->note());
    } else {
        return;
    }

    // One human intent, one key: resending the very same request (after a lost answer, even
    // from a reopened dialog) reuses the key, so the backend replays its first answer.
    const QString draftKey = DraftStore::keyFor(kind, id);
    const QByteArray identity = "POST " + path.toUtf8() + '\n' + QByteArray::number(ifMatch) + '\n'
        + QJsonDocument(body).toJson(QJsonDocument::Compact);
    const QString key = m_drafts.keyForRequest(draftKey, identity, &ApiClient::mintIdempotencyKey);
    m_drafts.saveFields(draftKey, dialog->draft());

    const int deadline = kind == QLatin1String("lookup") ? qMax(25000, m_client->deadlineMs()) : 0;
    ApiCall *call = m_client->post(path, body, ifMatch, key, deadline);
    m_inFlight.insert(dialog, call);
    dialog->setSending();
    qCInfo(lcUi) << "sending" << kind << id << "If-Match" << ifMatch << "Idempotency-Key" << key;

    connect(call, &ApiCall::resending, dialog, [this, dialog, call](int sendCount, const ApiError &error) {
        dialog->setResending(sendCount, error.userText(), call->idempotencyKey());
        emit resending(pendingDecisions());
    });
    connect(dialog, &DecisionDialog::stopResendingRequested, call, &ApiCall::abandon);
    connect(call, &ApiCall::finished, this,
            [this, dialog, origin = m_drafts.origin()](ApiCall *c) { onFinished(dialog, c, origin); });
}

void DecisionController::onFinished(DecisionDialog *dialog, ApiCall *call, const DraftStore::Origin &origin)
{
    m_inFlight.remove(dialog);
    const ApiResponse &response = call->response();
    const QString id = dialog->actionId();
    const QString kind = dialog->kind();
    const bool visible = dialog->isVisible();
    const QString subject = subjectOf(dialog->detail().record);

    if (response.error.kind == ApiError::Kind::Cancelled || response.error.responseLost()) {
        // Unknown whether it was applied: the key stays with the draft, so sending the same
        // request again replays the first answer instead of acting twice.
        dialog->setFailed(tr("Stopped waiting for the backend. Whether it received your decision is unknown; "
                             "confirm again to send the same request once more (it cannot apply twice)."));
        if (!visible)
            emit statusMessage(tr("Your decision on %1 was not confirmed by the backend.").arg(subject), 15000);
        emit outcomeUnknown(id);
    } else {
        DraftStore other;
        DraftStore *drafts = draftsOf(origin, other);
        const QString draftKey = DraftStore::keyFor(kind, id);
        if (drafts)
            drafts->resolve(draftKey); // the backend answered this request: its key is spent
        if (response.ok() && drafts)
            drafts->remove(draftKey);
        applyResult(dialog, response, visible);
    }
    // A dialog closed while its decision was being delivered goes once the answer is in.
    if (!visible && m_dialog != dialog)
        dialog->deleteLater();
}

void DecisionController::applyResult(DecisionDialog *dialog, const ApiResponse &response, bool visible)
{
    const QString id = dialog->actionId();
    const QString kind = dialog->kind();
    const QString subject = subjectOf(dialog->detail().record);
    if (!response.ok()) {
        const ApiError &error = response.error;
        // A settlement review item decided meanwhile (409: none open any more) is overtaken too.
        const bool reviewGone = (kind == QLatin1String("close_settlement") || kind == QLatin1String("close_discrepancy"))
            && error.httpStatus == 409;
        if (error.httpStatus == 412 || error.code == QLatin1String("illegal_state")
            || error.code == QLatin1String("already_approved") || error.code == QLatin1String("already_sent")
            || error.code == QLatin1String("in_flight") || reviewGone) {
            // Someone else acted: reload, show what changed, let the reviewer decide again.
            dialog->setIdle();
            reloadDialogAction(dialog, error.userText());
            return;
        }
        dialog->setFailed(error.userText());
        if (!visible)
            emit statusMessage(tr("Your decision on %1 was refused: %2").arg(subject, error.userText()), 15000);
        return;
    }

    const QJsonObject body = response.object();
    const QString replayed = response.replayed ? tr(" (the backend replayed its first answer)") : QString();
    emit decisionApplied(kind, id);
    if (kind == QLatin1String("lookup")) {
        auto *lookupDialog = qobject_cast<LookupDialog *>(dialog);
        const std::optional<ProviderLookup> lookup = ProviderLookup::fromJson(body.value(QLatin1String("lookup")).toObject());
        const std::optional<ActionRecord> after = ActionRecord::fromJson(body.value(QLatin1String("action")).toObject());
        if (lookupDialog && lookup && after)
            lookupDialog->showResult(*lookup, *after);
        emit statusMessage(tr("Look-up recorded for %1%2.").arg(subject, replayed), 8000);
    } else if (kind == QLatin1String("follow_up")) {
        const QString newId = body.value(QLatin1String("id")).toString();
        emit statusMessage(tr("Follow-up of %1 proposed for %2; it needs its own approval%3.")
                               .arg(display::money(body.value(QLatin1String("amount")).toInteger(),
                                                   body.value(QLatin1String("currency")).toString()),
                                    subject, replayed),
                           15000);
        dialog->accept();
        emit queueRowOutdated(newId);
    } else {
        QString message;
        const std::optional<Quorum> quorum = Quorum::fromJson(body);
        if (kind == QLatin1String("approve") && response.httpStatus == 202 && quorum)
            // A quorum's signature (docs/POLICY.md): counted, the action stays PENDING, no key yet.
            message = tr("Your signature on %1 counted: %2. Nothing is sent until %3 different approvers have signed%4.")
                          .arg(subject, quorum->describe())
                          .arg(quorum->required)
                          .arg(replayed);
        else if (kind == QLatin1String("approve"))
            message = tr("Approved %1. Nothing is sent until the executor sends it%2.").arg(subject, replayed);
        else if (kind == QLatin1String("reject"))
            message = tr("Rejected %1%2.").arg(subject, replayed);
        else if (kind == QLatin1String("close_settlement")) {
            message = tr("Closed %1 without re-sending it%2.").arg(subject, replayed);
            emit queueRowOutdated(id); // its row leaves "Refund failed"
        } else if (kind == QLatin1String("close_discrepancy")) {
            message = tr("Closed the discrepancy of %1 with your note%2.").arg(subject, replayed);
        } else {
            message = tr("Reconciled %1%2.").arg(subject, replayed);
        }
        emit statusMessage(message, 15000);
        dialog->accept();
    }
    if (const QJsonObject action = body.value(QLatin1String("action")).toObject(); !action.isEmpty()) {
        if (std::optional<ActionRecord> record = ActionRecord::fromJson(action))
            emit queueRowOutdated(record->id);
    }
    emit detailOutdated(id);
}

DraftStore *DecisionController::draftsOf(const DraftStore::Origin &origin, DraftStore &other)
{
    if (origin.session == m_drafts.origin().session
        || (!origin.fileName.isEmpty() && origin.fileName == m_drafts.fileName()))
        return &m_drafts; // the same session, or the same user's file opened again
    if (origin.fileName.isEmpty())
        return nullptr; // drafts of a session whose user was never known: forgotten with it
    other.open(origin.fileName);
    return &other;
}

void DecisionController::reloadDialogAction(DecisionDialog *dialog, const QString &why)
{
    QPointer<DecisionDialog> guard(dialog);
    ApiCall *call = m_client->action(dialog->actionId());
    connect(call, &ApiCall::finished, this, [this, guard, why](ApiCall *c) {
        if (!guard)
            return;
        const std::optional<ActionDetail> detail = c->response().ok() ? ActionDetail::fromJson(c->response().object())
                                                                       : std::nullopt;
        if (!detail) {
            guard->setFailed(why);
            return;
        }
        QStringList changes = ActionDetail::describeChanges(guard->detail(), *detail);
        if (changes.isEmpty())
            changes << why;
        guard->updateDetail(*detail, changes);
        emit detailRead(*detail);
    });
}

void DecisionController::readCharge(ApproveDialog *dialog)
{
    // The provider's view now (recorded as evidence); the detail's snapshot stays shown, with its
    // age, until it answers — and when it cannot.
    QPointer<ApproveDialog> guard(dialog);
    dialog->setChargeReading();
    ApiCall *call = m_client->readCharge(dialog->actionId());
    // A read changes no action: not worth resending while the approver waits. The first answer
    // that is not a success (the provider's 502, the backend away) is shown as it is.
    connect(call, &ApiCall::resending, this, [guard, call](int, const ApiError &error) {
        if (guard)
            guard->setChargeReadFailed(error.userText());
        // Not from inside the signal: the client schedules the resend after emitting it.
        QMetaObject::invokeMethod(call, &ApiCall::abandon, Qt::QueuedConnection);
    });
    connect(call, &ApiCall::finished, this, [guard](ApiCall *c) {
        if (!guard)
            return;
        const ApiResponse &response = c->response();
        if (response.error.kind == ApiError::Kind::Cancelled)
            return; // abandoned above: already said why
        QString problem;
        const std::optional<ChargeView> view = response.ok() ? ChargeView::fromJson(response.object(), &problem) : std::nullopt;
        if (view)
            guard->setChargeRead(*view);
        else
            guard->setChargeReadFailed(response.ok() ? tr("the backend's answer could not be read (%1)").arg(problem)
                                                     : response.error.userText());
    });
}

void DecisionController::runDialogLookup(DecisionDialog *dialog)
{
    auto *reconcile = qobject_cast<ReconcileDialog *>(dialog);
    if (!reconcile)
        return;
    QPointer<ReconcileDialog> guard(reconcile);
    reconcile->setLookupRunning(true);
    ApiCall *call = m_client->lookUp(dialog->actionId(), dialog->ifMatch());
    connect(call, &ApiCall::finished, this, [this, guard](ApiCall *c) {
        if (!guard)
            return;
        guard->setLookupRunning(false);
        if (!c->response().ok() && c->response().error.httpStatus != 412) {
            guard->setFailed(c->response().error.userText());
            return;
        }
        // The new lookup (or whatever else changed) arrives with the action.
        QPointer<ReconcileDialog> inner = guard;
        ApiCall *reload = m_client->action(guard->actionId());
        connect(reload, &ApiCall::finished, this, [this, inner](ApiCall *r) {
            if (!inner || !r->response().ok())
                return;
            if (const std::optional<ActionDetail> detail = ActionDetail::fromJson(r->response().object())) {
                const bool versionChanged = detail->record.stateVersion != inner->ifMatch();
                inner->updateDetail(*detail, versionChanged ? ActionDetail::describeChanges(inner->detail(), *detail)
                                                            : QStringList());
                if (!detail->lookups.isEmpty())
                    inner->selectEvidence(detail->lookups.last().seq);
                emit detailRead(*detail);
            }
        });
    });
}

} // namespace cs
