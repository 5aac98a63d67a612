// When the ledger's storage refuses writes (issue 34): a real countersignd serve on SQLite.
//
// - fullDiskIsUnavailableNotInternal: the ledger's files may not grow (RLIMIT_FSIZE, set on the
//   running process with prlimit; SIGXFSZ ignored, as a full disk gives ENOSPC, not a signal).
//   Proposals are taken until one is refused: 503 `unavailable` with Retry-After, `"ledger":
//   "cannot_write"` and the reason in words — not 500 `internal`; the refused one left nothing (the
//   ledger holds exactly the 201s); /health/ready is 503 naming it (it was 200 before); the
//   console's words (ApiError::userText) say "The ledger cannot write". The limit lifted, the next
//   proposal is 201, readiness 200 again, and the audit chain verifies.
// - fullFileSystemIsUnavailable: the same on a real full file system — a 2 MiB tmpfs this test
//   mounts (skipped where mounting is not allowed).
// - readOnlyLedgerIsUnavailable: a ledger file serve may only read (mode 0444, serve as nobody):
//   readiness 503 (today's probe passed: it began a transaction and rolled it back) and a
//   proposal 503 `cannot_write` naming the read-only file.
// - postgresRefusalsAreUnavailable (PostgreSQL): the database made read-only
//   (default_transaction_read_only, sessions renewed) and a full tablespace (53100 disk_full, as a
//   trigger raises it on every new action): 503 `cannot_write` naming each, readiness 503; once
//   the database takes writes again, 201 and ready.
#include "client/apierror.h"

#include "tests/api/apitestsupport.h"
#include "tests/server/countersigndrun.h"
#include "tests/support/pgcluster.h"
#include "tests/support/testledger.h"

#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QScopeGuard>
#include <QSqlQuery>
#include <QStorageInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <functional>

#include <grp.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace cs;
using namespace cs::test;

namespace {

qint64 countActions(const QString &db)
{
    return scalarOf(db, QStringLiteral("SELECT COUNT(*) FROM actions"));
}

// The soft limit only: lowering and raising it back up to the hard limit needs no privilege.
bool setFileSizeLimit(qint64 pid, rlim_t bytes)
{
    struct rlimit limit = {};
    if (::prlimit(pid_t(pid), RLIMIT_FSIZE, nullptr, &limit) != 0)
        return false;
    limit.rlim_cur = std::min(bytes, limit.rlim_max);
    return ::prlimit(pid_t(pid), RLIMIT_FSIZE, &limit, nullptr) == 0;
}

struct Filled
{
    int accepted = 0;
    ApiReply refused; // status 0: none was refused
};

// Proposals until one is not 201 (at most `most`).
Filled fill(ApiClient &client, const QString &token, int most)
{
    Filled filled;
    for (int i = 0; i < most; ++i) {
        const ApiReply reply = client.propose(token, ApiClient::proposal(QStringLiteral("fill-%1").arg(i)));
        if (reply.status != 201) {
            filled.refused = reply;
            break;
        }
        ++filled.accepted;
    }
    return filled;
}

// What a refusal for want of storage must be, in the API and in the console's words.
void checkCannotWrite(const ApiReply &refused, const QStringList &reasons)
{
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.json.value(QLatin1String("code")).toString(), QStringLiteral("unavailable"));
    QCOMPARE(refused.json.value(QLatin1String("ledger")).toString(), QStringLiteral("cannot_write"));
    QCOMPARE(refused.header("Retry-After"), QByteArray("30"));
    const QString detail = refused.json.value(QLatin1String("detail")).toString();
    QVERIFY2(std::any_of(reasons.begin(), reasons.end(), [&](const QString &r) { return detail.contains(r); }),
             qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("nothing was written")), qPrintable(detail));
    const QString words = ApiError::fromHttp(refused.status, refused.body).userText();
    QVERIFY2(words.startsWith(QStringLiteral("The ledger cannot write (")), qPrintable(words));
}

} // namespace

class TestLedgerStorage : public QObject
{
    Q_OBJECT

private slots:
    void fullDiskIsUnavailableNotInternal();
    void fullFileSystemIsUnavailable();
    void readOnlyLedgerIsUnavailable();
    void postgresRefusalsAreUnavailable();

private:
    void fillUntilRefused(const QString &folder, const std::function<void(qint64 pid)> &constrain,
                          const std::function<void(qint64 pid)> &release, const QStringList &reasons);
};

