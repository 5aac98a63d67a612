// `countersignd backup --to FILE --db FILE` (issue 16, server/ledger/LedgerBackup): the real
// binary, on SQLite ledgers.
//
// - copiesALedgerServeIsWriting: a real `countersignd serve` takes proposals over HTTP without a
//   pause while three backups run; each copy is a standalone file (header not WAL, nothing beside
//   it, mode 0600) that `countersignd audit verify` accepts, whose action count lies between the
//   counts before and after its backup ran (writes did happen meanwhile), whose trigger-kept
//   counts agree with its rows and every action of which has its "proposed" audit row — what a
//   copy that caught a transaction in part, or missed the WAL, would not have — and what the
//   command printed is what the copy holds.
// - stoppedLedgerIsLeftAsItWas: with no countersignd running, the backup leaves no -wal or -shm
//   beside the ledger and its bytes unchanged.
// - refusalsLeaveNoFile: an existing FILE without --force, FILE the ledger (also via a symlink
//   and its -wal, the witness), a PostgreSQL URI (the message names pg_dump, pg_restore and audit verify),
//   an unwritable folder, a missing ledger, FILE a folder: a clear error, exit status non-zero,
//   the folder exactly as before (an existing FILE byte for byte).
// - forceReplacesWithACheckedCopy: --force replaces FILE, only with a copy that passed its checks.
// - failedCheckLeavesNoFile: a broken audit chain, a corrupt index page (integrity_check), a
//   schema newer than this program, a SQLite file that is no ledger, a file that is no SQLite
//   database, a ledger locked past the busy timeout: refused with the reason, nothing left (no
//   FILE, no partial file; with --force the old FILE intact).
// - deadBackupsLeftoversAreRemoved: what a backup killed outright left (FILE.partial-PID-XXXXXX
//   and its -journal) is removed by the next backup once PID is gone; a live process's partial
//   file and an old one without a pid are left alone.
// - interruptedBackupLeavesNoFile: a backup waiting for a locked ledger, its partial file made,
//   is ended by SIGTERM, SIGINT or SIGKILL: nothing under FILE's name (and for the first two, no
//   partial file either; after SIGKILL the next backup removes it).
#include "server/ledger/ledger.h"
#include "server/ledger/migrations.h"

#include "tests/api/apitestsupport.h"
#include "tests/server/countersigndrun.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <optional>

#include <csignal>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace cs;
using namespace cs::test;

