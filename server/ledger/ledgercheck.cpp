#include "server/ledger/ledgercheck.h"

#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/sqlstatement.h"

#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>
#include <atomic>
#include <functional>

namespace cs {

namespace LedgerCheck {

namespace {

using Code = LedgerError::Code;

// SQLITE_CORRUPT (11), SQLITE_NOTADB (26), with or without an extended code; PostgreSQL's
// XX001 data_corrupted and XX002 index_corrupted.
bool isDamage(const QSqlError &error)
{
    const QString native = error.nativeErrorCode();
    if (native == u"XX001" || native == u"XX002")
        return true;
    bool number = false;
    const int code = native.toInt(&number);
    return number && ((code & 0xff) == 11 || (code & 0xff) == 26);
}

// The same, once sql::sqlError made it a LedgerError (SQLite's words for codes 11 and 26).
bool reportsDamage(const LedgerError &error)
{
    return error.message().contains(QStringLiteral("malformed")) || error.message().contains(QStringLiteral("not a database"))
        || error.message().contains(QStringLiteral("XX001")) || error.message().contains(QStringLiteral("XX002"));
}

// A statement whose failure is a finding when it reports damage, an error otherwise.
bool probe(QSqlDatabase &db, const QString &sql, Result *result, LedgerError *error,
           const std::function<void(QSqlQuery &)> &onRows = {})
{
    QSqlQuery q(db);
    q.setForwardOnly(true);
    if (q.exec(sql)) {
        if (onRows)
            onRows(q);
        else
            while (q.next()) {
            }
        if (!q.lastError().isValid())
            return true;
    }
    if (isDamage(q.lastError())) {
        result->ok = false;
        result->problem = QStringLiteral("the ledger is damaged: %1 (%2)").arg(q.lastError().databaseText(), sql);
        return false;
    }
    *error = sql::sqlError(q.lastError(), sql);
    return false;
}

LedgerError readHead(QSqlDatabase &db, Result *result)
{
    LedgerError e;
    sql::Statement q(db);
    if (!sql::run(q, QStringLiteral("SELECT seq, %1 FROM audit ORDER BY seq DESC LIMIT 1").arg(sql::storedBytesOf(db, QStringLiteral("hash"))),
                  {}, &e))
        return e;
    if (q.next()) {
        result->head.seq = q.value(0).toLongLong();
        result->head.hash = QString::fromLatin1(q.value(1).toByteArray());
    }
    return {};
}

LedgerResult<Result> chainFrom(QSqlDatabase &db, qint64 fromSeq, Result result)
{
    const LedgerResult<AuditChain::Verification> verified = AuditChain::verify(db, fromSeq);
    if (!verified.ok()) {
        // A damaged page under the audit table is a finding too.
        if (reportsDamage(verified.error())) {
            result.ok = false;
            result.problem = QStringLiteral("the ledger is damaged: the audit chain cannot be read: ") + verified.error().message();
            return result;
        }
        return verified.error();
    }
    result.chain = *verified;
    if (!verified->ok) {
        result.ok = false;
        result.problem = QStringLiteral("the audit chain is BROKEN at seq %1: %2").arg(verified->firstBrokenSeq).arg(verified->reason);
        return result;
    }
    // Rows appended since the head was read (another process writes the ledger meanwhile) are
    // verified too and move the head on; fewer rows than the head is damage.
    if (verified->lastSeq < result.head.seq) {
        result.ok = false;
        result.problem = QStringLiteral("the audit chain ends at seq %1 but its index says %2").arg(verified->lastSeq).arg(result.head.seq);
    } else if (verified->lastSeq > result.head.seq) {
        result.head.seq = verified->lastSeq;
        result.head.hash = verified->lastHash;
    }
    return result;
}

// The chain's head, then its last tailRows rows (0: all of them) verified.
LedgerResult<Result> headAndChain(QSqlDatabase &db, int tailRows, Result result)
{
    if (const LedgerError read = readHead(db, &result); !read.ok()) {
        if (!reportsDamage(read))
            return read;
        result.ok = false;
        result.problem = QStringLiteral("the ledger is damaged: ") + read.message();
        return result;
    }
    return chainFrom(db, tailRows > 0 ? std::max<qint64>(1, result.head.seq - tailRows + 1) : 1, result);
}

} // namespace

LedgerResult<Result> bounded(QSqlDatabase &db, int tailRows)
{
    Result result;
    LedgerError e;
    if (!sql::isPostgres(db)) {
        // The schema's own pages, then the first page of every table (its b-tree's root).
        QStringList tables;
        if (!probe(db, QStringLiteral("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"),
                   &result, &e, [&](QSqlQuery &q) {
                       while (q.next())
                           tables << q.value(0).toString();
                   }))
            return e.ok() ? LedgerResult<Result>(result) : LedgerResult<Result>(e);
        for (const QString &table : std::as_const(tables)) {
            if (!probe(db, QStringLiteral("SELECT * FROM \"%1\" LIMIT 1").arg(table), &result, &e))
                return e.ok() ? LedgerResult<Result>(result) : LedgerResult<Result>(e);
        }
    }
    return headAndChain(db, tailRows, result);
}

LedgerResult<Result> full(QSqlDatabase &db, const std::atomic<bool> *stop)
{
    Result result;
    LedgerError e;
    if (!sql::isPostgres(db)) {
        // Whole, or (with stop) one table and its indexes at a time, so that a stop is heard
        // between tables (pages on no table's b-tree, the freelist, are then not read).
        QStringList pragmas = {QStringLiteral("PRAGMA quick_check(50)")};
        if (stop) {
            pragmas.clear();
            if (!probe(db, QStringLiteral("SELECT name FROM sqlite_schema WHERE type = 'table'"), &result, &e,
                       [&](QSqlQuery &q) {
                           while (q.next())
                               pragmas << QStringLiteral("PRAGMA quick_check(\"%1\")").arg(q.value(0).toString());
                       }))
                return e.ok() ? LedgerResult<Result>(result) : LedgerResult<Result>(e);
        }
        for (const QString &pragma : std::as_const(pragmas)) {
            if (stop && stop->load())
                return LedgerError(LedgerError::Code::Unavailable, QStringLiteral("the check was stopped"));
            QStringList lines;
            const bool read = probe(db, pragma, &result, &e, [&](QSqlQuery &q) {
                while (q.next())
                    lines << q.value(0).toString();
            });
            if (!read)
                return e.ok() ? LedgerResult<Result>(result) : LedgerResult<Result>(e);
            if (lines != QStringList{QStringLiteral("ok")}) {
                result.quickCheck = lines;
                result.ok = false;
                result.problem = QStringLiteral("PRAGMA quick_check: ") + lines.join(QStringLiteral("; "));
                return result;
            }
        }
        result.quickCheck = {QStringLiteral("ok")};
    }
    if (stop && stop->load())
        return LedgerError(LedgerError::Code::Unavailable, QStringLiteral("the check was stopped"));
    return headAndChain(db, 0, result);
}

LedgerResult<QString> againstWitness(QSqlDatabase &db, const LedgerWitness::Head &head, const LedgerWitness::Head &witness)
{
    QString hashAtWitness;
    if (witness.seq > 0 && witness.seq <= head.seq) {
        LedgerError e;
        sql::Statement q(db);
        if (!sql::run(q, QStringLiteral("SELECT %1 FROM audit WHERE seq = ?").arg(sql::storedBytesOf(db, QStringLiteral("hash"))),
                      {witness.seq}, &e))
            return e;
        if (q.next())
            hashAtWitness = QString::fromLatin1(q.value(0).toByteArray());
    }
    return LedgerWitness::judge(witness, head, hashAtWitness);
}

LedgerResult<Result> full(LedgerDatabase &database, const std::atomic<bool> *stop)
{
    LedgerResult<Result> out = Result();
    const LedgerError read = database.read([&](QSqlDatabase &db) {
        out = full(db, stop);
        return out.ok() ? LedgerError() : out.error();
    });
    if (!read.ok())
        return read;
    return out;
}

LedgerResult<LedgerWitness::Head> headOf(LedgerDatabase &database)
{
    Result result;
    const LedgerError read = database.read([&](QSqlDatabase &db) { return readHead(db, &result); });
    if (!read.ok())
        return read;
    return result.head;
}

LedgerError attachWitness(LedgerDatabase &database, LedgerWitness &witness, const QString &path, QString *note)
{
    // The witness first, then the head: another process serving the same ledger advances the
    // witness only after its commits, so a head read afterwards is never behind what it names.
    const LedgerResult<std::optional<LedgerWitness::Head>> stored = LedgerWitness::read(path);
    const LedgerResult<LedgerWitness::Head> head = headOf(database);
    if (!head.ok())
        return head.error();
    if (!stored.ok())
        return LedgerError(stored.code(), stored.error().message()
                                              + QStringLiteral(": after a deliberate restore, `countersignd check --db LEDGER"
                                                               " --witness %1 --reset-witness` makes a new one")
                                                    .arg(path));
    if (!stored->has_value()) {
        if (const LedgerError made = LedgerWitness::reset(path, *head); !made.ok())
            return made;
        *note = QStringLiteral("a new witness %1 keeps the ledger's audit head (seq %2)").arg(path).arg(head->seq);
    } else {
        QString behind;
        const LedgerError compared = database.read([&](QSqlDatabase &db) {
            const LedgerResult<QString> judged = againstWitness(db, *head, **stored);
            if (!judged.ok())
                return judged.error();
            behind = *judged;
            return LedgerError();
        });
        if (!compared.ok())
            return compared;
        if (!behind.isEmpty())
            return LedgerError(LedgerError::Code::Damaged,
                               QStringLiteral("%1 (witness %2). Not served: acknowledged writes are missing. Put back the"
                                              " ledger whose tail this is, or — only after a deliberate restore"
                                              " (docs/OPERATIONS.md, \"SQLite: restore\") — `countersignd check --db LEDGER"
                                              " --witness %2 --reset-witness`")
                                   .arg(behind, path));
    }
    if (const LedgerError opened = witness.open(path); !opened.ok())
        return opened;
    witness.advance(head->seq, head->hash);
    database.setWitness(&witness);
    return {};
}

LedgerResult<LedgerWitness::Head> resetWitness(LedgerDatabase &database, const QString &path, const QString &actor)
{
    const LedgerResult<std::optional<LedgerWitness::Head>> stored = LedgerWitness::read(path);
    const QString was = !stored.ok()           ? QStringLiteral("an unreadable witness")
        : !stored->has_value()                 ? QStringLiteral("no witness")
                                               : QStringLiteral("seq %1 (hash %2)").arg((*stored)->seq).arg((*stored)->hash);
    const LedgerResult<LedgerWitness::Head> before = headOf(database);
    if (!before.ok())
        return before.error();
    const LedgerError written = database.write("witness reset", [&](QSqlDatabase &db, const QDateTime &now) {
        return AuditChain::append(db, now, QString(), actor, QStringLiteral("witness_reset"),
                                  QStringLiteral("the witness %1 was reset after a restore: it had %2; the ledger ended at"
                                                 " seq %3 (hash %4)")
                                      .arg(path, was)
                                      .arg(before->seq)
                                      .arg(before->hash),
                                  {}, {});
    });
    if (!written.ok())
        return written;
    const LedgerResult<LedgerWitness::Head> head = headOf(database);
    if (!head.ok())
        return head.error();
    if (const LedgerError reset = LedgerWitness::reset(path, *head); !reset.ok())
        return reset;
    return head;
}

} // namespace LedgerCheck

} // namespace cs
