#include "server/ledger/migrations.h"

#include "server/ledger/ledgerlog.h"
#include "server/ledger/searchterms.h"
#include "server/ledger/sqlstatement.h"

#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>

namespace cs {

namespace {

// PostgreSQL: the advisory lock that serialises migrations of one database ("Migrate!").
constexpr qint64 kMigrationLockKey = 0x4d69677261746521;

// The payload columns frozen once an action has an attempt row (invariant 2).
const QStringList &frozenActionColumns()
{
    static const QStringList columns = {
        QStringLiteral("kind"), QStringLiteral("target_type"), QStringLiteral("target_id"),
        QStringLiteral("business_reference"), QStringLiteral("amount"), QStringLiteral("currency"),
        QStringLiteral("reason"), QStringLiteral("provider"), QStringLiteral("provider_account"),
        QStringLiteral("requested_by"), QStringLiteral("client_reference"), QStringLiteral("parent_id"),
        QStringLiteral("request_fingerprint"), QStringLiteral("idempotency_key"),
    };
    return columns;
}

// "NEW.a IS NOT OLD.a OR ..." (SQLite's null-safe inequality; PostgreSQL's is IS DISTINCT FROM).
QString anyColumnChanged(const QStringList &columns, const QString &differs = QStringLiteral("IS NOT"))
{
    QStringList changed;
    for (const QString &column : columns)
        changed << QStringLiteral("NEW.%1 %2 OLD.%1").arg(column, differs);
    return changed.join(QStringLiteral(" OR "));
}

QString forbid(const QString &name, const QString &when, const QString &table, const QString &message)
{
    return QStringLiteral("CREATE TRIGGER %1 BEFORE %2 ON %3 BEGIN SELECT RAISE(ABORT, '%4'); END")
        .arg(name, when, table, message);
}

// --- PostgreSQL ---------------------------------------------------------------------------------

// A table or index of the shared schema in PostgreSQL's words: byte-order text, BYTEA for BLOB.
QString pg(const QString &ddl)
{
    static const QRegularExpression text(QStringLiteral("\\bTEXT\\b"));
    static const QRegularExpression blob(QStringLiteral("\\bBLOB\\b"));
    QString out = ddl;
    out.replace(text, QStringLiteral("TEXT COLLATE \"C\""));
    out.replace(blob, QStringLiteral("BYTEA"));
    return out;
}

// The PostgreSQL form of forbid(): a row trigger that raises the same message (SQLSTATE P0001),
// and for UPDATE/DELETE of an append-only table a statement trigger that refuses TRUNCATE.
QStringList pgForbid(const QString &name, const QString &when, const QString &table, const QString &message)
{
    QStringList out = {QStringLiteral("CREATE TRIGGER %1 BEFORE %2 ON %3 FOR EACH ROW"
                                      " EXECUTE FUNCTION countersign_refuse('%4')").arg(name, when, table, message)};
    if (when == u"DELETE")
        out << QStringLiteral("CREATE TRIGGER %1_truncate BEFORE TRUNCATE ON %2 FOR EACH STATEMENT"
                              " EXECUTE FUNCTION countersign_refuse('%3')").arg(name, table, message);
    return out;
}

Migrations::Migration initialSchema()
{
    Migrations::Migration m;
    m.version = 1;
    m.name = QStringLiteral("initial ledger schema");
    m.statements = {
        QStringLiteral(
            "CREATE TABLE actions ("
            " id TEXT NOT NULL PRIMARY KEY,"
            " kind TEXT NOT NULL,"
            " target_type TEXT NOT NULL CHECK (target_type IN ('charge', 'payment_intent')),"
            " target_id TEXT NOT NULL,"
            " business_reference TEXT NOT NULL,"
            " amount BIGINT NOT NULL CHECK (amount >= 0),"
            " currency TEXT NOT NULL,"
            " reason TEXT NOT NULL,"
            " provider TEXT NOT NULL,"
            " provider_account TEXT NOT NULL,"
            " requested_by TEXT NOT NULL,"
            " client_reference TEXT NOT NULL,"
            " parent_id TEXT REFERENCES actions (id),"
            " proposed_payload TEXT NOT NULL,"
            " request_fingerprint TEXT NOT NULL,"
            " idempotency_key TEXT NOT NULL,"
            " approval_version INTEGER NOT NULL,"
            " state TEXT NOT NULL CHECK (state IN ('PENDING', 'EXECUTING', 'CONFIRMATION_UNKNOWN',"
            "   'COMPLETED', 'REJECTED', 'REQUIRES_REVIEW')),"
            " state_version BIGINT NOT NULL,"
            " review_reason TEXT NOT NULL,"
            " review_requested INTEGER NOT NULL CHECK (review_requested IN (0, 1)),"
            " lease_owner TEXT,"
            " lease_expires_at BIGINT,"
            " created_at BIGINT NOT NULL,"
            " updated_at BIGINT NOT NULL,"
            " UNIQUE (requested_by, client_reference))"),
        QStringLiteral("CREATE INDEX actions_by_state_created ON actions (state, created_at, id)"),
        QStringLiteral("CREATE INDEX actions_by_created ON actions (created_at, id)"),
        QStringLiteral("CREATE INDEX actions_by_target ON actions (target_id)"),
        QStringLiteral("CREATE INDEX actions_by_business_reference ON actions (business_reference)"),
        QStringLiteral("CREATE INDEX actions_by_requested_by ON actions (requested_by, created_at)"),
        QStringLiteral("CREATE INDEX actions_by_parent ON actions (parent_id)"),
        QStringLiteral("CREATE INDEX actions_by_lease ON actions (state, lease_expires_at)"),

        QStringLiteral(
            "CREATE TABLE approvals ("
            " action_id TEXT NOT NULL REFERENCES actions (id),"
            " version INTEGER NOT NULL CHECK (version > 0),"
            " decided_by TEXT NOT NULL,"
            " decision TEXT NOT NULL CHECK (decision IN ('approved', 'rejected')),"
            " note TEXT NOT NULL,"
            " idempotency_key TEXT NOT NULL,"
            " approved_fingerprint TEXT NOT NULL,"
            " decided_at BIGINT NOT NULL,"
            " PRIMARY KEY (action_id, version))"),
        QStringLiteral("CREATE UNIQUE INDEX approvals_unique_key ON approvals (idempotency_key)"
                       " WHERE idempotency_key <> ''"),

        QStringLiteral(
            "CREATE TABLE attempts ("
            " action_id TEXT NOT NULL REFERENCES actions (id),"
            " seq INTEGER NOT NULL CHECK (seq > 0),"
            " idempotency_key TEXT NOT NULL,"
            " request_fingerprint TEXT NOT NULL,"
            " executor TEXT NOT NULL,"
            " started_at BIGINT NOT NULL,"
            " finished_at BIGINT,"
            " outcome TEXT NOT NULL CHECK (outcome IN ('open', 'succeeded', 'rejected', 'unknown',"
            "   'rate_limited', 'key_in_use', 'idempotency_mismatch')),"
            " http_status INTEGER NOT NULL,"
            " error_code TEXT NOT NULL,"
            " provider_request_id TEXT NOT NULL,"
            " provider_object_id TEXT NOT NULL,"
            " replayed INTEGER NOT NULL CHECK (replayed IN (0, 1)),"
            " error_excerpt TEXT NOT NULL,"
            " PRIMARY KEY (action_id, seq))"),
        QStringLiteral("CREATE INDEX attempts_open ON attempts (outcome, action_id)"),

        QStringLiteral(
            "CREATE TABLE lookups ("
            " action_id TEXT NOT NULL REFERENCES actions (id),"
            " seq INTEGER NOT NULL CHECK (seq > 0),"
            " method TEXT NOT NULL,"
            " asked_by TEXT NOT NULL,"
            " at BIGINT NOT NULL,"
            " result TEXT NOT NULL CHECK (result IN ('FOUND', 'NOT_FOUND', 'ERROR')),"
            " provider_object_id TEXT NOT NULL,"
            " status TEXT NOT NULL,"
            " amount BIGINT NOT NULL,"
            " currency TEXT NOT NULL,"
            " http_status INTEGER NOT NULL,"
            " excerpt TEXT NOT NULL,"
            " PRIMARY KEY (action_id, seq))"),

        QStringLiteral(
            "CREATE TABLE reconciliations ("
            " action_id TEXT NOT NULL REFERENCES actions (id),"
            " seq INTEGER NOT NULL CHECK (seq > 0),"
            " decided_by TEXT NOT NULL,"
            " outcome TEXT NOT NULL CHECK (outcome IN ('committed', 'not_committed')),"
            " evidence_lookup_seq INTEGER NOT NULL,"
            " note TEXT NOT NULL,"
            " decided_at BIGINT NOT NULL,"
            " PRIMARY KEY (action_id, seq),"
            " FOREIGN KEY (action_id, evidence_lookup_seq) REFERENCES lookups (action_id, seq))"),

        QStringLiteral(
            "CREATE TABLE conflicts ("
            " action_id TEXT NOT NULL REFERENCES actions (id),"
            " seq INTEGER NOT NULL CHECK (seq > 0),"
            " submitted_by TEXT NOT NULL,"
            " at BIGINT NOT NULL,"
            " stored_payload TEXT NOT NULL,"
            " conflicting_payload TEXT NOT NULL,"
            " PRIMARY KEY (action_id, seq))"),

        // seq is assigned by the ledger inside the write transaction (max + 1), not by the engine,
        // so the chain order is the commit order on every backend.
        QStringLiteral(
            "CREATE TABLE audit ("
            " seq BIGINT NOT NULL PRIMARY KEY,"
            " action_id TEXT REFERENCES actions (id),"
            " at BIGINT NOT NULL,"
            " actor TEXT NOT NULL,"
            " event TEXT NOT NULL,"
            " reason TEXT NOT NULL,"
            " before_json TEXT NOT NULL,"
            " after_json TEXT NOT NULL,"
            " prev_hash TEXT NOT NULL,"
            " hash TEXT NOT NULL)"),
        QStringLiteral("CREATE INDEX audit_by_action ON audit (action_id, seq)"),

        // Invariant 2, in the database: payload, fingerprint and key frozen once an attempt exists.
        QStringLiteral("CREATE TRIGGER actions_payload_frozen_after_attempt BEFORE UPDATE ON actions"
                       " WHEN EXISTS (SELECT 1 FROM attempts WHERE attempts.action_id = OLD.id) AND (%1)"
                       " BEGIN SELECT RAISE(ABORT, 'countersign: the payload, fingerprint and key of an"
                       " action are frozen once it has an attempt'); END")
            .arg(anyColumnChanged(frozenActionColumns())),
        QStringLiteral("CREATE TRIGGER actions_identity_frozen BEFORE UPDATE ON actions"
                       " WHEN NEW.id IS NOT OLD.id OR NEW.proposed_payload IS NOT OLD.proposed_payload"
                       "   OR NEW.created_at IS NOT OLD.created_at"
                       " BEGIN SELECT RAISE(ABORT, 'countersign: an action''s id, proposed payload and"
                       " creation time never change'); END"),
        forbid(QStringLiteral("actions_no_delete"), QStringLiteral("DELETE"), QStringLiteral("actions"),
               QStringLiteral("countersign: actions are never deleted")),

        forbid(QStringLiteral("approvals_no_update"), QStringLiteral("UPDATE"), QStringLiteral("approvals"),
               QStringLiteral("countersign: approvals are append-only")),
        forbid(QStringLiteral("approvals_no_delete"), QStringLiteral("DELETE"), QStringLiteral("approvals"),
               QStringLiteral("countersign: approvals are append-only")),
        forbid(QStringLiteral("lookups_no_update"), QStringLiteral("UPDATE"), QStringLiteral("lookups"),
               QStringLiteral("countersign: lookups are append-only")),
        forbid(QStringLiteral("lookups_no_delete"), QStringLiteral("DELETE"), QStringLiteral("lookups"),
               QStringLiteral("countersign: lookups are append-only")),
        forbid(QStringLiteral("reconciliations_no_update"), QStringLiteral("UPDATE"), QStringLiteral("reconciliations"),
               QStringLiteral("countersign: reconciliations are append-only")),
        forbid(QStringLiteral("reconciliations_no_delete"), QStringLiteral("DELETE"), QStringLiteral("reconciliations"),
               QStringLiteral("countersign: reconciliations are append-only")),
        forbid(QStringLiteral("audit_no_update"), QStringLiteral("UPDATE"), QStringLiteral("audit"),
               QStringLiteral("countersign: the audit log is append-only")),
        forbid(QStringLiteral("audit_no_delete"), QStringLiteral("DELETE"), QStringLiteral("audit"),
               QStringLiteral("countersign: the audit log is append-only")),
        forbid(QStringLiteral("conflicts_no_update"), QStringLiteral("UPDATE"), QStringLiteral("conflicts"),
               QStringLiteral("countersign: conflicts are append-only")),
        forbid(QStringLiteral("conflicts_no_delete"), QStringLiteral("DELETE"), QStringLiteral("conflicts"),
               QStringLiteral("countersign: conflicts are append-only")),
        forbid(QStringLiteral("attempts_no_delete"), QStringLiteral("DELETE"), QStringLiteral("attempts"),
               QStringLiteral("countersign: attempts are never deleted")),

        // An attempt is finished exactly once: open -> something else; its identity never changes.
        QStringLiteral("CREATE TRIGGER attempts_finish_once BEFORE UPDATE ON attempts"
                       " WHEN OLD.outcome <> 'open' OR NEW.outcome = 'open'"
                       "   OR NEW.action_id IS NOT OLD.action_id OR NEW.seq IS NOT OLD.seq"
                       "   OR NEW.idempotency_key IS NOT OLD.idempotency_key"
                       "   OR NEW.request_fingerprint IS NOT OLD.request_fingerprint"
                       "   OR NEW.executor IS NOT OLD.executor OR NEW.started_at IS NOT OLD.started_at"
                       " BEGIN SELECT RAISE(ABORT, 'countersign: an attempt is finished exactly once and"
                       " its key, fingerprint, seq and start never change'); END"),
        // Invariants 3 and 4: an attempt is born open and carries its action's current key and
        // fingerprint, the same as every earlier attempt of that action.
        QStringLiteral("CREATE TRIGGER attempts_same_key BEFORE INSERT ON attempts"
                       " WHEN NEW.outcome <> 'open' OR NEW.idempotency_key = ''"
                       "   OR NOT EXISTS (SELECT 1 FROM actions WHERE actions.id = NEW.action_id"
                       "     AND actions.idempotency_key = NEW.idempotency_key"
                       "     AND actions.request_fingerprint = NEW.request_fingerprint)"
                       "   OR EXISTS (SELECT 1 FROM attempts WHERE attempts.action_id = NEW.action_id"
                       "     AND (attempts.idempotency_key <> NEW.idempotency_key"
                       "       OR attempts.request_fingerprint <> NEW.request_fingerprint))"
                       " BEGIN SELECT RAISE(ABORT, 'countersign: an attempt must be open and use its"
                       " action''s one key and fingerprint'); END"),
    };
    // PostgreSQL: the same tables and indexes, the same rules as PL/pgSQL.
    for (const QString &statement : std::as_const(m.statements)) {
        if (statement.startsWith(QLatin1String("CREATE TRIGGER")))
            break;
        m.postgres << pg(statement);
    }
    m.postgres << QStringLiteral(
        "CREATE FUNCTION countersign_refuse() RETURNS trigger LANGUAGE plpgsql AS $$"
        " BEGIN RAISE EXCEPTION '%', TG_ARGV[0]; END $$");
    m.postgres << QStringLiteral(
        "CREATE FUNCTION countersign_actions_payload_frozen() RETURNS trigger LANGUAGE plpgsql AS $$"
        " BEGIN"
        "  IF EXISTS (SELECT 1 FROM attempts WHERE attempts.action_id = OLD.id) THEN"
        "   RAISE EXCEPTION 'countersign: the payload, fingerprint and key of an action are frozen once it has an attempt';"
        "  END IF;"
        "  RETURN NEW;"
        " END $$");
    m.postgres << QStringLiteral("CREATE TRIGGER actions_payload_frozen_after_attempt BEFORE UPDATE ON actions"
                                 " FOR EACH ROW WHEN (%1) EXECUTE FUNCTION countersign_actions_payload_frozen()")
                      .arg(anyColumnChanged(frozenActionColumns(), QStringLiteral("IS DISTINCT FROM")));
    m.postgres << QStringLiteral("CREATE TRIGGER actions_identity_frozen BEFORE UPDATE ON actions FOR EACH ROW"
                                 " WHEN (NEW.id IS DISTINCT FROM OLD.id OR NEW.proposed_payload IS DISTINCT FROM OLD.proposed_payload"
                                 "   OR NEW.created_at IS DISTINCT FROM OLD.created_at)"
                                 " EXECUTE FUNCTION countersign_refuse('countersign: an action''s id, proposed payload and"
                                 " creation time never change')");
    m.postgres << pgForbid(QStringLiteral("actions_no_delete"), QStringLiteral("DELETE"), QStringLiteral("actions"),
                           QStringLiteral("countersign: actions are never deleted"));
    for (const auto &[table, message] : std::initializer_list<std::pair<const char *, const char *>>{
             {"approvals", "countersign: approvals are append-only"},
             {"lookups", "countersign: lookups are append-only"},
             {"reconciliations", "countersign: reconciliations are append-only"},
             {"audit", "countersign: the audit log is append-only"},
             {"conflicts", "countersign: conflicts are append-only"}}) {
        const QString t = QLatin1String(table);
        m.postgres << pgForbid(t + QStringLiteral("_no_update"), QStringLiteral("UPDATE"), t, QLatin1String(message));
        m.postgres << pgForbid(t + QStringLiteral("_no_delete"), QStringLiteral("DELETE"), t, QLatin1String(message));
    }
    m.postgres << pgForbid(QStringLiteral("attempts_no_delete"), QStringLiteral("DELETE"), QStringLiteral("attempts"),
                           QStringLiteral("countersign: attempts are never deleted"));
    m.postgres << QStringLiteral("CREATE TRIGGER attempts_finish_once BEFORE UPDATE ON attempts FOR EACH ROW"
                                 " WHEN (OLD.outcome <> 'open' OR NEW.outcome = 'open'"
                                 "   OR NEW.action_id IS DISTINCT FROM OLD.action_id OR NEW.seq IS DISTINCT FROM OLD.seq"
                                 "   OR NEW.idempotency_key IS DISTINCT FROM OLD.idempotency_key"
                                 "   OR NEW.request_fingerprint IS DISTINCT FROM OLD.request_fingerprint"
                                 "   OR NEW.executor IS DISTINCT FROM OLD.executor OR NEW.started_at IS DISTINCT FROM OLD.started_at)"
                                 " EXECUTE FUNCTION countersign_refuse('countersign: an attempt is finished exactly once and"
                                 " its key, fingerprint, seq and start never change')");
    m.postgres << QStringLiteral(
        "CREATE FUNCTION countersign_attempts_same_key() RETURNS trigger LANGUAGE plpgsql AS $$"
        " BEGIN"
        "  IF NEW.outcome <> 'open' OR NEW.idempotency_key = ''"
        "   OR NOT EXISTS (SELECT 1 FROM actions WHERE actions.id = NEW.action_id"
        "     AND actions.idempotency_key = NEW.idempotency_key"
        "     AND actions.request_fingerprint = NEW.request_fingerprint)"
        "   OR EXISTS (SELECT 1 FROM attempts WHERE attempts.action_id = NEW.action_id"
        "     AND (attempts.idempotency_key <> NEW.idempotency_key"
        "       OR attempts.request_fingerprint <> NEW.request_fingerprint)) THEN"
        "   RAISE EXCEPTION 'countersign: an attempt must be open and use its action''s one key and fingerprint';"
        "  END IF;"
        "  RETURN NEW;"
        " END $$");
    m.postgres << QStringLiteral("CREATE TRIGGER attempts_same_key BEFORE INSERT ON attempts FOR EACH ROW"
                                 " EXECUTE FUNCTION countersign_attempts_same_key()");
    return m;
}

// Version 2 (owned by execution: executor, reconciler, webhook receiver): the reconciler's
// persistent schedule of CONFIRMATION_UNKNOWN actions, and the ids of webhook events already
// handled (duplicates are ignored). Only adds tables.
Migrations::Migration executionSchema()
{
    Migrations::Migration m;
    m.version = 2;
    m.name = QStringLiteral("reconciler schedule and webhook event dedupe");
    m.statements = {
        // One row per action the reconciler has worked on: tries so far and when to look again.
        // No row means "due now, no tries yet" (e.g. right after a crash recovery).
        QStringLiteral(
            "CREATE TABLE reconcile_schedule ("
            " action_id TEXT NOT NULL PRIMARY KEY REFERENCES actions (id),"
            " tries INTEGER NOT NULL CHECK (tries >= 0),"
            " next_check_at BIGINT NOT NULL,"
            " note TEXT NOT NULL,"
            " updated_at BIGINT NOT NULL)"),
        QStringLiteral("CREATE INDEX reconcile_schedule_due ON reconcile_schedule (next_check_at)"),
        // action_id is what the event named; it need not exist in this ledger (no foreign key).
        QStringLiteral(
            "CREATE TABLE webhook_events ("
            " event_id TEXT NOT NULL PRIMARY KEY,"
            " type TEXT NOT NULL,"
            " action_id TEXT NOT NULL,"
            " disposition TEXT NOT NULL,"
            " received_at BIGINT NOT NULL)"),
        forbid(QStringLiteral("webhook_events_no_update"), QStringLiteral("UPDATE"), QStringLiteral("webhook_events"),
               QStringLiteral("countersign: webhook events are append-only")),
        forbid(QStringLiteral("webhook_events_no_delete"), QStringLiteral("DELETE"), QStringLiteral("webhook_events"),
               QStringLiteral("countersign: webhook events are append-only")),
    };
    for (int i = 0; i < 3; ++i)
        m.postgres << pg(m.statements.at(i));
    m.postgres << pgForbid(QStringLiteral("webhook_events_no_update"), QStringLiteral("UPDATE"),
                           QStringLiteral("webhook_events"), QStringLiteral("countersign: webhook events are append-only"));
    m.postgres << pgForbid(QStringLiteral("webhook_events_no_delete"), QStringLiteral("DELETE"),
                           QStringLiteral("webhook_events"), QStringLiteral("countersign: webhook events are append-only"));
    return m;
}

// Version 3 (owned by the HTTP API, server/api/): API users with hashed bearer tokens, and the
// stored responses of client Idempotency-Keys. Independent of version 2: it only adds tables.
Migrations::Migration apiSchema()
{
    Migrations::Migration m;
    m.version = 3;
    m.name = QStringLiteral("api users and client idempotency keys");
    m.statements = {
        QStringLiteral(
            "CREATE TABLE users ("
            " name TEXT NOT NULL PRIMARY KEY,"
            " role TEXT NOT NULL CHECK (role IN ('agent', 'approver', 'supervisor', 'auditor', 'admin')),"
            " token_hash TEXT NOT NULL UNIQUE,"
            " created_at BIGINT NOT NULL,"
            " disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)))"),
        // One row per (user, client key): in_flight while the first request runs, then done with
        // the response replayed to every identical resend until expires_at.
        QStringLiteral(
            "CREATE TABLE api_requests ("
            " user_name TEXT NOT NULL,"
            " idempotency_key TEXT NOT NULL,"
            " request_hash TEXT NOT NULL,"
            " method TEXT NOT NULL,"
            " path TEXT NOT NULL,"
            " state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),"
            " status INTEGER NOT NULL,"
            " headers_json TEXT NOT NULL,"
            " body BLOB NOT NULL,"
            " created_at BIGINT NOT NULL,"
            " expires_at BIGINT NOT NULL,"
            " PRIMARY KEY (user_name, idempotency_key))"),
        QStringLiteral("CREATE INDEX api_requests_by_expiry ON api_requests (expires_at)"),
    };
    for (const QString &statement : std::as_const(m.statements))
        m.postgres << pg(statement);
    return m;
}

// Version 4 (owned by the HTTP API, server/api/ActionReader): what the console's queue needs
// without walking the ledger. (a) Per-state counts, overall and per requester (the agent view),
// kept exact by triggers on INSERT and on UPDATE OF state / requested_by (actions are never
// deleted: actions_no_delete). (b) A trigram full-text index over the five searchable columns
// (id, target_id, business_reference, requested_by, client_reference) for substring search; it
// stores its own copy of the columns and is joined back to actions by id (not by rowid: VACUUM
// may renumber an implicit rowid). Both are filled from the existing rows here. The count
// statements are portable SQL (ON CONFLICT DO NOTHING); the triggers and FTS5 are SQLite's, like
// the triggers of version 1.
Migrations::Migration consoleSchema()
{
    Migrations::Migration m;
    m.version = 4;
    m.name = QStringLiteral("maintained state counts and trigram search index");
    const QString bump = QStringLiteral(
        "INSERT INTO action_state_counts (state, n) VALUES (%1.state, 0) ON CONFLICT (state) DO NOTHING;"
        " UPDATE action_state_counts SET n = n %2 1 WHERE state = %1.state;"
        " INSERT INTO action_requester_state_counts (requested_by, state, n) VALUES (%1.requested_by, %1.state, 0)"
        "   ON CONFLICT (requested_by, state) DO NOTHING;"
        " UPDATE action_requester_state_counts SET n = n %2 1 WHERE requested_by = %1.requested_by"
        "   AND state = %1.state;");
    const QString searchInsert = QStringLiteral(
        "INSERT INTO actions_search (id, target_id, business_reference, requested_by, client_reference)"
        " VALUES (NEW.id, NEW.target_id, NEW.business_reference, NEW.requested_by, NEW.client_reference);");
    m.statements = {
        QStringLiteral("CREATE TABLE action_state_counts ("
                       " state TEXT NOT NULL PRIMARY KEY,"
                       " n BIGINT NOT NULL CHECK (n >= 0))"),
        QStringLiteral("CREATE TABLE action_requester_state_counts ("
                       " requested_by TEXT NOT NULL,"
                       " state TEXT NOT NULL,"
                       " n BIGINT NOT NULL CHECK (n >= 0),"
                       " PRIMARY KEY (requested_by, state))"),
        QStringLiteral("INSERT INTO action_state_counts (state, n)"
                       " SELECT state, COUNT(*) FROM actions GROUP BY state"),
        QStringLiteral("INSERT INTO action_requester_state_counts (requested_by, state, n)"
                       " SELECT requested_by, state, COUNT(*) FROM actions GROUP BY requested_by, state"),
        QStringLiteral("CREATE TRIGGER actions_counts_insert AFTER INSERT ON actions BEGIN %1 END")
            .arg(bump.arg(QStringLiteral("NEW"), QStringLiteral("+"))),
        QStringLiteral("CREATE TRIGGER actions_counts_update AFTER UPDATE OF state, requested_by ON actions"
                       " WHEN NEW.state IS NOT OLD.state OR NEW.requested_by IS NOT OLD.requested_by BEGIN %1 %2 END")
            .arg(bump.arg(QStringLiteral("OLD"), QStringLiteral("-")), bump.arg(QStringLiteral("NEW"), QStringLiteral("+"))),

        QStringLiteral("CREATE VIRTUAL TABLE actions_search USING fts5("
                       "id, target_id, business_reference, requested_by, client_reference, tokenize='trigram')"),
        QStringLiteral("INSERT INTO actions_search (id, target_id, business_reference, requested_by, client_reference)"
                       " SELECT id, target_id, business_reference, requested_by, client_reference FROM actions"),
        QStringLiteral("CREATE TRIGGER actions_search_insert AFTER INSERT ON actions BEGIN %1 END").arg(searchInsert),
        // The ledger never changes these columns (they are frozen once an attempt exists, and
        // amendBeforeSending only changes amount and reason); kept right anyway.
        QStringLiteral("CREATE TRIGGER actions_search_update AFTER UPDATE OF target_id, business_reference,"
                       " requested_by, client_reference ON actions"
                       " WHEN NEW.target_id IS NOT OLD.target_id OR NEW.business_reference IS NOT OLD.business_reference"
                       "   OR NEW.requested_by IS NOT OLD.requested_by OR NEW.client_reference IS NOT OLD.client_reference"
                       " BEGIN DELETE FROM actions_search WHERE id = OLD.id; %1 END").arg(searchInsert),
    };
    // PostgreSQL: the same count tables, filled the same way; the counts are kept by deferred
    // constraint triggers, which run at COMMIT — after AuditChain::flush took the chain's lock —
    // so the few hot count rows are only ever locked under that one lock and two transactions
    // cannot deadlock on them. The search needs no copy of the columns: pg_trgm GIN indexes on
    // the lowercased columns serve LIKE '%term%' directly.
    for (int i = 0; i < 4; ++i)
        m.postgres << pg(m.statements.at(i));
    m.postgres << QStringLiteral("CREATE FUNCTION countersign_counts() RETURNS trigger LANGUAGE plpgsql AS $$"
                                 " BEGIN"
                                 "  IF TG_OP = 'UPDATE' THEN %1 END IF;"
                                 "  %2"
                                 "  RETURN NULL;"
                                 " END $$")
                      .arg(bump.arg(QStringLiteral("OLD"), QStringLiteral("-")),
                           bump.arg(QStringLiteral("NEW"), QStringLiteral("+")));
    m.postgres << QStringLiteral("CREATE CONSTRAINT TRIGGER actions_counts_insert AFTER INSERT ON actions"
                                 " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION countersign_counts()");
    m.postgres << QStringLiteral("CREATE CONSTRAINT TRIGGER actions_counts_update AFTER UPDATE OF state, requested_by ON actions"
                                 " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW"
                                 " WHEN (NEW.state IS DISTINCT FROM OLD.state OR NEW.requested_by IS DISTINCT FROM OLD.requested_by)"
                                 " EXECUTE FUNCTION countersign_counts()");
    m.postgres << QStringLiteral("CREATE EXTENSION IF NOT EXISTS pg_trgm");
    for (const char *column : {"id", "target_id", "business_reference", "requested_by", "client_reference"})
        m.postgres << QStringLiteral("CREATE INDEX actions_search_%1 ON actions USING gin (LOWER(%1) gin_trgm_ops)")
                          .arg(QLatin1String(column));
    return m;
}

// Version 5 (owned by the HTTP API, server/api/ActionReader): what the queue sorts by, kept in
// the actions row so a page in any order reads one index. (a) attempt_count and last_event_at,
// kept by triggers on INSERT into attempts and audit (both append-only) and filled from the
// existing rows here; neither is part of an action's payload or its state_version. (b)
// amount_scaled, a virtual generated column: the amount in 1/10,000 of the currency's major unit
// (ISO 4217 exponents 0..4), so that 5,000 JPY sorts above 49.99 USD as the console shows them
// — a nominal order, not an exchange rate. The exponents are written out here, frozen with the
// migration; tst_ledger_counts checks them against models/Money. (c) One index per sort key,
// with created_at and id after it for the keyset cursor, and the state last: a state filter
// (the queue) is then checked in the index while it is walked in order, without reading the
// rows it skips (a sorted queue page on 10^6 actions: ~4 ms → ~0.5 ms in sqlite3).
Migrations::Migration sortSchema()
{
    Migrations::Migration m;
    m.version = 5;
    m.name = QStringLiteral("queue sort keys: attempt count, last event, scaled amount");
    m.statements = {
        QStringLiteral("ALTER TABLE actions ADD COLUMN attempt_count INTEGER NOT NULL DEFAULT 0"),
        QStringLiteral("ALTER TABLE actions ADD COLUMN last_event_at BIGINT NOT NULL DEFAULT 0"),
        QStringLiteral("ALTER TABLE actions ADD COLUMN amount_scaled INTEGER GENERATED ALWAYS AS (amount * CASE currency"
                       " WHEN 'bif' THEN 10000 WHEN 'clp' THEN 10000 WHEN 'djf' THEN 10000 WHEN 'gnf' THEN 10000"
                       " WHEN 'isk' THEN 10000 WHEN 'jpy' THEN 10000 WHEN 'kmf' THEN 10000 WHEN 'krw' THEN 10000"
                       " WHEN 'pyg' THEN 10000 WHEN 'rwf' THEN 10000 WHEN 'ugx' THEN 10000 WHEN 'uyi' THEN 10000"
                       " WHEN 'vnd' THEN 10000 WHEN 'vuv' THEN 10000 WHEN 'xaf' THEN 10000 WHEN 'xof' THEN 10000"
                       " WHEN 'xpf' THEN 10000"
                       " WHEN 'bhd' THEN 10 WHEN 'iqd' THEN 10 WHEN 'jod' THEN 10 WHEN 'kwd' THEN 10"
                       " WHEN 'lyd' THEN 10 WHEN 'omr' THEN 10 WHEN 'tnd' THEN 10"
                       " WHEN 'clf' THEN 1 WHEN 'uyw' THEN 1"
                       " ELSE 100 END) VIRTUAL"),
        QStringLiteral("UPDATE actions SET"
                       " attempt_count = (SELECT COUNT(*) FROM attempts t WHERE t.action_id = actions.id),"
                       " last_event_at = COALESCE((SELECT MAX(u.at) FROM audit u WHERE u.action_id = actions.id),"
                       " updated_at)"),
        QStringLiteral("CREATE TRIGGER actions_attempt_count AFTER INSERT ON attempts"
                       " BEGIN UPDATE actions SET attempt_count = attempt_count + 1 WHERE id = NEW.action_id; END"),
        QStringLiteral("CREATE TRIGGER actions_last_event AFTER INSERT ON audit WHEN NEW.action_id IS NOT NULL"
                       " BEGIN UPDATE actions SET last_event_at = MAX(last_event_at, NEW.at) WHERE id = NEW.action_id; END"),
        QStringLiteral("CREATE INDEX actions_by_amount ON actions (amount_scaled, created_at, id, state)"),
        QStringLiteral("CREATE INDEX actions_by_attempts ON actions (attempt_count, created_at, id, state)"),
        QStringLiteral("CREATE INDEX actions_by_last_event ON actions (last_event_at, created_at, id, state)"),
    };
    // PostgreSQL: the same columns (a STORED generated column: PostgreSQL 15 has no VIRTUAL one),
    // the same fill and indexes, the triggers as PL/pgSQL.
    m.postgres << m.statements.at(0) << m.statements.at(1)
               << QString(m.statements.at(2)).replace(QStringLiteral("INTEGER GENERATED"), QStringLiteral("BIGINT GENERATED"))
                      .replace(QStringLiteral(") VIRTUAL"), QStringLiteral(") STORED"))
               << m.statements.at(3);
    m.postgres << QStringLiteral("CREATE FUNCTION countersign_attempt_count() RETURNS trigger LANGUAGE plpgsql AS $$"
                                 " BEGIN UPDATE actions SET attempt_count = attempt_count + 1 WHERE id = NEW.action_id;"
                                 " RETURN NULL; END $$")
               << QStringLiteral("CREATE TRIGGER actions_attempt_count AFTER INSERT ON attempts FOR EACH ROW"
                                 " EXECUTE FUNCTION countersign_attempt_count()")
               << QStringLiteral("CREATE FUNCTION countersign_last_event() RETURNS trigger LANGUAGE plpgsql AS $$"
                                 " BEGIN UPDATE actions SET last_event_at = GREATEST(last_event_at, NEW.at)"
                                 " WHERE id = NEW.action_id; RETURN NULL; END $$")
               << QStringLiteral("CREATE TRIGGER actions_last_event AFTER INSERT ON audit FOR EACH ROW"
                                 " WHEN (NEW.action_id IS NOT NULL) EXECUTE FUNCTION countersign_last_event()");
    for (int i = 6; i < m.statements.size(); ++i)
        m.postgres << m.statements.at(i);
    return m;
}

// Version 6 (owned by the HTTP API, server/api/UserStore): bearer tokens with a life cycle.
// token_created_at (when the current token was minted; existing tokens: when their user was
// added), expires_at (NULL: never; existing tokens never expire) and last_used_at (NULL: not
// used since this migration or since the last rotation; UserStore records it at most once a
// minute). `disabled` exists since version 3.
Migrations::Migration tokenLifecycleSchema()
{
    Migrations::Migration m;
    m.version = 6;
    m.name = QStringLiteral("token life cycle: minted, expiry, last use");
    m.statements = {
        QStringLiteral("ALTER TABLE users ADD COLUMN token_created_at BIGINT NOT NULL DEFAULT 0"),
        QStringLiteral("ALTER TABLE users ADD COLUMN expires_at BIGINT"),
        QStringLiteral("ALTER TABLE users ADD COLUMN last_used_at BIGINT"),
        QStringLiteral("UPDATE users SET token_created_at = created_at"),
    };
    m.postgres = m.statements;
    return m;
}

// Version 7 (owned by ActionReader): an action's follow-ups (ActionReader::followUps, read with
// every action's detail) through an index of the actions that have a parent, in the order they
// are listed. The index of version 1 held every action, nearly all with a NULL parent_id, so
// SQLite's statistics (ANALYZE) counted ~10^6 rows per key and it walked actions_by_created for
// the ORDER BY instead (637 ms per detail on bench_console's 10^6 actions, which also held up
// every request queued behind it: the console's search waited for the selected row's detail).
// `parent_id = ?` implies the partial index's condition on both engines.
Migrations::Migration followUpIndexSchema()
{
    Migrations::Migration m;
    m.version = 7;
    m.name = QStringLiteral("follow-ups by a partial index of the actions with a parent");
    m.statements = {
        QStringLiteral("DROP INDEX actions_by_parent"),
        QStringLiteral("CREATE INDEX actions_by_parent ON actions (parent_id, created_at, id) WHERE parent_id IS NOT NULL"),
    };
    m.postgres = m.statements;
    return m;
}

// Version 8: what made every durable step slow on PostgreSQL (bench_step_latency, issue 13).
// (a) The search's copy of the five searchable columns in a table of its own, as SQLite's FTS5
// table (version 4) has always been. The pg_trgm GIN indexes of version 4 were on actions
// itself, and an action's row is rewritten by nearly every step (state, lease, attempt_count,
// last_event_at are indexed, so no update is HOT): each rewrite added the row's trigrams to five
// GIN indexes again, ~4 ms of a ~7 ms claim. actions_search gets one row per action, at INSERT,
// and its columns never change (they are frozen once an attempt exists, and amendBeforeSending
// only changes amount and reason; an update trigger keeps it right anyway). ActionReader asks it
// for the candidates, by the same LIKE '%run%' rule, through one GIN index over the five columns
// joined (postgresSearchDocument()): one index scan instead of five, and one index to keep.
// (b) countersign_chain_tail: AuditChain::flush's two statements in one round trip. It takes the
// chain's advisory lock, then reads the chain's tail in a statement of its own: a VOLATILE
// function's statements each take a new READ COMMITTED snapshot, so the tail read sees every
// chain row committed before the lock was granted (tst_ledger_pgfaults::chainTailAfterTheLock).
// (c) Both engines: the sort columns' triggers of version 5 change the row only when it is not
// already right — saveAction now writes last_event_at and a claim's attempt_count in its own
// UPDATE (ledgerrows.h), and an action's row is then written once per step instead of three
// times. attempt_count stays the number of the action's attempts, last_event_at the time of its
// newest audit row.
Migrations::Migration stepCostSchema()
{
    Migrations::Migration m;
    m.version = 8;
    m.name = QStringLiteral("the search's columns in a table of their own and the chain's tail in one call (PostgreSQL);"
                            " sort columns written once per step");
    const QString attemptCount = QStringLiteral(
        "UPDATE actions SET attempt_count = (SELECT COUNT(*) FROM attempts t WHERE t.action_id = NEW.action_id)"
        " WHERE id = NEW.action_id AND attempt_count < (SELECT COUNT(*) FROM attempts t WHERE t.action_id = NEW.action_id);");
    const QString lastEvent = QStringLiteral(
        "UPDATE actions SET last_event_at = NEW.at WHERE id = NEW.action_id AND last_event_at < NEW.at;");
    m.statements = {
        QStringLiteral("DROP TRIGGER actions_attempt_count"),
        QStringLiteral("CREATE TRIGGER actions_attempt_count AFTER INSERT ON attempts BEGIN %1 END").arg(attemptCount),
        QStringLiteral("DROP TRIGGER actions_last_event"),
        QStringLiteral("CREATE TRIGGER actions_last_event AFTER INSERT ON audit WHEN NEW.action_id IS NOT NULL"
                       " BEGIN %1 END").arg(lastEvent),
    };
    m.postgres << QStringLiteral("CREATE OR REPLACE FUNCTION countersign_attempt_count() RETURNS trigger LANGUAGE plpgsql"
                                 " AS $$ BEGIN %1 RETURN NULL; END $$").arg(attemptCount)
               << QStringLiteral("CREATE OR REPLACE FUNCTION countersign_last_event() RETURNS trigger LANGUAGE plpgsql"
                                 " AS $$ BEGIN %1 RETURN NULL; END $$").arg(lastEvent);
    const QStringList columns = {QStringLiteral("target_id"), QStringLiteral("business_reference"),
                                 QStringLiteral("requested_by"), QStringLiteral("client_reference")};
    const QString all = QStringLiteral("id, ") + columns.join(QStringLiteral(", "));
    QStringList news;
    QStringList sets;
    for (const QString &column : columns) {
        news << QStringLiteral("NEW.") + column;
        sets << QStringLiteral("%1 = NEW.%1").arg(column);
    }
    m.postgres << pg(QStringLiteral("CREATE TABLE actions_search ("
                                    " id TEXT NOT NULL PRIMARY KEY,"
                                    " target_id TEXT NOT NULL,"
                                    " business_reference TEXT NOT NULL,"
                                    " requested_by TEXT NOT NULL,"
                                    " client_reference TEXT NOT NULL)"))
               << QStringLiteral("CREATE FUNCTION countersign_search_insert() RETURNS trigger LANGUAGE plpgsql AS $$"
                                 " BEGIN INSERT INTO actions_search (%1) VALUES (NEW.id, %2); RETURN NULL; END $$")
                      .arg(all, news.join(QStringLiteral(", ")))
               << QStringLiteral("CREATE TRIGGER actions_search_insert AFTER INSERT ON actions FOR EACH ROW"
                                 " EXECUTE FUNCTION countersign_search_insert()")
               << QStringLiteral("CREATE FUNCTION countersign_search_update() RETURNS trigger LANGUAGE plpgsql AS $$"
                                 " BEGIN UPDATE actions_search SET %1 WHERE id = NEW.id; RETURN NULL; END $$")
                      .arg(sets.join(QStringLiteral(", ")))
               << QStringLiteral("CREATE TRIGGER actions_search_update AFTER UPDATE OF %1 ON actions FOR EACH ROW"
                                 " WHEN (%2) EXECUTE FUNCTION countersign_search_update()")
                      .arg(columns.join(QStringLiteral(", ")),
                           anyColumnChanged(columns, QStringLiteral("IS DISTINCT FROM")))
               << QStringLiteral("INSERT INTO actions_search (%1) SELECT %1 FROM actions").arg(all);
    for (const QString &column : QStringList{QStringLiteral("id")} + columns)
        m.postgres << QStringLiteral("DROP INDEX actions_search_%1").arg(column);
    m.postgres << QStringLiteral("CREATE INDEX actions_search_text ON actions_search USING gin ((%1) gin_trgm_ops)")
                      .arg(postgresSearchDocument());
    m.postgres << QStringLiteral(
        "CREATE FUNCTION countersign_chain_tail(lock_key BIGINT, channel TEXT)"
        " RETURNS TABLE (xact TEXT, tail_seq BIGINT, tail_hash TEXT) LANGUAGE plpgsql VOLATILE AS $$"
        " BEGIN"
        "  PERFORM pg_advisory_xact_lock(lock_key);"
        "  PERFORM pg_notify(channel, '');"
        "  RETURN QUERY SELECT pg_current_xact_id()::text, a.seq::bigint, a.hash::text"
        "   FROM audit a ORDER BY a.seq DESC LIMIT 1;"
        "  IF NOT FOUND THEN"
        "   RETURN QUERY SELECT pg_current_xact_id()::text, NULL::bigint, NULL::text;"
        "  END IF;"
        " END $$");
    return m;
}

// Version 9 (owned by ChargeStore, issue 14): what the provider said about each charge, kept as
// timed evidence, and the one row per charge that every decision on its refund budget locks.
// charges: one row per charge (ch_…) that was ever read; a proposal, an approval, a claim and a
// new snapshot of the charge take its row lock on PostgreSQL (FOR UPDATE; SQLite's write lock
// holds the whole file), so two of them can never both see the same room in the budget.
// charge_snapshots: append-only, `seq` per charge; the snapshot column is
// ChargeSnapshot::toJson (compact), the other columns what the budget reads without parsing it.
// A snapshot of an unknown target or a failed read is kept under its target's id.
Migrations::Migration chargeBudgetSchema()
{
    Migrations::Migration m;
    m.version = 9;
    m.name = QStringLiteral("charges and their snapshots from the provider (the refund budget)");
    const QString tables[] = {
        QStringLiteral("CREATE TABLE charges ("
                       " charge_key TEXT NOT NULL PRIMARY KEY,"
                       " first_read_at BIGINT NOT NULL)"),
        QStringLiteral("CREATE TABLE charge_snapshots ("
                       " charge_key TEXT NOT NULL REFERENCES charges (charge_key),"
                       " seq INTEGER NOT NULL CHECK (seq > 0),"
                       " target_type TEXT NOT NULL CHECK (target_type IN ('charge', 'payment_intent')),"
                       " target_id TEXT NOT NULL,"
                       " asked_by TEXT NOT NULL,"
                       " read_at BIGINT NOT NULL,"
                       " result TEXT NOT NULL CHECK (result IN ('FOUND', 'NOT_FOUND', 'ERROR')),"
                       " currency TEXT NOT NULL,"
                       " amount_captured BIGINT NOT NULL CHECK (amount_captured >= 0),"
                       " amount_refunded BIGINT NOT NULL CHECK (amount_refunded >= 0),"
                       " snapshot TEXT NOT NULL,"
                       " PRIMARY KEY (charge_key, seq))"),
        QStringLiteral("CREATE INDEX charge_snapshots_by_target ON charge_snapshots (target_id, read_at)"),
    };
    const QString message = QStringLiteral("countersign: charge snapshots are append-only");
    for (const QString &ddl : tables) {
        m.statements << ddl;
        m.postgres << pg(ddl);
    }
    m.statements << forbid(QStringLiteral("charge_snapshots_no_update"), QStringLiteral("UPDATE"),
                           QStringLiteral("charge_snapshots"), message)
                 << forbid(QStringLiteral("charge_snapshots_no_delete"), QStringLiteral("DELETE"),
                           QStringLiteral("charge_snapshots"), message);
    m.postgres << pgForbid(QStringLiteral("charge_snapshots_no_update"), QStringLiteral("UPDATE"),
                           QStringLiteral("charge_snapshots"), message)
               << pgForbid(QStringLiteral("charge_snapshots_no_delete"), QStringLiteral("DELETE"),
                           QStringLiteral("charge_snapshots"), message);
    return m;
}

// Version 10 (issue 19): the agent's reasons travel with the proposal — justification, context_url
// and facts (a JSON object of strings) on actions, '' / '' / '{}' for the rows already there —
// and a rejection's reason on approvals.
// Immutable from the start, in the database on both engines: the agent's reasons are what an
// approver read, so no later UPDATE may change them, sent or not (unlike the payload, which may be
// amended before sending). None of them is part of the provider request or its fingerprint.
Migrations::Migration reasonsSchema()
{
    Migrations::Migration m;
    m.version = 10;
    m.name = QStringLiteral("the agent's reasons on actions (justification, context_url, facts), immutable;"
                            " a rejection's reason on approvals");
    const QStringList columns = {QStringLiteral("justification"), QStringLiteral("context_url"),
                                 QStringLiteral("facts")};
    const QString message = QStringLiteral("countersign: the agent''s reasons (justification, context_url, facts)"
                                           " never change");
    QStringList add = {
        QStringLiteral("ALTER TABLE actions ADD COLUMN justification TEXT NOT NULL DEFAULT ''"),
        QStringLiteral("ALTER TABLE actions ADD COLUMN context_url TEXT NOT NULL DEFAULT ''"),
        QStringLiteral("ALTER TABLE actions ADD COLUMN facts TEXT NOT NULL DEFAULT '{}'"),
    };
    // A rejection's reason (append-only like every approvals row): '' for approvals and for the
    // rejections recorded before.
    add << QStringLiteral("ALTER TABLE approvals ADD COLUMN rejection_reason TEXT NOT NULL DEFAULT ''");
    m.statements = add;
    m.statements << QStringLiteral("CREATE TRIGGER actions_reasons_frozen BEFORE UPDATE ON actions WHEN %1"
                                   " BEGIN SELECT RAISE(ABORT, '%2'); END")
                        .arg(anyColumnChanged(columns), message);
    for (const QString &statement : add)
        m.postgres << pg(statement);
    m.postgres << QStringLiteral("CREATE TRIGGER actions_reasons_frozen BEFORE UPDATE ON actions FOR EACH ROW"
                                 " WHEN (%1) EXECUTE FUNCTION countersign_refuse('%2')")
                      .arg(anyColumnChanged(columns, QStringLiteral("IS DISTINCT FROM")), message);
    return m;
}

// Version 11 (issue 14, approval rules; owned by PolicyStore and ApprovalStore, docs/POLICY.md):
// policy_versions: every policy text ever loaded (append-only): its version, SHA-256, the text,
// the file it came from, who loaded it and when.
// approval_signatures: the partial approvals of a quorum (dual control), append-only: each signs
// the action's fingerprint in one approval round (the action's approval_version when signed) and
// one epoch (the audit seq of the action's last amendment then, 0 for none), so an amendment voids
// them. One approver signs a round's epoch at most once — enforced by the unique index.
// approvals gain what the policy decided: policy_version (0: no policy), rule_id and the signers
// of a quorum (JSON array of {"approver", "signed_at"}; [] for one approver).
Migrations::Migration policySchema()
{
    Migrations::Migration m;
    m.version = 11;
    m.name = QStringLiteral("policy versions, the partial approvals of a quorum, the policy on approvals");
    const QString tables[] = {
        QStringLiteral("CREATE TABLE policy_versions ("
                       " version INTEGER NOT NULL PRIMARY KEY CHECK (version > 0),"
                       " sha256 TEXT NOT NULL,"
                       " text TEXT NOT NULL,"
                       " source TEXT NOT NULL,"
                       " loaded_by TEXT NOT NULL,"
                       " loaded_at BIGINT NOT NULL)"),
        QStringLiteral("CREATE TABLE approval_signatures ("
                       " action_id TEXT NOT NULL REFERENCES actions (id),"
                       " seq INTEGER NOT NULL CHECK (seq > 0),"
                       " approval_round INTEGER NOT NULL CHECK (approval_round >= 0),"
                       " void_epoch BIGINT NOT NULL,"
                       " signed_by TEXT NOT NULL,"
                       " fingerprint TEXT NOT NULL,"
                       " required INTEGER NOT NULL CHECK (required > 1),"
                       " policy_version INTEGER NOT NULL,"
                       " rule_id TEXT NOT NULL,"
                       " note TEXT NOT NULL,"
                       " signed_at BIGINT NOT NULL,"
                       " PRIMARY KEY (action_id, seq))"),
        QStringLiteral("CREATE UNIQUE INDEX approval_signatures_once ON approval_signatures"
                       " (action_id, approval_round, void_epoch, signed_by)"),
        QStringLiteral("ALTER TABLE approvals ADD COLUMN policy_version INTEGER NOT NULL DEFAULT 0"),
        QStringLiteral("ALTER TABLE approvals ADD COLUMN rule_id TEXT NOT NULL DEFAULT ''"),
        QStringLiteral("ALTER TABLE approvals ADD COLUMN signers TEXT NOT NULL DEFAULT '[]'"),
    };
    for (const QString &ddl : tables) {
        m.statements << ddl;
        m.postgres << pg(ddl);
    }
    for (const char *table : {"policy_versions", "approval_signatures"}) {
        const QString name = QLatin1String(table);
        const QString message = QStringLiteral("countersign: %1 are append-only").arg(name);
        for (const char *when : {"UPDATE", "DELETE"}) {
            const QString trigger = QStringLiteral("%1_no_%2").arg(name, QString::fromLatin1(when).toLower());
            m.statements << forbid(trigger, QLatin1String(when), name, message);
            m.postgres << pgForbid(trigger, QLatin1String(when), name, message);
        }
    }
    return m;
}

// Version 12 (owned by PauseStore, issue 14): the stop switch. A pause covers everything, one
// agent (actions' requested_by) or one provider account (actions' provider_account); it is in
// force until resumed. Rows are never deleted, and the only change the triggers allow is the one
// resume: resumed_by / resumed_at / resume_note set once, on a pause still in force.
Migrations::Migration pauseSchema()
{
    Migrations::Migration m;
    m.version = 12;
    m.name = QStringLiteral("execution pauses (the stop switch): all, one agent or one provider account");
    const QString table = QStringLiteral(
        "CREATE TABLE execution_pauses ("
        " id TEXT NOT NULL PRIMARY KEY,"
        " scope TEXT NOT NULL CHECK (scope IN ('all', 'agent', 'account')),"
        " agent TEXT NOT NULL,"
        " account TEXT NOT NULL,"
        " reason TEXT NOT NULL CHECK (reason <> ''),"
        " paused_by TEXT NOT NULL,"
        " paused_at BIGINT NOT NULL,"
        " resumed_by TEXT,"
        " resumed_at BIGINT,"
        " resume_note TEXT NOT NULL DEFAULT '',"
        " CHECK ((scope = 'all' AND agent = '' AND account = '')"
        " OR (scope = 'agent' AND agent <> '' AND account = '')"
        " OR (scope = 'account' AND account <> '' AND agent = '')),"
        " CHECK ((resumed_at IS NULL) = (resumed_by IS NULL)))");
    // The pauses in force are few: the claim's check reads them by this index.
    const QString index = QStringLiteral("CREATE INDEX execution_pauses_in_force ON execution_pauses (resumed_at, scope)");
    const QString message = QStringLiteral("countersign: a pause is only ever resumed, once");
    const QStringList frozen = {QStringLiteral("id"), QStringLiteral("scope"), QStringLiteral("agent"),
                                QStringLiteral("account"), QStringLiteral("reason"), QStringLiteral("paused_by"),
                                QStringLiteral("paused_at")};
    m.statements << table << index
                 << QStringLiteral("CREATE TRIGGER execution_pauses_resume_once BEFORE UPDATE ON execution_pauses"
                                   " WHEN OLD.resumed_at IS NOT NULL OR %1 BEGIN SELECT RAISE(ABORT, '%2'); END")
                        .arg(anyColumnChanged(frozen), message)
                 << forbid(QStringLiteral("execution_pauses_no_delete"), QStringLiteral("DELETE"),
                           QStringLiteral("execution_pauses"), message);
    m.postgres << pg(table) << index
               << QStringLiteral("CREATE TRIGGER execution_pauses_resume_once BEFORE UPDATE ON execution_pauses"
                                 " FOR EACH ROW WHEN (OLD.resumed_at IS NOT NULL OR %1)"
                                 " EXECUTE FUNCTION countersign_refuse('%2')")
                      .arg(anyColumnChanged(frozen, QStringLiteral("IS DISTINCT FROM")), message);
    m.postgres << pgForbid(QStringLiteral("execution_pauses_no_delete"), QStringLiteral("DELETE"),
                           QStringLiteral("execution_pauses"), message);
    return m;
}

// Version 13 (issue 14, approval expiry; owned by ApprovalStore, docs/POLICY.md): approvals gain
// expires_at (NULL: never), and approval_expiries records, append-only, that one approval version
// of an action expired unsent: who recorded it ("policy"), when, and why. In the database on both
// engines:
// - an approval expires only while its action has no attempt (invariant 4: once one exists the key
//   is the action's for good, and nothing expires), only if it approved, and at most once (key);
// - the action's key may be cleared only with its current approval's expiry recorded first, or by
//   an amendment (which changes the request, hence its fingerprint, and voids the approval).
// A quorum's signature older than the rule's expiry no longer counts, and its approver may sign
// again: approval_signatures gain `renewal` (0 for a first signature, n for the n-th signature
// again of one approver in one round and epoch), and the one-signature-per-approver index
// includes it. The quorum counts each approver once whatever the rows say (currentSignatures).
Migrations::Migration approvalExpirySchema()
{
    Migrations::Migration m;
    m.version = 13;
    m.name = QStringLiteral("approval expiry: approvals.expires_at, approval_expiries");
    const QString column = QStringLiteral("ALTER TABLE approvals ADD COLUMN expires_at BIGINT");
    const QString table = QStringLiteral(
        "CREATE TABLE approval_expiries ("
        " action_id TEXT NOT NULL REFERENCES actions (id),"
        " approval_version INTEGER NOT NULL CHECK (approval_version > 0),"
        " expired_by TEXT NOT NULL,"
        " expired_at BIGINT NOT NULL,"
        " note TEXT NOT NULL,"
        " PRIMARY KEY (action_id, approval_version))");
    const QString unsentMessage = QStringLiteral("countersign: only an approval of an action never sent can expire"
                                                 " (invariant 4)");
    const QString keyMessage = QStringLiteral("countersign: an action''s key is cleared only by its approval''s expiry"
                                              " or an amendment");
    const QString appendOnly = QStringLiteral("countersign: approval_expiries are append-only");
    // What an expiry row must find: an approved approval of that version, and no attempt.
    const QString refused = QStringLiteral(
        "NOT EXISTS (SELECT 1 FROM approvals p WHERE p.action_id = NEW.action_id AND p.version = NEW.approval_version"
        "   AND p.decision = 'approved')"
        " OR EXISTS (SELECT 1 FROM attempts t WHERE t.action_id = NEW.action_id)");
    // An action's key goes from a key to none only with the expiry of its approval recorded, or
    // with the request it signed amended (ProposalStore::amendBeforeSending: a new fingerprint).
    const QString keyCleared = QStringLiteral(
        "OLD.idempotency_key <> '' AND NEW.idempotency_key = ''"
        " AND NEW.request_fingerprint = OLD.request_fingerprint"
        " AND NOT EXISTS (SELECT 1 FROM approval_expiries x WHERE x.action_id = OLD.id"
        "   AND x.approval_version = OLD.approval_version)");
    const QStringList renewal = {
        QStringLiteral("ALTER TABLE approval_signatures ADD COLUMN renewal INTEGER NOT NULL DEFAULT 0"),
        QStringLiteral("DROP INDEX approval_signatures_once"),
        QStringLiteral("CREATE UNIQUE INDEX approval_signatures_once ON approval_signatures"
                       " (action_id, approval_round, void_epoch, signed_by, renewal)"),
    };
    m.statements << renewal;
    m.postgres << renewal;
    m.statements << column << table
                 << QStringLiteral("CREATE TRIGGER approval_expiries_unsent BEFORE INSERT ON approval_expiries WHEN %1"
                                   " BEGIN SELECT RAISE(ABORT, '%2'); END").arg(refused, unsentMessage)
                 << QStringLiteral("CREATE TRIGGER actions_key_cleared_by_expiry BEFORE UPDATE ON actions WHEN %1"
                                   " BEGIN SELECT RAISE(ABORT, '%2'); END").arg(keyCleared, keyMessage);
    m.postgres << pg(column) << pg(table)
               << QStringLiteral("CREATE FUNCTION countersign_approval_expiry_unsent() RETURNS trigger LANGUAGE plpgsql AS $$"
                                 " BEGIN IF %1 THEN RAISE EXCEPTION '%2'; END IF; RETURN NEW; END $$")
                      .arg(refused, unsentMessage)
               << QStringLiteral("CREATE TRIGGER approval_expiries_unsent BEFORE INSERT ON approval_expiries FOR EACH ROW"
                                 " EXECUTE FUNCTION countersign_approval_expiry_unsent()")
               << QStringLiteral("CREATE FUNCTION countersign_key_cleared_by_expiry() RETURNS trigger LANGUAGE plpgsql AS $$"
                                 " BEGIN IF %1 THEN RAISE EXCEPTION '%2'; END IF; RETURN NEW; END $$")
                      .arg(keyCleared, keyMessage)
               << QStringLiteral("CREATE TRIGGER actions_key_cleared_by_expiry BEFORE UPDATE ON actions FOR EACH ROW"
                                 " EXECUTE FUNCTION countersign_key_cleared_by_expiry()");
    for (const char *when : {"UPDATE", "DELETE"}) {
        const QString trigger = QStringLiteral("approval_expiries_no_%1").arg(QString::fromLatin1(when).toLower());
        m.statements << forbid(trigger, QLatin1String(when), QStringLiteral("approval_expiries"), appendOnly);
        m.postgres << pgForbid(trigger, QLatin1String(when), QStringLiteral("approval_expiries"), appendOnly);
    }
    return m;
}

// Version 14 (issue 18, owned by SettlementStore, docs/SETTLEMENT.md): what happened to a
// COMPLETED action's refund after the provider accepted it.
// settlements: one row per COMPLETED action (inserted in the transaction that completes it): the
// refund, its status as last seen and when the provider last confirmed it, the next scheduled
// look-up while it is not settled, and the review item a failure after completion opens. In the
// database on both engines: a row exists only for a COMPLETED action; a failed or canceled refund
// never changes status again; a review item, once open, is only ever decided (followed up or
// closed), once, and never reopened.
// settlement_changes: append-only, seq per action; the first row is the status it completed with.
// lookups gain failure_reason (the provider's, for a failed refund; '' before and otherwise).
// webhook_events gain the charge and refund they touched and a summary (status, amount,
// currency, the event's own time), so an event for a refund Countersign never asked for is listed
// for its charge.
Migrations::Migration settlementSchema()
{
    Migrations::Migration m;
    m.version = 14;
    m.name = QStringLiteral("settlement after COMPLETED: settlements, settlement_changes; webhook events by charge");
    const QStringList tables = {
        QStringLiteral("CREATE TABLE settlements ("
                       " action_id TEXT NOT NULL PRIMARY KEY REFERENCES actions (id),"
                       " refund_id TEXT NOT NULL,"
                       " status TEXT NOT NULL,"
                       " failure_reason TEXT NOT NULL,"
                       " started_at BIGINT NOT NULL,"
                       " confirmed_at BIGINT NOT NULL,"
                       " confirmed_by TEXT NOT NULL,"
                       " settled_at BIGINT,"
                       " next_check_at BIGINT,"
                       " checks INTEGER NOT NULL CHECK (checks >= 0),"
                       " attention TEXT NOT NULL CHECK (attention IN ('none', 'open', 'followed_up', 'closed')),"
                       " attention_since BIGINT,"
                       " resolved_by TEXT NOT NULL,"
                       " resolved_at BIGINT,"
                       " resolution_note TEXT NOT NULL,"
                       " follow_up_id TEXT NOT NULL,"
                       " CHECK ((attention = 'none') = (attention_since IS NULL)),"
                       " CHECK ((attention IN ('followed_up', 'closed')) = (resolved_at IS NOT NULL)))"),
        QStringLiteral("CREATE INDEX settlements_due ON settlements (next_check_at) WHERE next_check_at IS NOT NULL"),
        QStringLiteral("CREATE INDEX settlements_review ON settlements (attention_since) WHERE attention = 'open'"),
        QStringLiteral("CREATE INDEX settlements_by_refund ON settlements (refund_id)"),
        QStringLiteral("CREATE TABLE settlement_changes ("
                       " action_id TEXT NOT NULL REFERENCES settlements (action_id),"
                       " seq INTEGER NOT NULL CHECK (seq > 0),"
                       " at BIGINT NOT NULL,"
                       " from_status TEXT NOT NULL,"
                       " to_status TEXT NOT NULL,"
                       " failure_reason TEXT NOT NULL,"
                       " source TEXT NOT NULL,"
                       " evidence TEXT NOT NULL,"
                       " PRIMARY KEY (action_id, seq))"),
        QStringLiteral("ALTER TABLE lookups ADD COLUMN failure_reason TEXT NOT NULL DEFAULT ''"),
        QStringLiteral("ALTER TABLE webhook_events ADD COLUMN charge_id TEXT NOT NULL DEFAULT ''"),
        QStringLiteral("ALTER TABLE webhook_events ADD COLUMN refund_id TEXT NOT NULL DEFAULT ''"),
        QStringLiteral("ALTER TABLE webhook_events ADD COLUMN summary TEXT NOT NULL DEFAULT '{}'"),
        QStringLiteral("CREATE INDEX webhook_events_by_charge ON webhook_events (charge_id, received_at)"
                       " WHERE charge_id <> ''"),
    };
    for (const QString &ddl : tables) {
        m.statements << ddl;
        m.postgres << pg(ddl);
    }
    const QString completedOnly = QStringLiteral("countersign: only a COMPLETED action has a settlement");
    const QString notCompleted = QStringLiteral(
        "NOT EXISTS (SELECT 1 FROM actions a WHERE a.id = NEW.action_id AND a.state = 'COMPLETED')");
    const QString finalMessage = QStringLiteral("countersign: a failed or canceled refund never settles again, and a"
                                                " settlement review item is decided once, never reopened");
    const QString changed = QStringLiteral(
        "NEW.action_id <> OLD.action_id OR NEW.started_at <> OLD.started_at"
        " OR (OLD.status IN ('failed', 'canceled') AND NEW.status <> OLD.status)"
        " OR (OLD.attention <> 'none' AND NEW.attention = 'none')"
        " OR (OLD.attention IN ('followed_up', 'closed') AND (NEW.attention <> OLD.attention"
        "     OR NEW.resolved_at <> OLD.resolved_at OR NEW.resolved_by <> OLD.resolved_by"
        "     OR NEW.resolution_note <> OLD.resolution_note OR NEW.follow_up_id <> OLD.follow_up_id))");
    const QString appendOnly = QStringLiteral("countersign: settlement changes are append-only");
    m.statements << QStringLiteral("CREATE TRIGGER settlements_completed_only BEFORE INSERT ON settlements WHEN %1"
                                   " BEGIN SELECT RAISE(ABORT, '%2'); END").arg(notCompleted, completedOnly)
                 << QStringLiteral("CREATE TRIGGER settlements_forward_only BEFORE UPDATE ON settlements WHEN %1"
                                   " BEGIN SELECT RAISE(ABORT, '%2'); END").arg(changed, finalMessage)
                 << forbid(QStringLiteral("settlements_no_delete"), QStringLiteral("DELETE"),
                           QStringLiteral("settlements"), finalMessage);
    m.postgres << QStringLiteral("CREATE FUNCTION countersign_settlement_completed_only() RETURNS trigger"
                                 " LANGUAGE plpgsql AS $$ BEGIN IF %1 THEN RAISE EXCEPTION '%2'; END IF; RETURN NEW; END $$")
                      .arg(notCompleted, completedOnly)
               << QStringLiteral("CREATE TRIGGER settlements_completed_only BEFORE INSERT ON settlements FOR EACH ROW"
                                 " EXECUTE FUNCTION countersign_settlement_completed_only()")
               << QStringLiteral("CREATE TRIGGER settlements_forward_only BEFORE UPDATE ON settlements FOR EACH ROW"
                                 " WHEN (%1) EXECUTE FUNCTION countersign_refuse('%2')")
                      .arg(QString(changed).replace(QStringLiteral("<> OLD"), QStringLiteral("IS DISTINCT FROM OLD")),
                           finalMessage);
    m.postgres << pgForbid(QStringLiteral("settlements_no_delete"), QStringLiteral("DELETE"),
                           QStringLiteral("settlements"), finalMessage);
    for (const char *when : {"UPDATE", "DELETE"}) {
        const QString trigger = QStringLiteral("settlement_changes_no_%1").arg(QString::fromLatin1(when).toLower());
        m.statements << forbid(trigger, QLatin1String(when), QStringLiteral("settlement_changes"), appendOnly);
        m.postgres << pgForbid(trigger, QLatin1String(when), QStringLiteral("settlement_changes"), appendOnly);
    }
    return m;
}

// Version 15 (issue 33, models/discrepancy.h): what the provider holds that contradicts a final
// action — two refunds carrying one action's id, a refund whose money or charge is not a COMPLETED
// action's, any refund for a REJECTED one. One row per action, opened by the look-up or webhook
// that showed it (in the same transaction), closed by a supervisor with a note; a refund not seen
// before reopens it. In the database on both engines: a row only for a COMPLETED or REJECTED
// action, never deleted, a closed row always says who closed it and when.
Migrations::Migration discrepancySchema()
{
    Migrations::Migration m;
    m.version = 15;
    m.name = QStringLiteral("discrepancies: refunds at the provider that contradict a final action");
    const QStringList tables = {
        QStringLiteral("CREATE TABLE discrepancies ("
                       " action_id TEXT NOT NULL PRIMARY KEY REFERENCES actions (id),"
                       " kind TEXT NOT NULL CHECK (kind IN ('duplicate_refund', 'contradicting_refund')),"
                       " refund_ids TEXT NOT NULL,"
                       " detail TEXT NOT NULL,"
                       " evidence TEXT NOT NULL,"
                       " found_by TEXT NOT NULL,"
                       " opened_at BIGINT NOT NULL,"
                       " last_seen_at BIGINT NOT NULL,"
                       " sightings INTEGER NOT NULL CHECK (sightings > 0),"
                       " attention TEXT NOT NULL CHECK (attention IN ('open', 'closed')),"
                       " resolved_by TEXT NOT NULL,"
                       " resolved_at BIGINT,"
                       " resolution_note TEXT NOT NULL,"
                       " CHECK ((attention = 'closed') = (resolved_at IS NOT NULL AND resolved_by <> ''"
                       "        AND resolution_note <> '')))"),
        QStringLiteral("CREATE INDEX discrepancies_open ON discrepancies (opened_at) WHERE attention = 'open'"),
    };
    for (const QString &ddl : tables) {
        m.statements << ddl;
        m.postgres << pg(ddl);
    }
    const QString finalOnly = QStringLiteral("countersign: only a COMPLETED or REJECTED action carries a discrepancy");
    const QString notFinal = QStringLiteral(
        "NOT EXISTS (SELECT 1 FROM actions a WHERE a.id = NEW.action_id AND a.state IN ('COMPLETED', 'REJECTED'))");
    const QString kept = QStringLiteral("countersign: a discrepancy is never deleted");
    m.statements << QStringLiteral("CREATE TRIGGER discrepancies_final_only BEFORE INSERT ON discrepancies WHEN %1"
                                   " BEGIN SELECT RAISE(ABORT, '%2'); END").arg(notFinal, finalOnly)
                 << forbid(QStringLiteral("discrepancies_no_delete"), QStringLiteral("DELETE"),
                           QStringLiteral("discrepancies"), kept);
    m.postgres << QStringLiteral("CREATE FUNCTION countersign_discrepancy_final_only() RETURNS trigger"
                                 " LANGUAGE plpgsql AS $$ BEGIN IF %1 THEN RAISE EXCEPTION '%2'; END IF; RETURN NEW; END $$")
                      .arg(notFinal, finalOnly)
               << QStringLiteral("CREATE TRIGGER discrepancies_final_only BEFORE INSERT ON discrepancies FOR EACH ROW"
                                 " EXECUTE FUNCTION countersign_discrepancy_final_only()")
               << pgForbid(QStringLiteral("discrepancies_no_delete"), QStringLiteral("DELETE"),
                           QStringLiteral("discrepancies"), kept);
    return m;
}

// Version 16 (issue 34): readiness that really writes. GET /health/ready commits one row per
// instance here (LedgerDatabase::probeWritable), so a read-only file or database, a disk that
// refuses, a lock held too long all fail readiness as they fail a proposal. Nothing reads it but
// the probe and an operator.
Migrations::Migration readinessSchema()
{
    Migrations::Migration m;
    m.version = 16;
    m.name = QStringLiteral("readiness_probe: the write of GET /health/ready");
    const QString ddl = QStringLiteral("CREATE TABLE readiness_probe ("
                                       " instance TEXT NOT NULL PRIMARY KEY,"
                                       " probed_at BIGINT NOT NULL,"
                                       " probes BIGINT NOT NULL)");
    m.statements << ddl;
    m.postgres << pg(ddl);
    return m;
}

// Version 17 (owned by ActionReader): the list's amount order, its search by amount and the
// decision queue (docs/API.md, GET /actions).
// (a) `sort=amount` orders by currency, then the amount in minor units, then created_at and id:
// actions_by_currency_amount, with the state last as in version 5 (a queue filter is checked in
// the index while it is walked; PostgreSQL reads a page's ids by an index-only scan of it, then
// only their rows). actions_by_amount (amount_scaled first) ordered the nominal order across
// currencies that this replaces; nothing else walks it.
// (b) `q` that is a decimal number also matches amount_scaled = q × 10^4 (Money::searchedTenThousandths):
// actions_by_amount_scaled (amount_scaled, id) answers that with the ids alone on both engines.
// (c) Approved and waiting for the executor: PENDING with the key minted (idempotency_key <> '';
// a quorum's signatures before the last mint none, docs/POLICY.md). actions_queued holds only
// those: `awaiting=decision` leaves them out by a probe of it (id first), `counts.queued` counts
// its entries (an agent's by the requested_by beside the id). state and idempotency_key are in it
// only for SQLite, which checks a partial index's own condition again and, without them, read
// each entry's row; with them both statements stay in the index (ActionReader names it there).
// The claim's candidates (state as a range, ExecutionStore::candidateSql) do not imply its
// condition and keep their index.
Migrations::Migration listOrderSchema()
{
    Migrations::Migration m;
    m.version = 17;
    m.name = QStringLiteral("amount order by currency, search by amount, the actions queued for the executor");
    m.statements = {
        QStringLiteral("DROP INDEX actions_by_amount"),
        QStringLiteral("CREATE INDEX actions_by_currency_amount ON actions (currency, amount, created_at, id, state)"),
        QStringLiteral("CREATE INDEX actions_by_amount_scaled ON actions (amount_scaled, id)"),
        QStringLiteral("CREATE INDEX actions_queued ON actions (id, requested_by, state, idempotency_key)"
                       " WHERE state = 'PENDING' AND idempotency_key <> ''"),
    };
    m.postgres = m.statements;
    return m;
}

bool exec(QSqlDatabase &db, const QString &sql, LedgerError *error)
{
    QSqlQuery query(db);
    if (query.exec(sql))
        return true;
    *error = LedgerError(LedgerError::Code::Storage,
                         QStringLiteral("migration statement failed: %1 [%2]").arg(query.lastError().text(), sql.left(120)));
    return false;
}

} // namespace

const QList<Migrations::Migration> &Migrations::all()
{
    static const QList<Migration> migrations = {initialSchema(), executionSchema(), apiSchema(), consoleSchema(),
                                                   sortSchema(), tokenLifecycleSchema(), followUpIndexSchema(),
                                                   stepCostSchema(), chargeBudgetSchema(), reasonsSchema(),
                                                   policySchema(), pauseSchema(), approvalExpirySchema(),
                                                   settlementSchema(), discrepancySchema(), readinessSchema(),
                                                   listOrderSchema()};
    return migrations;
}

int Migrations::latestVersion()
{
    return all().constLast().version;
}

int Migrations::currentVersion(QSqlDatabase &db, LedgerError *error)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT MAX(version) FROM schema_version"))) {
        *error = LedgerError(LedgerError::Code::Storage,
                             QStringLiteral("cannot read schema_version: ") + query.lastError().text());
        return -1;
    }
    return query.next() ? query.value(0).toInt() : 0;
}

