#include "ui/executioncontroller.h"
#include "client/apiclient.h"
#include "ui/pausedialog.h"
#include "ui/resumedialog.h"
#include "ui/statepalette.h"

#include <QAction>
#include <QJsonArray>
#include <QLabel>
#include <QPushButton>
#include <QWidget>

namespace cs {

namespace {

QString pauseTime(const QDateTime &at)
{
    return at.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

} // namespace

ExecutionController::ExecutionController(ApiClient *client, QWidget *dialogParent, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_dialogParent(dialogParent)
    , m_indicator(new QLabel(dialogParent))
    , m_pauseAction(new QAction(tr("&Pause execution\u2026"), this))
    , m_resumeAction(new QAction(tr("&Resume execution\u2026"), this))
{
    m_indicator->setObjectName(QStringLiteral("statusExecution"));
    m_pauseAction->setObjectName(QStringLiteral("pauseExecutionAction"));
    m_pauseAction->setStatusTip(tr("Stop claiming new work: everything, one agent or one provider account"));
    m_resumeAction->setObjectName(QStringLiteral("resumeExecutionAction"));
    m_resumeAction->setStatusTip(tr("Resume a pause in force"));
    connect(m_pauseAction, &QAction::triggered, this, &ExecutionController::openPause);
    connect(m_resumeAction, &QAction::triggered, this, &ExecutionController::openResume);
    updateIndicator(QString());
    updateActions();
}

void ExecutionController::setRole(const QString &role)
{
    m_role = role;
    updateActions();
}

void ExecutionController::clear()
{
    if (m_read)
        m_read->abandon();
    m_readAgain = false;
    m_known = false;
    m_role.clear();
    m_pauses.clear();
    updateIndicator(QString());
    updateActions();
    emit pausesChanged();
}

bool ExecutionController::mayPause() const
{
    return m_role == QLatin1String("supervisor") || m_role == QLatin1String("admin");
}

bool ExecutionController::isReading() const
{
    return m_read && !m_read->isFinished();
}

void ExecutionController::reload()
{
    if (m_read && !m_read->isFinished()) {
        m_readAgain = true; // the answer out may predate the change: read once more after it
        return;
    }
    ApiCall *call = m_client->executionState();
    m_read = call;
    connect(call, &ApiCall::finished, this, [this](ApiCall *c) {
        const ApiResponse &response = c->response();
        if (response.error.kind == ApiError::Kind::Cancelled)
            return;
        if (m_readAgain) {
            m_readAgain = false;
            m_read = nullptr;
            reload();
            return;
        }
        if (!response.ok()) {
            updateIndicator(QString(), tr("Could not read the execution state: %1").arg(response.error.userText()));
            return;
        }
        QList<ExecutionPause> pauses;
        const QJsonArray list = response.object().value(QLatin1String("pauses")).toArray();
        for (const QJsonValue &value : list) {
            QString error;
            std::optional<ExecutionPause> pause = ExecutionPause::fromJson(value.toObject(), &error);
            if (!pause) {
                updateIndicator(QString(), tr("The backend's execution state could not be read: %1").arg(error));
                return;
            }
            if (pause->inForce())
                pauses.append(*pause);
        }
        m_known = true;
        m_pauses = pauses;
        updateIndicator(describePauses(m_pauses));
        updateActions();
        if (auto *resume = qobject_cast<ResumeDialog *>(m_dialog.data()); resume && !resume->isSending())
            resume->setPauses(m_pauses);
        emit pausesChanged();
    });
}

void ExecutionController::setOffline(bool offline)
{
    if (offline == m_offline)
        return;
    m_offline = offline;
    if (!offline) {
        reload();
        return;
    }
    const QString last = m_indicator->text();
    m_indicator->setText(tr("Execution: unknown while offline"));
    m_indicator->setToolTip(m_known ? tr("The backend does not answer, so what is in force now is not known. Last read: %1.").arg(last)
                                    : tr("The backend does not answer, so what is in force now is not known."));
    m_indicator->setAccessibleName(m_indicator->text());
    m_indicator->setStyleSheet(QStringLiteral("QLabel { color: %1; padding: 0 6px; }")
                                   .arg(StatePalette::mutedText(m_indicator->palette()).name()));
}

void ExecutionController::updateIndicator(const QString &summary, const QString &problem)
{
    if (m_offline)
        return; // says "unknown while offline" until the backend answers again
    const QPalette palette = m_indicator->palette();
    if (!problem.isEmpty() && !m_known) {
        m_indicator->setText(tr("Execution: unknown"));
        m_indicator->setToolTip(problem);
    } else if (!m_known) {
        m_indicator->setText(tr("Execution: not read yet"));
        m_indicator->setToolTip(QString());
    } else if (!problem.isEmpty()) {
        // Keep what was read last, and say that it may be out of date.
        m_indicator->setToolTip(problem + QStringLiteral("\n") + tr("Shown: what was in force when last read."));
        return;
    }
    if (!m_known) {
        m_indicator->setAccessibleName(m_indicator->text());
        m_indicator->setStyleSheet(QStringLiteral("QLabel { color: %1; padding: 0 6px; }")
                                       .arg(StatePalette::mutedText(palette).name()));
        return;
    }
    if (m_pauses.isEmpty()) {
        m_indicator->setText(tr("Execution running"));
        m_indicator->setToolTip(tr("No pause is in force: approved actions are claimed and sent."));
        m_indicator->setStyleSheet(QStringLiteral("QLabel { color: %1; padding: 0 6px; }")
                                       .arg(StatePalette::mutedText(palette).name()));
    } else {
        m_indicator->setText(QStringLiteral("\u25A0 ") + summary);
        QString tip = tr("<b>Execution paused</b> \u2014 nothing a pause covers is claimed; what was in flight "
                         "finishes.<ul style=\"margin:2px 0 0 -20px\">");
        for (const ExecutionPause &pause : std::as_const(m_pauses))
            tip += QStringLiteral("<li>") + tr("%1 \u2014 paused by %2 at %3: %4")
                                                .arg(pause.what(), pause.pausedBy, pauseTime(pause.pausedAt), pause.reason)
                                                .toHtmlEscaped()
                + QStringLiteral("</li>");
        tip += QStringLiteral("</ul>");
        m_indicator->setToolTip(tip);
        const StatePalette::Chip chip = StatePalette::stateChip(ActionState::RequiresReview, palette);
        m_indicator->setStyleSheet(
            QStringLiteral("QLabel { color: %1; background: %2; border: 1px solid %3; border-radius: 3px; "
                           "font-weight: 600; padding: 0 6px; }")
                .arg(chip.text.name(), chip.fill.name(), chip.border.name()));
    }
    m_indicator->setAccessibleName(m_indicator->text());
}

void ExecutionController::updateActions()
{
    const QString who = m_role.isEmpty() ? tr("not signed in") : tr("signed in as %1").arg(m_role);
    if (!mayPause()) {
        const QString why = tr("Pausing and resuming execution is for supervisors and admins; you are %1.").arg(who);
        for (QAction *action : { m_pauseAction, m_resumeAction }) {
            action->setEnabled(false);
            action->setToolTip(why);
        }
        return;
    }
    m_pauseAction->setEnabled(true);
    m_pauseAction->setToolTip(m_pauseAction->statusTip());
    const bool any = !m_pauses.isEmpty();
    m_resumeAction->setEnabled(any);
    m_resumeAction->setToolTip(any ? m_resumeAction->statusTip() : tr("Nothing is paused now."));
}

void ExecutionController::openPause()
{
    if (m_dialog || !mayPause())
        return;
    showDialog(new PauseDialog(m_dialogParent));
}

void ExecutionController::openResume()
{
    if (m_dialog || !mayPause())
        return;
    showDialog(new ResumeDialog(m_pauses, m_dialogParent));
}

void ExecutionController::showDialog(ExecutionDialog *dialog)
{
    m_dialog = dialog;
    connect(dialog, &ExecutionDialog::confirmed, this, [this, dialog] { submit(dialog); });
    connect(dialog, &ExecutionDialog::stopResendingRequested, this, [this] {
        if (m_sent)
            m_sent->abandon();
    });
    connect(dialog, &QDialog::finished, this, [this, dialog] {
        if (m_dialog == dialog)
            m_dialog = nullptr;
        dialog->deleteLater();
    });
    dialog->open();
}

void ExecutionController::submit(ExecutionDialog *dialog)
{
    QStringList request;
    if (auto *pause = qobject_cast<PauseDialog *>(dialog))
        request = { QStringLiteral("pause"), toWire(pause->scope()), pause->name(), pause->reason() };
    else if (auto *resume = qobject_cast<ResumeDialog *>(dialog))
        request = { QStringLiteral("resume"), resume->pauseId(), resume->note() };
    else
        return;
    // The same request again after an unknown outcome goes with the same key: replayed, not repeated.
    const QString key = request == m_unanswered ? m_unansweredKey : ApiClient::mintIdempotencyKey();
    m_unanswered = request;
    m_unansweredKey = key;
    ApiCall *call = request.constFirst() == QLatin1String("pause")
        ? m_client->pauseExecution(pauseScopeFromWire(request.at(1)).value_or(ExecutionPause::Scope::All), request.at(2),
                                   request.at(3), key)
        : m_client->resumeExecution(request.at(1), request.at(2), key);
    m_sent = call;
    dialog->setSending();
    QPointer<ExecutionDialog> guard(dialog);
    connect(call, &ApiCall::resending, this, [guard, call](int sendCount, const ApiError &error) {
        if (guard)
            guard->setResending(sendCount, error.userText(), call->idempotencyKey());
    });
    connect(call, &ApiCall::finished, this, [this, guard](ApiCall *c) { onAnswer(guard, c); });
}

void ExecutionController::onAnswer(ExecutionDialog *dialog, ApiCall *call)
{
    const ApiResponse &response = call->response();
    const bool pausing = call->path() == QLatin1String("/execution/pauses");
    if (response.ok()) {
        m_unanswered.clear();
        m_unansweredKey.clear();
        std::optional<ExecutionPause> pause = ExecutionPause::fromJson(response.object());
        const QString what = pause ? pause->what() : QString();
        emit statusMessage(pausing ? tr("Execution paused: %1.").arg(what) : tr("Execution resumed: %1.").arg(what), 8000);
        if (dialog)
            dialog->done(QDialog::Accepted);
        reload();
        return;
    }
    if (response.error.kind == ApiError::Kind::Http || response.error.kind == ApiError::Kind::Protocol) {
        // A definitive answer (also a refusal): a new attempt is a new request with a new key.
        m_unanswered.clear();
        m_unansweredKey.clear();
        if (dialog)
            dialog->setFailed(response.error.userText());
    } else if (dialog) {
        dialog->setFailed(
            tr("No answer from the backend (%1): whether it was recorded is unknown; the status bar shows what is in "
               "force once the backend answers. Confirming the same again sends the same request once more.")
                .arg(response.error.kind == ApiError::Kind::Cancelled ? tr("stopped waiting") : response.error.userText()));
    }
    reload(); // a refusal (already paused, already resumed) means it changed meanwhile
}

} // namespace cs
