#pragma once

#include "models/actionexport.h"
#include "models/actionquery.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

class QAction;
class QFileDialog;
class QProgressDialog;
class QWidget;

namespace cs {

class ActionExportJob;
class ActionPageSource;
class ApiClient;
class ConsoleSettings;
class HistoryExportJob;

// File → Export (docs/EXPORT.md): the queue's current filter and search, every page, or the shown
// action's history, as CSV or JSON. Owns the two QActions, the file dialog (CSV or JSON, the last
// folder remembered), the progress dialog with the count and Cancel, and the jobs that read and
// write (ActionExportJob, HistoryExportJob); the result goes to statusMessage(). Everything is
// asynchronous: no nested event loop while pages arrive. One export at a time.
class ExportController : public QObject
{
    Q_OBJECT

public:
    // `source`: where the action list's pages come from (the queue's own source will do: its
    // answers carry tickets). `window`: the dialogs' parent.
    ExportController(ApiClient *client, ActionPageSource *source, ConsoleSettings *settings, QWidget *window,
                     QObject *parent = nullptr);
    ~ExportController() override;

    // What the menu items export: the queue's query now, the action shown now.
    void setQueryProvider(std::function<ActionQuery()> query) { m_query = std::move(query); }
    void setActionProvider(std::function<QString()> actionId) { m_actionId = std::move(actionId); }

    // Rows per page of the action list (default: the API's largest, 200).
    void setPageSize(int rows) { m_pageSize = rows; }

    QAction *exportActionsAction() const { return m_exportActions; }
    QAction *exportHistoryAction() const { return m_exportHistory; }

    // Without the file dialog: starts at once. False (and a status message) while another export
    // runs.
    bool startActionsExport(const ActionQuery &query, const QString &path, ExportFormat format);
    bool startHistoryExport(const QString &actionId, const QString &path, ExportFormat format);
    bool isExporting() const;

    QFileDialog *fileDialog() const;
    QProgressDialog *progressDialog() const;
    ActionExportJob *actionsJob() const;

    // The format of a chosen file: its suffix when it is .csv or .json, else the dialog's filter.
    static ExportFormat formatFor(const QString &path, ExportFormat filterFormat);

public slots:
    // The file dialog, then the export.
    void exportActions();
    void exportHistory();
    // Stops the running export; nothing is written.
    void cancel();

signals:
    void statusMessage(const QString &message, int timeoutMs);
    void exportFinished(cs::ExportOutcome outcome, const QString &path);

private:
    QStringList nameFilters() const;
    void openFileDialog(const QString &title, const QString &fileName, std::function<void(const QString &, ExportFormat)> then);
    void onActionsProgress(qint64 rows, qint64 expected);
    void onActionsFinished(ExportOutcome outcome);
    void onHistoryFinished(ExportOutcome outcome);
    void updateActions();
    void closeProgress();

    QPointer<ApiClient> m_client;
    QPointer<ActionPageSource> m_source;
    ConsoleSettings *m_settings;
    QPointer<QWidget> m_window;
    std::function<ActionQuery()> m_query;
    std::function<QString()> m_actionId;
    QAction *m_exportActions;
    QAction *m_exportHistory;
    QPointer<QFileDialog> m_fileDialog;
    QPointer<QProgressDialog> m_progress;
    QPointer<ActionExportJob> m_actionsJob;
    QPointer<HistoryExportJob> m_historyJob;
    int m_pageSize = 200;
};

} // namespace cs
