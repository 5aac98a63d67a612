#pragma once

#include "server/ledger/actionreader.h"
#include "server/ledger/ledgerresult.h"

#include "models/actionexport.h"
#include "models/historyexport.h"

#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

class QIODevice;

namespace cs {

// What `countersignd export` reads (docs/EXPORT.md): a filter's actions, page after page through
// ActionReader's keyset paging (newest first), or one action's history — written in the
// console's export formats (models/actionexport.h, models/historyexport.h), so the same actions
// give the same bytes as File → Export. Reads only; each page is its own read, as the console's
// pages are. Thread-safe as ActionReader is.
class LedgerExport
{
public:
    struct ActionsQuery
    {
        QList<ActionState> states; // empty: every state
        QString text;              // the list's search (the API's q): empty for none
        QDateTime since;           // created_at >= since; null: no bound
        QDateTime until;           // created_at < until; null: no bound
        int pageSize = 200;
    };

    struct Written
    {
        qint64 rows = 0;
        qint64 bytes = 0;
    };

    // Writes the actions file to `out` as the pages are read. On failure returns nothing with
    // *error set; what was written to `out` by then is incomplete (the caller discards it).
    static std::optional<Written> writeActions(const ActionReader &reader, const ActionsQuery &query,
                                               ExportFormat format, QIODevice *out, QString *error);
    // The action and its attempts, lookups, approvals, reconciliations and audit events.
    static LedgerResult<ActionHistory> history(const ActionReader &reader, const QString &actionId);
};

} // namespace cs
