#include "server/ledger/auditchain.h"

#include "server/ledger/sqlstatement.h"

#include "models/actionrecord.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace cs {

using namespace sql;

namespace {

const QString &zeroHash()
{
    static const QString zeros(64, QLatin1Char('0'));
    return zeros;
}

// A row queued by append(): everything but seq, prev_hash and hash, known only at flush().
struct PendingRow
{
    QByteArray actionId;
    qint64 atMs = 0;
    QByteArray actor;
    QByteArray event;
    QByteArray reason;
    QByteArray beforeJson;
    QByteArray afterJson;
};

struct PendingRows
{
    QString connection;
    QList<PendingRow> rows;
};

PendingRows &pendingRows()
{
    thread_local PendingRows pending;
    return pending;
}

// A JSON string literal exactly as QJsonDocument writes it (quotes and escapes included).
QByteArray jsonStringLiteral(const QString &value)
{
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

// A text column exactly as it is written and read: UTF-8 bytes. A QString that is not valid
// UTF-16 (a lone surrogate) has no exact UTF-8 form; toUtf8() replaces what it cannot encode, and
// it is the replaced bytes that are both stored and hashed.
QByteArray storedText(const QString &value)
{
    return value.toUtf8();
}

// One audit row as the bytes in the database: what flush() writes and verify() reads back as
// bytes (CAST(… AS BLOB), convert_to), so the hash is over exactly what is stored and nothing in
// between (a QString conversion, a JSON reparse) can make a written row fail to verify.
struct StoredRow : PendingRow
{
    qint64 seq = 0;
    QByteArray prevHash;
};

QByteArray literalOf(const QByteArray &utf8)
{
    return jsonStringLiteral(QString::fromUtf8(utf8));
}

// AuditEvent::chainHash, computed from the stored bytes: prev_hash, "\n", then the event's compact
// JSON with its keys sorted (action_id, actor, after, at, before, event, prev_hash, reason, seq)
// and before/after as the stored JSON text itself. For every row the ledger writes this equals
// chainHash of the row read back (tst_ledger_audit, tst_audit_property pin it).
QString chainHashOf(const StoredRow &r)
{
    QByteArray input = r.prevHash;
    input.reserve(input.size() + r.beforeJson.size() + r.afterJson.size() + r.reason.size() + 512);
    input += '\n';
    input += "{\"action_id\":" + literalOf(r.actionId);
    input += ",\"actor\":" + literalOf(r.actor);
    input += ",\"after\":" + r.afterJson;
    input += ",\"at\":" + jsonStringLiteral(toWireTime(fromMs(r.atMs)));
    input += ",\"before\":" + r.beforeJson;
    input += ",\"event\":" + literalOf(r.event);
    input += ",\"prev_hash\":" + literalOf(r.prevHash);
    input += ",\"reason\":" + literalOf(r.reason);
    input += ",\"seq\":" + QByteArray::number(r.seq) + '}';
    return QString::fromLatin1(QCryptographicHash::hash(input, QCryptographicHash::Sha256).toHex());
}

} // namespace

void AuditChain::discardPending()
{
    pendingRows().rows.clear();
}

int AuditChain::pendingCount()
{
    return int(pendingRows().rows.size());
}

void AuditChain::dropPendingAfter(int count)
{
    QList<PendingRow> &rows = pendingRows().rows;
    if (count >= 0 && count < rows.size())
        rows.resize(count);
}

const QString &AuditChain::changesChannel()
{
    static const QString channel = QStringLiteral("countersign_changes");
    return channel;
}

const QString &AuditChain::columns()
{
    static const QString columns = QStringLiteral(
        "seq, action_id, at, actor, event, reason, before_json, after_json, prev_hash, hash");
    return columns;
}

AuditEvent AuditChain::fromRow(const Statement &q)
{
    AuditEvent e;
    e.seq = q.value(0).toLongLong();
    e.actionId = q.value(1).toString();
    e.at = fromMs(q.value(2).toLongLong());
    e.actor = q.value(3).toString();
    e.event = q.value(4).toString();
    e.reason = q.value(5).toString();
    e.before = parseJson(q.value(6).toString());
    e.after = parseJson(q.value(7).toString());
    e.prevHash = q.value(8).toString();
    e.hash = q.value(9).toString();
    return e;
}

LedgerError AuditChain::append(QSqlDatabase &db, const QDateTime &now, const QString &actionId, const QString &actor,
                               const QString &event, const QString &reason, const QJsonObject &before,
                               const QJsonObject &after)
{
    PendingRows &pending = pendingRows();
    if (pending.connection != db.connectionName()) {
        pending.connection = db.connectionName();
        pending.rows.clear();
    }
    PendingRow row;
    row.actionId = storedText(actionId);
    row.atMs = toMs(now);
    row.actor = storedText(actor);
    row.event = storedText(event);
    row.reason = storedText(reason);
    row.beforeJson = QJsonDocument(before).toJson(QJsonDocument::Compact);
    row.afterJson = QJsonDocument(after).toJson(QJsonDocument::Compact);
    pending.rows.append(std::move(row));
    return {};
}

LedgerError AuditChain::flush(QSqlDatabase &db, Flushed *flushed)
{
    *flushed = Flushed();
    PendingRows &pending = pendingRows();
    if (pending.connection != db.connectionName() || pending.rows.isEmpty()) {
        pending.rows.clear();
        return {};
    }
    LedgerError error;
    const bool postgres = isPostgres(db);
    StoredRow row;
    row.prevHash = zeroHash().toLatin1();
    row.seq = 0;
    {
        // PostgreSQL: the chain's lock, then (a statement of its own inside the function, so a
        // new READ COMMITTED snapshot) its tail, in one round trip (migration 8): the tail read
        // sees every chain row committed before the lock was granted.
        Statement last(db);
        const bool ran = postgres
            ? run(last, QStringLiteral("SELECT tail_seq, tail_hash, xact FROM countersign_chain_tail(?, ?)"),
                  {kChainLockKey, changesChannel()}, &error)
            : run(last, QStringLiteral("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1"), {}, &error);
        if (!ran)
            return error;
        if (last.next()) {
            if (postgres)
                flushed->xactId = last.value(2).toString();
            if (!last.value(0).isNull()) {
                row.seq = last.value(0).toLongLong();
                row.prevHash = last.value(1).toString().toLatin1();
            }
        }
    }
    // The text columns are bound as the exact bytes and stored as TEXT with those bytes.
    const auto bytes = [&db](const QByteArray &utf8) { return textBytes(db, utf8.isNull() ? QByteArray("") : utf8); };
    const QString insertSql = postgres
        ? QStringLiteral("INSERT INTO audit (seq, action_id, at, actor, event, reason, before_json, after_json,"
                         " prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        : QStringLiteral("INSERT INTO audit (seq, action_id, at, actor, event, reason, before_json, after_json,"
                         " prev_hash, hash) VALUES (?, CAST(? AS TEXT), ?, CAST(? AS TEXT), CAST(? AS TEXT),"
                         " CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, ?)");
    for (const PendingRow &p : std::as_const(pending.rows)) {
        row.seq += 1;
        static_cast<PendingRow &>(row) = p;
        const QString hash = chainHashOf(row);
        Statement insert(db);
        const QVariant actionIdValue = row.actionId.isEmpty()
            ? (postgres ? QVariant(QMetaType::fromType<QString>()) : QVariant(QMetaType::fromType<QByteArray>()))
            : bytes(row.actionId);
        if (!run(insert, insertSql,
                 {row.seq, actionIdValue, row.atMs, bytes(row.actor), bytes(row.event), bytes(row.reason),
                  bytes(row.beforeJson), bytes(row.afterJson), QString::fromLatin1(row.prevHash), hash},
                 &error)) {
            return error;
        }
        row.prevHash = hash.toLatin1();
    }
    pending.rows.clear();
    flushed->lastSeq = row.seq;
    flushed->lastHash = QString::fromLatin1(row.prevHash); // the hash of the row written last
    return {};
}

LedgerResult<AuditChain::Verification> AuditChain::verify(QSqlDatabase &db)
{
    return verify(db, 1);
}

LedgerResult<AuditChain::Verification> AuditChain::verify(QSqlDatabase &db, qint64 fromSeq)
{
    Verification v;
    LedgerError e;
    qint64 expectedSeq = std::max<qint64>(1, fromSeq);
    QByteArray prevHash = zeroHash().toLatin1();
    if (expectedSeq > 1) {
        Statement before(db);
        if (!run(before, QStringLiteral("SELECT %1 FROM audit WHERE seq = ?").arg(storedBytesOf(db, QStringLiteral("hash"))),
                 {expectedSeq - 1}, &e))
            return e;
        if (!before.next()) {
            v.ok = false;
            v.firstBrokenSeq = expectedSeq - 1;
            v.reason = QStringLiteral("row %1 is missing").arg(expectedSeq - 1);
            return v;
        }
        prevHash = before.value(0).toByteArray();
    }
    Statement q(db);
    // The stored bytes of every text column, not a QString made of them.
    QStringList columns;
    for (const char *column : {"action_id", "at", "actor", "event", "reason", "before_json", "after_json", "prev_hash",
                               "hash"})
        columns << (qstrcmp(column, "at") == 0 ? QStringLiteral("at") : storedBytesOf(db, QLatin1String(column)));
    if (!run(q, QStringLiteral("SELECT seq, %1 FROM audit WHERE seq >= ? ORDER BY seq").arg(columns.join(QStringLiteral(", "))),
             {expectedSeq}, &e))
        return e;
    while (q.next()) {
        StoredRow row;
        row.seq = q.value(0).toLongLong();
        row.actionId = q.value(1).toByteArray();
        row.atMs = q.value(2).toLongLong();
        row.actor = q.value(3).toByteArray();
        row.event = q.value(4).toByteArray();
        row.reason = q.value(5).toByteArray();
        row.beforeJson = q.value(6).toByteArray();
        row.afterJson = q.value(7).toByteArray();
        row.prevHash = q.value(8).toByteArray();
        const QByteArray hash = q.value(9).toByteArray();
        ++v.rowsChecked;
        QString problem;
        if (row.seq != expectedSeq)
            problem = QStringLiteral("expected seq %1, found %2: rows are missing").arg(expectedSeq).arg(row.seq);
        else if (row.prevHash != prevHash)
            problem = QStringLiteral("prev_hash does not match the hash of the row before");
        else if (chainHashOf(row).toLatin1() != hash)
            problem = QStringLiteral("hash does not match the row's content");
        if (!problem.isEmpty()) {
            v.ok = false;
            v.firstBrokenSeq = row.seq;
            v.reason = problem;
            return v;
        }
        prevHash = hash;
        expectedSeq = row.seq + 1;
        v.lastSeq = row.seq;
        v.lastHash = QString::fromLatin1(hash);
    }
    return v;
}

} // namespace cs
