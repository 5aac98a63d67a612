// bench_console: how the console's start, search and sorted first page scale with the ledger.
//
// In one run it builds two ledgers with direct SQL inserts in one transaction each — one of 10
// actions (all in the queue) and one of 1,000,000 actions (100,000 in the queue: PENDING,
// CONFIRMATION_UNKNOWN, REQUIRES_REVIEW; the rest COMPLETED or REJECTED) — starts a real
// countersignd on each (--no-executor: nothing is sent), and runs the real console (this program
// in --child mode: QApplication + MainWindow + ApiClient, offscreen) against each, several times,
// interleaved. It prints, per ledger (median of the runs):
//   first page   process start → the first queue page painted
//   search       the search submitted → its first page painted (one matching action, old:
//                the worst case for the backend's substring search)
//   sorted       a click on the Amount header (the queue, unsearched) → the backend's first
//                page in that order painted
//   peak RSS     VmHWM of the console process
// and the ratios large/small against the goal (≤ 1.5× the times, ≤ +50 MB of memory).
// Not a test: it never fails on figures. docs/PERFORMANCE.md records them.
//
// Usage: bench_console [--actions N] [--queue N] [--runs N] [--keep DIR [--reuse]]

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actionqueuemodel.h"
#include "tests/bench/benchstats.h"
#include "ui/consolesettings.h"
#include "ui/mainwindow.h"
#include "ui/queueview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>
#include <QTableView>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>

#ifndef COUNTERSIGND_BIN
#error "COUNTERSIGND_BIN must name the countersignd executable"
#endif

using cs::bench::median;

namespace {

QTextStream &out()
{
    static QTextStream stream(stdout);
    return stream;
}

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

// Wall-clock microseconds: comparable between the parent and the console process, finer than
// the milliseconds a 3 ms search would be rounded to.
qint64 nowUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

qint64 peakRssKb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

QString orderOf(qint64 n)
{
    return QStringLiteral("ord-%1").arg(n, 7, 10, QLatin1Char('0'));
}

// ---- child: the console, measured --------------------------------------------------------------

// Records the first paint of the queue's viewport after `armed` became true.
class PaintProbe : public QObject
{
public:
    std::function<bool()> armed;
    std::function<void()> painted;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && armed && armed() && painted) {
            auto done = std::move(painted);
            painted = nullptr;
            // After this paint has been carried out.
            QTimer::singleShot(0, this, [done] { done(); });
        }
        return QObject::eventFilter(watched, event);
    }
};

int runChild(QApplication &app, const QString &backend, const QString &token, const QString &search, qint64 parentStartUs)
{
    QTemporaryDir dir;
    cs::ConsoleSettings settings(dir.filePath(QStringLiteral("bench.ini")));
    cs::ApiClient client;
    client.setBaseUrl(QUrl(backend));
    client.setToken(token);
    client.setDeadline(std::chrono::seconds(60));
    cs::EventStreamClient events;
    events.setBaseUrl(QUrl(backend));
    events.setToken(token);
    cs::MainWindow window(&client, &events, &settings);
    window.resize(1440, 900);

    QJsonObject result;
    PaintProbe probe;
    cs::ActionQueueModel *model = window.queueModel();
    QWidget *viewport = window.queueView()->table()->viewport();
    viewport->installEventFilter(&probe);
    bool searching = false;
    qint64 searchStart = 0;
    probe.armed = [&] { return !model->isLoading() && model->rowCount() > 0; };
    probe.painted = [&] {
        result.insert(QStringLiteral("first_page_ms"), double(nowUs() - parentStartUs) / 1000.0);
        result.insert(QStringLiteral("first_page_rows"), model->rowCount());
        // Now the search, as a reviewer types it and presses Enter.
        QTimer::singleShot(300, &app, [&] {
            searching = true;
            probe.armed = [&] { return searching && !model->isLoading() && model->query().search == search; };
            probe.painted = [&] {
                result.insert(QStringLiteral("search_ms"), double(nowUs() - searchStart) / 1000.0);
                result.insert(QStringLiteral("search_rows"), model->rowCount());
                // Then the whole queue again, and a click on the Amount header: the backend's
                // sorted first page (largest first), measured from the click to its paint.
                QTimer::singleShot(200, &app, [&] {
                    probe.armed = [&] { return !model->isLoading() && model->query().search.isEmpty(); };
                    probe.painted = [&] {
                        QTimer::singleShot(200, &app, [&] {
                            probe.armed = [&] {
                                return !model->isLoading() && model->query().sort == cs::ActionQuery::SortKey::Amount;
                            };
                            probe.painted = [&] {
                                result.insert(QStringLiteral("sorted_ms"), double(nowUs() - searchStart) / 1000.0);
                                result.insert(QStringLiteral("sorted_rows"), model->rowCount());
                                result.insert(QStringLiteral("peak_rss_kb"), peakRssKb());
                                out() << QJsonDocument(result).toJson(QJsonDocument::Compact) << Qt::endl;
                                app.exit(0);
                            };
                            searchStart = nowUs();
                            window.queueView()->setSort(cs::ActionQuery::SortKey::Amount, true);
                            viewport->update();
                        });
                    };
                    window.queueView()->apply(cs::QueueView::Filter::Queue, QString());
                    viewport->update();
                });
            };
            searchStart = nowUs();
            // The backend's answer, parsed into the model (the rest is the view's layout and paint).
            QObject::connect(model, &cs::ActionQueueModel::pageLoaded, &app, [&] {
                if (!result.contains(QStringLiteral("search_answer_ms")) && model->query().search == search)
                    result.insert(QStringLiteral("search_answer_ms"), double(nowUs() - searchStart) / 1000.0);
            });
            window.queueView()->apply(cs::QueueView::Filter::Queue, search);
            viewport->update();
        });
    };
    QTimer::singleShot(120000, &app, [&app] {
        QTextStream(stderr) << "bench_console: the console did not finish in 120 s" << Qt::endl;
        app.exit(1);
    });
    window.show();
    window.start();
    return app.exec();
}

