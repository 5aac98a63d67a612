#pragma once

#include "models/actionexport.h"

#include <QObject>
#include <QPointer>
#include <QString>

namespace cs {

class ApiCall;
class ApiClient;

// Exports one action's history (models/historyexport.h: the action, its attempts, lookups,
// approvals, reconciliations and audit) to a file: one GET /actions/{id}, then the file written
// at once through QSaveFile, so a failure or a cancel leaves no file. Not thread-safe.
class HistoryExportJob : public QObject
{
    Q_OBJECT

public:
    HistoryExportJob(ApiClient *client, const QString &actionId, ExportFormat format, const QString &path,
                     QObject *parent = nullptr);
    ~HistoryExportJob() override;

    // Reads the action; the outcome arrives through finished().
    void start();
    // Abandons the read: finished(Cancelled), no file. No-op once finished.
    void cancel();

    ExportOutcome outcome() const { return m_outcome; }
    QString actionId() const { return m_actionId; }
    QString path() const { return m_path; }
    ExportFormat format() const { return m_format; }
    qint64 bytesWritten() const { return m_bytes; }
    // How many rows (CSV) or entries (JSON) the file holds besides the action: attempts,
    // lookups, approvals, reconciliations and audit events.
    int entries() const { return m_entries; }
    QString errorString() const { return m_error; }

signals:
    void finished(cs::ExportOutcome outcome);

private:
    void onFinished(ApiCall *call);
    void finish(ExportOutcome outcome, const QString &error = QString());

    QPointer<ApiClient> m_client;
    QPointer<ApiCall> m_call;
    QString m_actionId;
    ExportFormat m_format;
    QString m_path;
    ExportOutcome m_outcome = ExportOutcome::Running;
    qint64 m_bytes = 0;
    int m_entries = 0;
    QString m_error;
};

} // namespace cs
