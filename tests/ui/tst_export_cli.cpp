// `countersignd export` against the console's export (issue 17, docs/EXPORT.md): a real
// countersignd and paysim hold actions in several currencies and states, with text a
// spreadsheet would run; the console's exporters (ActionExportJob over the API, two rows a page;
// HistoryExportJob) and the CLI on the same ledger (ActionReader, 200 rows a page) must write the
// same bytes. Then what only the CLI has: --since/--until, standard output, its refusals (each
// leaving no file, and a file it would have replaced as it was).
#include "client/apiclient.h"
#include "client/apipagesource.h"
#include "client/historyexportjob.h"
#include "models/actionexport.h"
#include "models/actionexportjob.h"
#include "tests/client/backendprocess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace cs;

namespace {

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(no file)");
}

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run countersignd(const QStringList &arguments)
{
    QProcess process;
    process.start(QStringLiteral(COUNTERSIGND_BIN), arguments);
    Run run;
    if (!process.waitForFinished(60000))
        return run;
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QStringList ids(const QByteArray &csv)
{
    QStringList out;
    const QList<QByteArray> lines = csv.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        if (!lines.at(i).isEmpty())
            out << QString::fromUtf8(lines.at(i).left(lines.at(i).indexOf(',')));
    }
    return out;
}

} // namespace

class TestExportCli : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void actionsMatchTheConsole_data();
    void actionsMatchTheConsole();
    void historyMatchesTheConsole_data();
    void historyMatchesTheConsole();
    void standardOutputIsTheSameBytes();
    void sinceAndUntil();
    void refusals_data();
    void refusals();

private:
    QString exportWithConsole(const ActionQuery &query, ExportFormat format, const QString &name);
    QString propose(const QString &charge, qint64 amount, const QString &currency, const QString &reference,
                    const QString &businessReference);

    BackendProcess m_backend;
    QTemporaryDir m_dir;
    QHash<QString, QString> m_charges; // "<amount> <currency>" -> id
    QString m_completed;
    QString m_rejected;
    QStringList m_newestFirst;
};

QString TestExportCli::propose(const QString &charge, qint64 amount, const QString &currency,
                               const QString &reference, const QString &businessReference)
{
    const QJsonObject action = m_backend.propose(charge, amount, reference, businessReference, QStringLiteral("agent7"), currency);
    return action.value(QLatin1String("id")).toString();
}