namespace {

QStringList partialFiles(const QString &folder)
{
    return QDir(folder).entryList({QStringLiteral("*.partial-*")}, QDir::Files | QDir::Hidden);
}

// A ledger with `actions` proposals by agent-7, every third approved and every fifth rejected.
bool fillLedger(Ledger &ledger, int actions, const QString &prefix, QString *error)
{
    for (int i = 0; i < actions; ++i) {
        const auto proposed = ledger.proposals().propose(sampleInput(QStringLiteral("%1-%2").arg(prefix).arg(i), 100 + i), agent());
        if (!proposed.ok()) {
            *error = proposed.error().toString();
            return false;
        }
        const ActionRecord &record = proposed->record;
        if (i % 3 == 0) {
            if (const auto approved = ledger.approvals().approve(record.id, approver(), QStringLiteral("ok"), record.stateVersion);
                !approved.ok()) {
                *error = approved.error().toString();
                return false;
            }
        } else if (i % 5 == 0) {
            if (const auto rejected = ledger.approvals().reject(record.id, approver(), QStringLiteral("other"),
                                                                QStringLiteral("not this one"), record.stateVersion);
                !rejected.ok()) {
                *error = rejected.error().toString();
                return false;
            }
        }
    }
    return true;
}

bool makeLedger(const QString &path, int actions, QString *error)
{
    Ledger ledger;
    if (const LedgerError opened = ledger.open(path); !opened.ok()) {
        *error = opened.toString();
        return false;
    }
    return fillLedger(ledger, actions, QStringLiteral("fill"), error);
}

// Statements straight on a file (no ledger code): the tests' own edits and reads.
bool onFile(const QString &path, const QStringList &statements, QString *error,
            const std::function<void(QSqlQuery &)> &lastRows = {})
{
    bool ok = true;
    {
        QSqlDatabase db = openRawDatabase(path, QStringLiteral("backup.test.raw"), error);
        ok = db.isOpen();
        for (qsizetype i = 0; ok && i < statements.size(); ++i) {
            QSqlQuery q(db);
            if (!q.exec(statements.at(i))) {
                *error = q.lastError().text() + QStringLiteral(" [") + statements.at(i) + u']';
                ok = false;
            } else if (lastRows && i == statements.size() - 1) {
                lastRows(q);
            }
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("backup.test.raw"));
    return ok;
}

qint64 scalar(const QString &path, const QString &sql)
{
    qint64 value = -1;
    QString error;
    if (!onFile(path, {sql}, &error, [&value](QSqlQuery &q) {
            if (q.next())
                value = q.value(0).toLongLong();
        }))
        qWarning() << error;
    return value;
}

QString text(const QString &path, const QString &sql)
{
    QString value;
    QString error;
    if (!onFile(path, {sql}, &error, [&value](QSqlQuery &q) {
            if (q.next())
                value = q.value(0).toString();
        }))
        qWarning() << error;
    return value;
}

// A connection in exclusive locking mode that has read the ledger: it holds the file's lock until
// it goes, so a backup waits for it (its busy timeout, 5 s).
class LockHolder
{
public:
    explicit LockHolder(const QString &ledger)
    {
        QString error;
        QSqlDatabase db = openRawDatabase(ledger, kName, &error);
        QSqlQuery q(db);
        m_locked = db.isOpen() && q.exec(QStringLiteral("PRAGMA locking_mode = EXCLUSIVE"))
            && q.exec(QStringLiteral("SELECT COUNT(*) FROM actions")) && q.next();
        if (!m_locked)
            qWarning() << "cannot lock" << ledger << error << q.lastError().text();
    }
    ~LockHolder()
    {
        QSqlDatabase::database(kName, false).close();
        QSqlDatabase::removeDatabase(kName);
    }
    Q_DISABLE_COPY_MOVE(LockHolder)
    bool locked() const { return m_locked; }

private:
    static constexpr QLatin1StringView kName{"backup.test.holder"};
    bool m_locked = false;
};

// The figures the command printed: "actions N, audit rows M (...), head H".
struct Printed
{
    qint64 actions = -1;
    qint64 auditRows = -1;
    QString head;
};

Printed printed(const QString &out)
{
    Printed p;
    static const QRegularExpression figures(QStringLiteral("actions (\\d+), audit rows (\\d+) \\(hash chain verified\\)(?:, head ([0-9a-f]{64}))?"));
    const QRegularExpressionMatch m = figures.match(out);
    if (m.hasMatch()) {
        p.actions = m.captured(1).toLongLong();
        p.auditRows = m.captured(2).toLongLong();
        p.head = m.captured(3);
    }
    return p;
}

// What makes a file a checked, standalone copy, before anything opens it (an open by the ledger
// code would put it back into WAL mode): a SQLite header that says rollback journal, nothing
// beside it, mode 0600.
void verifyStandalone(const QString &copy)
{
    QFile file(copy);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(copy));
    const QByteArray header = file.read(100);
    QVERIFY(header.startsWith("SQLite format 3"));
    QCOMPARE(int(header.at(18)), 1); // write version: 1 rollback journal, 2 WAL
    QCOMPARE(int(header.at(19)), 1);
    for (const char *suffix : {"-wal", "-shm", "-journal"})
        QVERIFY2(!QFile::exists(copy + QLatin1String(suffix)), suffix);
    struct stat status = {};
    QCOMPARE(::stat(QFile::encodeName(copy).constData(), &status), 0);
    QCOMPARE(status.st_mode & 07777, mode_t(0600));
    QVERIFY(partialFiles(QFileInfo(copy).absolutePath()).isEmpty());
}

// The copy holds whole transactions: the trigger-kept counts agree with the rows, and every action
// has the one "proposed" audit row its proposal's transaction wrote (and no audit row names an
// action that is not there).
void verifyWholeTransactions(const QString &copy)
{
    QCOMPARE(scalar(copy, QStringLiteral("SELECT COUNT(*) FROM (SELECT state, COUNT(*) AS n FROM actions GROUP BY state) r"
                                         " LEFT JOIN action_state_counts c ON c.state = r.state WHERE c.n IS NOT r.n")),
             0);
    QCOMPARE(scalar(copy, QStringLiteral("SELECT COALESCE(SUM(n), 0) FROM action_state_counts")),
             scalar(copy, QStringLiteral("SELECT COUNT(*) FROM actions")));
    QCOMPARE(scalar(copy, QStringLiteral("SELECT COUNT(*) FROM actions a WHERE (SELECT COUNT(*) FROM audit"
                                         " WHERE action_id = a.id AND event = 'proposed') <> 1")),
             0);
    QCOMPARE(scalar(copy, QStringLiteral("SELECT COUNT(*) FROM audit WHERE action_id IS NOT NULL"
                                         " AND action_id NOT IN (SELECT id FROM actions)")),
             0);
}

} // namespace

