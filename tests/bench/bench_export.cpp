// bench_export: how long an export of a whole ledger takes (issue 17, docs/EXPORT.md), the
// console's way and the CLI's, and whether they wrote the same bytes.
//
// On a SQLite ledger given with --db (for example bench_console --actions 10000 --keep DIR leaves
// DIR/large.db), it starts a real countersignd (--no-executor) on a copy, adds an auditor, and
// for CSV and JSON, --runs times each (median printed):
//   console  ActionExportJob over the API (ApiClient + ApiPageSource, 200 rows a page) into a
//            file, as File → Export does
//   cli      countersignd export actions --db COPY --format F --to FILE, as a process
// then the bytes and rows of each file and whether the two are identical. Not a test: it never
// fails on figures.
//
// Usage: bench_export --db FILE [--runs N]

#include "client/apiclient.h"
#include "client/apipagesource.h"
#include "models/actionexportjob.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>

namespace {

QTextStream &out()
{
    static QTextStream stream(stdout);
    return stream;
}

int fail(const QString &message)
{
    QTextStream(stderr) << "bench_export: " << message << Qt::endl;
    return 1;
}

double median(QList<double> values)
{
    std::sort(values.begin(), values.end());
    return values.isEmpty() ? 0 : values.at(values.size() / 2);
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption dbOption(QStringLiteral("db"), QStringLiteral("A SQLite ledger (copied, not changed)."),
                                      QStringLiteral("FILE"));
    const QCommandLineOption runsOption(QStringLiteral("runs"), QStringLiteral("Runs of each."), QStringLiteral("N"),
                                        QStringLiteral("3"));
    parser.addOptions({dbOption, runsOption});
    parser.process(app);
    if (!parser.isSet(dbOption))
        return fail(QStringLiteral("--db FILE is required"));
    const int runs = qMax(1, parser.value(runsOption).toInt());

    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("ledger.db"));
    if (!QFile::copy(parser.value(dbOption), db))
        return fail(QStringLiteral("cannot copy %1").arg(parser.value(dbOption)));
    const QString countersignd = QStringLiteral(COUNTERSIGND_BIN);

    QProcess add;
    add.start(countersignd, {QStringLiteral("user"), QStringLiteral("add"), QStringLiteral("bench-auditor"),
                             QStringLiteral("--role"), QStringLiteral("auditor"), QStringLiteral("--db"), db});
    if (!add.waitForFinished(60000) || add.exitCode() != 0)
        return fail(QStringLiteral("user add failed: ") + QString::fromUtf8(add.readAllStandardError()));
    const QString token = QString::fromUtf8(add.readAllStandardOutput()).trimmed().split(QLatin1Char(' ')).constLast();

    QProcess server;
    server.setStandardErrorFile(dir.filePath(QStringLiteral("countersignd.log")));
    server.start(countersignd, {QStringLiteral("serve"), QStringLiteral("--db"), db, QStringLiteral("--listen"),
                                QStringLiteral("127.0.0.1:0"), QStringLiteral("--no-executor")});
    QElapsedTimer wait;
    wait.start();
    while (!server.canReadLine() && wait.elapsed() < 60000 && server.state() != QProcess::NotRunning)
        server.waitForReadyRead(100);
    const QUrl url(QString::fromUtf8(server.readLine()).trimmed());
    if (!url.isValid() || url.port() <= 0)
        return fail(QStringLiteral("countersignd did not start"));

    out() << "export of every action of " << parser.value(dbOption) << ", median of " << runs << " runs\n";
    out() << QStringLiteral("%1 %2 %3 %4 %5").arg(QStringLiteral("format"), -8).arg(QStringLiteral("how"), -9)
                 .arg(QStringLiteral("seconds"), 9).arg(QStringLiteral("rows"), 8).arg(QStringLiteral("bytes"), 10)
          << "\n";
    bool same = true;
    for (const cs::ExportFormat format : {cs::ExportFormat::Csv, cs::ExportFormat::Json}) {
        const QString suffix = cs::toWire(format);
        const QString consolePath = dir.filePath(QStringLiteral("console.") + suffix);
        const QString cliPath = dir.filePath(QStringLiteral("cli.") + suffix);
        QList<double> consoleSeconds;
        QList<double> cliSeconds;
        qint64 rows = 0;
        for (int run = 0; run < runs; ++run) {
            cs::ApiClient client;
            client.setBaseUrl(url);
            client.setToken(token);
            cs::ApiPageSource source(&client);
            cs::ActionExportJob job(&source, cs::ActionQuery::allStates(), format, consolePath);
            QElapsedTimer timer;
            timer.start();
            QObject::connect(&job, &cs::ActionExportJob::finished, &app, &QCoreApplication::quit);
            job.start();
            app.exec();
            consoleSeconds << timer.nsecsElapsed() / 1e9;
            if (job.outcome() != cs::ExportOutcome::Written)
                return fail(QStringLiteral("the console's export failed: ") + job.errorString());
            rows = job.rowsWritten();

            QProcess cli;
            timer.restart();
            cli.start(countersignd, {QStringLiteral("export"), QStringLiteral("actions"), QStringLiteral("--db"), db,
                                     QStringLiteral("--format"), suffix, QStringLiteral("--to"), cliPath});
            if (!cli.waitForFinished(600000) || cli.exitCode() != 0)
                return fail(QStringLiteral("countersignd export failed: ") + QString::fromUtf8(cli.readAllStandardError()));
            cliSeconds << timer.nsecsElapsed() / 1e9;
        }
        const QByteArray consoleBytes = readAll(consolePath);
        const QByteArray cliBytes = readAll(cliPath);
        same = same && consoleBytes == cliBytes;
        out() << QStringLiteral("%1 %2 %3 %4 %5").arg(suffix, -8).arg(QStringLiteral("console"), -9)
                     .arg(median(consoleSeconds), 9, 'f', 2).arg(rows, 8).arg(consoleBytes.size(), 10)
              << "\n";
        out() << QStringLiteral("%1 %2 %3 %4 %5").arg(suffix, -8).arg(QStringLiteral("cli"), -9)
                     .arg(median(cliSeconds), 9, 'f', 2).arg(rows, 8).arg(cliBytes.size(), 10)
              << "\n";
    }
    out() << (same ? "the console's and the CLI's files are identical" : "the console's and the CLI's files DIFFER")
          << Qt::endl;
    server.terminate();
    server.waitForFinished(10000);
    return same ? 0 : 1;
}