// ---- parent: ledgers, backends, runs ---------------------------------------------------------

struct Ledger
{
    QString name;
    qint64 actions = 0;
    qint64 queue = 0;
    QString path;
    QString token;
    QString search;
    std::unique_ptr<QProcess> server;
    QString url;
};

bool check(int rc, sqlite3 *db, const char *what)
{
    if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW)
        return true;
    QTextStream(stderr) << "bench_console: " << what << ": " << sqlite3_errmsg(db) << Qt::endl;
    return false;
}

// The number of actions in an existing ledger file, -1 if there is none or it cannot be read.
qint64 existingActions(const QString &path)
{
    if (!QFile::exists(path))
        return -1;
    sqlite3 *db = nullptr;
    qint64 n = -1;
    if (sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt *count = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM actions", -1, &count, nullptr) == SQLITE_OK && sqlite3_step(count) == SQLITE_ROW)
            n = sqlite3_column_int64(count, 0);
        sqlite3_finalize(count);
    }
    sqlite3_close(db);
    return n;
}

// reuse: keep a ledger file from an earlier --keep run when it holds the same number of actions
// (writing 10^6 actions with their search index takes about 90 s).
bool buildLedger(Ledger &ledger, const QString &dir, bool reuse)
{
    ledger.path = dir + QStringLiteral("/") + ledger.name + QStringLiteral(".db");
    const bool reused = reuse && existingActions(ledger.path) == ledger.actions;
    if (!reused) {
        for (const char *suffix : { "", "-wal", "-shm" })
            QFile::remove(ledger.path + QLatin1String(suffix));
    }
    // countersignd creates the schema (all migrations) and the console's user.
    QProcess add;
    const QString user = QStringLiteral("bench-approver-%1").arg(nowMs());
    add.start(QStringLiteral(COUNTERSIGND_BIN), { QStringLiteral("user"), QStringLiteral("add"), user,
                                                  QStringLiteral("--role"), QStringLiteral("approver"), QStringLiteral("--db"), ledger.path });
    if (!add.waitForFinished(60000) || add.exitCode() != 0) {
        QTextStream(stderr) << "bench_console: user add failed: " << add.readAllStandardError() << Qt::endl;
        return false;
    }
    ledger.token = QString::fromUtf8(add.readAllStandardOutput()).trimmed().split(QLatin1Char(' ')).last();
    if (reused) {
        out() << "  " << ledger.name << ": reusing " << ledger.path << " (" << ledger.actions << " actions)" << Qt::endl;
        return true;
    }

    QElapsedTimer timer;
    timer.start();
    sqlite3 *db = nullptr;
    if (sqlite3_open(QFile::encodeName(ledger.path).constData(), &db) != SQLITE_OK)
        return false;
    sqlite3_exec(db, "PRAGMA synchronous=OFF", nullptr, nullptr, nullptr);
    sqlite3_exec(db, "PRAGMA cache_size=-200000", nullptr, nullptr, nullptr);
    if (!check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db, "begin"))
        return false;
    sqlite3_stmt *insert = nullptr;
    const char *sql =
        "INSERT INTO actions (id, kind, target_type, target_id, business_reference, amount, currency, reason, provider,"
        " provider_account, requested_by, client_reference, parent_id, proposed_payload, request_fingerprint,"
        " idempotency_key, approval_version, state, state_version, review_reason, review_requested, lease_owner,"
        " lease_expires_at, created_at, updated_at, last_event_at)"
        " VALUES (?1, 'refund', 'charge', ?2, ?3, ?4, 'usd', 'requested_by_customer', 'paysim', '', ?5, ?6, NULL, ?7, ?8,"
        " ?9, ?10, ?11, ?12, ?13, ?14, NULL, NULL, ?15, ?15, ?15)";
    if (!check(sqlite3_prepare_v2(db, sql, -1, &insert, nullptr), db, "prepare"))
        return false;
    static const char *const agents[] = { "returns-agent", "billing-agent", "support-agent", "chargeback-agent", "retention-agent" };
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    // Oldest first, one a second-ish, ending now: the newest are on the first page.
    const qint64 end = nowMs();
    const qint64 step = ledger.actions > 1000 ? 30'000 : 60'000;
    const qint64 every = ledger.queue > 0 ? std::max<qint64>(1, ledger.actions / ledger.queue) : ledger.actions + 1;
    for (qint64 n = 1; n <= ledger.actions; ++n) {
        QByteArray id = "act_";
        quint64 x = quint64(n) * 0x9E3779B97F4A7C15ull;
        for (int i = 0; i < 24; ++i) {
            id += alphabet[x & 31];
            x = (x >> 5) | (quint64(n + i) << 59);
        }
        const bool inQueue = n % every == 0;
        const char *state = "COMPLETED";
        if (inQueue)
            state = n % (every * 10) == 0 ? "REQUIRES_REVIEW" : (n % (every * 7) == 0 ? "CONFIRMATION_UNKNOWN" : "PENDING");
        else if (n % 13 == 0)
            state = "REJECTED";
        const QByteArray order = orderOf(n).toLatin1();
        const QByteArray charge = "ch_bench" + QByteArray::number(n);
        const QByteArray agent = agents[n % 5];
        const QByteArray reference = order + "-refund";
        const qint64 amount = 500 + (n * 7919) % 50000;
        const QByteArray payload = R"({"amount":)" + QByteArray::number(amount) + R"(,"business_reference":")" + order
            + R"(","currency":"usd","kind":"refund","reason":"requested_by_customer","target":{"charge":")" + charge + R"("}})";
        const QByteArray fingerprint = QCryptographicHash::hash(id, QCryptographicHash::Sha256).toHex();
        const bool approved = qstrcmp(state, "PENDING") != 0;
        const QByteArray key = approved ? "csk_" + id.mid(4) + "_v1_bench" : QByteArray();
        const qint64 created = end - (ledger.actions - n) * step;
        sqlite3_reset(insert);
        sqlite3_bind_text(insert, 1, id.constData(), int(id.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, charge.constData(), int(charge.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 3, order.constData(), int(order.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 4, amount);
        sqlite3_bind_text(insert, 5, agent.constData(), int(agent.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 6, reference.constData(), int(reference.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 7, payload.constData(), int(payload.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 8, fingerprint.constData(), int(fingerprint.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 9, key.constData(), int(key.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int(insert, 10, approved ? 1 : 0);
        sqlite3_bind_text(insert, 11, state, -1, SQLITE_STATIC);
        sqlite3_bind_int(insert, 12, approved ? 4 : 1);
        const char *reason = qstrcmp(state, "REQUIRES_REVIEW") == 0 ? "key window passed" : "";
        sqlite3_bind_text(insert, 13, reason, -1, SQLITE_STATIC);
        sqlite3_bind_int(insert, 14, reason[0] ? 1 : 0);
        sqlite3_bind_int64(insert, 15, created);
        if (!check(sqlite3_step(insert), db, "insert"))
            return false;
    }
    sqlite3_finalize(insert);
    if (!check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit"))
        return false;
    sqlite3_exec(db, "ANALYZE", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    out() << "  " << ledger.name << ": " << ledger.actions << " actions (" << ledger.queue << " in the queue) written in "
          << timer.elapsed() << " ms" << Qt::endl;
    return true;
}

bool startServer(Ledger &ledger)
{
    ledger.server = std::make_unique<QProcess>();
    ledger.server->setStandardErrorFile(ledger.path + QStringLiteral(".log"));
    ledger.server->start(QStringLiteral(COUNTERSIGND_BIN),
                         { QStringLiteral("serve"), QStringLiteral("--db"), ledger.path, QStringLiteral("--listen"),
                           QStringLiteral("127.0.0.1:0"), QStringLiteral("--no-executor") });
    QElapsedTimer timer;
    timer.start();
    while (!ledger.server->canReadLine() && timer.elapsed() < 60000 && ledger.server->state() != QProcess::NotRunning)
        ledger.server->waitForReadyRead(100);
    ledger.url = QString::fromUtf8(ledger.server->readLine()).trimmed();
    return ledger.url.startsWith(QLatin1String("http"));
}

QJsonObject runConsole(const Ledger &ledger, const QString &self)
{
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::SeparateChannels);
    const qint64 start = nowUs();
    child.start(self, { QStringLiteral("--child"), QStringLiteral("--backend"), ledger.url, QStringLiteral("--token"), ledger.token,
                        QStringLiteral("--search"), ledger.search, QStringLiteral("--start-us"), QString::number(start) });
    if (!child.waitForFinished(180000) || child.exitCode() != 0) {
        QTextStream(stderr) << "bench_console: a console run failed: " << child.readAllStandardError() << Qt::endl;
        return {};
    }
    const QList<QByteArray> lines = child.readAllStandardOutput().trimmed().split('\n');
    return QJsonDocument::fromJson(lines.last()).object();
}

} // namespace

int main(int argc, char *argv[])
{
    const bool child = std::any_of(argv, argv + argc, [](const char *a) { return qstrcmp(a, "--child") == 0; });
    if (child) {
        QApplication app(argc, argv);
        QCommandLineParser parser;
        const QCommandLineOption childOption(QStringLiteral("child"));
        const QCommandLineOption backend(QStringLiteral("backend"), QString(), QStringLiteral("URL"));
        const QCommandLineOption token(QStringLiteral("token"), QString(), QStringLiteral("TOKEN"));
        const QCommandLineOption search(QStringLiteral("search"), QString(), QStringLiteral("TEXT"));
        const QCommandLineOption start(QStringLiteral("start-us"), QString(), QStringLiteral("US"));
        parser.addOptions({ childOption, backend, token, search, start });
        parser.process(app);
        return runChild(app, parser.value(backend), parser.value(token), parser.value(search), parser.value(start).toLongLong());
    }

    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("The console's start and search on a small and a large ledger."));
    parser.addHelpOption();
    const QCommandLineOption actions(QStringLiteral("actions"), QStringLiteral("Actions in the large ledger."), QStringLiteral("N"),
                                     QStringLiteral("1000000"));
    const QCommandLineOption queue(QStringLiteral("queue"), QStringLiteral("Of them in the queue."), QStringLiteral("N"),
                                   QStringLiteral("100000"));
    const QCommandLineOption runs(QStringLiteral("runs"), QStringLiteral("Console runs per ledger (median)."), QStringLiteral("N"),
                                  QStringLiteral("5"));
    const QCommandLineOption keep(QStringLiteral("keep"), QStringLiteral("Build the ledgers in DIR and keep them."), QStringLiteral("DIR"));
    const QCommandLineOption reuse(QStringLiteral("reuse"),
                                   QStringLiteral("With --keep: reuse ledgers of the same size left there by an earlier run."));
    parser.addOptions({ actions, queue, runs, keep, reuse });
    parser.process(app);

    QTemporaryDir temp;
    const QString dir = parser.isSet(keep) ? QDir(parser.value(keep)).absolutePath() : temp.path();
    QDir().mkpath(dir);
    Ledger small;
    small.name = QStringLiteral("small");
    small.actions = 10;
    small.queue = 10;
    Ledger large;
    large.name = QStringLiteral("large");
    large.actions = parser.value(actions).toLongLong();
    large.queue = parser.value(queue).toLongLong();
    // One matching action, from the middle of the ledger's life (in the queue): the backend's
    // substring search has to walk back that far.
    small.search = orderOf(5);
    const qint64 every = std::max<qint64>(1, large.actions / std::max<qint64>(1, large.queue));
    large.search = orderOf((large.actions / 2 / every) * every);

    out() << "bench_console: building the ledgers in " << dir << Qt::endl;
    for (Ledger *l : { &small, &large }) {
        if (!buildLedger(*l, dir, parser.isSet(reuse)) || !startServer(*l)) {
            QTextStream(stderr) << "bench_console: could not prepare the " << l->name << " ledger" << Qt::endl;
            return 1;
        }
    }

    const int n = qMax(1, parser.value(runs).toInt());
    QList<double> first[2], search[2], sorted[2], rss[2];
    const QString self = QCoreApplication::applicationFilePath();
    runConsole(small, self); // warm the file cache and the fonts once
    runConsole(large, self);
    for (int run = 0; run < n; ++run) {
        for (int i = 0; i < 2; ++i) {
            const Ledger &l = i == 0 ? small : large;
            const QJsonObject r = runConsole(l, self);
            if (r.isEmpty())
                return 1;
            first[i] << r.value(QLatin1String("first_page_ms")).toDouble();
            search[i] << r.value(QLatin1String("search_ms")).toDouble();
            sorted[i] << r.value(QLatin1String("sorted_ms")).toDouble();
            rss[i] << r.value(QLatin1String("peak_rss_kb")).toDouble() / 1024.0;
            out() << "  run " << run + 1 << " " << l.name << ": " << QJsonDocument(r).toJson(QJsonDocument::Compact) << Qt::endl;
        }
    }
    for (Ledger *l : { &small, &large }) {
        l->server->terminate();
        l->server->waitForFinished(10000);
    }

    const double f0 = median(first[0]), f1 = median(first[1]);
    const double s0 = median(search[0]), s1 = median(search[1]);
    const double o0 = median(sorted[0]), o1 = median(sorted[1]);
    const double m0 = median(rss[0]), m1 = median(rss[1]);
    out() << Qt::endl << QStringLiteral("%1 %2 %3 %4").arg(QStringLiteral("median of ") + QString::number(n) + QStringLiteral(" runs"), -22)
                             .arg(QStringLiteral("10 actions"), 14).arg(QStringLiteral("%1 actions").arg(large.actions), 18).arg(QStringLiteral("ratio / delta"), 16)
          << Qt::endl;
    out() << QStringLiteral("%1 %2 %3 %4").arg(QStringLiteral("first page painted"), -22).arg(QStringLiteral("%1 ms").arg(f0, 0, 'f', 0), 14)
                 .arg(QStringLiteral("%1 ms").arg(f1, 0, 'f', 0), 18).arg(QStringLiteral("%1x (goal <= 1.5x)").arg(f1 / f0, 0, 'f', 2), 16)
          << Qt::endl;
    out() << QStringLiteral("%1 %2 %3 %4").arg(QStringLiteral("search first page"), -22).arg(QStringLiteral("%1 ms").arg(s0, 0, 'f', 1), 14)
                 .arg(QStringLiteral("%1 ms").arg(s1, 0, 'f', 1), 18).arg(QStringLiteral("%1x (goal <= 1.5x)").arg(s1 / s0, 0, 'f', 2), 16)
          << Qt::endl;
    out() << QStringLiteral("%1 %2 %3 %4").arg(QStringLiteral("sorted by amount"), -22).arg(QStringLiteral("%1 ms").arg(o0, 0, 'f', 1), 14)
                 .arg(QStringLiteral("%1 ms").arg(o1, 0, 'f', 1), 18).arg(QStringLiteral("%1x (no goal)").arg(o1 / o0, 0, 'f', 2), 16)
          << Qt::endl;
    out() << QStringLiteral("%1 %2 %3 %4").arg(QStringLiteral("peak RSS"), -22).arg(QStringLiteral("%1 MB").arg(m0, 0, 'f', 1), 14)
                 .arg(QStringLiteral("%1 MB").arg(m1, 0, 'f', 1), 18).arg(QStringLiteral("+%1 MB (goal <= +50)").arg(m1 - m0, 0, 'f', 1), 16)
          << Qt::endl;
    return 0;
}