class TestLedgerBackup : public QObject
{
    Q_OBJECT

private slots:
    void copiesALedgerServeIsWriting();
    void stoppedLedgerIsLeftAsItWas();
    void refusalsLeaveNoFile_data();
    void refusalsLeaveNoFile();
    void forceReplacesWithACheckedCopy();
    void failedCheckLeavesNoFile_data();
    void failedCheckLeavesNoFile();
    void deadBackupsLeftoversAreRemoved();
    void interruptedBackupLeavesNoFile_data();
    void interruptedBackupLeavesNoFile();
};

void TestLedgerBackup::copiesALedgerServeIsWriting()
{
    ApiHarness harness;
    QString error;
    QVERIFY2(harness.start(&error), qPrintable(error));
    const QString ledgerPath = harness.dbPath();
    // A few thousand actions first (by the test's own connection, beside the serving process), so
    // that a copy takes more than an instant.
    QVERIFY2(fillLedger(harness.ledger(), 1500, QStringLiteral("before"), &error), qPrintable(error));
    const auto count = [&harness] {
        const auto counts = harness.ledger().reader().counts(QString());
        qint64 total = 0;
        for (const qint64 n : *counts)
            total += n;
        return total;
    };
    ApiClient client(harness.api());
    const QString token = harness.token(QStringLiteral("agent-7"));
    int proposals = 0;
    const QString folder = QFileInfo(ledgerPath).absolutePath();
    for (int round = 0; round < 3; ++round) {
        const QString copy = QDir(folder).filePath(QStringLiteral("copy-%1.db").arg(round));
        const qint64 before = count();
        QProcess backup;
        backup.start(ApiHarness::countersigndBinary(),
                     {QStringLiteral("backup"), QStringLiteral("--db"), ledgerPath, QStringLiteral("--to"), copy});
        QVERIFY(backup.waitForStarted());
        // Proposals over HTTP, one after another, for as long as the backup runs (each waits for
        // its answer with the event loop running, which is also how the backup's end is seen).
        int during = 0;
        while (backup.state() != QProcess::NotRunning) {
            const ApiReply reply = client.propose(token, ApiClient::proposal(QStringLiteral("live-%1").arg(proposals++)));
            QCOMPARE(reply.status, 201);
            ++during;
        }
        QVERIFY(backup.state() == QProcess::NotRunning || backup.waitForFinished());
        const qint64 after = count();
        const QString out = QString::fromUtf8(backup.readAllStandardOutput());
        QVERIFY2(backup.exitStatus() == QProcess::NormalExit && backup.exitCode() == 0,
                 qPrintable(QString::fromUtf8(backup.readAllStandardError())));
        QVERIFY2(during > 0 && after > before, "nothing was written while the backup ran");

        verifyStandalone(copy);
        const qint64 copied = scalar(copy, QStringLiteral("SELECT COUNT(*) FROM actions"));
        QVERIFY2(copied >= before && copied <= after,
                 qPrintable(QStringLiteral("copy %1 actions, before %2, after %3").arg(copied).arg(before).arg(after)));
        verifyWholeTransactions(copy);
        const Printed figures = printed(out);
        QCOMPARE(figures.actions, copied);
        QCOMPARE(figures.auditRows, scalar(copy, QStringLiteral("SELECT COUNT(*) FROM audit")));
        QCOMPARE(figures.head, text(copy, QStringLiteral("SELECT hash FROM audit ORDER BY seq DESC LIMIT 1")));
        QVERIFY2(out.contains(QStringLiteral("bytes")) && out.contains(QStringLiteral(" s in all")), qPrintable(out));

        const Run verified = countersignd({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), copy});
        QCOMPARE(verified.exitCode, 0);
        QVERIFY2(verified.out.contains(QStringLiteral("audit log ok: %1 rows").arg(figures.auditRows)), qPrintable(verified.out));
        qInfo().noquote() << "round" << round << ":" << during << "proposals during the backup; copy" << copied
                          << "actions, before" << before << "after" << after;
    }
    QVERIFY(harness.countersignd().stop());
}

