#pragma once

#include "simulator/charge.h"
#include "simulator/idempotencyrecord.h"
#include "simulator/refund.h"
#include "simulator/stripeevent.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>

namespace cs::paysim {

// Optional SQLite persistence (--db FILE) so a demo survives a restart: charges, refunds,
// events, completed idempotency records and a few counters. Writes go through at once; a
// Transaction groups the writes of one request. Schema versioned with ordered migrations.
// Not thread-safe: one instance, one named connection, on the simulator's thread.
class SimDatabase
{
public:
    explicit SimDatabase(const QString &path);
    ~SimDatabase();
    SimDatabase(const SimDatabase &) = delete;
    SimDatabase &operator=(const SimDatabase &) = delete;

    bool open(QString *error);
    int schemaVersion() const;

    // RAII: commits when commit() is called, rolls back otherwise.
    class Transaction
    {
    public:
        explicit Transaction(SimDatabase *db);
        ~Transaction();
        Transaction(const Transaction &) = delete;
        Transaction &operator=(const Transaction &) = delete;
        bool commit();

    private:
        SimDatabase *m_db;
        bool m_active = false;
    };

    void saveCharge(const Charge &charge);
    void saveRefund(const Refund &refund);
    void saveEvent(const StripeEvent &event);
    void saveIdempotency(const IdempotencyRecord &record);
    void deleteIdempotency(const QString &apiKey, const QString &key);
    void setMeta(const QString &key, const QString &value);
    QString meta(const QString &key) const;
    void clearAll();

    QList<Charge> loadCharges() const;
    QList<Refund> loadRefunds() const;
    QList<StripeEvent> loadEvents() const;
    QList<IdempotencyRecord> loadIdempotency() const;

private:
    bool exec(const QString &sql, QString *error = nullptr);
    bool migrate(QString *error);
    void write(const QString &what, const QString &sql, const QVariantList &values);
    void saveJson(const QString &table, const QString &id, qint64 seq, const QJsonObject &json);
    template <typename Record>
    QList<Record> loadRecords(const QString &table) const;
    QList<QJsonObject> loadJson(const QString &table) const;

    QString m_path;
    QString m_connectionName;
    int m_depth = 0;
};

} // namespace cs::paysim
