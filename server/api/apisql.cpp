#include "apisql.h"

#include <QRandomGenerator>
#include <QSqlError>
#include <QThread>

namespace cs::apisql {

namespace {

LedgerError sqlError(const QSqlError &error, const QString &sql)
{
    const QString native = error.nativeErrorCode();
    if (native == u"5" || native == u"6" || error.databaseText().contains(QStringLiteral("database is locked")))
        return LedgerError(LedgerError::Code::Busy, QStringLiteral("the database is busy: ") + error.text());
    const auto code = native == u"19" ? LedgerError::Code::Conflict : LedgerError::Code::Storage;
    return LedgerError(code, QStringLiteral("%1 [%2]").arg(error.text(), sql.simplified().left(160)));
}

} // namespace

bool run(QSqlQuery &query, const QString &sql, const QVariantList &values, LedgerError *error)
{
    query.setForwardOnly(true);
    if (!query.prepare(sql)) {
        *error = sqlError(query.lastError(), sql);
        return false;
    }
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec()) {
        *error = sqlError(query.lastError(), sql);
        return false;
    }
    return true;
}

LedgerError writeTransaction(QSqlDatabase &db, const std::function<LedgerError()> &body)
{
    constexpr int kRetries = 5;
    for (int round = 0;; ++round) {
        LedgerError error;
        {
            QSqlQuery begin(db);
            if (!begin.exec(QStringLiteral("BEGIN IMMEDIATE")))
                error = sqlError(begin.lastError(), QStringLiteral("BEGIN IMMEDIATE"));
        }
        if (error.ok()) {
            error = body();
            if (error.ok()) {
                QSqlQuery commit(db);
                if (commit.exec(QStringLiteral("COMMIT")))
                    return {};
                error = sqlError(commit.lastError(), QStringLiteral("COMMIT"));
            }
            QSqlQuery rollback(db);
            rollback.exec(QStringLiteral("ROLLBACK"));
        }
        if (error.code() != LedgerError::Code::Busy || round >= kRetries)
            return error;
        QThread::msleep(5 * (round + 1) + QRandomGenerator::global()->bounded(10));
    }
}

QVariant text(const QString &value)
{
    return value.isNull() ? QVariant(QStringLiteral("")) : QVariant(value);
}

} // namespace cs::apisql