void TestLedgerStorage::fillUntilRefused(const QString &folder, const std::function<void(qint64 pid)> &constrain,
                                         const std::function<void(qint64 pid)> &release, const QStringList &reasons)
{
    const QString db = QDir(folder).filePath(QStringLiteral("ledger.db"));
    const Run added = countersignd({QStringLiteral("user"), QStringLiteral("add"), QStringLiteral("agent-7"),
                                    QStringLiteral("--role"), QStringLiteral("agent"), QStringLiteral("--db"), db});
    QVERIFY2(added.exitCode == 0, qPrintable(added.err));
    const QString token = added.out.trimmed().section(u' ', -1);
    ServiceProcess serve;
    QString error;
    // SIGXFSZ ignored (inherited through exec): a file past the limit then fails with EFBIG, as
    // a full disk fails with ENOSPC, instead of killing the process.
    QVERIFY2(serve.start(QStringLiteral("/bin/sh"),
                         {QStringLiteral("-c"), QStringLiteral("trap '' XFSZ; exec \"$0\" \"$@\""), ApiHarness::countersigndBinary(),
                          QStringLiteral("serve"), QStringLiteral("--db"), db, QStringLiteral("--listen"),
                          QStringLiteral("127.0.0.1:0"), QStringLiteral("--no-executor")},
                         &error),
             qPrintable(error));
    ApiClient client(QUrl(serve.url().toString() + QStringLiteral("/api/v1")));
    QCOMPARE(client.get(QStringLiteral("/health/ready"), QString()).status, 200);
    constrain(serve.process().processId());

    const Filled filled = fill(client, token, 3000);
    qInfo() << filled.accepted << "proposals taken before the ledger could not grow";
    QVERIFY2(filled.refused.status != 0, "the ledger never filled up");
    checkCannotWrite(filled.refused, reasons);
    QCOMPARE(countActions(db), qint64(filled.accepted)); // the refused one left nothing
    const ApiReply notReady = client.get(QStringLiteral("/health/ready"), QString());
    QCOMPARE(notReady.status, 503);
    QVERIFY2(notReady.body.contains("failed writes since the last commit"), notReady.body.constData());

    release(serve.process().processId());
    const ApiReply again = client.propose(token, ApiClient::proposal(QStringLiteral("after-room-was-made")));
    QCOMPARE(again.status, 201);
    QCOMPARE(client.get(QStringLiteral("/health/ready"), QString()).status, 200);
    QVERIFY(serve.stop());
    const Run verified = countersignd({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), db,
                                       QStringLiteral("--witness"), db + QStringLiteral(".witness")});
    QVERIFY2(verified.exitCode == 0, qPrintable(verified.out + verified.err));
}

void TestLedgerStorage::fullDiskIsUnavailableNotInternal()
{
    SKIP_ON_POSTGRES("a SQLite file's storage (the PostgreSQL case is postgresRefusalsAreUnavailable)");
    QTemporaryDir dir;
    fillUntilRefused(
        dir.path(),
        [&](qint64 pid) {
            // Room for some proposals in the -wal, then none.
            const qint64 biggest = std::max(QFileInfo(dir.filePath(QStringLiteral("ledger.db"))).size(),
                                            QFileInfo(dir.filePath(QStringLiteral("ledger.db-wal"))).size());
            QVERIFY(setFileSizeLimit(pid, rlim_t(biggest + 256 * 1024)));
        },
        [](qint64 pid) { QVERIFY(setFileSizeLimit(pid, RLIM_INFINITY)); },
        {QStringLiteral("the ledger's disk is full"), QStringLiteral("the ledger's disk reported an I/O error")});
}

void TestLedgerStorage::fullFileSystemIsUnavailable()
{
    SKIP_ON_POSTGRES("a SQLite file's storage (the PostgreSQL case is postgresRefusalsAreUnavailable)");
    QTemporaryDir dir;
    const QString mountPoint = dir.filePath(QStringLiteral("small"));
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("small")));
    if (::mount("tmpfs", QFile::encodeName(mountPoint).constData(), "tmpfs", 0, "size=2m,mode=0700") != 0)
        QSKIP("mounting a small tmpfs is not allowed here (the RLIMIT_FSIZE case covers the same path)");
    const auto unmount = qScopeGuard([&] { ::umount2(QFile::encodeName(mountPoint).constData(), MNT_DETACH); });
    const QString ballast = QDir(mountPoint).filePath(QStringLiteral("ballast"));
    fillUntilRefused(
        mountPoint,
        [&](qint64) {
            // The file system filled by something else, up to a little room for the ledger.
            const qint64 room = QStorageInfo(mountPoint).bytesAvailable() - 256 * 1024;
            QFile file(ballast);
            QVERIFY(room > 0 && file.open(QIODevice::WriteOnly));
            QCOMPARE(file.write(QByteArray(int(room), 'x')), room);
        },
        [&](qint64) {
            // An operator makes room: the ballast goes.
            QVERIFY(QFile::remove(ballast));
        },
        {QStringLiteral("the ledger's disk is full"), QStringLiteral("the ledger's disk reported an I/O error")});
}

