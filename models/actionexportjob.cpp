#include "models/actionexportjob.h"

#include <QLoggingCategory>
#include <QSaveFile>
#include <QTimer>

namespace cs {

namespace {
Q_LOGGING_CATEGORY(lcExport, "countersign.export", QtWarningMsg)
} // namespace

ActionExportJob::ActionExportJob(ActionPageSource *source, const ActionQuery &query, ExportFormat format,
                                 const QString &path, QObject *parent)
    : QObject(parent)
    , m_source(source)
    , m_query(query)
    , m_path(path)
    , m_writer(format)
{
    connect(source, &ActionPageSource::pageReady, this, &ActionExportJob::onPageReady);
    connect(source, &ActionPageSource::pageFailed, this, &ActionExportJob::onPageFailed);
}

ActionExportJob::~ActionExportJob()
{
    if (m_file)
        m_file->cancelWriting(); // QSaveFile's destructor then removes the temporary file
}

void ActionExportJob::start()
{
    if (m_started)
        return;
    m_started = true;
    m_file = std::make_unique<QSaveFile>(m_path);
    if (!m_file->open(QIODevice::WriteOnly)) {
        const QString reason = m_file->errorString();
        m_file.reset();
        // Reported later, as every outcome is: the caller may still be connecting.
        QTimer::singleShot(0, this, [this, reason] { fail(tr("cannot write %1: %2").arg(m_path, reason)); });
        return;
    }
    if (!write(m_writer.begin()))
        return;
    requestPage(QString());
}

void ActionExportJob::cancel()
{
    if (m_outcome != Outcome::Running)
        return;
    qCInfo(lcExport) << "export to" << m_path << "cancelled after" << m_rows << "rows";
    finish(Outcome::Cancelled);
}

void ActionExportJob::requestPage(const QString &cursor)
{
    if (!m_source) {
        fail(tr("the action list is gone"));
        return;
    }
    m_ticket = m_source->requestPage(m_query, cursor, m_pageSize);
}

void ActionExportJob::onPageReady(quint64 ticket, const ActionPage &page)
{
    if (ticket != m_ticket || m_outcome != Outcome::Running)
        return;
    m_ticket = 0;
    ++m_pages;
    if (m_pages == 1 && m_query.search.trimmed().isEmpty()) {
        qint64 expected = 0;
        if (m_query.states.isEmpty()) {
            expected = page.counts.total();
        } else {
            for (ActionState state : std::as_const(m_query.states))
                expected += page.counts.count(state);
        }
        m_expected = expected;
    }
    if (!write(m_writer.rows(page.rows)))
        return;
    m_rows += page.rows.size();
    // The counts were read with the first page; actions proposed since then make it an estimate.
    if (m_expected >= 0 && m_rows > m_expected)
        m_expected = m_rows;
    emit progress(m_rows, m_expected);
    if (m_outcome != Outcome::Running) // a slot cancelled
        return;
    if (!page.nextCursor.isEmpty()) {
        requestPage(page.nextCursor);
        return;
    }
    if (!write(m_writer.end()))
        return;
    if (!m_file->commit()) {
        fail(tr("cannot write %1: %2").arg(m_path, m_file->errorString()));
        return;
    }
    m_file.reset();
    qCInfo(lcExport) << "exported" << m_rows << "rows," << m_bytes << "bytes, in" << m_pages << "pages to" << m_path;
    finish(Outcome::Written);
}

void ActionExportJob::onPageFailed(quint64 ticket, const QString &message)
{
    if (ticket != m_ticket || m_outcome != Outcome::Running)
        return;
    m_ticket = 0;
    fail(tr("page %1 of the action list could not be read: %2").arg(m_pages + 1).arg(message));
}

bool ActionExportJob::write(const QByteArray &bytes)
{
    if (m_file->write(bytes) != bytes.size()) {
        fail(tr("cannot write %1: %2").arg(m_path, m_file->errorString()));
        return false;
    }
    m_bytes += bytes.size();
    return true;
}

void ActionExportJob::fail(const QString &message)
{
    if (m_outcome != Outcome::Running)
        return;
    m_error = message;
    qCWarning(lcExport).noquote() << "export failed:" << message;
    finish(Outcome::Failed);
}

void ActionExportJob::finish(Outcome outcome)
{
    m_ticket = 0;
    if (m_file) {
        m_file->cancelWriting();
        m_file.reset(); // removes the temporary file: nothing half-written stays behind
    }
    m_outcome = outcome;
    emit finished(outcome);
}

} // namespace cs