void TestLedgerBackup::stoppedLedgerIsLeftAsItWas()
{
    QTemporaryDir dir;
    const QString ledger = dir.filePath(QStringLiteral("ledger.db"));
    QString error;
    QVERIFY2(makeLedger(ledger, 20, &error), qPrintable(error));
    const QStringList before = listing(dir.path());
    QCOMPARE(before.size(), 1); // the ledger alone: its last close removed -wal and -shm
    const QString copy = dir.filePath(QStringLiteral("copy.db"));
    const Run run = countersignd({QStringLiteral("backup"), QStringLiteral("--db"), ledger, QStringLiteral("--to"), copy});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    verifyStandalone(copy);
    QStringList after = listing(dir.path());
    after.removeIf([](const QString &line) { return line.startsWith(QLatin1String("copy.db ")); });
    QCOMPARE(after, before);
    QCOMPARE(scalar(copy, QStringLiteral("SELECT COUNT(*) FROM actions")), 20);
}

void TestLedgerBackup::refusalsLeaveNoFile_data()
{
    QTest::addColumn<QString>("target");     // relative to the folder ("" : none)
    QTest::addColumn<QString>("ledger");     // --db, relative ("" : the ledger)
    QTest::addColumn<bool>("force");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("message"); // phrases of stderr

    QTest::newRow("FILE exists, no --force") << "existing.db" << "" << false << 2
                                              << QStringList{QStringLiteral("existing.db exists; not replaced (--force replaces it)")};
    QTest::newRow("FILE is the ledger") << "ledger.db" << "" << true << 2 << QStringList{QStringLiteral("is the ledger itself")};
    QTest::newRow("FILE is the ledger by another path") << "sub/../ledger.db" << "" << true << 2
                                                        << QStringList{QStringLiteral("is the ledger itself")};
    QTest::newRow("FILE is a symlink to the ledger") << "link.db" << "" << true << 2
                                                     << QStringList{QStringLiteral("is the ledger itself")};
    QTest::newRow("FILE is the ledger's -wal") << "ledger.db-wal" << "" << true << 2
                                               << QStringList{QStringLiteral("is the ledger's own wal file")};
    QTest::newRow("FILE is the ledger's witness") << "ledger.db.witness" << "" << true << 2
                                                  << QStringList{QStringLiteral("is the ledger's own witness file")};
    QTest::newRow("FILE is another database's -journal") << "existing-db.db-journal" << "" << true << 2
                                                         << QStringList{QStringLiteral("is the journal file of the SQLite database")};
    QTest::newRow("PostgreSQL URI")
        << "ledger.dump" << "postgresql://countersign@db.example.com:5432/ledger" << false << 2
        << QStringList{QStringLiteral("pg_dump --format=custom --file='"),
                       QStringLiteral("ledger.dump' 'postgresql://countersign@db.example.com:5432/ledger'"),
                       QStringLiteral("pg_restore --single-transaction"), QStringLiteral("EMPTY database"),
                       QStringLiteral("countersignd audit verify --db")};
    QTest::newRow("unwritable folder") << "readonly/copy.db" << "" << false << 1
                                       << QStringList{QStringLiteral("cannot create the copy in"), QStringLiteral("readonly")};
    QTest::newRow("no folder") << "missing/copy.db" << "" << false << 2 << QStringList{QStringLiteral("no folder")};
    QTest::newRow("FILE is a folder") << "sub" << "" << true << 2 << QStringList{QStringLiteral("is a folder")};
    QTest::newRow("no ledger") << "copy.db" << "absent.db" << false << 2 << QStringList{QStringLiteral("no ledger file")};
    QTest::newRow("--to missing") << "" << "" << false << 2 << QStringList{QStringLiteral("usage: countersignd backup")};
}

