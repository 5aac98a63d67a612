#include "tests/support/testledger.h"

#include "tests/support/pgcluster.h"

#include "server/ledger/ledger.h"

#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QUrl>
#include <QUrlQuery>

namespace cs::test {

namespace {

// The databases this binary made, with the test function (and data row) that asked for each.
struct MadeDatabase
{
    QString name;
    QString owner; // "" when made outside a test function: kept to the end
};

QList<MadeDatabase> &madeDatabases()
{
    static QList<MadeDatabase> list;
    return list;
}

QString currentTest()
{
    const char *function = QTest::currentTestFunction();
    if (!function || qstrcmp(function, "initTestCase") == 0 || qstrcmp(function, "cleanupTestCase") == 0)
        return QString();
    const char *tag = QTest::currentDataTag();
    return QString::fromUtf8(function) + QLatin1Char('/') + QString::fromUtf8(tag ? tag : "");
}

// Drops what earlier test functions left, unless something still uses it (then later).
void dropFinished(PgCluster &cluster, const QString &current)
{
    QList<MadeDatabase> &made = madeDatabases();
    for (qsizetype i = made.size() - 1; i >= 0; --i) {
        const MadeDatabase &database = made.at(i);
        if (database.owner.isEmpty() || database.owner == current)
            continue;
        const auto dropped = cluster.psql(QStringLiteral("postgres"),
                                          QStringLiteral("DROP DATABASE IF EXISTS \"%1\";").arg(database.name));
        if (dropped.ok)
            made.removeAt(i);
    }
}

// A migrated database every test database is copied from: migrating each one from scratch (some
// 150 statements) and CREATE DATABASE's default WAL_LOG copy took about 0.6 s of every test on
// a loaded 2-core machine; a FILE_COPY of a migrated template takes a tenth of that. The first
// database (the template) is migrated by the ledger itself, so migrations still run in every
// binary. COUNTERSIGN_TEST_PG_TEMPLATE=0 migrates every database from scratch instead.
QString templateDatabase(PgCluster &cluster)
{
    static const QString name = [&cluster] {
        if (qEnvironmentVariable("COUNTERSIGN_TEST_PG_TEMPLATE") == u"0")
            return QString();
        const QString templateName = QStringLiteral("ledger_template");
        const QString uri = cluster.createDatabase(templateName);
        if (uri.isEmpty()) {
            qWarning("ledgerLocation: no template database: %s", qPrintable(cluster.errorString()));
            return QString();
        }
        cs::Ledger ledger;
        cs::Ledger::Options options;
        options.recoverExpiredLeasesOnOpen = false;
        const cs::LedgerError opened = ledger.open(uri, options);
        if (!opened.ok()) {
            qWarning("ledgerLocation: the template database did not migrate: %s", qPrintable(opened.toString()));
            return QString();
        }
        return templateName;
    }();
    return name;
}

} // namespace

Engine testEngine()
{
    static const Engine engine = [] {
        const QString name = qEnvironmentVariable("COUNTERSIGN_TEST_ENGINE");
        if (name.isEmpty() || name == u"sqlite")
            return Engine::Sqlite;
        if (name == u"postgres")
            return Engine::Postgres;
        qFatal("COUNTERSIGN_TEST_ENGINE=%s: expected sqlite or postgres", qPrintable(name));
    }();
    return engine;
}

QString engineName()
{
    return onPostgres() ? QStringLiteral("postgres") : QStringLiteral("sqlite");
}

QString ledgerLocation(const QString &sqlitePath)
{
    if (!onPostgres())
        return sqlitePath;
    PgCluster &cluster = PgCluster::shared();
    if (!cluster.isRunning()) {
        qWarning("ledgerLocation: the private PostgreSQL cluster is not running: %s", qPrintable(cluster.errorString()));
        return QString();
    }
    const QString owner = currentTest();
    dropFinished(cluster, owner);

    // A readable, unique name: a counter and the test function, in PostgreSQL's 63 bytes.
    static int counter = 0;
    QString hint = QString::fromUtf8(QTest::currentTestFunction() ? QTest::currentTestFunction() : "setup").toLower();
    hint.remove(QRegularExpression(QStringLiteral("[^a-z0-9_]")));
    const QString name = QStringLiteral("ledger_%1_%2").arg(++counter).arg(hint).left(63);
    const QString uri = cluster.createDatabase(name, templateDatabase(cluster));
    if (uri.isEmpty()) {
        qWarning("ledgerLocation: %s", qPrintable(cluster.errorString()));
        return QString();
    }
    madeDatabases().append({name, owner});
    return uri;
}

QString postgresDatabaseName(const QString &location)
{
    const QUrl url(location);
    if (url.scheme() != u"postgresql" && url.scheme() != u"postgres")
        return QString();
    return url.path().mid(1);
}

QSqlDatabase openRawDatabase(const QString &location, const QString &connectionName, QString *error)
{
    const QUrl url(location);
    const bool postgres = url.scheme() == u"postgresql" || url.scheme() == u"postgres";
    QSqlDatabase db = QSqlDatabase::addDatabase(postgres ? QStringLiteral("QPSQL") : QStringLiteral("QSQLITE"),
                                                connectionName);
    if (postgres) {
        db.setHostName(url.host());
        db.setPort(url.port(5432));
        db.setUserName(url.userName());
        db.setPassword(url.password());
        db.setDatabaseName(url.path().mid(1));
        QStringList options = {QStringLiteral("application_name=countersign-test-raw")};
        const auto items = QUrlQuery(url).queryItems(QUrl::FullyDecoded);
        for (const auto &[key, value] : items)
            options << key + QLatin1Char('=') + value;
        db.setConnectOptions(options.join(QLatin1Char(';')));
    } else {
        db.setDatabaseName(location);
    }
    if (!db.open()) {
        if (error)
            *error = db.lastError().text();
        return QSqlDatabase();
    }
    if (!postgres) {
        QSqlQuery pragma(db);
        if (!pragma.exec(QStringLiteral("PRAGMA foreign_keys = ON"))) {
            if (error)
                *error = pragma.lastError().text();
            return QSqlDatabase();
        }
    }
    return db;
}

} // namespace cs::test