void TestExportCli::initTestCase()
{
    QVERIFY2(m_backend.start(0), qPrintable(m_backend.error()));
    const struct { qint64 amount; const char *currency; } charges[] = {
        {10000, "usd"}, {8900, "usd"}, {2500, "usd"}, {12000, "jpy"}, {1250, "kwd"},
    };
    for (const auto &c : charges) {
        const auto made = m_backend.paysimAdmin("POST", QStringLiteral("/_sim/charges"),
                                                QJsonObject{{QStringLiteral("amounts"), QJsonArray{c.amount}},
                                                            {QStringLiteral("currency"), QLatin1String(c.currency)}});
        QVERIFY2(made.status == 200 || made.status == 201, qPrintable(QString::number(made.status)));
    }
    const QJsonArray all = m_backend.paysimAdmin("GET", QStringLiteral("/_sim/charges")).body.value(u"data").toArray();
    for (const QJsonValue &v : all) {
        const QJsonObject c = v.toObject();
        m_charges.insert(QStringLiteral("%1 %2").arg(c.value(u"amount").toInteger()).arg(c.value(u"currency").toString()),
                         c.value(u"id").toString());
    }
    QCOMPARE(m_charges.size(), 5);

    // Text a spreadsheet would run, a comma and quotes, umlauts, CJK and an emoji.
    const QStringList made = {
        propose(m_charges.value(QStringLiteral("10000 usd")), 4000, QStringLiteral("usd"), QStringLiteral("ref-a"),
                QStringLiteral("=HYPERLINK(\"http://example.com\",\"x\")")),
        propose(m_charges.value(QStringLiteral("12000 jpy")), 12000, QStringLiteral("jpy"), QStringLiteral("ref-b"),
                QStringLiteral("Bestellung M\u00fcller, 7")),
        propose(m_charges.value(QStringLiteral("1250 kwd")), 1250, QStringLiteral("kwd"), QStringLiteral("ref-c"),
                QStringLiteral("\u6ce8\u6587-3 \U0001F381")),
        propose(m_charges.value(QStringLiteral("2500 usd")), 2499, QStringLiteral("usd"), QStringLiteral("ref-d"),
                QStringLiteral("order \"4\"; -5 off")),
        propose(m_charges.value(QStringLiteral("8900 usd")), 8900, QStringLiteral("usd"), QStringLiteral("ref-e"),
                QStringLiteral("order-5")),
        // The first one's charge again: each is the other's possible duplicate.
        propose(m_charges.value(QStringLiteral("10000 usd")), 1000, QStringLiteral("usd"), QStringLiteral("ref-f"),
                QStringLiteral("order-6")),
    };
    for (const QString &id : made)
        QVERIFY2(id.startsWith(QStringLiteral("act_")), qPrintable(id));
    m_newestFirst = {made.at(5), made.at(4), made.at(3), made.at(2), made.at(1), made.at(0)};

    // One sent and COMPLETED (an attempt, an approval), then looked up; one rejected.
    m_completed = made.at(4);
    QCOMPARE(m_backend.post(QStringLiteral("ana"), QStringLiteral("/actions/%1/approvals").arg(m_completed),
                            QJsonObject{{QStringLiteral("note"), QStringLiteral("=ticket 5512, ok")}}, 1)
                 .status,
             200);
    QElapsedTimer timer;
    timer.start();
    while (m_backend.action(m_completed).value(u"state").toString() != u"COMPLETED" && timer.elapsed() < 30000)
        QThread::msleep(100);
    QCOMPARE(m_backend.action(m_completed).value(u"state").toString(), QStringLiteral("COMPLETED"));
    const qint64 version = m_backend.action(m_completed).value(u"state_version").toInteger();
    QCOMPARE(m_backend.post(QStringLiteral("sue"), QStringLiteral("/actions/%1/lookups").arg(m_completed), {}, version)
                 .status,
             200);
    m_rejected = made.at(1);
    QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(m_rejected),
                            QJsonObject{{QStringLiteral("reason"), QStringLiteral("duplicate")},
                                        {QStringLiteral("note"), QStringLiteral("already refunded, as credit")}},
                            1)
                 .status,
             200);
}

QString TestExportCli::exportWithConsole(const ActionQuery &query, ExportFormat format, const QString &name)
{
    ApiClient client;
    client.setBaseUrl(m_backend.url());
    client.setToken(m_backend.token(QStringLiteral("sue")));
    ApiPageSource source(&client);
    const QString path = m_dir.filePath(name);
    ActionExportJob job(&source, query, format, path);
    job.setPageSize(2); // several pages, where the CLI reads one
    QSignalSpy finished(&job, &ActionExportJob::finished);
    if (!finished.isValid())
        return QString();
    job.start();
    if (!finished.wait(20000) || job.outcome() != ExportOutcome::Written) {
        qWarning() << "console export failed:" << job.errorString();
        return QString();
    }
    return path;
}

void TestExportCli::actionsMatchTheConsole_data()
{
    QTest::addColumn<ExportFormat>("format");
    QTest::addColumn<QList<ActionState>>("states");
    QTest::addColumn<QString>("search");
    QTest::addColumn<QStringList>("cli");
    QTest::addColumn<int>("rows");

    for (const ExportFormat format : {ExportFormat::Csv, ExportFormat::Json}) {
        const QByteArray f = toWire(format).toLatin1();
        QTest::newRow(QByteArray(f + ": every action").constData()) << format << QList<ActionState>() << QString() << QStringList() << 6;
        QTest::newRow(QByteArray(f + ": the queue, search \"order\"").constData())
            << format << ActionQuery::queue().states << QStringLiteral("order")
            << QStringList{QStringLiteral("--state"), QStringLiteral("queue"), QStringLiteral("--search"), QStringLiteral("order")}
            << 2;
        QTest::newRow(QByteArray(f + ": done and rejected, two --state").constData())
            << format << QList<ActionState>{ActionState::Completed, ActionState::Rejected} << QString()
            << QStringList{QStringLiteral("--state"), QStringLiteral("COMPLETED"), QStringLiteral("--state"), QStringLiteral("rejected")}
            << 2;
        QTest::newRow(QByteArray(f + ": a search for an umlaut").constData())
            << format << QList<ActionState>() << QStringLiteral("M\u00fcller")
            << QStringList{QStringLiteral("--search"), QStringLiteral("M\u00fcller")} << 1;
        QTest::newRow(QByteArray(f + ": pending, nothing matches").constData())
            << format << QList<ActionState>{ActionState::Pending} << QStringLiteral("M\u00fcller")
            << QStringList{QStringLiteral("--state"), QStringLiteral("PENDING"), QStringLiteral("--search"), QStringLiteral("M\u00fcller")}
            << 0;
    }
}