void TestLedgerBackup::refusalsLeaveNoFile()
{
    QFETCH(QString, target);
    QFETCH(QString, ledger);
    QFETCH(bool, force);
    QFETCH(int, exitCode);
    QFETCH(QStringList, message);

    QTemporaryDir dir;
    const QString ledgerPath = dir.filePath(QStringLiteral("ledger.db"));
    QString error;
    QVERIFY2(makeLedger(ledgerPath, 5, &error), qPrintable(error));
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("sub")));
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("readonly")));
    QVERIFY(QFile::setPermissions(dir.filePath(QStringLiteral("readonly")),
                                  QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup
                                      | QFile::ReadOther | QFile::ExeOther));
    // Run as nobody (see countersignd()), the child must be able to reach the ledger to get as far
    // as the folder.
    QVERIFY(QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeGroup
                                                  | QFile::ExeOther));
    QVERIFY(QFile::link(ledgerPath, dir.filePath(QStringLiteral("link.db"))));
    {
        QFile existing(dir.filePath(QStringLiteral("existing.db")));
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.write("yesterday's copy\n");
        QFile database(dir.filePath(QStringLiteral("existing-db.db")));
        QVERIFY(database.open(QIODevice::WriteOnly));
        database.write(QByteArray("SQLite format 3\0", 16) + QByteArray(84, '\0'));
    }
    const QStringList before = listing(dir.path());

    QStringList arguments = {QStringLiteral("backup"), QStringLiteral("--db"),
                             ledger.isEmpty() ? ledgerPath : ledger.contains(u':') ? ledger : dir.filePath(ledger)};
    if (!target.isEmpty())
        arguments << QStringLiteral("--to") << dir.filePath(target);
    if (force)
        arguments << QStringLiteral("--force");
    const Run run = countersignd(arguments, QTest::currentDataTag() == QByteArrayView("unwritable folder"));
    QCOMPARE(run.exitCode, exitCode);
    for (const QString &phrase : std::as_const(message))
        QVERIFY2(run.err.contains(phrase), qPrintable(run.err));
    QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
    QCOMPARE(listing(dir.path()), before);
}

