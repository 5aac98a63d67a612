#pragma once

#include "models/actionexport.h"
#include "models/actionpagesource.h"
#include "models/actionquery.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

class QSaveFile;

namespace cs {

// Exports every action of one query to a file, page after page from an ActionPageSource (the
// console's: GET /actions with its cursor), each page written as it arrives — never the whole list
// in memory, never waiting on the GUI thread. The file is a QSaveFile: it appears under its name
// only once the last page is written; a cancel, a page that fails or a write error leaves no file
// (and a file it would have replaced as it was).
//
// The pages are read one after another, not in one transaction: an action created after the
// export started is not in it (new actions come before the cursor), one that changes state into or
// out of the filter meanwhile may be missing. Not thread-safe: use from the source's thread.
class ActionExportJob : public QObject
{
    Q_OBJECT

public:
    using Outcome = ExportOutcome;

    static constexpr int DefaultPageSize = 200; // the API's largest page

    ActionExportJob(ActionPageSource *source, const ActionQuery &query, ExportFormat format, const QString &path,
                    QObject *parent = nullptr);
    ~ActionExportJob() override; // a file not finished is discarded

    void setPageSize(int rows) { m_pageSize = rows; }

    // Opens the file and asks for the first page. The outcome arrives through finished(), never
    // from inside start() or cancel() of a job that already finished.
    void start();
    // Stops at once: the partial file is discarded, finished(Cancelled) is emitted. No-op once
    // finished.
    void cancel();

    Outcome outcome() const { return m_outcome; }
    bool isRunning() const { return m_outcome == Outcome::Running && m_started; }
    QString path() const { return m_path; }
    ExportFormat format() const { return m_writer.format(); }
    qint64 rowsWritten() const { return m_rows; }
    qint64 bytesWritten() const { return m_bytes; }
    // How many rows the export will have, from the first page's counts per state; -1 while not
    // known, and for a search (the counts ignore it).
    qint64 expectedRows() const { return m_expected; }
    QString errorString() const { return m_error; }

signals:
    void progress(qint64 rowsWritten, qint64 expectedRows);
    void finished(cs::ExportOutcome outcome);

private:
    void requestPage(const QString &cursor);
    void onPageReady(quint64 ticket, const ActionPage &page);
    void onPageFailed(quint64 ticket, const QString &message);
    bool write(const QByteArray &bytes);
    void fail(const QString &message);
    void finish(Outcome outcome);

    QPointer<ActionPageSource> m_source;
    ActionQuery m_query;
    QString m_path;
    ActionExportWriter m_writer;
    std::unique_ptr<QSaveFile> m_file;
    int m_pageSize = DefaultPageSize;
    quint64 m_ticket = 0;
    bool m_started = false;
    Outcome m_outcome = Outcome::Running;
    qint64 m_rows = 0;
    qint64 m_bytes = 0;
    qint64 m_expected = -1;
    int m_pages = 0;
    QString m_error;
};

} // namespace cs