void TestExportCli::actionsMatchTheConsole()
{
    QFETCH(ExportFormat, format);
    QFETCH(QList<ActionState>, states);
    QFETCH(QString, search);
    QFETCH(QStringList, cli);
    QFETCH(int, rows);

    ActionQuery query;
    query.states = states;
    query.search = search;
    const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(QRegularExpression(QStringLiteral("\\W+")), QStringLiteral("-"));
    const QString console = exportWithConsole(query, format, tag + QStringLiteral("-console.") + toWire(format));
    QVERIFY(!console.isEmpty());
    const QString cliPath = m_dir.filePath(tag + QStringLiteral("-cli.") + toWire(format));
    const Run run = countersignd(QStringList{QStringLiteral("export"), QStringLiteral("actions"), QStringLiteral("--db"),
                                             m_backend.ledgerPath(), QStringLiteral("--format"), toWire(format),
                                             QStringLiteral("--to"), cliPath}
                                 + cli);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.startsWith(QByteArray("exported " + QByteArray::number(rows) + " actions")), run.out.constData());

    const QByteArray bytes = readAll(cliPath);
    QCOMPARE(bytes, readAll(console));
    // Not two empty files: the rows are there.
    if (format == ExportFormat::Json)
        QCOMPARE(QJsonDocument::fromJson(bytes).array().size(), rows);
    else
        QCOMPARE(bytes.count("\r\n"), 1 + rows);
}

void TestExportCli::historyMatchesTheConsole_data()
{
    QTest::addColumn<ExportFormat>("format");
    QTest::addColumn<bool>("completed");
    QTest::newRow("csv: sent, completed, looked up") << ExportFormat::Csv << true;
    QTest::newRow("json: sent, completed, looked up") << ExportFormat::Json << true;
    QTest::newRow("csv: rejected") << ExportFormat::Csv << false;
    QTest::newRow("json: rejected") << ExportFormat::Json << false;
}

void TestExportCli::historyMatchesTheConsole()
{
    QFETCH(ExportFormat, format);
    QFETCH(bool, completed);
    const QString id = completed ? m_completed : m_rejected;

    ApiClient client;
    client.setBaseUrl(m_backend.url());
    client.setToken(m_backend.token(QStringLiteral("sue")));
    const QString consolePath = m_dir.filePath(id + QStringLiteral("-console.") + toWire(format));
    HistoryExportJob job(&client, id, format, consolePath);
    QSignalSpy finished(&job, &HistoryExportJob::finished);
    QVERIFY(finished.isValid());
    job.start();
    QVERIFY(finished.wait(20000));
    QVERIFY2(job.outcome() == ExportOutcome::Written, qPrintable(job.errorString()));

    const QString cliPath = m_dir.filePath(id + QStringLiteral("-cli.") + toWire(format));
    const Run run = countersignd({QStringLiteral("export"), QStringLiteral("history"), id, QStringLiteral("--db"),
                                  m_backend.ledgerPath(), QStringLiteral("--format"), toWire(format), QStringLiteral("--to"),
                                  cliPath});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QByteArray bytes = readAll(cliPath);
    QCOMPARE(bytes, readAll(consolePath));

    // What the history holds.
    if (format == ExportFormat::Json) {
        const QJsonObject json = QJsonDocument::fromJson(bytes).object();
        QCOMPARE(json.value(u"action").toObject().value(u"id").toString(), id);
        QCOMPARE(json.value(u"attempts").toArray().size(), completed ? 1 : 0);
        QCOMPARE(json.value(u"lookups").toArray().size(), completed ? 1 : 0);
        QCOMPARE(json.value(u"approvals").toArray().size(), 1);
        QVERIFY(json.value(u"audit").toArray().size() >= (completed ? 5 : 2));
        if (completed)
            QCOMPARE(json.value(u"action").toObject().value(u"amount").toString(), QStringLiteral("89.00"));
    } else {
        QVERIFY(bytes.contains(",action,,"));
        QCOMPARE(bytes.contains(",attempt,1,"), completed);
        QCOMPARE(bytes.contains(",lookup,1,"), completed);
        QVERIFY(bytes.contains(",approval,1,"));
        QVERIFY(bytes.contains(",audit,"));
        if (completed)
            QVERIFY(bytes.contains(",\"'=ticket 5512, ok\",")); // the approval's note, guarded and quoted
    }
}

