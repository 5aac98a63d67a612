#pragma once

#include "models/actionpage.h"
#include "models/actionquery.h"
#include "models/actionsummary.h"

#include <QObject>

namespace cs {

// Where the queue model gets its rows: one page of the action list at a time, and one action's
// current row. The console's API client implements it over HTTP; tests use an in-process double.
// Answers always arrive later through the signals (never from inside the request call), carrying
// the ticket the request returned (tickets are unique and never 0). Not thread-safe: use from the thread that owns it.
class ActionPageSource : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;
    ~ActionPageSource() override = default;

    // One page of `query`, after `cursor` (empty: the first page), at most `limit` rows.
    virtual quint64 requestPage(const ActionQuery &query, const QString &cursor, int limit) = 0;
    // One action's current row, with its full record (client reference, key, fingerprint).
    virtual quint64 requestSummary(const QString &actionId) = 0;

signals:
    void pageReady(quint64 ticket, const cs::ActionPage &page);
    void pageFailed(quint64 ticket, const QString &message);
    void summaryReady(quint64 ticket, const cs::ActionSummary &summary);
    // notFound: the action does not exist (any more) or the caller may not see it.
    void summaryFailed(quint64 ticket, const QString &actionId, bool notFound, const QString &message);
};

} // namespace cs
