#pragma once

// Internal to server/api/: running prepared statements and short write transactions on a
// LedgerConnections connection, with the same error codes as the ledger (Busy, Conflict, Storage).

#include "ledgererror.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariantList>

#include <functional>

namespace cs::apisql {

// Prepares sql, binds values in order, runs it.
bool run(QSqlQuery &query, const QString &sql, const QVariantList &values, LedgerError *error);

// BEGIN IMMEDIATE, body, COMMIT; ROLLBACK on any error. Retries a few times while busy.
LedgerError writeTransaction(QSqlDatabase &db, const std::function<LedgerError()> &body);

// A non-null empty string for NOT NULL text columns (a null QString binds as SQL NULL).
QVariant text(const QString &value);

} // namespace cs::apisql
