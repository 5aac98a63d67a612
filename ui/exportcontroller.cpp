#include "ui/exportcontroller.h"
#include "client/apiclient.h"
#include "client/historyexportjob.h"
#include "models/actionexportjob.h"
#include "ui/consolesettings.h"
#include "ui/uilog.h"

#include <QAction>
#include <QDate>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QProgressDialog>
#include <QStandardPaths>

#include <limits>

namespace cs {

namespace {

// tr()'s plural count is an int.
int asCount(qint64 n)
{
    return int(qMin<qint64>(n, std::numeric_limits<int>::max()));
}

} // namespace

ExportController::ExportController(ApiClient *client, ActionPageSource *source, ConsoleSettings *settings,
                                   QWidget *window, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_source(source)
    , m_settings(settings)
    , m_window(window)
{
    m_exportActions = new QAction(tr("&Export actions\u2026"), this);
    m_exportActions->setObjectName(QStringLiteral("exportActionsAction"));
    m_exportActions->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+E")));
    m_exportActions->setShortcutContext(Qt::WindowShortcut);
    m_exportActions->setStatusTip(
        tr("Export every action of the queue's current filter and search, all pages, as CSV or JSON"));
    connect(m_exportActions, &QAction::triggered, this, &ExportController::exportActions);

    m_exportHistory = new QAction(tr("Export this action's &history\u2026"), this);
    m_exportHistory->setObjectName(QStringLiteral("exportHistoryAction"));
    m_exportHistory->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+H")));
    m_exportHistory->setShortcutContext(Qt::WindowShortcut);
    m_exportHistory->setStatusTip(
        tr("Export the shown action's attempts, look-ups, approvals, reconciliations and audit as CSV or JSON"));
    connect(m_exportHistory, &QAction::triggered, this, &ExportController::exportHistory);
}

ExportController::~ExportController() = default;

QFileDialog *ExportController::fileDialog() const
{
    return m_fileDialog;
}

QProgressDialog *ExportController::progressDialog() const
{
    return m_progress;
}

ActionExportJob *ExportController::actionsJob() const
{
    return m_actionsJob;
}

bool ExportController::isExporting() const
{
    return (m_actionsJob && m_actionsJob->outcome() == ExportOutcome::Running)
        || (m_historyJob && m_historyJob->outcome() == ExportOutcome::Running);
}

ExportFormat ExportController::formatFor(const QString &path, ExportFormat filterFormat)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    return exportFormatFromWire(suffix).value_or(filterFormat);
}

QStringList ExportController::nameFilters() const
{
    return {tr("CSV, for spreadsheets (*.csv)"), tr("JSON (*.json)")};
}

void ExportController::openFileDialog(const QString &title, const QString &fileName,
                                      std::function<void(const QString &, ExportFormat)> then)
{
    if (m_fileDialog)
        m_fileDialog->deleteLater();
    QString folder = m_settings ? QString(m_settings->exportDirectory) : QString();
    if (folder.isEmpty() || !QFileInfo(folder).isDir())
        folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    auto *dialog = new QFileDialog(m_window, title, folder);
    m_fileDialog = dialog;
    dialog->setObjectName(QStringLiteral("exportFileDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setFileMode(QFileDialog::AnyFile);
    const QStringList filters = nameFilters();
    dialog->setNameFilters(filters);
    ExportFormat remembered = ExportFormat::Csv;
    if (m_settings)
        remembered = exportFormatFromWire(QString(m_settings->exportFormat)).value_or(ExportFormat::Csv);
    dialog->selectNameFilter(filters.at(remembered == ExportFormat::Csv ? 0 : 1));
    dialog->setDefaultSuffix(toWire(remembered));
    dialog->selectFile(fileName + QLatin1Char('.') + toWire(remembered));
    // Switching the filter switches the suffix of the name being typed.
    connect(dialog, &QFileDialog::filterSelected, dialog, [dialog, filters](const QString &filter) {
        const QString suffix = filter == filters.at(1) ? QStringLiteral("json") : QStringLiteral("csv");
        dialog->setDefaultSuffix(suffix);
        const QStringList chosen = dialog->selectedFiles();
        if (!chosen.isEmpty() && !QFileInfo(chosen.constFirst()).isDir())
            dialog->selectFile(QFileInfo(chosen.constFirst()).completeBaseName() + QLatin1Char('.') + suffix);
    });
    connect(dialog, &QFileDialog::fileSelected, this, [this, dialog, filters, then](const QString &path) {
        const ExportFormat filterFormat = dialog->selectedNameFilter() == filters.at(1) ? ExportFormat::Json
                                                                                         : ExportFormat::Csv;
        const ExportFormat format = formatFor(path, filterFormat);
        if (m_settings) {
            m_settings->exportDirectory = QFileInfo(path).absolutePath();
            m_settings->exportFormat = toWire(format);
        }
        then(path, format);
    });
    dialog->open();
}

void ExportController::exportActions()
{
    if (isExporting()) {
        emit statusMessage(tr("An export is running; wait for it or cancel it first."), 6000);
        return;
    }
    const ActionQuery query = m_query ? m_query() : ActionQuery::queue();
    const QString name = tr("countersign-actions-%1").arg(QDate::currentDate().toString(Qt::ISODate));
    openFileDialog(tr("Export actions"), name, [this, query](const QString &path, ExportFormat format) {
        startActionsExport(query, path, format);
    });
}

void ExportController::exportHistory()
{
    if (isExporting()) {
        emit statusMessage(tr("An export is running; wait for it or cancel it first."), 6000);
        return;
    }
    const QString actionId = m_actionId ? m_actionId() : QString();
    if (actionId.isEmpty()) {
        emit statusMessage(tr("Select an action first: its history is what is exported."), 6000);
        return;
    }
    openFileDialog(tr("Export the history of %1").arg(actionId), tr("%1-history").arg(actionId),
                   [this, actionId](const QString &path, ExportFormat format) {
                       startHistoryExport(actionId, path, format);
                   });
}

bool ExportController::startActionsExport(const ActionQuery &query, const QString &path, ExportFormat format)
{
    if (isExporting() || !m_source) {
        emit statusMessage(tr("An export is running; wait for it or cancel it first."), 6000);
        return false;
    }
    if (m_actionsJob)
        m_actionsJob->deleteLater();
    auto *job = new ActionExportJob(m_source, query, format, path, this);
    m_actionsJob = job;
    job->setPageSize(m_pageSize);
    connect(job, &ActionExportJob::progress, this, &ExportController::onActionsProgress);
    connect(job, &ActionExportJob::finished, this, &ExportController::onActionsFinished);

    closeProgress();
    // Not modal: QProgressDialog::setValue runs the event loop itself when modal, and the console
    // stays usable while the pages arrive (the export items wait until it is done).
    auto *progress = new QProgressDialog(m_window);
    m_progress = progress;
    progress->setObjectName(QStringLiteral("exportProgressDialog"));
    progress->setWindowModality(Qt::NonModal);
    progress->setWindowTitle(tr("Exporting actions"));
    progress->setLabelText(tr("Exporting to %1").arg(QFileInfo(path).fileName()) + QLatin1Char('\n')
                           + tr("Reading the first page\u2026"));
    progress->setCancelButtonText(tr("Cancel"));
    progress->setAutoClose(false);
    progress->setAutoReset(false);
    progress->setMinimumDuration(400); // a small export is done before a dialog would show
    progress->setMinimumWidth(460);
    progress->setRange(0, 0);
    progress->setValue(0);
    connect(progress, &QProgressDialog::canceled, job, &ActionExportJob::cancel);

    qCInfo(lcUi).noquote() << "export of" << query.stateParameter() << query.search << "to" << path;
    job->start();
    updateActions();
    return true;
}

bool ExportController::startHistoryExport(const QString &actionId, const QString &path, ExportFormat format)
{
    if (isExporting() || !m_client) {
        emit statusMessage(tr("An export is running; wait for it or cancel it first."), 6000);
        return false;
    }
    if (m_historyJob)
        m_historyJob->deleteLater();
    auto *job = new HistoryExportJob(m_client, actionId, format, path, this);
    m_historyJob = job;
    connect(job, &HistoryExportJob::finished, this, &ExportController::onHistoryFinished);
    emit statusMessage(tr("Exporting the history of %1\u2026").arg(actionId), 0);
    job->start();
    updateActions();
    return true;
}

void ExportController::cancel()
{
    if (m_actionsJob)
        m_actionsJob->cancel();
    if (m_historyJob)
        m_historyJob->cancel();
}

void ExportController::onActionsProgress(qint64 rows, qint64 expected)
{
    if (!m_progress)
        return;
    // QProgressBar counts in int: large totals are shown in thousandths.
    const QString where = m_actionsJob ? tr("Exporting to %1").arg(QFileInfo(m_actionsJob->path()).fileName()) : QString();
    if (expected > 0) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(rows * 1000 / expected));
        m_progress->setLabelText(where + QLatin1Char('\n') + tr("%L1 of %L2 actions written\u2026").arg(rows).arg(expected));
    } else {
        m_progress->setRange(0, 0);
        m_progress->setLabelText(where + QLatin1Char('\n') + tr("%Ln action(s) written\u2026", nullptr, asCount(rows)));
    }
}

void ExportController::onActionsFinished(ExportOutcome outcome)
{
    ActionExportJob *job = m_actionsJob;
    closeProgress();
    updateActions();
    if (!job)
        return;
    const QString path = QDir::toNativeSeparators(job->path());
    switch (outcome) {
    case ExportOutcome::Written:
        emit statusMessage(tr("Exported %Ln action(s) to %1 (%2).", nullptr, asCount(job->rowsWritten()))
                               .arg(path, QLocale().formattedDataSize(job->bytesWritten())),
                           15000);
        break;
    case ExportOutcome::Cancelled:
        emit statusMessage(tr("Export cancelled: no file was written."), 10000);
        break;
    case ExportOutcome::Failed:
        emit statusMessage(tr("Export failed, no file was written: %1").arg(job->errorString()), 15000);
        break;
    case ExportOutcome::Running:
        return;
    }
    emit exportFinished(outcome, job->path());
}

void ExportController::onHistoryFinished(ExportOutcome outcome)
{
    HistoryExportJob *job = m_historyJob;
    updateActions();
    if (!job)
        return;
    const QString path = QDir::toNativeSeparators(job->path());
    switch (outcome) {
    case ExportOutcome::Written:
        emit statusMessage(tr("Exported the history of %1 to %2 (%3).")
                               .arg(job->actionId(), path, QLocale().formattedDataSize(job->bytesWritten())),
                           15000);
        break;
    case ExportOutcome::Cancelled:
        emit statusMessage(tr("Export cancelled: no file was written."), 10000);
        break;
    case ExportOutcome::Failed:
        emit statusMessage(tr("Export failed, no file was written: %1").arg(job->errorString()), 15000);
        break;
    case ExportOutcome::Running:
        return;
    }
    emit exportFinished(outcome, job->path());
}

void ExportController::updateActions()
{
    const bool idle = !isExporting();
    m_exportActions->setEnabled(idle);
    m_exportHistory->setEnabled(idle);
}

void ExportController::closeProgress()
{
    if (!m_progress)
        return;
    QProgressDialog *progress = m_progress;
    m_progress = nullptr;
    disconnect(progress, nullptr, this, nullptr);
    if (m_actionsJob)
        disconnect(progress, nullptr, m_actionsJob, nullptr);
    progress->hide();
    progress->deleteLater();
}

} // namespace cs