void TestLedgerBackup::forceReplacesWithACheckedCopy()
{
    QTemporaryDir dir;
    const QString ledger = dir.filePath(QStringLiteral("ledger.db"));
    QString error;
    QVERIFY2(makeLedger(ledger, 12, &error), qPrintable(error));
    const QString copy = dir.filePath(QStringLiteral("copy.db"));
    {
        QFile existing(copy);
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.write("yesterday's copy\n");
    }
    const Run run = countersignd({QStringLiteral("backup"), QStringLiteral("--db"), ledger, QStringLiteral("--to"), copy,
                                  QStringLiteral("--force")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    verifyStandalone(copy);
    QCOMPARE(scalar(copy, QStringLiteral("SELECT COUNT(*) FROM actions")), 12);
}

void TestLedgerBackup::failedCheckLeavesNoFile_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<bool>("force"); // with an existing FILE, which must survive
    QTest::addColumn<QString>("message");

    for (const bool force : {false, true}) {
        const char *suffix = force ? ", --force over an existing FILE" : "";
        QTest::addRow("broken audit chain%s", suffix) << "chain" << force << "the audit chain is broken at seq 3";
        QTest::addRow("corrupt index page%s", suffix) << "page" << force << "fails PRAGMA integrity_check";
        QTest::addRow("schema newer than this program%s", suffix) << "schema" << force << "newer than this program's";
        QTest::addRow("not a ledger%s", suffix) << "foreign" << force << "is not a Countersign ledger";
        QTest::addRow("not a SQLite file%s", suffix) << "text" << force << "file is not a database";
        QTest::addRow("locked past the busy timeout%s", suffix) << "locked" << force << "stayed locked for 5000 ms";
    }
}

void TestLedgerBackup::failedCheckLeavesNoFile()
{
    QFETCH(QString, damage);
    QFETCH(bool, force);
    QFETCH(QString, message);

    QTemporaryDir dir;
    const QString ledger = dir.filePath(QStringLiteral("ledger.db"));
    QString error;
    if (damage == u"text") {
        QFile file(ledger);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray("not a database, but long enough to look like one at a glance\n").repeated(40));
    } else if (damage == u"foreign") {
        QVERIFY2(onFile(ledger, {QStringLiteral("CREATE TABLE notes (body TEXT)"), QStringLiteral("INSERT INTO notes VALUES ('hi')")},
                        &error),
                 qPrintable(error));
    } else {
        QVERIFY2(makeLedger(ledger, 60, &error), qPrintable(error));
    }
    if (damage == u"chain") {
        QVERIFY2(onFile(ledger, {QStringLiteral("DROP TRIGGER audit_no_update"),
                                 QStringLiteral("UPDATE audit SET reason = 'edited' WHERE seq = 3")},
                        &error),
                 qPrintable(error));
    } else if (damage == u"schema") {
        QVERIFY2(onFile(ledger, {QStringLiteral("INSERT INTO schema_version (version, name, applied_at) VALUES (%1, 'future', 0)")
                                     .arg(Migrations::latestVersion() + 1)},
                        &error),
                 qPrintable(error));
    } else if (damage == u"page") {
        // The root page of an index, zeroed in the file (the ledger is closed: its WAL was folded
        // in). The backup copies pages as they are; integrity_check of the copy finds it.
        const qint64 page = scalar(ledger, QStringLiteral("SELECT rootpage FROM sqlite_master WHERE name = 'audit_by_action'"));
        const qint64 pageSize = scalar(ledger, QStringLiteral("PRAGMA page_size"));
        QVERIFY(page > 1 && pageSize >= 512);
        QVERIFY(!QFile::exists(ledger + QStringLiteral("-wal")));
        QFile file(ledger);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.seek((page - 1) * pageSize));
        QCOMPARE(file.write(QByteArray(int(pageSize), '\0')), pageSize);
    }
    const QString copy = dir.filePath(QStringLiteral("copy.db"));
    if (force) {
        QFile existing(copy);
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.write("yesterday's copy\n");
    }
    // Read before the lock is taken: closing any descriptor of the file would drop this process's
    // POSIX locks on it, SQLite's included.
    const QStringList before = listing(dir.path());
    std::optional<LockHolder> holder;
    if (damage == u"locked") {
        holder.emplace(ledger);
        QVERIFY(holder->locked());
    }
    QStringList arguments = {QStringLiteral("backup"), QStringLiteral("--db"), ledger, QStringLiteral("--to"), copy};
    if (force)
        arguments << QStringLiteral("--force");
    const Run run = countersignd(arguments);
    holder.reset();
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
    QCOMPARE(listing(dir.path()), before);
}