void TestLedgerStorage::readOnlyLedgerIsUnavailable()
{
    SKIP_ON_POSTGRES("a SQLite file's storage (the PostgreSQL case is postgresRefusalsAreUnavailable)");
    if (::geteuid() != 0)
        QSKIP("needs root to run serve as another user than the ledger's owner");
    QTemporaryDir dir;
    QVERIFY(QFile::setPermissions(dir.path(), QFileDevice::Permissions(0x7777)));
    const QString db = dir.filePath(QStringLiteral("ledger.db"));
    const Run added = countersignd({QStringLiteral("user"), QStringLiteral("add"), QStringLiteral("agent-7"),
                                    QStringLiteral("--role"), QStringLiteral("agent"), QStringLiteral("--db"), db});
    QVERIFY2(added.exitCode == 0, qPrintable(added.err));
    const QString token = added.out.trimmed().section(u' ', -1);
    QVERIFY(QFile::setPermissions(db, QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
    ServiceProcess serve;
    QString error;
    QVERIFY2(serve.start(QStringLiteral("/usr/bin/setpriv"),
                         {QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"), QStringLiteral("--clear-groups"),
                          ApiHarness::countersigndBinary(), QStringLiteral("serve"), QStringLiteral("--db"), db,
                          QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--no-executor")},
                         &error),
             qPrintable(error));
    ApiClient client(QUrl(serve.url().toString() + QStringLiteral("/api/v1")));
    const ApiReply ready = client.get(QStringLiteral("/health/ready"), QString());
    QCOMPARE(ready.status, 503);
    QVERIFY2(ready.body.contains("read-only"), ready.body.constData());
    const ApiReply refused = client.propose(token, ApiClient::proposal(QStringLiteral("into-a-read-only-file")));
    checkCannotWrite(refused, {QStringLiteral("the ledger file is read-only")});
    QCOMPARE(countActions(db), qint64(0));
    QVERIFY(serve.stop());
}

void TestLedgerStorage::postgresRefusalsAreUnavailable()
{
    if (!onPostgres())
        QSKIP("PostgreSQL's refusals (its _postgres run)");
    ApiHarness harness;
    QString error;
    QVERIFY2(harness.start(&error), qPrintable(error));
    ApiClient client(harness.api());
    const QString token = harness.token(QStringLiteral("agent-7"));
    QCOMPARE(client.propose(token, ApiClient::proposal(QStringLiteral("before"))).status, 201);
    QCOMPARE(client.get(QStringLiteral("/health/ready"), QString()).status, 200);
    const QString database = postgresDatabaseName(harness.dbPath());
    QSqlDatabase raw = openRawDatabase(harness.dbPath(), QStringLiteral("storage-raw"), &error);
    QVERIFY2(raw.isValid(), qPrintable(error));
    const auto run = [&](const QString &sql) {
        QSqlQuery q(raw);
        QVERIFY2(q.exec(sql), qPrintable(sql));
    };
    const auto renewSessions = [&] { PgCluster::shared().terminateBackends(database, QStringLiteral("countersignd%")); };

    run(QStringLiteral("ALTER DATABASE \"%1\" SET default_transaction_read_only = on").arg(database));
    renewSessions();
    checkCannotWrite(client.propose(token, ApiClient::proposal(QStringLiteral("read-only"))),
                     {QStringLiteral("the ledger database is read-only")});
    ApiReply ready = client.get(QStringLiteral("/health/ready"), QString());
    QCOMPARE(ready.status, 503);
    QVERIFY2(ready.body.contains("read-only"), ready.body.constData());
    run(QStringLiteral("ALTER DATABASE \"%1\" RESET default_transaction_read_only").arg(database));
    renewSessions();

    run(QStringLiteral("CREATE FUNCTION test_tablespace_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                       " RAISE EXCEPTION 'could not extend file \"base/16384/16390\": No space left on device'"
                       " USING ERRCODE = 'disk_full'; END $$"));
    run(QStringLiteral("CREATE TRIGGER test_tablespace_full BEFORE INSERT ON actions FOR EACH ROW"
                       " EXECUTE FUNCTION test_tablespace_full()"));
    checkCannotWrite(client.propose(token, ApiClient::proposal(QStringLiteral("tablespace-full"))),
                     {QStringLiteral("the ledger database's disk is full")});
    QCOMPARE(client.get(QStringLiteral("/health/ready"), QString()).status, 503);
    run(QStringLiteral("DROP TRIGGER test_tablespace_full ON actions"));

    QCOMPARE(client.propose(token, ApiClient::proposal(QStringLiteral("after"))).status, 201);
    QCOMPARE(client.get(QStringLiteral("/health/ready"), QString()).status, 200);
    raw.close();
    raw = QSqlDatabase();
    QSqlDatabase::removeDatabase(QStringLiteral("storage-raw"));
}

QTEST_GUILESS_MAIN(TestLedgerStorage)
#include "tst_ledger_storage.moc"
