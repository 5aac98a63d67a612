#include "ledgerstore.h"

#include "actioncolumns.h"
#include "ids.h"
#include "ledgerconnections.h"
#include "ledgerlog.h"
#include "migrations.h"

#include "fingerprint.h"
#include "money.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QVariant>

#include <algorithm>
#include <atomic>
#include <unordered_map>
#include <vector>

namespace cs {

namespace {

using Code = LedgerError::Code;

constexpr int kExcerptLimit = 500;
constexpr int kMaxListLimit = 200;
constexpr qsizetype kMaxTextField = 255;
constexpr qsizetype kMaxNote = 2000;

const QString &zeroHash()
{
    static const QString zeros(64, QLatin1Char('0'));
    return zeros;
}

const QString &leaseExpiredExcerpt()
{
    static const QString text = QStringLiteral("executor lease expired (process died?)");
    return text;
}

// --- values -------------------------------------------------------------------------------------

qint64 toMs(const QDateTime &time)
{
    return time.toMSecsSinceEpoch();
}

QDateTime fromMs(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
}

QDateTime timeOrNull(const QVariant &value)
{
    return value.isNull() ? QDateTime() : fromMs(value.toLongLong());
}

// A null QString binds as SQL NULL in Qt SQL; NOT NULL text columns get a non-null empty string.
QVariant text(const QString &value)
{
    return value.isNull() ? QVariant(QStringLiteral("")) : QVariant(value);
}

QVariant textOrNull(const QString &value)
{
    return value.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(value);
}

QVariant msOrNull(const QDateTime &time)
{
    return time.isValid() ? QVariant(toMs(time)) : QVariant(QMetaType::fromType<qlonglong>());
}

QVariant msOrNull(std::optional<qint64> ms)
{
    return ms ? QVariant(*ms) : QVariant(QMetaType::fromType<qlonglong>());
}

QString compactJson(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QJsonObject parseJson(const QString &json)
{
    return QJsonDocument::fromJson(json.toUtf8()).object();
}

LedgerError err(Code code, const QString &message)
{
    return LedgerError(code, message);
}

bool isBusy(const QSqlError &error)
{
    const QString native = error.nativeErrorCode();
    return native == u"5" || native == u"6" // SQLITE_BUSY, SQLITE_LOCKED
        || error.databaseText().contains(QStringLiteral("database is locked"));
}

LedgerError sqlError(const QSqlError &error, const QString &sql)
{
    if (isBusy(error))
        return err(Code::Busy, QStringLiteral("the ledger database is busy: ") + error.text());
    // SQLITE_CONSTRAINT: a trigger or constraint of the schema refused the statement.
    const Code code = error.nativeErrorCode() == u"19" ? Code::Conflict : Code::Storage;
    return err(code, QStringLiteral("%1 [%2]").arg(error.text(), sql.simplified().left(160)));
}

// Prepared statements kept per thread and connection, so a statement is compiled once, not once
// per call (compiling an UPDATE of actions also compiles its triggers). A statement is borrowed
// for one use and returned reset (sqlite3_reset: no read snapshot is held between calls), so
// nested use of the same SQL simply prepares a second one. Connection names are never reused, so
// statements of a removed connection are never looked up again; their destruction is harmless
// (Qt finalizes them when the connection closes).
class StatementPool
{
public:
    std::optional<QSqlQuery> take(const QString &connection, const QString &sql)
    {
        const auto c = m_pool.find(connection);
        if (c == m_pool.end())
            return std::nullopt;
        const auto s = c->second.find(sql);
        if (s == c->second.end() || s->second.empty())
            return std::nullopt;
        std::optional<QSqlQuery> query(std::move(s->second.back()));
        s->second.pop_back();
        return query;
    }
    void give(const QString &connection, const QString &sql, QSqlQuery query)
    {
        std::vector<QSqlQuery> &idle = m_pool[connection][sql];
        if (idle.size() < 4)
            idle.push_back(std::move(query));
    }
    void clear() { m_pool.clear(); }

private:
    struct Hash
    {
        size_t operator()(const QString &s) const noexcept { return qHash(s); }
    };
    std::unordered_map<QString, std::unordered_map<QString, std::vector<QSqlQuery>, Hash>, Hash> m_pool;
};

StatementPool &statementPool()
{
    thread_local StatementPool pool;
    return pool;
}

// One statement run by run(): its rows are read through next() and value().
class Statement
{
public:
    explicit Statement(QSqlDatabase &db) : m_db(db) {}
    ~Statement()
    {
        if (m_query && m_reusable) {
            m_query->finish(); // sqlite3_reset: releases the statement's read snapshot
            statementPool().give(m_db.connectionName(), m_sql, std::move(*m_query));
        }
    }
    Q_DISABLE_COPY_MOVE(Statement)

    bool next() { return m_query && m_query->next(); }
    QVariant value(int index) const { return m_query ? m_query->value(index) : QVariant(); }
    int numRowsAffected() const { return m_query ? m_query->numRowsAffected() : -1; }
    void finish()
    {
        if (m_query)
            m_query->finish();
    }

private:
    friend bool run(Statement &statement, const QString &sql, const QVariantList &values, LedgerError *error);

    QSqlDatabase &m_db;
    std::optional<QSqlQuery> m_query;
    QString m_sql;
    bool m_reusable = false;
};

// Prepares sql (or reuses this thread's prepared copy), binds values in order, runs it. The only
// way statements are run here.
bool run(Statement &statement, const QString &sql, const QVariantList &values, LedgerError *error)
{
    Q_ASSERT(!statement.m_query);
    statement.m_sql = sql;
    statement.m_query = statementPool().take(statement.m_db.connectionName(), sql);
    if (!statement.m_query) {
        statement.m_query.emplace(statement.m_db);
        statement.m_query->setForwardOnly(true);
        if (!statement.m_query->prepare(sql)) {
            *error = sqlError(statement.m_query->lastError(), sql);
            return false;
        }
    }
    QSqlQuery &query = *statement.m_query;
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec()) {
        *error = sqlError(query.lastError(), sql);
        return false; // not reused: a failed statement is finalized with its QSqlQuery
    }
    statement.m_reusable = true;
    return true;
}

// --- rows -----------------------------------------------------------------------------------

// The record's columns (actioncolumns.h), then the ledger's bookkeeping (from column 21 on).
const QString kActionColumns = actionColumnList()
    + QStringLiteral(", review_requested, lease_owner, lease_expires_at, proposed_payload");

QString qualifiedActionColumns(const QString &alias)
{
    return actionColumnList(alias) + QStringLiteral(", %1.review_requested, %1.lease_owner, %1.lease_expires_at,"
                                                     " %1.proposed_payload").arg(alias);
}

// An action row: the record plus the execution bookkeeping ActionRecord does not carry.
struct ActionRow
{
    ActionRecord record;
    bool reviewRequested = false;
    QString leaseOwner;
    std::optional<qint64> leaseExpiresAtMs;
    QString proposedPayload; // compact JSON of the original proposal

    bool hasLiveLease(qint64 nowMs) const
    {
        return !leaseOwner.isEmpty() && leaseExpiresAtMs && *leaseExpiresAtMs > nowMs;
    }
    bool holdsLiveLease(const QString &executor, qint64 nowMs) const
    {
        return hasLiveLease(nowMs) && leaseOwner == executor;
    }
    void clearLease()
    {
        leaseOwner.clear();
        leaseExpiresAtMs.reset();
    }
};

ActionRow actionFromQuery(const Statement &q)
{
    ActionRow row;
    readActionColumns(q, 0, &row.record);
    constexpr int at = kActionColumnCount; // the ledger's own columns follow
    row.reviewRequested = q.value(at).toInt() != 0;
    row.leaseOwner = q.value(at + 1).toString();
    if (!q.value(at + 2).isNull())
        row.leaseExpiresAtMs = q.value(at + 2).toLongLong();
    row.proposedPayload = q.value(at + 3).toString();
    return row;
}

bool loadAction(QSqlDatabase &db, const QString &actionId, ActionRow *row, LedgerError *error)
{
    Statement q(db);
    static const QString sql = QStringLiteral("SELECT %1 FROM actions WHERE id = ?").arg(kActionColumns);
    if (!run(q, sql, {actionId}, error))
        return false;
    if (!q.next()) {
        *error = err(Code::NotFound, QStringLiteral("no action %1").arg(actionId));
        return false;
    }
    *row = actionFromQuery(q);
    return true;
}

// The mutable part of an action as JSON, for audit before/after.
QJsonObject snapshot(const ActionRow &row)
{
    const ActionRecord &r = row.record;
    return QJsonObject{
        {QStringLiteral("state"), toWire(r.state)},
        {QStringLiteral("state_version"), r.stateVersion},
        {QStringLiteral("review_reason"), r.reviewReason},
        {QStringLiteral("amount"), r.amount},
        {QStringLiteral("reason"), r.reason},
        {QStringLiteral("request_fingerprint"), r.requestFingerprint},
        {QStringLiteral("idempotency_key"), r.idempotencyKey},
        {QStringLiteral("approval_version"), r.approvalVersion},
        {QStringLiteral("review_requested"), row.reviewRequested},
        {QStringLiteral("lease_owner"), row.leaseOwner},
        {QStringLiteral("lease_expires_at"),
         row.leaseExpiresAtMs ? toWireTime(fromMs(*row.leaseExpiresAtMs)) : QString()},
    };
}

QJsonObject withObject(QJsonObject object, const QString &key, const QJsonObject &value)
{
    object.insert(key, value);
    return object;
}

// What an agent submitted, for comparing resubmissions: proposalPayload() plus the provider and
// parent, which change what would be sent just as much.
QJsonObject submittedPayload(const ActionRecord &record)
{
    QJsonObject payload = record.proposalPayload();
    payload.insert(QStringLiteral("provider"), record.provider);
    payload.insert(QStringLiteral("provider_account"), record.providerAccount);
    payload.insert(QStringLiteral("parent_id"), record.parentId);
    return payload;
}

// Normalizes through one parse so number representations compare equal.
QString canonicalPayload(const QJsonObject &payload)
{
    return compactJson(parseJson(compactJson(payload)));
}

// Writes every mutable column of `after` if the row is still exactly `before` (state and
// state_version in the WHERE clause, row count checked): a second writer can never both win.
// state_version (the API's ETag) and updated_at move with every change of the record; a write
// that only takes, renews or releases a lease keeps both, so that an executor's bookkeeping never
// makes a reviewer's If-Match stale. (Writers are serialized by BEGIN IMMEDIATE and each one
// loads the row inside its own transaction, so a lease write still cannot lose an update.)
LedgerError saveAction(QSqlDatabase &db, const ActionRow &before, ActionRow &after, const QDateTime &now)
{
    const bool leaseOnly = after.record == before.record && after.reviewRequested == before.reviewRequested;
    after.record.stateVersion = before.record.stateVersion + (leaseOnly ? 0 : 1);
    if (!leaseOnly)
        after.record.updatedAt = now;
    const ActionRecord &r = after.record;
    const QString sql = QStringLiteral(
        "UPDATE actions SET amount = ?, reason = ?, request_fingerprint = ?, idempotency_key = ?,"
        " approval_version = ?, state = ?, state_version = ?, review_reason = ?, review_requested = ?,"
        " lease_owner = ?, lease_expires_at = ?, updated_at = ?"
        " WHERE id = ? AND state = ? AND state_version = ?");
    Statement q(db);
    LedgerError error;
    if (!run(q, sql,
             {r.amount, text(r.reason), text(r.requestFingerprint), text(r.idempotencyKey), r.approvalVersion,
              toWire(r.state), r.stateVersion, text(r.reviewReason), after.reviewRequested ? 1 : 0,
              textOrNull(after.leaseOwner), msOrNull(after.leaseExpiresAtMs), toMs(r.updatedAt),
              r.id, toWire(before.record.state), before.record.stateVersion},
             &error)) {
        return error;
    }
    if (q.numRowsAffected() != 1)
        return err(Code::Conflict, QStringLiteral("action %1 changed concurrently").arg(r.id));
    return {};
}

// The one way an action's state changes here: through StateMachine::apply. Entering
// REQUIRES_REVIEW records why; any state change ends the current lease.
LedgerError applyTrigger(ActionRow &row, Trigger trigger, const QString &reason)
{
    QString why;
    const std::optional<ActionState> to = StateMachine::apply(row.record.state, trigger, &why);
    if (!to) {
        if (why.isEmpty())
            why = QStringLiteral("%1 is not legal in %2").arg(toWire(trigger), toWire(row.record.state));
        return err(Code::IllegalTransition, why);
    }
    const bool changed = *to != row.record.state;
    row.record.state = *to;
    if (*to == ActionState::RequiresReview) {
        row.record.reviewReason = reason.isEmpty() ? QStringLiteral("stopped for review") : reason;
        row.reviewRequested = false; // honoured
    } else {
        row.record.reviewReason.clear();
    }
    if (changed)
        row.clearLease();
    return {};
}

LedgerError checkVersion(const ActionRow &row, qint64 expected)
{
    if (row.record.stateVersion == expected)
        return {};
    return err(Code::StaleVersion, QStringLiteral("action %1 is at state_version %2, not %3")
                                       .arg(row.record.id).arg(row.record.stateVersion).arg(expected));
}

LedgerError requireText(const QString &value, const QString &what, qsizetype maxLength = kMaxTextField)
{
    if (value.trimmed().isEmpty())
        return err(Code::Invalid, QStringLiteral("%1 is required").arg(what));
    if (value.size() > maxLength)
        return err(Code::Invalid, QStringLiteral("%1 is longer than %2 characters").arg(what).arg(maxLength));
    return {};
}

bool isRefundReason(const QString &reason)
{
    return reason.isEmpty() || reason == u"duplicate" || reason == u"fraudulent"
        || reason == u"requested_by_customer";
}

// COALESCE(MAX(seq), 0) + 1 for one of the per-action append-only tables (approvals: version).
bool nextSeq(QSqlDatabase &db, const QString &table, const QString &actionId, int *seq, LedgerError *error)
{
    const QString column = table == u"approvals" ? QStringLiteral("version") : QStringLiteral("seq");
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT COALESCE(MAX(%1), 0) + 1 FROM %2 WHERE action_id = ?").arg(column, table),
             {actionId}, error)) {
        return false;
    }
    *seq = q.next() ? q.value(0).toInt() : 1;
    return true;
}