void TestLedgerBackup::deadBackupsLeftoversAreRemoved()
{
    QTemporaryDir dir;
    const QString ledger = dir.filePath(QStringLiteral("ledger.db"));
    QString error;
    QVERIFY2(makeLedger(ledger, 5, &error), qPrintable(error));
    const QString copy = dir.filePath(QStringLiteral("copy.db"));
    // A process that has ended: its pid names the leftovers of a backup killed mid-step (the
    // partial file and the -journal SQLite kept beside it, issue 34).
    QProcess gone;
    gone.start(QStringLiteral("/bin/sleep"), {QStringLiteral("0.1")});
    QVERIFY(gone.waitForStarted());
    const qint64 deadPid = gone.processId();
    QVERIFY(gone.waitForFinished());
    QVERIFY(deadPid > 0 && ::kill(pid_t(deadPid), 0) != 0);
    const QString dead = copy + QStringLiteral(".partial-%1-Ab12Cd").arg(deadPid);
    // One of a backup still running (this test process) and one without a pid (older releases).
    const QString live = copy + QStringLiteral(".partial-%1-Ef34Gh").arg(::getpid());
    const QString old = copy + QStringLiteral(".partial-Ij56Kl");
    for (const QString &path : QStringList{dead, dead + QStringLiteral("-journal"), live, old}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("half a copy");
    }
    const Run run = countersignd({QStringLiteral("backup"), QStringLiteral("--db"), ledger, QStringLiteral("--to"), copy});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY(QFile::exists(copy));
    QStringList left = partialFiles(dir.path());
    left.sort();
    QStringList expected = {QFileInfo(old).fileName(), QFileInfo(live).fileName()};
    expected.sort();
    QCOMPARE(left, expected);
}

void TestLedgerBackup::interruptedBackupLeavesNoFile_data()
{
    QTest::addColumn<int>("signal");
    QTest::addColumn<bool>("partialRemoved");

    QTest::newRow("SIGTERM") << int(SIGTERM) << true;
    QTest::newRow("SIGINT") << int(SIGINT) << true;
    QTest::newRow("SIGKILL") << int(SIGKILL) << false; // nothing can run: the partial file stays, FILE does not appear
}

void TestLedgerBackup::interruptedBackupLeavesNoFile()
{
    QFETCH(int, signal);
    QFETCH(bool, partialRemoved);

    QTemporaryDir dir;
    const QString ledger = dir.filePath(QStringLiteral("ledger.db"));
    QString error;
    QVERIFY2(makeLedger(ledger, 30, &error), qPrintable(error));
    const QString copy = dir.filePath(QStringLiteral("copy.db"));
    {
        // The ledger held in exclusive locking mode: the backup has made its partial file and
        // waits for the lock when the signal comes.
        const LockHolder holder(ledger);
        QVERIFY(holder.locked());
        QProcess backup;
        backup.start(ApiHarness::countersigndBinary(),
                     {QStringLiteral("backup"), QStringLiteral("--db"), ledger, QStringLiteral("--to"), copy});
        QVERIFY(backup.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(!partialFiles(dir.path()).isEmpty(), 4000);
        // Still waiting for the lock half a second on (an unhindered backup of this ledger takes
        // a few tens of ms): the signal comes mid-backup.
        QVERIFY(!backup.waitForFinished(500));
        QCOMPARE(backup.state(), QProcess::Running);
        QCOMPARE(::kill(pid_t(backup.processId()), signal), 0);
        QVERIFY(backup.waitForFinished(10000));
        QCOMPARE(backup.exitStatus(), QProcess::CrashExit); // ended by the signal, as it would have been
        QVERIFY2(!QFile::exists(copy), "a file appeared under FILE's name");
        for (const char *suffix : {"", "-journal", "-wal", "-shm"})
            QVERIFY2(!QFile::exists(copy + QLatin1String(suffix)), suffix);
        if (partialRemoved)
            QCOMPARE(partialFiles(dir.path()), QStringList());
        else
            QVERIFY(!partialFiles(dir.path()).isEmpty()); // SIGKILL: nothing could run
    }
    // The lock gone, the same backup goes through — and removes what the killed one left, named
    // after its process, which is gone (issue 34: FILE.partial-PID-XXXXXX and any sibling).
    const Run run = countersignd({QStringLiteral("backup"), QStringLiteral("--db"), ledger, QStringLiteral("--to"), copy});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    verifyStandalone(copy);
    QCOMPARE(partialFiles(dir.path()), QStringList());
}

QTEST_GUILESS_MAIN(TestLedgerBackup)
#include "tst_ledger_backup.moc"
