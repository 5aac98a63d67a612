#include "server/ledger/auditchain.h"

#include "server/ledger/sqlstatement.h"

#include "models/actionrecord.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>


namespace cs {

using namespace sql;

namespace {

const QString &zeroHash()
{
    static const QString zeros(64, QLatin1Char('0'));
    return zeros;
}

struct AuditTail
{
    QString connection;
    qint64 seq = 0;
    QString hash;
    bool valid = false;
};

AuditTail &auditTail()
{
    thread_local AuditTail tail;
    return tail;
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

// One audit row as the bytes in the file: what append() writes and verify() reads back with
// CAST(… AS BLOB), so the hash is over exactly what is stored and nothing in between (a QString
// conversion, a JSON reparse) can make a written row fail to verify.
struct StoredRow
{
    qint64 seq = 0;
    QByteArray actionId;
    qint64 atMs = 0;
    QByteArray actor;
    QByteArray event;
    QByteArray reason;
    QByteArray beforeJson;
    QByteArray afterJson;
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

void AuditChain::forgetTail()
{
    auditTail().valid = false;
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
    LedgerError error;
    StoredRow row;
    row.prevHash = zeroHash().toLatin1();
    row.seq = 1;
    AuditTail &tail = auditTail();
    if (tail.valid && tail.connection == db.connectionName()) {
        row.seq = tail.seq + 1;
        row.prevHash = tail.hash.toLatin1();
    } else {
        Statement last(db);
        if (!run(last, QStringLiteral("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1"), {}, &error))
            return error;
        if (last.next()) {
            row.seq = last.value(0).toLongLong() + 1;
            row.prevHash = last.value(1).toString().toLatin1();
        }
    }
    tail.valid = false;
    row.actionId = storedText(actionId);
    row.atMs = toMs(now);
    row.actor = storedText(actor);
    row.event = storedText(event);
    row.reason = storedText(reason);
    row.beforeJson = QJsonDocument(before).toJson(QJsonDocument::Compact);
    row.afterJson = QJsonDocument(after).toJson(QJsonDocument::Compact);
    const QString hash = chainHashOf(row);
    // The text columns are bound as the exact bytes (a blob) and stored as TEXT with those bytes.
    const auto bytes = [](const QByteArray &utf8) { return QVariant(utf8.isNull() ? QByteArray("") : utf8); };
    Statement insert(db);
    if (!run(insert,
             QStringLiteral("INSERT INTO audit (seq, action_id, at, actor, event, reason, before_json, after_json,"
                            " prev_hash, hash) VALUES (?, CAST(? AS TEXT), ?, CAST(? AS TEXT), CAST(? AS TEXT),"
                            " CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, ?)"),
             {row.seq, row.actionId.isEmpty() ? QVariant(QMetaType::fromType<QByteArray>()) : QVariant(row.actionId),
              toMs(now), bytes(row.actor), bytes(row.event), bytes(row.reason), bytes(row.beforeJson),
              bytes(row.afterJson), QString::fromLatin1(row.prevHash), hash},
             &error)) {
        return error;
    }
    tail.connection = db.connectionName();
    tail.seq = row.seq;
    tail.hash = hash;
    tail.valid = true;
    return {};
}

LedgerResult<AuditChain::Verification> AuditChain::verify(QSqlDatabase &db)
{
    Verification v;
    LedgerError e;
    Statement q(db);
    // The stored bytes of every text column, not a QString made of them.
    if (!run(q,
             QStringLiteral("SELECT seq, CAST(action_id AS BLOB), at, CAST(actor AS BLOB), CAST(event AS BLOB),"
                            " CAST(reason AS BLOB), CAST(before_json AS BLOB), CAST(after_json AS BLOB),"
                            " CAST(prev_hash AS BLOB), CAST(hash AS BLOB) FROM audit ORDER BY seq"),
             {}, &e))
        return e;
    qint64 expectedSeq = 1;
    QByteArray prevHash = zeroHash().toLatin1();
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
    }
    return v;
}

} // namespace cs
