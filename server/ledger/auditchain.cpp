#include "server/ledger/auditchain.h"

#include "server/ledger/ledgerlog.h"
#include "server/ledger/sqlstatement.h"

#include "models/actionrecord.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>

#include <atomic>

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

// AuditEvent::chainHash without serializing before and after a second time: the event's compact
// JSON assembled around their compact forms, which the row stores anyway. QJsonObject sorts its
// keys, so the canonical order is action_id, actor, after, at, before, event, prev_hash, reason,
// seq. The first use in a process is checked against AuditEvent::chainHash; on any difference
// every later row uses chainHash itself.
QString chainHashOf(const AuditEvent &e, const QByteArray &beforeJson, const QByteArray &afterJson)
{
    static std::atomic<int> verified{0}; // 0 not yet, 1 same as chainHash, -1 use chainHash
    if (verified.load() < 0)
        return e.chainHash(e.prevHash);
    QByteArray input = e.prevHash.toUtf8();
    input.reserve(input.size() + beforeJson.size() + afterJson.size() + 512);
    input += '\n';
    input += "{\"action_id\":" + jsonStringLiteral(e.actionId);
    input += ",\"actor\":" + jsonStringLiteral(e.actor);
    input += ",\"after\":" + afterJson;
    input += ",\"at\":" + (e.at.isValid() ? jsonStringLiteral(toWireTime(e.at)) : QByteArrayLiteral("null"));
    input += ",\"before\":" + beforeJson;
    input += ",\"event\":" + jsonStringLiteral(e.event);
    input += ",\"prev_hash\":" + jsonStringLiteral(e.prevHash);
    input += ",\"reason\":" + jsonStringLiteral(e.reason);
    input += ",\"seq\":" + QByteArray::number(e.seq) + '}';
    const QString fast = QString::fromLatin1(QCryptographicHash::hash(input, QCryptographicHash::Sha256).toHex());
    if (verified.load() == 0) {
        const QString reference = e.chainHash(e.prevHash);
        if (reference != fast) {
            qCWarning(lcLedger) << "audit hash shortcut disagrees with AuditEvent::chainHash; using chainHash";
            verified = -1;
            return reference;
        }
        verified = 1;
    }
    return fast;
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
    AuditEvent e;
    e.prevHash = zeroHash();
    e.seq = 1;
    AuditTail &tail = auditTail();
    if (tail.valid && tail.connection == db.connectionName()) {
        e.seq = tail.seq + 1;
        e.prevHash = tail.hash;
    } else {
        Statement last(db);
        if (!run(last, QStringLiteral("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1"), {}, &error))
            return error;
        if (last.next()) {
            e.seq = last.value(0).toLongLong() + 1;
            e.prevHash = last.value(1).toString();
        }
    }
    tail.valid = false;
    e.actionId = actionId;
    e.at = now;
    e.actor = actor;
    e.event = event;
    e.reason = reason;
    e.before = before;
    e.after = after;
    const QByteArray beforeJson = QJsonDocument(before).toJson(QJsonDocument::Compact);
    const QByteArray afterJson = QJsonDocument(after).toJson(QJsonDocument::Compact);
    e.hash = chainHashOf(e, beforeJson, afterJson);
    Statement insert(db);
    if (!run(insert,
             QStringLiteral("INSERT INTO audit (seq, action_id, at, actor, event, reason, before_json, after_json,"
                            " prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
             {e.seq, textOrNull(actionId), toMs(now), text(actor), text(event), text(reason),
              QString::fromUtf8(beforeJson), QString::fromUtf8(afterJson), e.prevHash, e.hash},
             &error)) {
        return error;
    }
    tail.connection = db.connectionName();
    tail.seq = e.seq;
    tail.hash = e.hash;
    tail.valid = true;
    return {};
}

LedgerResult<AuditChain::Verification> AuditChain::verify(QSqlDatabase &db)
{
    Verification v;
    LedgerError e;
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT %1 FROM audit ORDER BY seq").arg(columns()), {}, &e))
        return e;
    qint64 expectedSeq = 1;
    QString prevHash = zeroHash();
    while (q.next()) {
        const AuditEvent event = fromRow(q);
        ++v.rowsChecked;
        QString problem;
        if (event.seq != expectedSeq)
            problem = QStringLiteral("expected seq %1, found %2: rows are missing").arg(expectedSeq).arg(event.seq);
        else if (event.prevHash != prevHash)
            problem = QStringLiteral("prev_hash does not match the hash of the row before");
        else if (event.chainHash(event.prevHash) != event.hash)
            problem = QStringLiteral("hash does not match the row's content");
        if (!problem.isEmpty()) {
            v.ok = false;
            v.firstBrokenSeq = event.seq;
            v.reason = problem;
            return v;
        }
        prevHash = event.hash;
        expectedSeq = event.seq + 1;
    }
    return v;
}

} // namespace cs
