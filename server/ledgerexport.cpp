#include "server/ledgerexport.h"

#include <QIODevice>

namespace cs {

namespace {

bool put(QIODevice *out, const QByteArray &bytes, qint64 *written, QString *error)
{
    if (out->write(bytes) != bytes.size()) {
        *error = QStringLiteral("cannot write: ") + out->errorString();
        return false;
    }
    *written += bytes.size();
    return true;
}

} // namespace

std::optional<LedgerExport::Written> LedgerExport::writeActions(const ActionReader &reader, const ActionsQuery &query,
                                                                ExportFormat format, QIODevice *out, QString *error)
{
    ActionReader::ListQuery list;
    list.sort = ActionReader::SortKey::CreatedAt;
    list.descending = true;
    list.states = query.states;
    list.text = query.text;
    list.limit = query.pageSize;
    if (query.until.isValid()) {
        // Newest first, "after" (created_at, id) means created_at < until: no id sorts below "".
        list.afterCursor = true;
        list.cursorCreatedAtMs = query.until.toMSecsSinceEpoch();
        list.cursorId = QString();
    }
    ActionExportWriter writer(format);
    Written written;
    if (!put(out, writer.begin(), &written.bytes, error))
        return std::nullopt;
    for (bool more = true; more;) {
        const LedgerResult<ActionReader::Page> page = reader.list(list);
        if (!page.ok()) {
            *error = page.error().toString();
            return std::nullopt;
        }
        QList<ActionSummary> rows;
        rows.reserve(page->rows.size());
        more = page->hasMore;
        for (const ActionReader::Summary &s : page->rows) {
            if (query.since.isValid() && s.record.createdAt < query.since) {
                more = false; // newest first: every row after this one is older still
                break;
            }
            ActionSummary row;
            row.record = s.record;
            row.attemptCount = s.attemptCount;
            row.lastEventAt = s.lastEventAt;
            row.possibleDuplicates = s.possibleDuplicates;
            rows.append(std::move(row));
        }
        if (!put(out, writer.rows(rows), &written.bytes, error))
            return std::nullopt;
        written.rows += rows.size();
        if (more) {
            const ActionReader::Summary &last = page->rows.constLast();
            list.afterCursor = true;
            list.cursorSortValue = last.sortValue;
            list.cursorCreatedAtMs = last.record.createdAt.toMSecsSinceEpoch();
            list.cursorId = last.record.id;
        }
    }
    if (!put(out, writer.end(), &written.bytes, error))
        return std::nullopt;
    return written;
}

LedgerResult<ActionHistory> LedgerExport::history(const ActionReader &reader, const QString &actionId)
{
    const auto record = reader.action(actionId);
    if (!record.ok())
        return record.error();
    const auto attempts = reader.attempts(actionId);
    const auto lookups = reader.lookups(actionId);
    const auto approvals = reader.approvals(actionId);
    const auto reconciliations = reader.reconciliations(actionId);
    const auto audit = reader.audit(actionId);
    for (const LedgerError *e : {&attempts.error(), &lookups.error(), &approvals.error(), &reconciliations.error(),
                                 &audit.error()}) {
        if (!e->ok())
            return *e;
    }
    return ActionHistory{*record, *attempts, *lookups, *approvals, *reconciliations, *audit};
}

} // namespace cs