void TestExportCli::standardOutputIsTheSameBytes()
{
    const QString path = m_dir.filePath(QStringLiteral("stdout-file.csv"));
    const QStringList base = {QStringLiteral("export"), QStringLiteral("actions"), QStringLiteral("--db"),
                              m_backend.ledgerPath(), QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("--to")};
    const Run toFile = countersignd(base + QStringList{path});
    QCOMPARE(toFile.exitCode, 0);
    const Run toStdout = countersignd(base + QStringList{QStringLiteral("-")});
    QVERIFY2(toStdout.exitCode == 0, toStdout.err.constData());
    QCOMPARE(toStdout.out, readAll(path));
    QCOMPARE(ids(toStdout.out), m_newestFirst);
}

void TestExportCli::sinceAndUntil()
{
    // Created times, as the export itself states them.
    const Run all = countersignd({QStringLiteral("export"), QStringLiteral("actions"), QStringLiteral("--db"),
                                  m_backend.ledgerPath(), QStringLiteral("--format"), QStringLiteral("json"),
                                  QStringLiteral("--to"), QStringLiteral("-")});
    QCOMPARE(all.exitCode, 0);
    const QJsonArray rows = QJsonDocument::fromJson(all.out).array();
    QCOMPARE(rows.size(), 6);
    QCOMPARE(rows.at(0).toObject().value(u"possible_duplicates").toInt(), 1);
    QCOMPARE(rows.at(5).toObject().value(u"possible_duplicates").toInt(), 1);
    const auto created = [&](int i) { return rows.at(i).toObject().value(u"created_at").toString(); };
    QVERIFY(created(1) != created(2) && created(2) != created(3)); // proposed one after another

    // --since is inclusive, --until exclusive: [created(3), created(1)) is rows 3 and 2.
    const Run window = countersignd({QStringLiteral("export"), QStringLiteral("actions"), QStringLiteral("--db"),
                                     m_backend.ledgerPath(), QStringLiteral("--format"), QStringLiteral("csv"),
                                     QStringLiteral("--since"), created(3), QStringLiteral("--until"), created(1),
                                     QStringLiteral("--to"), QStringLiteral("-")});
    QVERIFY2(window.exitCode == 0, window.err.constData());
    QCOMPARE(ids(window.out), (QStringList{m_newestFirst.at(2), m_newestFirst.at(3)}));

    // A date: that day from 00:00 UTC. Every action was made today.
    const QString today = QDateTime::currentDateTimeUtc().date().toString(Qt::ISODate);
    const QString tomorrow = QDateTime::currentDateTimeUtc().date().addDays(1).toString(Qt::ISODate);
    const Run byDay = countersignd({QStringLiteral("export"), QStringLiteral("actions"), QStringLiteral("--db"),
                                    m_backend.ledgerPath(), QStringLiteral("--format"), QStringLiteral("csv"),
                                    QStringLiteral("--since"), today, QStringLiteral("--to"), QStringLiteral("-")});
    QCOMPARE(ids(byDay.out), m_newestFirst);
    const Run none = countersignd({QStringLiteral("export"), QStringLiteral("actions"), QStringLiteral("--db"),
                                   m_backend.ledgerPath(), QStringLiteral("--format"), QStringLiteral("csv"),
                                   QStringLiteral("--since"), tomorrow, QStringLiteral("--to"), QStringLiteral("-")});
    QCOMPARE(none.exitCode, 0);
    QCOMPARE(ids(none.out), QStringList());
}

