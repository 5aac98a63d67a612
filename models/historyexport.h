#pragma once

#include "models/actionexport.h"
#include "models/actionrecord.h"
#include "models/approval.h"
#include "models/attempt.h"
#include "models/auditevent.h"
#include "models/providerlookup.h"
#include "models/reconciliation.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QStringList>

namespace cs {

struct ActionDetail;

// One action and everything recorded about it, oldest first in each list: what a history export
// holds. The console fills it from GET /actions/{id}, `countersignd export history` from the
// ActionReader; the lists are the same rows either way.
struct ActionHistory
{
    ActionRecord record;
    QList<Attempt> attempts;
    QList<ProviderLookup> lookups;
    QList<Approval> approvals;
    QList<Reconciliation> reconciliations;
    QList<AuditEvent> audit;

    static ActionHistory fromDetail(const ActionDetail &detail);
};

// The history file of one action (docs/EXPORT.md).
//
// JSON: one object {action, attempts, lookups, approvals, reconciliations, audit}, members sorted
// by name at every level, indented. Each element is the API's wire object (models' toJson), except
// that money is `amount_minor` (integer) plus `amount` (the formatted string, null for a lookup
// that found nothing): in the action and in each lookup. Audit events are exactly as the log
// holds them (before/after untouched), so their hash chain can be checked from the file.
//
// CSV (the rules of csv::): one row for the action, then its attempts, lookups, approvals,
// reconciliations and audit events, each oldest first, in the columns columns() names; what a
// column means differs by `section` (the table in docs/EXPORT.md), and `detail` holds the row's
// whole JSON element, compact, so nothing is lost.
class HistoryExport
{
public:
    static const QStringList &columns();
    static QJsonObject toJson(const ActionHistory &history);
    static QByteArray write(const ActionHistory &history, ExportFormat format);
};

} // namespace cs