// The chain's last (seq, hash) as this thread's write transaction left it: the transaction holds
// the write lock, so nobody else appends meanwhile. Forgotten at every BEGIN and at every
// rollback (of the transaction or of a savepoint), so it never outlives what it describes.
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

void forgetAuditTail()
{
    auditTail().valid = false;
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

LedgerError appendAudit(QSqlDatabase &db, const QDateTime &now, const QString &actionId, const QString &actor,
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

// --- attempts, approvals, lookups ------------------------------------------------------------

const QString kAttemptColumns = QStringLiteral(
    "action_id, seq, idempotency_key, request_fingerprint, executor, started_at, finished_at, outcome,"
    " http_status, error_code, provider_request_id, provider_object_id, replayed, error_excerpt");

Attempt attemptFromQuery(const Statement &q)
{
    Attempt a;
    a.actionId = q.value(0).toString();
    a.seq = q.value(1).toInt();
    a.idempotencyKey = q.value(2).toString();
    a.requestFingerprint = q.value(3).toString();
    a.executor = q.value(4).toString();
    a.startedAt = fromMs(q.value(5).toLongLong());
    a.finishedAt = timeOrNull(q.value(6));
    a.outcome = attemptOutcomeFromWire(q.value(7).toString()).value_or(Attempt::Outcome::Unknown);
    a.httpStatus = q.value(8).toInt();
    a.errorCode = q.value(9).toString();
    a.providerRequestId = q.value(10).toString();
    a.providerObjectId = q.value(11).toString();
    a.replayed = q.value(12).toInt() != 0;
    a.errorExcerpt = q.value(13).toString();
    return a;
}

bool loadAttempts(QSqlDatabase &db, const QString &actionId, QList<Attempt> *out, LedgerError *error)
{
    Statement q(db);
    static const QString sql = QStringLiteral("SELECT %1 FROM attempts WHERE action_id = ? ORDER BY seq").arg(kAttemptColumns);
    if (!run(q, sql, {actionId}, error)) {
        return false;
    }
    while (q.next())
        out->append(attemptFromQuery(q));
    return true;
}

std::optional<Attempt> openAttempt(const QList<Attempt> &attempts)
{
    for (const Attempt &a : attempts) {
        if (a.outcome == Attempt::Outcome::Open)
            return a;
    }
    return std::nullopt;
}

const QString &insertAttemptSql()
{
    static const QString sql =
        QStringLiteral("INSERT INTO attempts (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").arg(kAttemptColumns);
    return sql;
}

bool insertAttempt(QSqlDatabase &db, const Attempt &a, LedgerError *error)
{
    Statement q(db);
    return run(q,
               insertAttemptSql(),
               {a.actionId, a.seq, a.idempotencyKey, a.requestFingerprint, text(a.executor), toMs(a.startedAt),
                msOrNull(a.finishedAt), toWire(a.outcome), a.httpStatus, text(a.errorCode),
                text(a.providerRequestId), text(a.providerObjectId), a.replayed ? 1 : 0, text(a.errorExcerpt)},
               error);
}

// Finishes every open attempt of an action as Unknown: the process that sent it is gone, so the
// request may or may not have reached the provider. Never failed or rejected (invariant 6).
bool finishOpenAttemptsUnknown(QSqlDatabase &db, const QString &actionId, const QDateTime &now,
                               int *finished, LedgerError *error)
{
    Statement q(db);
    if (!run(q,
             QStringLiteral("UPDATE attempts SET outcome = 'unknown', finished_at = ?, error_excerpt = ?"
                            " WHERE action_id = ? AND outcome = 'open'"),
             {toMs(now), leaseExpiredExcerpt(), actionId}, error)) {
        return false;
    }
    *finished = q.numRowsAffected();
    return true;
}

const QString kApprovalColumns = QStringLiteral(
    "action_id, version, decided_by, decision, note, idempotency_key, approved_fingerprint, decided_at");

Approval approvalFromQuery(const Statement &q)
{
    Approval a;
    a.actionId = q.value(0).toString();
    a.version = q.value(1).toInt();
    a.decidedBy = q.value(2).toString();
    a.decision = decisionFromWire(q.value(3).toString()).value_or(Approval::Decision::Rejected);
    a.note = q.value(4).toString();
    a.idempotencyKey = q.value(5).toString();
    a.approvedFingerprint = q.value(6).toString();
    a.decidedAt = fromMs(q.value(7).toLongLong());
    return a;
}

bool insertApproval(QSqlDatabase &db, const Approval &a, LedgerError *error)
{
    Statement q(db);
    return run(q, QStringLiteral("INSERT INTO approvals (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").arg(kApprovalColumns),
               {a.actionId, a.version, a.decidedBy, toWire(a.decision), text(a.note), text(a.idempotencyKey),
                text(a.approvedFingerprint), toMs(a.decidedAt)},
               error);
}

const QString kLookupColumns = QStringLiteral(
    "action_id, seq, method, asked_by, at, result, provider_object_id, status, amount, currency, http_status,"
    " excerpt");

ProviderLookup lookupFromQuery(const Statement &q)
{
    ProviderLookup l;
    l.actionId = q.value(0).toString();
    l.seq = q.value(1).toInt();
    l.method = lookupMethodFromWire(q.value(2).toString()).value_or(ProviderLookup::Method::ListByMetadata);
    l.askedBy = q.value(3).toString();
    l.at = fromMs(q.value(4).toLongLong());
    l.result = lookupResultFromWire(q.value(5).toString()).value_or(ProviderLookup::Result::Error);
    l.providerObjectId = q.value(6).toString();
    l.status = q.value(7).toString();
    l.amount = q.value(8).toLongLong();
    l.currency = q.value(9).toString();
    l.httpStatus = q.value(10).toInt();
    l.excerpt = q.value(11).toString();
    return l;
}

const QString kReconciliationColumns = QStringLiteral(
    "action_id, seq, decided_by, outcome, evidence_lookup_seq, note, decided_at");

Reconciliation reconciliationFromQuery(const Statement &q)
{
    Reconciliation r;
    r.actionId = q.value(0).toString();
    r.seq = q.value(1).toInt();
    r.decidedBy = q.value(2).toString();
    r.outcome = reconciliationOutcomeFromWire(q.value(3).toString()).value_or(Reconciliation::Outcome::NotCommitted);
    r.evidenceLookupSeq = q.value(4).toInt();
    r.note = q.value(5).toString();
    r.decidedAt = fromMs(q.value(6).toLongLong());
    return r;
}

const QString kAuditColumns = QStringLiteral(
    "seq, action_id, at, actor, event, reason, before_json, after_json, prev_hash, hash");

AuditEvent auditFromQuery(const Statement &q)
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

bool isCommittedStatus(const QString &status)
{
    return status == u"succeeded" || status == u"pending";
}

bool isNotCommittedStatus(const QString &status)
{
    return status == u"failed" || status == u"canceled";
}

QString truncated(const QString &value, qsizetype limit)
{
    return value.size() > limit ? value.left(limit) : value;
}

// --- list cursor ------------------------------------------------------------------------------

QString encodeCursor(const ActionRecord &last)
{
    const QString raw = QString::number(toMs(last.createdAt)) + QLatin1Char('|') + last.id;
    return QString::fromLatin1(raw.toUtf8().toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

bool decodeCursor(const QString &cursor, qint64 *createdAtMs, QString *id)
{
    const auto decoded = QByteArray::fromBase64Encoding(cursor.toLatin1(), QByteArray::Base64UrlEncoding
                                                                               | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return false;
    const QString raw = QString::fromUtf8(*decoded);
    const qsizetype bar = raw.indexOf(QLatin1Char('|'));
    if (bar <= 0)
        return false;
    bool ok = false;
    *createdAtMs = raw.left(bar).toLongLong(&ok);
    *id = raw.mid(bar + 1);
    return ok && !id->isEmpty();
}

QString likePattern(const QString &text)
{
    QString escaped = text.toLower();
    escaped.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    escaped.replace(QLatin1Char('%'), QStringLiteral("\\%"));
    escaped.replace(QLatin1Char('_'), QStringLiteral("\\_"));
    return QLatin1Char('%') + escaped + QLatin1Char('%');
}

} // namespace

// ==============================================================================================

LedgerStore::LedgerStore() = default;

LedgerStore::~LedgerStore()
{
    // This thread's prepared statements of every store: re-prepared on demand by the others.
    statementPool().clear();
}

QString LedgerStore::path() const
{
    return m_connections ? m_connections->path() : QString();
}

int LedgerStore::schemaVersion() const
{
    return m_schemaVersion;
}

LedgerError LedgerStore::open(const QString &path)
{
    return open(path, Options());
}

LedgerError LedgerStore::open(const QString &path, const Options &options)
{
    if (m_connections)
        return err(Code::Invalid, QStringLiteral("the ledger is already open on %1").arg(m_connections->path()));
    m_options = options;
    if (!m_options.clock)
        m_options.clock = systemClock();
    if (m_options.busyRetries < 0)
        m_options.busyRetries = 0;

    auto connections = std::make_unique<LedgerConnections>(path, m_options.busyTimeoutMs);
    {
        LedgerError error;
        QSqlDatabase db = connections->forCurrentThread(&error);
        if (!error.ok())
            return error;
        error = Migrations::migrate(db, toMs(now()));
        if (!error.ok())
            return error;
        m_schemaVersion = Migrations::currentVersion(db, &error);
        if (!error.ok())
            return error;
    }
    m_connections = std::move(connections);
    if (m_options.recoverExpiredLeasesOnOpen) {
        const LedgerResult<int> recovered = recoverExpiredLeases();
        if (!recovered.ok()) {
            m_connections.reset();
            return recovered.error();
        }
        if (recovered.value() > 0)
            qCInfo(lcLedger) << "recovered" << recovered.value() << "actions with expired leases in" << path;
    }
    return {};
}

QDateTime LedgerStore::now() const
{
    const QDateTime clock = m_options.clock ? m_options.clock() : QDateTime::currentDateTimeUtc();
    return fromMs(clock.toMSecsSinceEpoch()); // UTC, millisecond precision: what the database stores
}

LedgerError LedgerStore::write(const char *operation, const WriteBody &body)
{
    if (!m_connections)
        return err(Code::Storage, QStringLiteral("the ledger is not open"));
    LedgerError error;
    QSqlDatabase db = m_connections->forCurrentThread(&error);
    if (!error.ok())
        return error;

    const QMutexLocker serialized(&m_writeMutex); // other processes still queue on busy_timeout
    for (int round = 0;; ++round) {
        const bool mayRetry = round < m_options.busyRetries;
        {
            // IMMEDIATE takes the write lock now, so concurrent writers (threads or processes)
            // queue on busy_timeout here instead of failing halfway through.
            forgetAuditTail();
            Statement begin(db);
            if (!run(begin, QStringLiteral("BEGIN IMMEDIATE"), {}, &error)) {
                if (error.code() == Code::Busy && mayRetry) {
                    QThread::msleep(5 * (round + 1) + QRandomGenerator::global()->bounded(10));
                    continue;
                }
                qCWarning(lcLedger) << operation << "could not begin:" << error.toString();
                return error;
            }
        }
        // "now" is read inside the write lock, so lease times are ordered like the commits.
        error = body(db, now());
        if (error.ok()) {
            Statement commit(db);
            if (run(commit, QStringLiteral("COMMIT"), {}, &error)) {
                qCDebug(lcLedger) << operation << "committed";
                return {};
            }
        }
        {
            forgetAuditTail();
            QSqlQuery rollback(db);
            rollback.exec(QStringLiteral("ROLLBACK")); // may fail if SQLite already rolled back
        }
        if (error.code() == Code::Busy && mayRetry) {
            QThread::msleep(5 * (round + 1) + QRandomGenerator::global()->bounded(10));
            continue;
        }
        if (error.code() == Code::Storage || error.code() == Code::Busy)
            qCWarning(lcLedger) << operation << "rolled back:" << error.toString();
        else
            qCDebug(lcLedger) << operation << "refused:" << error.toString();
        return error;
    }
}

LedgerError LedgerStore::read(const ReadBody &body) const
{
    if (!m_connections)
        return err(Code::Storage, QStringLiteral("the ledger is not open"));
    LedgerError error;
    QSqlDatabase db = m_connections->forCurrentThread(&error);
    if (!error.ok())
        return error;
    return body(db);
}

// --- propose --------------------------------------------------------------------------------

LedgerResult<LedgerStore::ProposeResult> LedgerStore::propose(const ProposalInput &input, const QString &requestedBy)
{
    LedgerError error = requireText(requestedBy, QStringLiteral("requested_by"));
    if (error.ok() && input.kind != u"refund")
        error = err(Code::Invalid, QStringLiteral("kind must be \"refund\", not \"%1\"").arg(input.kind));
    if (error.ok())
        error = requireText(input.targetId, QStringLiteral("target id"));
    if (error.ok())
        error = requireText(input.clientReference, QStringLiteral("client_reference"));
    if (error.ok())
        error = requireText(input.provider, QStringLiteral("provider"));
    if (error.ok() && input.businessReference.size() > kMaxTextField)
        error = err(Code::Invalid, QStringLiteral("business_reference is longer than 255 characters"));
    if (error.ok() && input.providerAccount.size() > kMaxTextField)
        error = err(Code::Invalid, QStringLiteral("provider_account is longer than 255 characters"));
    if (error.ok() && !isRefundReason(input.reason))
        error = err(Code::Invalid, QStringLiteral("reason must be empty, duplicate, fraudulent or"
                                                  " requested_by_customer, not \"%1\"").arg(input.reason));
    if (!error.ok())
        return error;
    QString moneyError;
    const std::optional<Money> money = Money::fromMinorUnits(input.amount, input.currency, &moneyError);
    if (!money)
        return err(Code::Invalid, moneyError.isEmpty() ? QStringLiteral("invalid amount or currency") : moneyError);
    if (money->minorUnits() <= 0)
        return err(Code::Invalid, QStringLiteral("a refund amount must be positive"));

    ActionRecord candidate;
    candidate.kind = input.kind;
    candidate.targetType = input.targetType;
    candidate.targetId = input.targetId;
    candidate.businessReference = input.businessReference;
    candidate.amount = money->minorUnits();
    candidate.currency = money->currency();
    candidate.reason = input.reason;
    candidate.provider = input.provider;
    candidate.providerAccount = input.providerAccount;
    candidate.requestedBy = requestedBy;
    candidate.clientReference = input.clientReference;
    candidate.parentId = input.parentId;
    const QJsonObject candidatePayload = submittedPayload(candidate);

    ProposeResult result;
    error = write("propose", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        result = ProposeResult();
        LedgerError e;
        Statement existing(db);
        if (!run(existing,
                 QStringLiteral("SELECT %1 FROM actions WHERE requested_by = ? AND client_reference = ?")
                     .arg(kActionColumns),
                 {requestedBy, input.clientReference}, &e)) {
            return e;
        }
        if (existing.next()) {
            const ActionRow stored = actionFromQuery(existing);
            existing.finish();
            result.record = stored.record;
            result.storedPayload = parseJson(stored.proposedPayload);
            result.reviewRequested = stored.reviewRequested;
            if (canonicalPayload(result.storedPayload) == canonicalPayload(candidatePayload)) {
                result.status = ProposeResult::Status::Existing;
                return {};
            }
            // Invariant 5: a changed resubmission never changes the stored record; it is recorded
            // and execution stops for a human.
            result.status = ProposeResult::Status::Conflict;
            result.conflictingPayload = candidatePayload;
            int seq = 0;
            if (!nextSeq(db, QStringLiteral("conflicts"), stored.record.id, &seq, &e))
                return e;
            Statement conflict(db);
            if (!run(conflict,
                     QStringLiteral("INSERT INTO conflicts (action_id, seq, submitted_by, at, stored_payload,"
                                    " conflicting_payload) VALUES (?, ?, ?, ?, ?, ?)"),
                     {stored.record.id, seq, requestedBy, toMs(now), stored.proposedPayload,
                      compactJson(candidatePayload)},
                     &e)) {
                return e;
            }
            const QString why = QStringLiteral("resubmission #%1 by %2 under client_reference \"%3\" changed the"
                                               " payload; the stored action is unchanged")
                                    .arg(seq).arg(requestedBy, input.clientReference);
            e = appendAudit(db, now, stored.record.id, requestedBy, QStringLiteral("resubmission_conflict"), why,
                            result.storedPayload, candidatePayload);
            if (!e.ok())
                return e;

            QList<Attempt> attempts;
            if (!loadAttempts(db, stored.record.id, &attempts, &e))
                return e;
            const bool inFlight = stored.record.state == ActionState::Executing || openAttempt(attempts).has_value();
            ActionRow after = stored;
            QString event;
            if (inFlight) {
                // A request may be on the wire: the executor escalates when it finishes.
                if (stored.reviewRequested)
                    return {};
                after.reviewRequested = true;
                event = QStringLiteral("review_requested");
            } else if (stored.record.state == ActionState::Pending
                       || stored.record.state == ActionState::ConfirmationUnknown) {
                e = applyTrigger(after, Trigger::StopForReview, why);
                if (!e.ok())
                    return e;
                event = QStringLiteral("state_changed");
            } else {
                return {}; // COMPLETED, REJECTED, REQUIRES_REVIEW: recorded, state unchanged
            }
            e = saveAction(db, stored, after, now);
            if (!e.ok())
                return e;
            e = appendAudit(db, now, stored.record.id, QStringLiteral("system"), event, why, snapshot(stored),
                            snapshot(after));
            if (!e.ok())
                return e;
            result.record = after.record;
            result.reviewRequested = after.reviewRequested;
            return {};
        }
        existing.finish();

        if (!input.parentId.isEmpty()) {
            ActionRow parent;
            if (!loadAction(db, input.parentId, &parent, &e)) {
                if (e.code() == Code::NotFound)
                    return err(Code::Invalid, QStringLiteral("parent action %1 does not exist").arg(input.parentId));
                return e;
            }
        }
        ActionRow row;
        row.record = candidate;
        for (int tries = 0;; ++tries) {
            row.record.id = Ids::newActionId();
            ActionRow clash;
            if (!loadAction(db, row.record.id, &clash, &e)) {
                if (e.code() == Code::NotFound)
                    break;
                return e;
            }
            if (tries > 3)
                return err(Code::Storage, QStringLiteral("could not mint a unique action id"));
        }
        ActionRecord &r = row.record;
        r.requestFingerprint = requestFingerprint(r.providerRequest());
        r.idempotencyKey.clear();
        r.approvalVersion = 0;
        r.state = ActionState::Pending;
        r.stateVersion = 1;
        r.createdAt = now;
        r.updatedAt = now;
        row.proposedPayload = compactJson(candidatePayload);
        Statement insert(db);
        if (!run(insert,
                 QStringLiteral("INSERT INTO actions (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                                " ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                     .arg(kActionColumns),
                 {r.id, r.kind, toWire(r.targetType), r.targetId, text(r.businessReference), r.amount, r.currency,
                  text(r.reason), r.provider, text(r.providerAccount), r.requestedBy, r.clientReference,
                  textOrNull(r.parentId), r.requestFingerprint, text(r.idempotencyKey), r.approvalVersion,
                  toWire(r.state), r.stateVersion, text(r.reviewReason), toMs(r.createdAt), toMs(r.updatedAt), 0,
                  textOrNull(QString()), msOrNull(std::optional<qint64>()), row.proposedPayload},
                 &e)) {
            return e;
        }
        QString why = QStringLiteral("proposed under client_reference \"%1\"").arg(r.clientReference);
        QJsonObject after = r.toJson();
        if (!input.note.isEmpty()) {
            why += QStringLiteral(": ") + input.note;
            after.insert(QStringLiteral("note"), input.note);
        }
        e = appendAudit(db, now, r.id, requestedBy, QStringLiteral("proposed"), why, {}, after);
        if (!e.ok())
            return e;
        result.status = ProposeResult::Status::Created;
        result.record = r;
        result.storedPayload = candidatePayload;
        return {};
    });
    if (!error.ok())
        return error;
    return result;
}

// --- approvals -------------------------------------------------------------------------------

LedgerResult<ActionRecord> LedgerStore::approve(const QString &actionId, const QString &approver,
                                                const QString &note, qint64 expectedStateVersion)
{
    LedgerError error = requireText(approver, QStringLiteral("approver"));
    if (error.ok() && note.size() > kMaxNote)
        error = err(Code::Invalid, QStringLiteral("the note is longer than %1 characters").arg(kMaxNote));
    if (!error.ok())
        return error;
    ActionRecord out;
    error = write("approve", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        e = checkVersion(row, expectedStateVersion);
        if (!e.ok())
            return e;
        if (row.record.state != ActionState::Pending)
            return err(Code::IllegalTransition, QStringLiteral("only a PENDING action can be approved; %1 is %2")
                                                    .arg(actionId, toWire(row.record.state)));
        if (approver == row.record.requestedBy)
            return err(Code::Forbidden, QStringLiteral("four-eyes rule: %1 proposed %2 and cannot approve it")
                                            .arg(approver, actionId));
        QList<Attempt> attempts;
        if (!loadAttempts(db, actionId, &attempts, &e))
            return e;
        if (!attempts.isEmpty())
            return err(Code::Forbidden, QStringLiteral("%1 has been sent; a fresh key is only minted for an action"
                                                       " never sent (invariant 4)").arg(actionId));
        const QString recomputed = requestFingerprint(row.record.providerRequest());
        if (recomputed != row.record.requestFingerprint)
            return err(Code::Conflict, QStringLiteral("the stored fingerprint of %1 does not match its payload;"
                                                      " refusing to sign it").arg(actionId));
        Approval approval;
        approval.actionId = actionId;
        if (!nextSeq(db, QStringLiteral("approvals"), actionId, &approval.version, &e)) // max(version) + 1
            return e;
        approval.decidedBy = approver;
        approval.decision = Approval::Decision::Approved;
        approval.note = note;
        approval.idempotencyKey = Ids::newIdempotencyKey(actionId, approval.version);
        approval.approvedFingerprint = row.record.requestFingerprint;
        approval.decidedAt = now;
        if (!insertApproval(db, approval, &e))
            return e;
        ActionRow after = row;
        after.record.idempotencyKey = approval.idempotencyKey;
        after.record.approvalVersion = approval.version;
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
        e = appendAudit(db, now, actionId, approver, QStringLiteral("approved"), note, snapshot(row),
                        withObject(snapshot(after), QStringLiteral("approval"), approval.toJson()));
        if (!e.ok())
            return e;
        out = after.record;
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<ActionRecord> LedgerStore::reject(const QString &actionId, const QString &who, const QString &note,
                                               qint64 expectedStateVersion)
{
    LedgerError error = requireText(who, QStringLiteral("who"));
    if (error.ok() && note.size() > kMaxNote)
        error = err(Code::Invalid, QStringLiteral("the note is longer than %1 characters").arg(kMaxNote));
    if (!error.ok())
        return error;
    ActionRecord out;
    error = write("reject", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        e = checkVersion(row, expectedStateVersion);
        if (!e.ok())
            return e;
        ActionRow after = row;
        e = applyTrigger(after, Trigger::HumanReject, note);
        if (!e.ok())
            return e;
        Approval approval;
        approval.actionId = actionId;
        if (!nextSeq(db, QStringLiteral("approvals"), actionId, &approval.version, &e))
            return e;
        approval.decidedBy = who;
        approval.decision = Approval::Decision::Rejected;
        approval.note = note;
        approval.approvedFingerprint = row.record.requestFingerprint; // what was looked at and refused
        approval.decidedAt = now;
        if (!insertApproval(db, approval, &e))
            return e;
        after.record.approvalVersion = approval.version;
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
        e = appendAudit(db, now, actionId, who, QStringLiteral("rejected"), note, snapshot(row),
                        withObject(snapshot(after), QStringLiteral("approval"), approval.toJson()));
        if (!e.ok())
            return e;
        out = after.record;
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<ActionRecord> LedgerStore::amendBeforeSending(const QString &actionId, const QString &who,
                                                           qint64 newAmount, const QString &newReason,
                                                           qint64 expectedStateVersion)
{
    LedgerError error = requireText(who, QStringLiteral("who"));
    if (error.ok() && !isRefundReason(newReason))
        error = err(Code::Invalid, QStringLiteral("reason must be empty, duplicate, fraudulent or"
                                                  " requested_by_customer, not \"%1\"").arg(newReason));
    if (!error.ok())
        return error;
    ActionRecord out;
    error = write("amend", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        e = checkVersion(row, expectedStateVersion);
        if (!e.ok())
            return e;
        if (row.record.state != ActionState::Pending)
            return err(Code::IllegalTransition, QStringLiteral("only a PENDING action can be amended; %1 is %2")
                                                    .arg(actionId, toWire(row.record.state)));
        QList<Attempt> attempts;
        if (!loadAttempts(db, actionId, &attempts, &e))
            return e;
        if (!attempts.isEmpty())
            return err(Code::Forbidden, QStringLiteral("%1 has been sent; its payload is frozen (invariant 2)")
                                            .arg(actionId));
        QString moneyError;
        const std::optional<Money> money = Money::fromMinorUnits(newAmount, row.record.currency, &moneyError);
        if (!money)
            return err(Code::Invalid, moneyError.isEmpty() ? QStringLiteral("invalid amount") : moneyError);
        if (money->minorUnits() <= 0)
            return err(Code::Invalid, QStringLiteral("a refund amount must be positive"));
        ActionRow after = row;
        after.record.amount = money->minorUnits();
        after.record.reason = newReason;
        after.record.requestFingerprint = requestFingerprint(after.record.providerRequest());
        // The old approval signed another request: a new approval must sign this one and mint its key.
        after.record.idempotencyKey.clear();
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
        e = appendAudit(db, now, actionId, who, QStringLiteral("amended"),
                        QStringLiteral("amended before sending; a new approval is required"), snapshot(row),
                        snapshot(after));
        if (!e.ok())
            return e;
        out = after.record;
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

// --- claims ---------------------------------------------------------------------------------

namespace {

// Claims one loaded PENDING action inside the caller's write transaction. On fingerprint drift it
// stops the action for review (committed with the transaction) and sets *drift instead.
// What claimRow needs besides the action row, when the caller read it already (claimNextIn reads
// it together with the candidates).
struct ClaimContext
{
    Approval approval; // the approval at the action's approval_version
    int attempts = 0;  // the action's attempt rows
};

LedgerError claimRow(QSqlDatabase &db, const QDateTime &now, const ActionRow &row, const QString &executor,
                     std::chrono::milliseconds lease, LedgerStore::Claim *out, LedgerError *drift,
                     const ClaimContext *context = nullptr)
{
    LedgerError e;
    const QString &id = row.record.id;
    QString why;
    if (!StateMachine::apply(row.record.state, Trigger::Claim, &why))
        return err(Code::IllegalTransition, why.isEmpty() ? QStringLiteral("%1 cannot be claimed in %2")
                                                                 .arg(id, toWire(row.record.state))
                                                           : why);
    if (row.record.approvalVersion <= 0 || row.record.idempotencyKey.isEmpty())
        return err(Code::Forbidden, QStringLiteral("%1 has no current approval").arg(id));
    ClaimContext read;
    if (!context) {
        Statement q(db);
        static const QString approvalSql =
            QStringLiteral("SELECT %1 FROM approvals WHERE action_id = ? AND version = ?").arg(kApprovalColumns);
        if (!run(q, approvalSql, {id, row.record.approvalVersion}, &e))
            return e;
        if (!q.next())
            return err(Code::Forbidden,
                       QStringLiteral("%1 has no approval version %2").arg(id).arg(row.record.approvalVersion));
        read.approval = approvalFromQuery(q);
        q.finish();
        QList<Attempt> attempts;
        if (!loadAttempts(db, id, &attempts, &e))
            return e;
        read.attempts = int(attempts.size());
        context = &read;
    }
    const Approval &approval = context->approval;
    if (approval.decision != Approval::Decision::Approved || approval.idempotencyKey != row.record.idempotencyKey)
        return err(Code::Forbidden, QStringLiteral("%1's current approval does not approve its key").arg(id));
    if (context->attempts > 0)
        return err(Code::Conflict, QStringLiteral("%1 is PENDING but already has attempts").arg(id));

    // Invariant 10: only the exact request the approval signed may be sent.
    const QString recomputed = requestFingerprint(row.record.providerRequest());
    if (approval.approvedFingerprint != row.record.requestFingerprint || recomputed != row.record.requestFingerprint) {
        const QString reason = QStringLiteral("fingerprint drift: approval v%1 signed %2, the action holds %3 and its"
                                              " payload hashes to %4; nothing was sent")
                                   .arg(approval.version)
                                   .arg(approval.approvedFingerprint, row.record.requestFingerprint, recomputed);
        ActionRow after = row;
        e = applyTrigger(after, Trigger::StopForReview, reason);
        if (!e.ok())
            return e;
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
        e = appendAudit(db, now, id, executor, QStringLiteral("state_changed"), reason, snapshot(row), snapshot(after));
        if (!e.ok())
            return e;
        out->record = after.record;
        *drift = err(Code::Conflict, reason);
        return {};
    }

    ActionRow after = row;
    e = applyTrigger(after, Trigger::Claim, QString());
    if (!e.ok())
        return e;
    after.leaseOwner = executor;
    after.leaseExpiresAtMs = toMs(now) + lease.count();
    e = saveAction(db, row, after, now);
    if (!e.ok())
        return e;
    Attempt attempt;
    attempt.actionId = id;
    attempt.seq = 1; // a PENDING action has no attempts (checked above)
    attempt.idempotencyKey = after.record.idempotencyKey;
    attempt.requestFingerprint = after.record.requestFingerprint;
    attempt.executor = executor;
    attempt.startedAt = now;
    attempt.outcome = Attempt::Outcome::Open;
    if (!insertAttempt(db, attempt, &e))
        return e;
    e = appendAudit(db, now, id, executor, QStringLiteral("claimed"),
                    QStringLiteral("claimed with attempt %1 under approval v%2").arg(attempt.seq).arg(approval.version),
                    snapshot(row), withObject(snapshot(after), QStringLiteral("attempt"), attempt.toJson()));
    if (!e.ok())
        return e;
    out->record = after.record;
    out->attempt = attempt;
    return {};
}

LedgerError checkLeaseArguments(const QString &executorId, std::chrono::milliseconds leaseDuration)
{
    LedgerError e = requireText(executorId, QStringLiteral("executor id"));
    if (e.ok() && leaseDuration.count() <= 0)
        e = err(Code::Invalid, QStringLiteral("a lease must last longer than 0 ms"));
    return e;
}

} // namespace

LedgerResult<LedgerStore::Claim> LedgerStore::claim(const QString &actionId, const QString &executorId,
                                                    std::chrono::milliseconds leaseDuration)
{
    LedgerError error = checkLeaseArguments(executorId, leaseDuration);
    if (!error.ok())
        return error;
    Claim out;
    LedgerError drift;
    error = write("claim", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        drift = LedgerError();
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        return claimRow(db, now, row, executorId, leaseDuration, &out, &drift);
    });
    if (!error.ok())
        return error;
    if (!drift.ok())
        return drift;
    return out;
}

namespace {

// An approved PENDING action read for claiming, with its approval and its attempt count.
struct Candidate
{
    ActionRow row;
    ClaimContext context;
};

// claimNext's work inside the caller's write transaction: the oldest approved PENDING action,
// drifted ones stopped for review and skipped. *out stays empty when there is nothing to claim.
// `candidates` may be shared by several claims of one transaction (commitBatch): the rows are
// then read once for all of them. They stay current: the transaction holds the write lock, and
// what it changes itself (a claim, a drift stopped for review) is taken off the list first;
// saveAction's state_version check refuses anything else.
LedgerError claimNextIn(QSqlDatabase &db, const QDateTime &now, const QString &executorId,
                        std::chrono::milliseconds leaseDuration, std::optional<LedgerStore::Claim> *out,
                        QList<Candidate> *candidates = nullptr, int fetch = 16)
{
    out->reset();
    LedgerError e;
    QList<Candidate> local;
    QList<Candidate> &list = candidates ? *candidates : local;
    // Drifted ones are stopped for review and skipped, so each refill sees fresh candidates.
    for (int pass = 0; pass < 10; ++pass) {
        if (list.isEmpty()) {
            Statement q(db);
            static const QString sql =
                QStringLiteral("SELECT %1, p.version, p.decided_by, p.decision, p.note, p.idempotency_key,"
                               " p.approved_fingerprint, p.decided_at,"
                               " (SELECT COUNT(*) FROM attempts t WHERE t.action_id = a.id)"
                               " FROM actions a JOIN approvals p"
                               " ON p.action_id = a.id AND p.version = a.approval_version"
                               " WHERE a.state = 'PENDING' AND a.idempotency_key <> ''"
                               " AND p.decision = 'approved'"
                               " ORDER BY a.created_at, a.id LIMIT ?")
                    .arg(qualifiedActionColumns(QStringLiteral("a")));
            if (!run(q, sql, {fetch}, &e))
                return e;
            while (q.next()) {
                Candidate c;
                c.row = actionFromQuery(q);
                constexpr int at = 25; // after the action's columns
                Approval &p = c.context.approval;
                p.actionId = c.row.record.id;
                p.version = q.value(at).toInt();
                p.decidedBy = q.value(at + 1).toString();
                p.decision = decisionFromWire(q.value(at + 2).toString()).value_or(Approval::Decision::Rejected);
                p.note = q.value(at + 3).toString();
                p.idempotencyKey = q.value(at + 4).toString();
                p.approvedFingerprint = q.value(at + 5).toString();
                p.decidedAt = fromMs(q.value(at + 6).toLongLong());
                c.context.attempts = q.value(at + 7).toInt();
                list << c;
            }
        }
        if (list.isEmpty())
            return {};
        while (!list.isEmpty()) {
            const Candidate c = list.takeFirst();
            LedgerStore::Claim claimed;
            LedgerError drift;
            e = claimRow(db, now, c.row, executorId, leaseDuration, &claimed, &drift, &c.context);
            if (!e.ok())
                return e;
            if (drift.ok()) {
                *out = claimed;
                return {};
            }
            qCWarning(lcLedger) << "claimNext stopped" << c.row.record.id << "for review:" << drift.message();
        }
    }
    return {};
}

} // namespace

LedgerResult<std::optional<LedgerStore::Claim>> LedgerStore::claimNext(const QString &executorId,
                                                                       std::chrono::milliseconds leaseDuration)
{
    LedgerError error = checkLeaseArguments(executorId, leaseDuration);
    if (!error.ok())
        return error;
    std::optional<Claim> out;
    error = write("claimNext", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        return claimNextIn(db, now, executorId, leaseDuration, &out);
    });
    if (!error.ok())
        return error;
    return out;
}

// --- leases ---------------------------------------------------------------------------------

LedgerResult<ActionRecord> LedgerStore::acquireLease(const QString &actionId, const QString &executorId,
                                                     std::chrono::milliseconds leaseDuration)
{
    LedgerError error = checkLeaseArguments(executorId, leaseDuration);
    if (!error.ok())
        return error;
    ActionRecord out;
    error = write("acquireLease", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        if (row.record.state != ActionState::ConfirmationUnknown)
            return err(Code::IllegalTransition, QStringLiteral("only a CONFIRMATION_UNKNOWN action can be leased;"
                                                               " %1 is %2").arg(actionId, toWire(row.record.state)));
        const qint64 nowMs = toMs(now);
        if (row.hasLiveLease(nowMs) && row.leaseOwner != executorId)
            return err(Code::Conflict, QStringLiteral("%1 is leased by %2 until %3")
                                           .arg(actionId, row.leaseOwner, toWireTime(fromMs(*row.leaseExpiresAtMs))));
        int finished = 0;
        if (!row.hasLiveLease(nowMs) && !finishOpenAttemptsUnknown(db, actionId, now, &finished, &e))
            return e;
        ActionRow after = row;
        after.leaseOwner = executorId;
        after.leaseExpiresAtMs = nowMs + leaseDuration.count();
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
        const QString reason = finished > 0
            ? QStringLiteral("previous holder's lease expired; %1 open attempt(s) finished as unknown").arg(finished)
            : QString();
        e = appendAudit(db, now, actionId, executorId, QStringLiteral("lease_acquired"), reason, snapshot(row),
                        snapshot(after));
        if (!e.ok())
            return e;
        out = after.record;
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<ActionRecord> LedgerStore::renewLease(const QString &actionId, const QString &executorId,
                                                   std::chrono::milliseconds leaseDuration)
{
    LedgerError error = checkLeaseArguments(executorId, leaseDuration);
    if (!error.ok())
        return error;
    ActionRecord out;
    error = write("renewLease", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        const qint64 nowMs = toMs(now);
        if ((row.record.state != ActionState::Executing && row.record.state != ActionState::ConfirmationUnknown)
            || !row.holdsLiveLease(executorId, nowMs)) {
            return err(Code::LeaseLost, QStringLiteral("%1 does not hold a live lease on %2").arg(executorId, actionId));
        }
        ActionRow after = row;
        after.leaseExpiresAtMs = nowMs + leaseDuration.count();
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
        e = appendAudit(db, now, actionId, executorId, QStringLiteral("lease_renewed"), QString(), snapshot(row),
                        snapshot(after));
        if (!e.ok())
            return e;
        out = after.record;
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<ActionRecord> LedgerStore::releaseLease(const QString &actionId, const QString &executorId)
{
    LedgerError error = requireText(executorId, QStringLiteral("executor id"));
    if (!error.ok())
        return error;
    ActionRecord out;
    error = write("releaseLease", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        if (row.leaseOwner != executorId)
            return err(Code::LeaseLost, QStringLiteral("%1 does not hold the lease on %2").arg(executorId, actionId));
        if (row.record.state == ActionState::Executing)
            return err(Code::Conflict, QStringLiteral("%1 is EXECUTING: its lease ends when its attempt is finished")
                                           .arg(actionId));
        QList<Attempt> attempts;
        if (!loadAttempts(db, actionId, &attempts, &e))
            return e;
        if (const auto open = openAttempt(attempts))
            return err(Code::Conflict, QStringLiteral("attempt %1 of %2 is still open; finish it first")
                                           .arg(open->seq).arg(actionId));
        ActionRow after = row;
        after.clearLease();
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
        e = appendAudit(db, now, actionId, executorId, QStringLiteral("lease_released"), QString(), snapshot(row),
                        snapshot(after));
        if (!e.ok())
            return e;
        out = after.record;
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<Attempt> LedgerStore::beginRetryAttempt(const QString &actionId, const QString &executorId)
{
    LedgerError error = requireText(executorId, QStringLiteral("executor id"));
    if (!error.ok())
        return error;
    Attempt out;
    error = write("beginRetryAttempt", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        if (row.record.state != ActionState::ConfirmationUnknown && row.record.state != ActionState::Executing)
            return err(Code::IllegalTransition, QStringLiteral("a retry needs CONFIRMATION_UNKNOWN or EXECUTING; %1 is %2")
                                                    .arg(actionId, toWire(row.record.state)));
        if (!row.holdsLiveLease(executorId, toMs(now)))
            return err(Code::LeaseLost, QStringLiteral("%1 does not hold a live lease on %2").arg(executorId, actionId));
        QList<Attempt> attempts;
        if (!loadAttempts(db, actionId, &attempts, &e))
            return e;
        if (const auto open = openAttempt(attempts))
            return err(Code::Conflict, QStringLiteral("attempt %1 of %2 is still open").arg(open->seq).arg(actionId));
        if (row.record.idempotencyKey.isEmpty() || attempts.isEmpty())
            return err(Code::Forbidden, QStringLiteral("%1 was never claimed: a retry reuses the first attempt's key")
                                            .arg(actionId));
        if (requestFingerprint(row.record.providerRequest()) != row.record.requestFingerprint)
            return err(Code::Conflict, QStringLiteral("%1's payload no longer matches its fingerprint").arg(actionId));
        Attempt attempt;
        attempt.actionId = actionId;
        attempt.seq = attempts.constLast().seq + 1;
        attempt.idempotencyKey = row.record.idempotencyKey; // the same key, always (invariant 4)
        attempt.requestFingerprint = row.record.requestFingerprint;
        attempt.executor = executorId;
        attempt.startedAt = now;
        attempt.outcome = Attempt::Outcome::Open;
        if (!insertAttempt(db, attempt, &e))
            return e;
        e = appendAudit(db, now, actionId, executorId, QStringLiteral("attempt_started"),
                        QStringLiteral("same-key retry, attempt %1").arg(attempt.seq), {}, attempt.toJson());
        if (!e.ok())
            return e;
        out = attempt;
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

namespace {

// The checks of a finish that need no database.
LedgerError checkFinish(const LedgerStore::AttemptResult &result, std::optional<Trigger> trigger)
{
    if (result.outcome == Attempt::Outcome::Open)
        return err(Code::Invalid, QStringLiteral("an attempt cannot be finished as open"));
    if (trigger == Trigger::ProviderSucceeded && result.outcome != Attempt::Outcome::Succeeded)
        return err(Code::Invalid, QStringLiteral("provider_succeeded needs a succeeded attempt"));
    if (trigger == Trigger::ProviderRejected && result.outcome != Attempt::Outcome::Rejected)
        return err(Code::Invalid, QStringLiteral("provider_rejected needs a definitive rejection; an unknown outcome"
                                                 " is CONFIRMATION_UNKNOWN (invariant 6)"));
    if (trigger && *trigger != Trigger::ProviderSucceeded && *trigger != Trigger::ProviderRejected
        && *trigger != Trigger::OutcomeUnknown && *trigger != Trigger::StopForReview) {
        return err(Code::Invalid, QStringLiteral("%1 is not an outcome of an attempt").arg(toWire(*trigger)));
    }
    return {};
}

// finishAttempt's work inside the caller's write transaction.
LedgerError finishAttemptIn(QSqlDatabase &db, const QDateTime &now, const QString &actionId, int seq,
                            const LedgerStore::AttemptResult &result, std::optional<Trigger> trigger,
                            const QString &reason, const QString &executorId, LedgerStore::FinishedAttempt *out)
{
    *out = LedgerStore::FinishedAttempt();
    LedgerError e;
    ActionRow row;
    if (!loadAction(db, actionId, &row, &e))
        return e;
    QList<Attempt> attempts;
    if (!loadAttempts(db, actionId, &attempts, &e))
        return e;
    const auto found = std::find_if(attempts.cbegin(), attempts.cend(), [&](const Attempt &a) { return a.seq == seq; });
    if (found == attempts.cend())
        return err(Code::NotFound, QStringLiteral("%1 has no attempt %2").arg(actionId).arg(seq));
    if (found->outcome != Attempt::Outcome::Open)
        return err(Code::Conflict, QStringLiteral("attempt %1 of %2 is already finished (%3)")
                                       .arg(seq).arg(actionId, toWire(found->outcome)));
    // A lost lease means another executor (or recovery) may own the action now: record nothing.
    if (!row.holdsLiveLease(executorId, toMs(now)))
        return err(Code::LeaseLost, QStringLiteral("%1 no longer holds the lease on %2; nothing recorded")
                                        .arg(executorId, actionId));

    Attempt attempt = *found;
    attempt.finishedAt = now;
    attempt.outcome = result.outcome;
    attempt.httpStatus = result.httpStatus;
    attempt.errorCode = truncated(result.errorCode, kMaxTextField);
    attempt.providerRequestId = truncated(result.providerRequestId, kMaxTextField);
    attempt.providerObjectId = truncated(result.providerObjectId, kMaxTextField);
    attempt.replayed = result.replayed;
    attempt.errorExcerpt = truncated(result.errorExcerpt, kExcerptLimit);
    Statement update(db);
    if (!run(update,
             QStringLiteral("UPDATE attempts SET finished_at = ?, outcome = ?, http_status = ?, error_code = ?,"
                            " provider_request_id = ?, provider_object_id = ?, replayed = ?, error_excerpt = ?"
                            " WHERE action_id = ? AND seq = ? AND outcome = 'open'"),
             {toMs(now), toWire(attempt.outcome), attempt.httpStatus, text(attempt.errorCode),
              text(attempt.providerRequestId), text(attempt.providerObjectId), attempt.replayed ? 1 : 0,
              text(attempt.errorExcerpt), actionId, seq},
             &e)) {
        return e;
    }
    if (update.numRowsAffected() != 1)
        return err(Code::Conflict, QStringLiteral("attempt %1 of %2 was finished concurrently").arg(seq).arg(actionId));

    ActionRow after = row;
    QString why = reason;
    if (trigger) {
        e = applyTrigger(after, *trigger, reason);
        if (!e.ok())
            return e;
    }
    // A changed resubmission arrived while this request was in flight: whatever is not a
    // definitive provider answer goes to a human.
    if (row.reviewRequested && !isTerminal(after.record.state) && after.record.state != ActionState::RequiresReview) {
        after = row;
        why = QStringLiteral("a changed resubmission requested review while attempt %1 was in flight;"
                             " outcome %2%3")
                  .arg(seq)
                  .arg(toWire(attempt.outcome), reason.isEmpty() ? QString() : QStringLiteral(" (") + reason + QLatin1Char(')'));
        e = applyTrigger(after, Trigger::StopForReview, why);
        if (!e.ok())
            return e;
        out->escalated = true;
    }
    const bool rowChanged = after.record.state != row.record.state || after.reviewRequested != row.reviewRequested;
    if (rowChanged) {
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
    }
    e = appendAudit(db, now, actionId, executorId, QStringLiteral("attempt_finished"), why, snapshot(row),
                    withObject(snapshot(after), QStringLiteral("attempt"), attempt.toJson()));
    if (!e.ok())
        return e;
    out->record = after.record;
    out->attempt = attempt;
    return {};
}

} // namespace

LedgerResult<LedgerStore::FinishedAttempt> LedgerStore::finishAttempt(const QString &actionId, int seq,
                                                                      const AttemptResult &result,
                                                                      std::optional<Trigger> trigger,
                                                                      const QString &reason,
                                                                      const QString &executorId)
{
    LedgerError error = checkFinish(result, trigger);
    if (!error.ok())
        return error;
    FinishedAttempt out;
    error = write("finishAttempt", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        return finishAttemptIn(db, now, actionId, seq, result, trigger, reason, executorId, &out);
    });
    if (!error.ok())
        return error;
    return out;
}

// --- group commit ---------------------------------------------------------------------------

namespace {

bool plain(QSqlDatabase &db, const QString &sql, LedgerError *error)
{
    Statement q(db);
    return run(q, sql, {}, error);
}

// Runs step on a savepoint: kept if it succeeds, rolled back (only it) if it is refused. Returns
// the step's own error in *stepError; the function's result is an error only when the savepoint
// machinery itself failed (then the whole transaction must go).
LedgerError onSavepoint(QSqlDatabase &db, const std::function<LedgerError()> &step, LedgerError *stepError)
{
    LedgerError e;
    if (!plain(db, QStringLiteral("SAVEPOINT batch_item"), &e))
        return e;
    *stepError = step();
    if (stepError->ok())
        return plain(db, QStringLiteral("RELEASE batch_item"), &e) ? LedgerError() : e;
    if (stepError->code() == Code::Busy)
        return *stepError; // the lock itself: retry the whole batch
    forgetAuditTail();
    if (!plain(db, QStringLiteral("ROLLBACK TO batch_item"), &e) || !plain(db, QStringLiteral("RELEASE batch_item"), &e))
        return e;
    return {};
}

} // namespace

LedgerResult<LedgerStore::BatchOutcome> LedgerStore::commitBatch(const Batch &batch)
{
    if (!batch.claimFor.isEmpty() && batch.leaseDuration.count() <= 0)
        return err(Code::Invalid, QStringLiteral("a lease must last longer than 0 ms"));
    // Requests refused before the transaction keep their place in the answer.
    std::vector<LedgerError> precheck;
    precheck.reserve(size_t(batch.finishes.size()));
    for (const FinishRequest &f : batch.finishes)
        precheck.push_back(checkFinish(f.result, f.trigger));
    BatchOutcome out;
    // Optimistically without savepoints (nearly every step succeeds); if one is refused, the
    // whole transaction is rolled back and run again with a savepoint around each step.
    bool savepoints = false;
    bool refused = false;
    auto step = [&](QSqlDatabase &db, const std::function<LedgerError()> &work, LedgerError *stepError) -> LedgerError {
        if (savepoints)
            return onSavepoint(db, work, stepError);
        *stepError = work();
        if (stepError->ok() || stepError->code() == Code::Busy)
            return stepError->ok() ? LedgerError() : *stepError;
        refused = true;
        return err(Code::Conflict, QStringLiteral("a step of the batch was refused: again with savepoints"));
    };
    auto body = [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        out = BatchOutcome();
        for (qsizetype i = 0; i < batch.finishes.size(); ++i) {
            const FinishRequest &f = batch.finishes.at(i);
            if (!precheck.at(size_t(i)).ok()) {
                out.finished.push_back(precheck.at(size_t(i)));
                continue;
            }
            FinishedAttempt finished;
            LedgerError stepError;
            const LedgerError fatal = step(db, [&] {
                return finishAttemptIn(db, now, f.actionId, f.seq, f.result, f.trigger, f.reason, f.executorId, &finished);
            }, &stepError);
            if (!fatal.ok())
                return fatal;
            if (stepError.ok())
                out.finished.push_back(finished);
            else
                out.finished.push_back(stepError);
        }
        QList<Candidate> candidates; // fetched once for all the claims of this batch
        const int fetch = int(batch.claimFor.size()) + 16;
        for (const QString &executorId : batch.claimFor) {
            const LedgerError invalid = checkLeaseArguments(executorId, batch.leaseDuration);
            if (!invalid.ok()) {
                out.claims.emplace_back();
                out.claimErrors.push_back(invalid);
                continue;
            }
            std::optional<Claim> claimed;
            LedgerError stepError;
            const LedgerError fatal = step(db, [&] {
                return claimNextIn(db, now, executorId, batch.leaseDuration, &claimed, &candidates, fetch);
            }, &stepError);
            if (!fatal.ok())
                return fatal;
            out.claims.push_back(stepError.ok() ? claimed : std::nullopt);
            out.claimErrors.push_back(stepError);
        }
        return {};
    };
    LedgerError error = write("commitBatch", body);
    if (!error.ok() && refused) {
        savepoints = true;
        error = write("commitBatch", body);
    }
    if (!error.ok())
        return error;
    return out;
}

// --- lookups, transitions, reconciliation -----------------------------------------------------

namespace {

// The checks of a lookup and its trigger that need no database.
LedgerError checkLookup(const ProviderLookup &lookup, std::optional<Trigger> trigger)
{
    LedgerError error = requireText(lookup.askedBy, QStringLiteral("asked_by"));
    if (!error.ok())
        return error;
    const bool found = lookup.result == ProviderLookup::Result::Found;
    if (trigger == Trigger::ProviderSucceeded && !(found && isCommittedStatus(lookup.status)))
        return err(Code::Invalid, QStringLiteral("provider_succeeded needs a FOUND refund with status succeeded or"
                                                 " pending"));
    if (trigger == Trigger::ProviderRejected && !(found && isNotCommittedStatus(lookup.status)))
        return err(Code::Invalid, QStringLiteral("provider_rejected needs a FOUND refund with status failed or"
                                                 " canceled; NOT_FOUND is not evidence of absence"));
    if (trigger && *trigger != Trigger::ProviderSucceeded && *trigger != Trigger::ProviderRejected
        && *trigger != Trigger::StopForReview) {
        return err(Code::Invalid, QStringLiteral("%1 cannot follow a lookup").arg(toWire(*trigger)));
    }
    return {};
}

// recordLookup's work inside the caller's write transaction.
LedgerError recordLookupIn(QSqlDatabase &db, const QDateTime &now, const ProviderLookup &lookup,
                           std::optional<Trigger> trigger, const QString &reason, LedgerStore::RecordedLookup *out)
{
    LedgerError e;
    ActionRow row;
    if (!loadAction(db, lookup.actionId, &row, &e))
        return e;
    if (trigger == Trigger::ProviderSucceeded && lookup.amount != row.record.amount)
        return err(Code::Invalid, QStringLiteral("the refund found is %1 minor units, the action %2: stop for"
                                                 " review instead").arg(lookup.amount).arg(row.record.amount));
    if (trigger) {
        QList<Attempt> attempts;
        if (!loadAttempts(db, lookup.actionId, &attempts, &e))
            return e;
        if (const auto open = openAttempt(attempts))
            return err(Code::Conflict, QStringLiteral("attempt %1 of %2 is in flight; record the lookup without a"
                                                      " transition").arg(open->seq).arg(lookup.actionId));
    }
    ProviderLookup stored = lookup;
    if (!nextSeq(db, QStringLiteral("lookups"), lookup.actionId, &stored.seq, &e))
        return e;
    stored.at = now;
    stored.excerpt = truncated(lookup.excerpt, kExcerptLimit);
    Statement insert(db);
    if (!run(insert, QStringLiteral("INSERT INTO lookups (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                         .arg(kLookupColumns),
             {stored.actionId, stored.seq, toWire(stored.method), stored.askedBy, toMs(now), toWire(stored.result),
              text(stored.providerObjectId), text(stored.status), stored.amount, text(stored.currency),
              stored.httpStatus, text(stored.excerpt)},
             &e)) {
        return e;
    }
    ActionRow after = row;
    if (trigger) {
        e = applyTrigger(after, *trigger, reason);
        if (!e.ok())
            return e;
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
    }
    e = appendAudit(db, now, lookup.actionId, stored.askedBy, QStringLiteral("lookup"), reason, snapshot(row),
                    withObject(snapshot(after), QStringLiteral("lookup"), stored.toJson()));
    if (!e.ok())
        return e;
    out->record = after.record;
    out->lookup = stored;
    return {};
}

} // namespace

LedgerResult<LedgerStore::RecordedLookup> LedgerStore::recordLookup(const ProviderLookup &lookup,
                                                                    std::optional<Trigger> trigger,
                                                                    const QString &reason)
{
    LedgerError error = checkLookup(lookup, trigger);
    if (!error.ok())
        return error;
    RecordedLookup out;
    error = write("recordLookup", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        return recordLookupIn(db, now, lookup, trigger, reason, &out);
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<ActionRecord> LedgerStore::transition(const QString &actionId, Trigger trigger, const QString &actor,
                                                   const QString &reason, std::optional<qint64> expectedStateVersion)
{
    LedgerError error = requireText(actor, QStringLiteral("actor"));
    if (!error.ok())
        return error;
    if (trigger != Trigger::StopForReview && trigger != Trigger::OutcomeUnknown)
        return err(Code::Invalid, QStringLiteral("%1 needs its own operation and evidence (claim, reject, finishAttempt,"
                                                 " recordLookup or reconcile)").arg(toWire(trigger)));
    ActionRecord out;
    error = write("transition", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        if (expectedStateVersion) {
            e = checkVersion(row, *expectedStateVersion);
            if (!e.ok())
                return e;
        }
        QList<Attempt> attempts;
        if (!loadAttempts(db, actionId, &attempts, &e))
            return e;
        if (const auto open = openAttempt(attempts))
            return err(Code::Conflict, QStringLiteral("attempt %1 of %2 is in flight; its executor finishes it")
                                           .arg(open->seq).arg(actionId));
        ActionRow after = row;
        e = applyTrigger(after, trigger, reason);
        if (!e.ok())
            return e;
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
        e = appendAudit(db, now, actionId, actor, QStringLiteral("state_changed"), reason, snapshot(row), snapshot(after));
        if (!e.ok())
            return e;
        out = after.record;
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<LedgerStore::Reconciled> LedgerStore::reconcile(const QString &actionId, const QString &supervisor,
                                                             Reconciliation::Outcome outcome, int evidenceLookupSeq,
                                                             const QString &note, qint64 expectedStateVersion)
{
    LedgerError error = requireText(supervisor, QStringLiteral("supervisor"));
    if (error.ok() && note.size() > kMaxNote)
        error = err(Code::Invalid, QStringLiteral("the note is longer than %1 characters").arg(kMaxNote));
    if (!error.ok())
        return error;
    Reconciled out;
    error = write("reconcile", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        e = checkVersion(row, expectedStateVersion);
        if (!e.ok())
            return e;
        if (row.record.state != ActionState::RequiresReview)
            return err(Code::IllegalTransition, QStringLiteral("only a REQUIRES_REVIEW action is reconciled; %1 is %2")
                                                    .arg(actionId, toWire(row.record.state)));
        Statement q(db);
        if (!run(q, QStringLiteral("SELECT %1 FROM lookups WHERE action_id = ? AND seq = ?").arg(kLookupColumns),
                 {actionId, evidenceLookupSeq}, &e)) {
            return e;
        }
        if (!q.next())
            return err(Code::Forbidden, QStringLiteral("a reconciliation needs a lookup of %1 as evidence; lookup %2"
                                                       " does not exist").arg(actionId).arg(evidenceLookupSeq));
        const ProviderLookup evidence = lookupFromQuery(q);
        q.finish();
        const bool found = evidence.result == ProviderLookup::Result::Found;
        if (outcome == Reconciliation::Outcome::Committed && !(found && isCommittedStatus(evidence.status)))
            return err(Code::Forbidden, QStringLiteral("committed needs a FOUND lookup with status succeeded or pending;"
                                                       " lookup %1 is %2 %3")
                                            .arg(evidenceLookupSeq).arg(toWire(evidence.result), evidence.status));
        if (outcome == Reconciliation::Outcome::NotCommitted) {
            const bool notFound = evidence.result == ProviderLookup::Result::NotFound;
            if (!notFound && !(found && isNotCommittedStatus(evidence.status)))
                return err(Code::Forbidden, QStringLiteral("not_committed needs a NOT_FOUND lookup or a FOUND one with"
                                                           " status failed or canceled; lookup %1 is %2 %3")
                                                .arg(evidenceLookupSeq).arg(toWire(evidence.result), evidence.status));
            // Absence observed before the last request was sent proves nothing about that request.
            QList<Attempt> attempts;
            if (!loadAttempts(db, actionId, &attempts, &e))
                return e;
            if (!attempts.isEmpty() && evidence.at < attempts.constLast().startedAt)
                return err(Code::Forbidden, QStringLiteral("lookup %1 predates attempt %2: look up again")
                                                .arg(evidenceLookupSeq).arg(attempts.constLast().seq));
        }
        Reconciliation rec;
        rec.actionId = actionId;
        if (!nextSeq(db, QStringLiteral("reconciliations"), actionId, &rec.seq, &e))
            return e;
        rec.decidedBy = supervisor;
        rec.outcome = outcome;
        rec.evidenceLookupSeq = evidenceLookupSeq;
        rec.note = note;
        rec.decidedAt = now;
        Statement insert(db);
        if (!run(insert, QStringLiteral("INSERT INTO reconciliations (%1) VALUES (?, ?, ?, ?, ?, ?, ?)")
                             .arg(kReconciliationColumns),
                 {rec.actionId, rec.seq, rec.decidedBy, toWire(rec.outcome), rec.evidenceLookupSeq, text(rec.note),
                  toMs(now)},
                 &e)) {
            return e;
        }
        ActionRow after = row;
        e = applyTrigger(after, outcome == Reconciliation::Outcome::Committed ? Trigger::ConfirmCommitted
                                                                              : Trigger::ConfirmNotCommitted,
                         note);
        if (!e.ok())
            return e;
        e = saveAction(db, row, after, now);
        if (!e.ok())
            return e;
        e = appendAudit(db, now, actionId, supervisor, QStringLiteral("reconciled"), note, snapshot(row),
                        withObject(snapshot(after), QStringLiteral("reconciliation"), rec.toJson()));
        if (!e.ok())
            return e;
        out.record = after.record;
        out.reconciliation = rec;
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<int> LedgerStore::recoverExpiredLeases()
{
    int recovered = 0;
    LedgerError error = write("recoverExpiredLeases", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        recovered = 0;
        LedgerError e;
        QList<ActionRow> rows;
        {
            Statement q(db);
            if (!run(q,
                     QStringLiteral("SELECT %1 FROM actions WHERE state IN ('EXECUTING', 'CONFIRMATION_UNKNOWN')"
                                    " AND (lease_expires_at <= ? OR (state = 'EXECUTING' AND lease_expires_at IS NULL))"
                                    " ORDER BY created_at, id")
                         .arg(kActionColumns),
                     {toMs(now)}, &e)) {
                return e;
            }
            while (q.next())
                rows.append(actionFromQuery(q));
        }
        for (const ActionRow &row : std::as_const(rows)) {
            int finished = 0;
            if (!finishOpenAttemptsUnknown(db, row.record.id, now, &finished, &e))
                return e;
            ActionRow after = row;
            QString why = QStringLiteral("lease of %1 expired").arg(row.leaseOwner.isEmpty() ? QStringLiteral("nobody")
                                                                                            : row.leaseOwner);
            if (finished > 0)
                why += QStringLiteral("; %1 open attempt(s) finished as unknown (process died?)").arg(finished);
            if (row.record.state == ActionState::Executing) {
                // The request may have reached the provider: unknown, never rejected (invariant 6).
                const Trigger trigger = row.reviewRequested ? Trigger::StopForReview : Trigger::OutcomeUnknown;
                if (row.reviewRequested)
                    why += QStringLiteral("; a changed resubmission had requested review");
                e = applyTrigger(after, trigger, why);
                if (!e.ok())
                    return e;
            }
            after.clearLease();
            e = saveAction(db, row, after, now);
            if (!e.ok())
                return e;
            e = appendAudit(db, now, row.record.id, QStringLiteral("system"), QStringLiteral("recovered"), why,
                            snapshot(row), snapshot(after));
            if (!e.ok())
                return e;
            ++recovered;
        }
        return {};
    });
    if (!error.ok())
        return error;
    return recovered;
}

// --- execution bookkeeping (migration 2) ------------------------------------------------------


LedgerResult<QList<ActionRecord>> LedgerStore::dueForReconciliation(int limit) const
{
    QList<ActionRecord> out;
    const qint64 nowMs = toMs(now());
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (!run(q,
                 QStringLiteral("SELECT %1 FROM actions a LEFT JOIN reconcile_schedule s ON s.action_id = a.id"
                                " WHERE a.state = 'CONFIRMATION_UNKNOWN'"
                                " AND (a.lease_owner IS NULL OR a.lease_expires_at IS NULL OR a.lease_expires_at <= ?)"
                                " AND (s.next_check_at IS NULL OR s.next_check_at <= ?)"
                                " ORDER BY COALESCE(s.next_check_at, 0), a.created_at, a.id LIMIT ?")
                     .arg(qualifiedActionColumns(QStringLiteral("a"))),
                 {nowMs, nowMs, std::clamp(limit, 1, kMaxListLimit)}, &e)) {
            return e;
        }
        while (q.next())
            out.append(actionFromQuery(q).record);
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<LedgerStore::ReconcileSchedule> LedgerStore::reconcileSchedule(const QString &actionId) const
{
    ReconcileSchedule out;
    out.actionId = actionId;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (!run(q, QStringLiteral("SELECT tries, next_check_at, note, updated_at FROM reconcile_schedule"
                                   " WHERE action_id = ?"),
                 {actionId}, &e)) {
            return e;
        }
        if (q.next()) {
            out.tries = q.value(0).toInt();
            out.nextCheckAt = fromMs(q.value(1).toLongLong());
            out.note = q.value(2).toString();
            out.updatedAt = fromMs(q.value(3).toLongLong());
        }
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerError LedgerStore::scheduleReconciliation(const QString &actionId, int tries, const QDateTime &nextCheckAt,
                                                const QString &note)
{
    if (tries < 0 || !nextCheckAt.isValid())
        return err(Code::Invalid, QStringLiteral("a schedule needs tries >= 0 and a valid time"));
    return write("scheduleReconciliation", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        Statement q(db);
        if (!run(q,
                 QStringLiteral("INSERT INTO reconcile_schedule (action_id, tries, next_check_at, note, updated_at)"
                                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (action_id) DO UPDATE SET"
                                " tries = excluded.tries, next_check_at = excluded.next_check_at,"
                                " note = excluded.note, updated_at = excluded.updated_at"),
                 {actionId, tries, toMs(nextCheckAt), text(truncated(note, kExcerptLimit)), toMs(now)}, &e)) {
            return e;
        }
        return e;
    });
}

LedgerResult<LedgerStore::WebhookRecorded> LedgerStore::recordWebhookEvent(const WebhookEvent &event,
                                                                           const std::optional<ProviderLookup> &lookup,
                                                                           std::optional<Trigger> trigger,
                                                                           const QString &reason)
{
    LedgerError error = requireText(event.eventId, QStringLiteral("event id"));
    if (error.ok() && lookup)
        error = checkLookup(*lookup, trigger);
    if (error.ok() && trigger && !lookup)
        error = err(Code::Invalid, QStringLiteral("a transition from a webhook needs the lookup it rests on"));
    if (!error.ok())
        return error;
    WebhookRecorded out;
    error = write("recordWebhookEvent", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        out = WebhookRecorded();
        LedgerError e;
        {
            Statement known(db);
            if (!run(known, QStringLiteral("SELECT 1 FROM webhook_events WHERE event_id = ?"), {event.eventId}, &e))
                return e;
            if (known.next()) {
                out.duplicate = true;
                return {};
            }
        }
        Statement insert(db);
        if (!run(insert,
                 QStringLiteral("INSERT INTO webhook_events (event_id, type, action_id, disposition, received_at)"
                                " VALUES (?, ?, ?, ?, ?)"),
                 {event.eventId, text(event.type), text(event.actionId), text(event.disposition), toMs(now)}, &e)) {
            return e;
        }
        if (lookup) {
            RecordedLookup recorded;
            e = recordLookupIn(db, now, *lookup, trigger, reason, &recorded);
            if (!e.ok())
                return e;
            out.lookup = recorded;
        }
        return {};
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<std::optional<LedgerStore::WebhookEvent>> LedgerStore::webhookEvent(const QString &eventId) const
{
    std::optional<WebhookEvent> out;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (!run(q, QStringLiteral("SELECT event_id, type, action_id, disposition, received_at FROM webhook_events"
                                   " WHERE event_id = ?"),
                 {eventId}, &e)) {
            return e;
        }
        if (q.next()) {
            WebhookEvent event;
            event.eventId = q.value(0).toString();
            event.type = q.value(1).toString();
            event.actionId = q.value(2).toString();
            event.disposition = q.value(3).toString();
            event.receivedAt = fromMs(q.value(4).toLongLong());
            out = event;
        }
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

// --- reads ----------------------------------------------------------------------------------

LedgerResult<ActionRecord> LedgerStore::action(const QString &actionId) const
{
    ActionRow row;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        loadAction(db, actionId, &row, &e);
        return e;
    });
    if (!error.ok())
        return error;
    return row.record;
}

LedgerResult<LedgerStore::ExecutionInfo> LedgerStore::executionInfo(const QString &actionId) const
{
    ActionRow row;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        loadAction(db, actionId, &row, &e);
        return e;
    });
    if (!error.ok())
        return error;
    ExecutionInfo info;
    info.leaseOwner = row.leaseOwner;
    if (row.leaseExpiresAtMs)
        info.leaseExpiresAt = fromMs(*row.leaseExpiresAtMs);
    info.reviewRequested = row.reviewRequested;
    return info;
}

LedgerResult<QList<Attempt>> LedgerStore::attempts(const QString &actionId) const
{
    QList<Attempt> out;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        loadAttempts(db, actionId, &out, &e);
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<QList<ProviderLookup>> LedgerStore::lookups(const QString &actionId) const
{
    QList<ProviderLookup> out;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (run(q, QStringLiteral("SELECT %1 FROM lookups WHERE action_id = ? ORDER BY seq").arg(kLookupColumns),
                {actionId}, &e)) {
            while (q.next())
                out.append(lookupFromQuery(q));
        }
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<QList<Approval>> LedgerStore::approvals(const QString &actionId) const
{
    QList<Approval> out;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (run(q, QStringLiteral("SELECT %1 FROM approvals WHERE action_id = ? ORDER BY version").arg(kApprovalColumns),
                {actionId}, &e)) {
            while (q.next())
                out.append(approvalFromQuery(q));
        }
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<QList<Reconciliation>> LedgerStore::reconciliations(const QString &actionId) const
{
    QList<Reconciliation> out;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (run(q,
                QStringLiteral("SELECT %1 FROM reconciliations WHERE action_id = ? ORDER BY seq").arg(kReconciliationColumns),
                {actionId}, &e)) {
            while (q.next())
                out.append(reconciliationFromQuery(q));
        }
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<QList<AuditEvent>> LedgerStore::audit(const QString &actionId) const
{
    QList<AuditEvent> out;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (run(q, QStringLiteral("SELECT %1 FROM audit WHERE action_id = ? ORDER BY seq").arg(kAuditColumns),
                {actionId}, &e)) {
            while (q.next())
                out.append(auditFromQuery(q));
        }
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<QList<AuditEvent>> LedgerStore::auditLog(qint64 afterSeq, int limit) const
{
    QList<AuditEvent> out;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (run(q, QStringLiteral("SELECT %1 FROM audit WHERE seq > ? ORDER BY seq LIMIT ?").arg(kAuditColumns),
                {afterSeq, qBound(1, limit, 100000)}, &e)) {
            while (q.next())
                out.append(auditFromQuery(q));
        }
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<QList<LedgerStore::ResubmissionConflict>> LedgerStore::conflicts(const QString &actionId) const
{
    QList<ResubmissionConflict> out;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (run(q,
                QStringLiteral("SELECT action_id, seq, submitted_by, at, stored_payload, conflicting_payload"
                               " FROM conflicts WHERE action_id = ? ORDER BY seq"),
                {actionId}, &e)) {
            while (q.next()) {
                ResubmissionConflict c;
                c.actionId = q.value(0).toString();
                c.seq = q.value(1).toInt();
                c.submittedBy = q.value(2).toString();
                c.at = fromMs(q.value(3).toLongLong());
                c.storedPayload = parseJson(q.value(4).toString());
                c.conflictingPayload = parseJson(q.value(5).toString());
                out.append(c);
            }
        }
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<QList<ActionRecord>> LedgerStore::followUps(const QString &actionId) const
{
    QList<ActionRecord> out;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (run(q, QStringLiteral("SELECT %1 FROM actions WHERE parent_id = ? ORDER BY created_at, id").arg(kActionColumns),
                {actionId}, &e)) {
            while (q.next())
                out.append(actionFromQuery(q).record);
        }
        return e;
    });
    if (!error.ok())
        return error;
    return out;
}

LedgerResult<LedgerStore::Page> LedgerStore::list(const ListQuery &query) const
{
    const int limit = qBound(1, query.limit, kMaxListLimit);
    QStringList where;
    QVariantList values;
    if (!query.states.isEmpty()) {
        QStringList marks;
        for (ActionState state : query.states) {
            marks << QStringLiteral("?");
            values << toWire(state);
        }
        where << QStringLiteral("state IN (%1)").arg(marks.join(QStringLiteral(", ")));
    }
    const QString text = query.text.trimmed();
    if (!text.isEmpty()) {
        const QString pattern = likePattern(text);
        QStringList likes;
        for (const QString &column : {QStringLiteral("id"), QStringLiteral("target_id"),
                                      QStringLiteral("business_reference"), QStringLiteral("requested_by"),
                                      QStringLiteral("client_reference")}) {
            likes << QStringLiteral("LOWER(%1) LIKE ? ESCAPE '\\'").arg(column);
            values << pattern;
        }
        where << QLatin1Char('(') + likes.join(QStringLiteral(" OR ")) + QLatin1Char(')');
    }
    if (!query.cursor.isEmpty()) {
        qint64 createdAtMs = 0;
        QString id;
        if (!decodeCursor(query.cursor, &createdAtMs, &id))
            return err(Code::Invalid, QStringLiteral("malformed cursor"));
        where << QStringLiteral("(created_at < ? OR (created_at = ? AND id < ?))");
        values << createdAtMs << createdAtMs << id;
    }
    values << limit + 1;
    const QString sql = QStringLiteral("SELECT %1 FROM actions%2 ORDER BY created_at DESC, id DESC LIMIT ?")
                            .arg(kActionColumns,
                                 where.isEmpty() ? QString() : QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND ")));
    Page page;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (run(q, sql, values, &e)) {
            while (q.next())
                page.records.append(actionFromQuery(q).record);
        }
        return e;
    });
    if (!error.ok())
        return error;
    if (page.records.size() > limit) {
        page.records.resize(limit);
        page.nextCursor = encodeCursor(page.records.constLast());
    }
    return page;
}

LedgerResult<QMap<ActionState, qint64>> LedgerStore::countsByState() const
{
    QMap<ActionState, qint64> counts;
    for (ActionState s : {ActionState::Pending, ActionState::Executing, ActionState::ConfirmationUnknown,
                          ActionState::Completed, ActionState::Rejected, ActionState::RequiresReview}) {
        counts.insert(s, 0);
    }
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (run(q, QStringLiteral("SELECT state, COUNT(*) FROM actions GROUP BY state"), {}, &e)) {
            while (q.next()) {
                if (const auto state = stateFromWire(q.value(0).toString()))
                    counts[*state] = q.value(1).toLongLong();
            }
        }
        return e;
    });
    if (!error.ok())
        return error;
    return counts;
}

LedgerResult<LedgerStore::AuditVerification> LedgerStore::verifyAudit() const
{
    AuditVerification v;
    const LedgerError error = read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (!run(q, QStringLiteral("SELECT %1 FROM audit ORDER BY seq").arg(kAuditColumns), {}, &e))
            return e;
        qint64 expectedSeq = 1;
        QString prevHash = zeroHash();
        while (q.next()) {
            const AuditEvent event = auditFromQuery(q);
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
                return e;
            }
            prevHash = event.hash;
            expectedSeq = event.seq + 1;
        }
        return e;
    });
    if (!error.ok())
        return error;
    return v;
}

} // namespace cs
