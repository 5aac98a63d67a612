#include "simulator/simdatabase.h"

#include "simulator/paysimlog.h"

#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>

namespace cs::paysim {

namespace {

// Ordered migrations: index i brings the schema from version i to i + 1.
const QList<QStringList> &migrations()
{
    static const QList<QStringList> list{
        {
            QStringLiteral("CREATE TABLE charges (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, json TEXT NOT NULL)"),
            QStringLiteral("CREATE TABLE refunds (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, json TEXT NOT NULL)"),
            QStringLiteral("CREATE TABLE events (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, json TEXT NOT NULL)"),
            QStringLiteral("CREATE TABLE idempotency (api_key TEXT NOT NULL, idem_key TEXT NOT NULL, method TEXT NOT NULL, "
                           "path TEXT NOT NULL, params TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL, "
                           "request_id TEXT NOT NULL, created_ms INTEGER NOT NULL, PRIMARY KEY (api_key, idem_key))"),
            QStringLiteral("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"),
        },
    };
    return list;
}

} // namespace

SimDatabase::SimDatabase(const QString &path)
    : m_path(path)
    , m_connectionName(QStringLiteral("paysim-%1").arg(reinterpret_cast<quintptr>(this)))
{
}

SimDatabase::~SimDatabase()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (db.isOpen())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

bool SimDatabase::open(QString *error)
{
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    db.setDatabaseName(m_path);
    if (!db.open()) {
        if (error)
            *error = db.lastError().text();
        return false;
    }
    if (!exec(QStringLiteral("PRAGMA journal_mode=WAL"), error) || !exec(QStringLiteral("PRAGMA synchronous=NORMAL"), error))
        return false;
    return migrate(error);
}

bool SimDatabase::exec(const QString &sql, QString *error)
{
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    if (!q.exec(sql)) {
        if (error)
            *error = q.lastError().text() + QStringLiteral(" in: ") + sql;
        qCWarning(lcPaysim) << "sql failed:" << q.lastError().text() << sql;
        return false;
    }
    return true;
}

int SimDatabase::schemaVersion() const
{
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    if (!q.exec(QStringLiteral("SELECT version FROM schema_version")) || !q.next())
        return 0;
    return q.value(0).toInt();
}

bool SimDatabase::migrate(QString *error)
{
    if (!exec(QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"), error))
        return false;
    int version = schemaVersion();
    if (version == 0 && !exec(QStringLiteral("INSERT INTO schema_version (version) SELECT 0 WHERE NOT EXISTS "
                                             "(SELECT 1 FROM schema_version)"),
                              error))
        return false;
    const auto &steps = migrations();
    if (version > steps.size()) {
        if (error)
            *error = QStringLiteral("database schema version %1 is newer than this paysim (%2)").arg(version).arg(steps.size());
        return false;
    }
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    for (; version < steps.size(); ++version) {
        if (!db.transaction()) {
            if (error)
                *error = db.lastError().text();
            return false;
        }
        bool ok = true;
        for (const QString &sql : steps[version])
            ok = ok && exec(sql, error);
        ok = ok && exec(QStringLiteral("UPDATE schema_version SET version = %1").arg(version + 1), error);
        if (!ok) {
            db.rollback();
            return false;
        }
        if (!db.commit()) {
            if (error)
                *error = db.lastError().text();
            db.rollback();
            return false;
        }
    }
    return true;
}

SimDatabase::Transaction::Transaction(SimDatabase *db)
    : m_db(db)
{
    if (!m_db)
        return;
    if (m_db->m_depth++ == 0) {
        QSqlDatabase conn = QSqlDatabase::database(m_db->m_connectionName, false);
        m_active = conn.transaction();
        if (!m_active)
            qCWarning(lcPaysim) << "could not begin transaction:" << conn.lastError().text();
    }
}

SimDatabase::Transaction::~Transaction()
{
    if (!m_db)
        return;
    if (--m_db->m_depth == 0 && m_active)
        QSqlDatabase::database(m_db->m_connectionName, false).rollback();
}

bool SimDatabase::Transaction::commit()
{
    if (!m_db)
        return true;
    if (m_db->m_depth == 1 && m_active) {
        QSqlDatabase conn = QSqlDatabase::database(m_db->m_connectionName, false);
        m_active = false;
        if (!conn.commit()) {
            qCWarning(lcPaysim) << "commit failed:" << conn.lastError().text();
            conn.rollback();
            return false;
        }
    }
    return true;
}

// One prepared statement with bound values; a failure is logged (paysim keeps serving from memory).
void SimDatabase::write(const QString &what, const QString &sql, const QVariantList &values)
{
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(sql);
    for (const QVariant &value : values)
        q.addBindValue(value);
    if (!q.exec())
        qCWarning(lcPaysim).noquote() << what << "failed:" << q.lastError().text();
}

void SimDatabase::saveJson(const QString &table, const QString &id, qint64 seq, const QJsonObject &json)
{
    write(QStringLiteral("saving to ") + table, QStringLiteral("INSERT OR REPLACE INTO %1 (id, seq, json) VALUES (?, ?, ?)").arg(table),
          { id, seq, QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Compact)) });
}

QList<QJsonObject> SimDatabase::loadJson(const QString &table) const
{
    QList<QJsonObject> out;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    if (!q.exec(QStringLiteral("SELECT json FROM %1 ORDER BY seq").arg(table))) {
        qCWarning(lcPaysim) << "loading" << table << "failed:" << q.lastError().text();
        return out;
    }
    while (q.next())
        out.append(QJsonDocument::fromJson(q.value(0).toString().toUtf8()).object());
    return out;
}

void SimDatabase::saveCharge(const Charge &charge)
{
    saveJson(QStringLiteral("charges"), charge.id, charge.seq, charge.toStorageJson());
}

void SimDatabase::saveRefund(const Refund &refund)
{
    saveJson(QStringLiteral("refunds"), refund.id, refund.seq, refund.toStorageJson());
}

void SimDatabase::saveEvent(const StripeEvent &event)
{
    saveJson(QStringLiteral("events"), event.id, event.seq, event.toStorageJson());
}

void SimDatabase::saveIdempotency(const IdempotencyRecord &r)
{
    write(QStringLiteral("saving an idempotency record"),
          QStringLiteral("INSERT OR REPLACE INTO idempotency (api_key, idem_key, method, path, params, status, body, "
                         "request_id, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
          { r.apiKey, r.key, r.method, r.path, QString::fromUtf8(QJsonDocument(r.params).toJson(QJsonDocument::Compact)),
            r.status, r.body, r.requestId, r.createdMs });
}

void SimDatabase::deleteIdempotency(const QString &apiKey, const QString &key)
{
    write(QStringLiteral("deleting an idempotency record"), QStringLiteral("DELETE FROM idempotency WHERE api_key = ? AND idem_key = ?"),
          { apiKey, key });
}

void SimDatabase::setMeta(const QString &key, const QString &value)
{
    write(QStringLiteral("saving meta"), QStringLiteral("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"), { key, value });
}

QString SimDatabase::meta(const QString &key) const
{
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(QStringLiteral("SELECT value FROM meta WHERE key = ?"));
    q.addBindValue(key);
    if (!q.exec() || !q.next())
        return {};
    return q.value(0).toString();
}

void SimDatabase::clearAll()
{
    Transaction t(this);
    for (const char *table : {"charges", "refunds", "events", "idempotency", "meta"})
        exec(QStringLiteral("DELETE FROM ") + QLatin1String(table));
    t.commit();
}

template <typename Record>
QList<Record> SimDatabase::loadRecords(const QString &table) const
{
    QList<Record> out;
    for (const QJsonObject &o : loadJson(table))
        out.append(Record::fromStorageJson(o));
    return out;
}

QList<Charge> SimDatabase::loadCharges() const
{
    return loadRecords<Charge>(QStringLiteral("charges"));
}

QList<Refund> SimDatabase::loadRefunds() const
{
    return loadRecords<Refund>(QStringLiteral("refunds"));
}

QList<StripeEvent> SimDatabase::loadEvents() const
{
    return loadRecords<StripeEvent>(QStringLiteral("events"));
}

QList<IdempotencyRecord> SimDatabase::loadIdempotency() const
{
    QList<IdempotencyRecord> out;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    if (!q.exec(QStringLiteral("SELECT api_key, idem_key, method, path, params, status, body, request_id, created_ms "
                               "FROM idempotency ORDER BY created_ms"))) {
        qCWarning(lcPaysim) << "loading idempotency records failed:" << q.lastError().text();
        return out;
    }
    while (q.next()) {
        IdempotencyRecord r;
        r.apiKey = q.value(0).toString();
        r.key = q.value(1).toString();
        r.method = q.value(2).toString();
        r.path = q.value(3).toString();
        r.params = QJsonDocument::fromJson(q.value(4).toString().toUtf8()).object();
        r.status = q.value(5).toInt();
        r.body = q.value(6).toByteArray();
        r.requestId = q.value(7).toString();
        r.createdMs = q.value(8).toLongLong();
        r.inFlight = false;
        out.append(r);
    }
    return out;
}

} // namespace cs::paysim