LedgerError Migrations::migrate(QSqlDatabase &db, qint64 nowMs)
{
    const bool postgres = sql::isPostgres(db);
    LedgerError error;
    {
        // Fast path without the write lock: a current database needs nothing.
        QSqlQuery probe(db);
        if (probe.exec(QStringLiteral("SELECT MAX(version) FROM schema_version")) && probe.next()
            && probe.value(0).toInt() == latestVersion()) {
            return {};
        }
    }
    const QString createVersionTable = QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version ("
                                                      " version INTEGER NOT NULL PRIMARY KEY,"
                                                      " name TEXT NOT NULL,"
                                                      " applied_at BIGINT NOT NULL)");
    if (!postgres && !exec(db, createVersionTable, &error))
        return error;
    for (const Migration &migration : all()) {
        // PostgreSQL: the advisory lock is what BEGIN IMMEDIATE is to SQLite, so instances that
        // start together apply each migration once; the version table is created under it too.
        if (!exec(db, postgres ? QStringLiteral("BEGIN") : QStringLiteral("BEGIN IMMEDIATE"), &error))
            return error;
        bool ok = !postgres
            || (exec(db, QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(kMigrationLockKey), &error)
                && exec(db, createVersionTable, &error));
        const int current = ok ? currentVersion(db, &error) : -1;
        ok = ok && current >= 0;
        if (ok && current > latestVersion()) {
            error = LedgerError(LedgerError::Code::Storage,
                                QStringLiteral("the ledger's schema version %1 is newer than this program's %2")
                                    .arg(current).arg(latestVersion()));
            ok = false;
        }
        if (ok && current < migration.version) {
            for (const QString &statement : postgres ? migration.postgres : migration.statements) {
                if (!exec(db, statement, &error)) {
                    ok = false;
                    break;
                }
            }
            if (ok) {
                QSqlQuery record(db);
                record.prepare(QStringLiteral("INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)"));
                record.addBindValue(migration.version);
                record.addBindValue(migration.name);
                record.addBindValue(nowMs);
                if (!record.exec()) {
                    error = LedgerError(LedgerError::Code::Storage, record.lastError().text());
                    ok = false;
                }
            }
            if (ok)
                qCInfo(lcLedger) << "applied migration" << migration.version << migration.name;
        }
        if (!ok) {
            QSqlQuery rollback(db);
            rollback.exec(QStringLiteral("ROLLBACK"));
            return error;
        }
        if (!exec(db, QStringLiteral("COMMIT"), &error)) {
            QSqlQuery rollback(db);
            rollback.exec(QStringLiteral("ROLLBACK"));
            return error;
        }
    }
    return {};
}

} // namespace cs