void TestExportCli::refusals_data()
{
    QTest::addColumn<QStringList>("arguments"); // after "export"; {db} and {to} are filled in
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");

    const auto args = [](std::initializer_list<const char *> list) {
        QStringList out;
        for (const char *a : list)
            out << QString::fromUtf8(a);
        return out;
    };
    QTest::newRow("no --format") << args({"actions", "--db", "{db}", "--to", "{to}"}) << 2
                                 << QStringLiteral("--format csv|json is required");
    QTest::newRow("--format xml") << args({"actions", "--db", "{db}", "--format", "xml", "--to", "{to}"}) << 2
                                  << QStringLiteral("--format \"xml\" is neither csv nor json");
    QTest::newRow("no --to") << args({"actions", "--db", "{db}", "--format", "csv"}) << 2
                             << QStringLiteral("--to FILE|- is required");
    QTest::newRow("no --db") << args({"actions", "--format", "csv", "--to", "{to}"}) << 2
                             << QStringLiteral("--db FILE|URI is required");
    QTest::newRow("an unknown state") << args({"actions", "--db", "{db}", "--state", "DONE", "--format", "csv", "--to", "{to}"})
                                      << 2 << QStringLiteral("--state \"DONE\" is not a state");
    QTest::newRow("a date that is none") << args({"actions", "--db", "{db}", "--since", "2026-02-30", "--format", "csv", "--to", "{to}"})
                                         << 2 << QStringLiteral("--since \"2026-02-30\" is neither a date");
    QTest::newRow("a time without offset") << args({"actions", "--db", "{db}", "--until", "2026-02-03T10:00:00", "--format", "csv",
                                                    "--to", "{to}"})
                                           << 2 << QStringLiteral("--until \"2026-02-03T10:00:00\" is neither");
    QTest::newRow("since after until") << args({"actions", "--db", "{db}", "--since", "2026-03-01", "--until", "2026-02-01",
                                                "--format", "csv", "--to", "{to}"})
                                       << 2 << QStringLiteral("--since must come before --until");
    QTest::newRow("an empty search") << args({"actions", "--db", "{db}", "--search", " ", "--format", "csv", "--to", "{to}"})
                                     << 2 << QStringLiteral("--search must be 1 to 200 characters");
    QTest::newRow("what to export") << args({"everything", "--db", "{db}", "--format", "csv", "--to", "{to}"}) << 2
                                    << QStringLiteral("\"everything\" is not something to export");
    QTest::newRow("history without an id") << args({"history", "--db", "{db}", "--format", "csv", "--to", "{to}"}) << 2
                                           << QStringLiteral("history takes one ACTION_ID");
    QTest::newRow("history with a filter") << args({"history", "act_x", "--state", "PENDING", "--db", "{db}", "--format", "csv",
                                                    "--to", "{to}"})
                                           << 2 << QStringLiteral("--state filters actions");
    QTest::newRow("an unknown option") << args({"actions", "--db", "{db}", "--format", "csv", "--colour", "--to", "{to}"}) << 2
                                       << QStringLiteral("Unknown option 'colour'");
    QTest::newRow("an unknown action") << args({"history", "act_nope", "--db", "{db}", "--format", "json", "--to", "{to}"}) << 1
                                       << QStringLiteral("no action act_nope in the ledger");
    QTest::newRow("a folder that does not exist") << args({"actions", "--db", "{db}", "--format", "csv", "--to", "{missing}"})
                                                  << 1 << QStringLiteral("cannot write");
    QTest::newRow("no ledger there") << args({"actions", "--db", "{nodb}", "--format", "csv", "--to", "{to}"}) << 1
                                     << QStringLiteral("no ledger at");
}

void TestExportCli::refusals()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    // An earlier export stands at --to: a refusal leaves it as it was.
    const QString to = m_dir.filePath(QStringLiteral("refused.csv"));
    {
        QFile old(to);
        QVERIFY(old.open(QIODevice::WriteOnly | QIODevice::Truncate));
        old.write("last month\n");
    }
    const QStringList before = QDir(m_dir.path()).entryList(QDir::Files);
    for (QString &a : arguments) {
        a.replace(QStringLiteral("{db}"), m_backend.ledgerPath());
        a.replace(QStringLiteral("{to}"), to);
        a.replace(QStringLiteral("{missing}"), m_dir.filePath(QStringLiteral("missing/out.csv")));
        a.replace(QStringLiteral("{nodb}"), m_dir.filePath(QStringLiteral("no-ledger.db")));
    }
    const Run run = countersignd(QStringList{QStringLiteral("export")} + arguments);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
    QVERIFY(run.out.isEmpty());
    QCOMPARE(readAll(to), QByteArray("last month\n"));
    QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files), before);
}

QTEST_MAIN(TestExportCli)
#include "tst_export_cli.moc"
