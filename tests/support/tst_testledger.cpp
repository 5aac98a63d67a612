// The engine switch of the ledger suites (tests/support/testledger.h), run by ctest on both
// engines: tst_testledger (SQLite) and tst_testledger_postgres.

#include "tests/support/testledger.h"

#include "tests/support/pgcluster.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace cs::test;

namespace {

// Whether a database of that name exists on the shared cluster.
bool databaseExists(const QString &name)
{
    const auto result = PgCluster::shared().psql(
        QStringLiteral("postgres"), QStringLiteral("SELECT count(*) FROM pg_database WHERE datname = '%1';").arg(name));
    return result.ok && result.output == u"1";
}

} // namespace

class TestTestLedger : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_suiteLocation = ledgerLocation(m_dir.filePath(QStringLiteral("suite.db")));
        QVERIFY(!m_suiteLocation.isEmpty());
    }

    void theEngineComesFromTheEnvironment()
    {
        const QString wanted = qEnvironmentVariable("COUNTERSIGN_TEST_ENGINE");
        QCOMPARE(engineName(), wanted.isEmpty() ? QStringLiteral("sqlite") : wanted);
        QCOMPARE(onPostgres(), wanted == u"postgres");
    }

    void sqliteKeepsThePath()
    {
        if (onPostgres())
            QSKIP("the SQLite half");
        const QString path = m_dir.filePath(QStringLiteral("ledger.db"));
        QCOMPARE(ledgerLocation(path), path);
        QCOMPARE(postgresDatabaseName(path), QString());
    }

    void postgresMakesAFreshDatabaseEachTime()
    {
        if (!onPostgres())
            QSKIP("the PostgreSQL half");
        const QString first = ledgerLocation(m_dir.filePath(QStringLiteral("ledger.db")));
        const QString second = ledgerLocation(m_dir.filePath(QStringLiteral("ledger.db")));
        const QString prefix = QStringLiteral("postgresql://countersign@127.0.0.1:%1/").arg(PgCluster::shared().port());
        QVERIFY2(first.startsWith(prefix), qPrintable(first));
        QVERIFY(second.startsWith(prefix));
        QVERIFY(first != second);
        m_earlierDatabase = postgresDatabaseName(first);
        QVERIFY(databaseExists(m_earlierDatabase));
        QVERIFY(databaseExists(postgresDatabaseName(second)));
    }

    void earlierTestsDatabasesAreDropped()
    {
        if (!onPostgres())
            QSKIP("the PostgreSQL half");
        QVERIFY(!m_earlierDatabase.isEmpty());
        QVERIFY(!ledgerLocation(QStringLiteral("unused.db")).isEmpty());
        QVERIFY2(!databaseExists(m_earlierDatabase), "a finished test function's database was kept");
        // The one made in initTestCase lasts for the whole binary.
        QVERIFY(databaseExists(postgresDatabaseName(m_suiteLocation)));
    }

    // The raw connection reaches the very database the location names, on either engine.
    void rawDatabaseReachesTheLocation()
    {
        const QString location = ledgerLocation(m_dir.filePath(QStringLiteral("raw.db")));
        QString error;
        {
            QSqlDatabase db = openRawDatabase(location, QStringLiteral("raw-a"), &error);
            QVERIFY2(db.isOpen(), qPrintable(error));
            QSqlQuery query(db);
            QVERIFY2(query.exec(QStringLiteral("CREATE TABLE marker (v INTEGER)")), qPrintable(query.lastError().text()));
            QVERIFY(query.exec(QStringLiteral("INSERT INTO marker VALUES (7)")));
            QCOMPARE(db.driverName(), onPostgres() ? QStringLiteral("QPSQL") : QStringLiteral("QSQLITE"));
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw-a"));
        {
            QSqlDatabase db = openRawDatabase(location, QStringLiteral("raw-b"), &error);
            QVERIFY2(db.isOpen(), qPrintable(error));
            QSqlQuery query(db);
            QVERIFY(query.exec(QStringLiteral("SELECT v FROM marker")) && query.next());
            QCOMPARE(query.value(0).toInt(), 7);
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw-b"));
    }

    void rawDatabaseReportsFailure()
    {
        QString error;
        const QString bad = onPostgres() ? QStringLiteral("postgresql://countersign@127.0.0.1:%1/no_such_db")
                                               .arg(PgCluster::shared().port())
                                         : m_dir.filePath(QStringLiteral("no/such/folder/x.db"));
        QVERIFY(!openRawDatabase(bad, QStringLiteral("raw-bad"), &error).isOpen());
        QVERIFY(!error.isEmpty());
        QSqlDatabase::removeDatabase(QStringLiteral("raw-bad"));
    }

    void skipOnPostgresSkipsOnlyThere()
    {
        m_reachedPastSkip = false;
        SKIP_ON_POSTGRES("proves the macro");
        m_reachedPastSkip = true;
    }

    void skipOnPostgresChecked()
    {
        QCOMPARE(m_reachedPastSkip, !onPostgres());
    }

private:
    QTemporaryDir m_dir;
    QString m_suiteLocation;
    QString m_earlierDatabase;
    bool m_reachedPastSkip = false;
};

QTEST_GUILESS_MAIN(TestTestLedger)
#include "tst_testledger.moc"
