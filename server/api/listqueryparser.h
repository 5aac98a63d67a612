#pragma once

#include "server/api/problem.h"
#include "server/api/role.h"
#include "server/ledger/actionreader.h"

#include <QString>
#include <QUrlQuery>

#include <variant>

namespace cs {

// The query string of GET /actions (resources/openapi.yaml, listActions): state (comma-separated
// states or `queue`), settlement (`review`: open settlement review items, issue 18), discrepancy
// (`open`, issue 33), awaiting (`decision`: without the PENDING actions approved and queued for the
// executor), q (1-200 characters), requested_by (1-255), sort (created_at, amount,
// attempt_count, last_event_at; a leading - for descending; default -created_at), limit (1-200)
// and cursor. Every problem of the query is reported at once (400 invalid_parameter with one
// error per field); an agent naming another requested_by is refused first (403 forbidden), and an
// agent's list is always restricted to its own actions.
//
// A cursor is valid only for the filters and the order it was issued under: it carries a
// fingerprint of them (cursorAfter()), and parse() refuses it under any others.
//
// Pure functions: no I/O, safe on any thread.
class ListQueryParser
{
public:
    struct Parsed
    {
        ActionReader::ListQuery query;
        QString filters; // the fingerprint of filters and order: pass it to cursorAfter()
    };

    static std::variant<Parsed, Problem> parse(const QUrlQuery &query, const User &user);

    // The next page's cursor after `last`, the last row of a page read for `filters`.
    static QString cursorAfter(const ActionReader::Summary &last, const QString &filters);
};

} // namespace cs
