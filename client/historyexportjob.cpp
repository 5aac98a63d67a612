#include "client/historyexportjob.h"
#include "client/apiclient.h"
#include "models/actiondetail.h"
#include "models/historyexport.h"

#include <QTimer>

namespace cs {

HistoryExportJob::HistoryExportJob(ApiClient *client, const QString &actionId, ExportFormat format,
                                   const QString &path, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_actionId(actionId)
    , m_format(format)
    , m_path(path)
{
}

HistoryExportJob::~HistoryExportJob()
{
    if (m_call && !m_call->isFinished())
        m_call->abandon();
}

void HistoryExportJob::start()
{
    if (m_call || m_outcome != ExportOutcome::Running)
        return;
    if (!m_client) {
        QTimer::singleShot(0, this, [this] { finish(ExportOutcome::Failed, tr("no backend")); });
        return;
    }
    m_call = m_client->action(m_actionId);
    connect(m_call, &ApiCall::finished, this, &HistoryExportJob::onFinished);
}

void HistoryExportJob::cancel()
{
    if (m_outcome != ExportOutcome::Running)
        return;
    if (m_call && !m_call->isFinished()) {
        disconnect(m_call, nullptr, this, nullptr);
        m_call->abandon();
    }
    finish(ExportOutcome::Cancelled);
}

void HistoryExportJob::onFinished(ApiCall *call)
{
    if (m_outcome != ExportOutcome::Running)
        return;
    const ApiResponse &response = call->response();
    if (!response.ok()) {
        finish(ExportOutcome::Failed, tr("%1 could not be read: %2").arg(m_actionId, response.error.userText()));
        return;
    }
    QString error;
    const std::optional<ActionDetail> detail = ActionDetail::fromJson(response.object(), &error);
    if (!detail) {
        finish(ExportOutcome::Failed, tr("the backend's answer for %1 could not be read: %2").arg(m_actionId, error));
        return;
    }
    const ActionHistory history = ActionHistory::fromDetail(*detail);
    const QByteArray bytes = HistoryExport::write(history, m_format);
    if (!writeFileAtomically(m_path, bytes, &error)) {
        finish(ExportOutcome::Failed, error);
        return;
    }
    m_bytes = bytes.size();
    m_entries = int(history.attempts.size() + history.lookups.size() + history.approvals.size()
                    + history.reconciliations.size() + history.audit.size());
    finish(ExportOutcome::Written);
}

void HistoryExportJob::finish(ExportOutcome outcome, const QString &error)
{
    m_outcome = outcome;
    m_error = error;
    emit finished(outcome);
}

} // namespace cs
