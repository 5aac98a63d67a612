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
//   sorted       a click on a sorting header (the queue, unsearched: Amount, Attempts, Last
//                event descending, then Age oldest first, each from the previous order) → the
//                backend's first page in that order painted
//   peak RSS     VmHWM of the console process
// Each sorted page is also split into finer phases, each since the click: the reply finished in
// the network access manager, the rows parsed (about to be inserted), the rows inserted, the
// viewport's paint started; and the paint alone (the painted page repainted, the mean of 10).
// and the ratios large/small against the goal (≤ 1.5× the times, ≤ +50 MB of memory).
// Not a test: it never fails on figures. docs/PERFORMANCE.md records them.
//
// With --engine postgres (or both, one table per engine) the same two ledgers are PostgreSQL
// databases of a private cluster (PgCluster, full durability), written with COPY through the
// real schema (its triggers, indexes and counts), and countersignd serves their URIs.
//
// Usage: bench_console [--actions N] [--queue N] [--runs N] [--keep DIR [--reuse]] [--engine E]

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actionqueuemodel.h"
#include "tests/bench/benchpg.h"
#include "tests/bench/benchstats.h"
#include "tests/support/pgcluster.h"
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
#include <QMap>
#include <QNetworkReply>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>
#include <QTableView>

#include <sqlite3.h>

#include <algorithm>
#include <array>
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
    std::function<void()> paintStarting; // once, at the start of that paint (finer phases)

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && armed && armed() && painted) {
            if (paintStarting) {
                auto starting = std::move(paintStarting);
                paintStarting = nullptr;
                starting();
            }
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
    // Every order the queue's headers ask the backend for, one click after the other (each from
    // the previous one's painted page): key, descending, the result's name.
    struct SortClick
    {
        cs::ActionQuery::SortKey key;
        bool descending;
        const char *name;
    };
    static const SortClick sorts[] = {
        { cs::ActionQuery::SortKey::Amount, true, "sorted_amount_ms" },
        { cs::ActionQuery::SortKey::AttemptCount, true, "sorted_attempts_ms" },
        { cs::ActionQuery::SortKey::LastEventAt, true, "sorted_last_event_ms" },
        { cs::ActionQuery::SortKey::CreatedAt, false, "sorted_age_ms" },
    };
    // The backend's answer to each click, parsed into the model (before layout and paint).
    QString pendingAnswer;
    // Finer phases of a click, each since the click (ms): the reply finished in the network
    // access manager (before the console reads it), the page's rows about to be inserted (the
    // JSON parsed into rows), the rows inserted (the views told), then the viewport's paint
    // started. The named figures above keep their meaning.
    QString pendingPhases;
    const auto phase = [&](const char *name) {
        if (!pendingPhases.isEmpty() && !result.contains(pendingPhases + QLatin1String(name)))
            result.insert(pendingPhases + QLatin1String(name), double(nowUs() - searchStart) / 1000.0);
    };
    QObject::connect(client.networkAccessManager(), &QNetworkAccessManager::finished, &app, [&] { phase("_reply_ms"); });
    QObject::connect(model, &QAbstractItemModel::rowsAboutToBeInserted, &app, [&] { phase("_parsed_ms"); });
    QObject::connect(model, &QAbstractItemModel::rowsInserted, &app, [&] { phase("_inserted_ms"); });
    QObject::connect(model, &cs::ActionQueueModel::pageLoaded, &app, [&] {
        if (!pendingAnswer.isEmpty()) {
            result.insert(pendingAnswer, double(nowUs() - searchStart) / 1000.0);
            pendingAnswer.clear();
        }
    });
    std::function<void(size_t)> sortNext = [&](size_t index) {
        if (index == std::size(sorts)) {
            result.insert(QStringLiteral("peak_rss_kb"), peakRssKb());
            out() << QJsonDocument(result).toJson(QJsonDocument::Compact) << Qt::endl;
            app.exit(0);
            return;
        }
        const SortClick click = sorts[index];
        probe.armed = [&, click] {
            return !model->isLoading() && model->query().sort == click.key && model->query().descending == click.descending
                && model->rowCount() > 0;
        };
        probe.paintStarting = [&] { phase("_paint_start_ms"); };
        probe.painted = [&, click, index] {
            result.insert(QLatin1String(click.name), double(nowUs() - searchStart) / 1000.0);
            pendingPhases.clear();
            // The paint alone: the same page repainted at once, a few times (the mean), after
            // the figure above was taken.
            probe.armed = nullptr;
            QElapsedTimer repaint;
            repaint.start();
            constexpr int repaints = 10;
            for (int i = 0; i < repaints; ++i)
                viewport->repaint();
            result.insert(QString::fromLatin1(click.name).chopped(3) + QLatin1String("_repaint_ms"),
                          double(repaint.nsecsElapsed()) / 1e6 / repaints);
            QTimer::singleShot(200, &app, [&, index] { sortNext(index + 1); });
        };
        searchStart = nowUs();
        pendingAnswer = QString::fromLatin1(click.name).replace(QLatin1String("_ms"), QLatin1String("_answer_ms"));
        pendingPhases = QString::fromLatin1(click.name).chopped(3);
        window.queueView()->setSort(click.key, click.descending);
        viewport->update();
    };
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
                    probe.painted = [&] { QTimer::singleShot(200, &app, [&] { sortNext(0); }); };
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
    QString engine; // sqlite or postgres
    QString name;
    qint64 actions = 0;
    qint64 queue = 0;
    QString path;   // the SQLite file or the PostgreSQL URI
    QString log;    // countersignd's standard error
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

// One generated action: the same rows on both engines. Oldest first, one a second-ish, ending at
// `end`: the newest are on the first page; every `every`-th action is in the queue.
struct BenchRow
{
    QByteArray id, charge, order, agent, reference, payload, fingerprint, key;
    qint64 amount = 0;
    qint64 created = 0;
    const char *state = "COMPLETED";
    const char *reason = "";
    bool approved = false;
};

BenchRow benchRow(const Ledger &ledger, qint64 n, qint64 end)
{
    static const char *const agents[] = { "returns-agent", "billing-agent", "support-agent", "chargeback-agent", "retention-agent" };
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    const qint64 step = ledger.actions > 1000 ? 30'000 : 60'000;
    const qint64 every = ledger.queue > 0 ? std::max<qint64>(1, ledger.actions / ledger.queue) : ledger.actions + 1;
    BenchRow r;
    r.id = "act_";
    quint64 x = quint64(n) * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 24; ++i) {
        r.id += alphabet[x & 31];
        x = (x >> 5) | (quint64(n + i) << 59);
    }
    if (n % every == 0)
        r.state = n % (every * 10) == 0 ? "REQUIRES_REVIEW" : (n % (every * 7) == 0 ? "CONFIRMATION_UNKNOWN" : "PENDING");
    else if (n % 13 == 0)
        r.state = "REJECTED";
    r.order = orderOf(n).toLatin1();
    r.charge = "ch_bench" + QByteArray::number(n);
    r.agent = agents[n % 5];
    r.reference = r.order + "-refund";
    r.amount = 500 + (n * 7919) % 50000;
    r.payload = R"({"amount":)" + QByteArray::number(r.amount) + R"(,"business_reference":")" + r.order
        + R"(","currency":"usd","kind":"refund","reason":"requested_by_customer","target":{"charge":")" + r.charge + R"("}})";
    r.fingerprint = QCryptographicHash::hash(r.id, QCryptographicHash::Sha256).toHex();
    r.approved = qstrcmp(r.state, "PENDING") != 0;
    r.key = r.approved ? "csk_" + r.id.mid(4) + "_v1_bench" : QByteArray();
    r.created = end - (ledger.actions - n) * step;
    r.reason = qstrcmp(r.state, "REQUIRES_REVIEW") == 0 ? "key window passed" : "";
    return r;
}

// The actions' columns that the generator fills, in this order (the rest are NULL).
const char *const kInsertColumns =
    "id, kind, target_type, target_id, business_reference, amount, currency, reason, provider,"
    " provider_account, requested_by, client_reference, parent_id, proposed_payload, request_fingerprint,"
    " idempotency_key, approval_version, state, state_version, review_reason, review_requested, lease_owner,"
    " lease_expires_at, created_at, updated_at, last_event_at";

// countersignd creates the schema (all migrations) and the console's user; its token → ledger.token.
bool addUser(Ledger &ledger)
{
    QProcess add;
    const QString user = QStringLiteral("bench-approver-%1").arg(nowMs());
    add.start(QStringLiteral(COUNTERSIGND_BIN), { QStringLiteral("user"), QStringLiteral("add"), user,
                                                  QStringLiteral("--role"), QStringLiteral("approver"), QStringLiteral("--db"), ledger.path });
    if (!add.waitForFinished(60000) || add.exitCode() != 0) {
        QTextStream(stderr) << "bench_console: user add failed: " << add.readAllStandardError() << Qt::endl;
        return false;
    }
    ledger.token = QString::fromUtf8(add.readAllStandardOutput()).trimmed().split(QLatin1Char(' ')).last();
    return true;
}

bool writeSqlite(Ledger &ledger)
{
    sqlite3 *db = nullptr;
    if (sqlite3_open(QFile::encodeName(ledger.path).constData(), &db) != SQLITE_OK)
        return false;
    sqlite3_exec(db, "PRAGMA synchronous=OFF", nullptr, nullptr, nullptr);
    sqlite3_exec(db, "PRAGMA cache_size=-200000", nullptr, nullptr, nullptr);
    if (!check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db, "begin"))
        return false;
    sqlite3_stmt *insert = nullptr;
    const QByteArray sql = QByteArrayLiteral("INSERT INTO actions (") + kInsertColumns
        + ") VALUES (?1, 'refund', 'charge', ?2, ?3, ?4, 'usd', 'requested_by_customer', 'paysim', '', ?5, ?6, NULL, ?7, ?8,"
          " ?9, ?10, ?11, ?12, ?13, ?14, NULL, NULL, ?15, ?15, ?15)";
    if (!check(sqlite3_prepare_v2(db, sql.constData(), -1, &insert, nullptr), db, "prepare"))
        return false;
    const qint64 end = nowMs();
    for (qint64 n = 1; n <= ledger.actions; ++n) {
        const BenchRow r = benchRow(ledger, n, end);
        sqlite3_reset(insert);
        sqlite3_bind_text(insert, 1, r.id.constData(), int(r.id.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, r.charge.constData(), int(r.charge.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 3, r.order.constData(), int(r.order.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 4, r.amount);
        sqlite3_bind_text(insert, 5, r.agent.constData(), int(r.agent.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 6, r.reference.constData(), int(r.reference.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 7, r.payload.constData(), int(r.payload.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 8, r.fingerprint.constData(), int(r.fingerprint.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 9, r.key.constData(), int(r.key.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int(insert, 10, r.approved ? 1 : 0);
        sqlite3_bind_text(insert, 11, r.state, -1, SQLITE_STATIC);
        sqlite3_bind_int(insert, 12, r.approved ? 4 : 1);
        sqlite3_bind_text(insert, 13, r.reason, -1, SQLITE_STATIC);
        sqlite3_bind_int(insert, 14, r.reason[0] ? 1 : 0);
        sqlite3_bind_int64(insert, 15, r.created);
        if (!check(sqlite3_step(insert), db, "insert"))
            return false;
    }
    sqlite3_finalize(insert);
    if (!check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit"))
        return false;
    sqlite3_exec(db, "ANALYZE", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return true;
}

// The same rows through COPY into the real schema, loaded the way a bulk load is done: the
// secondary indexes of actions and of actions_search (its pg_trgm GIN indexes) are dropped first
// and created again after the COPY from their own definitions (pg_indexes), and the count and
// search triggers are disabled while the rows go in; the counts and actions_search are then
// filled from the rows exactly as migrations 4 and 8 fill them for an existing ledger. The result
// is the schema of the migrations, indexes, triggers and exact counts included (written row by
// row through the triggers, 10^6 actions took over half an hour here). Then VACUUM ANALYZE, as
// autovacuum would.
bool writePostgres(Ledger &ledger)
{
    cs::bench::PgSession s(ledger.path);
    if (!s.ok() || !s.exec("SET synchronous_commit = off") || !s.exec("SET maintenance_work_mem = '512MB'")) {
        QTextStream(stderr) << "bench_console: " << s.error() << Qt::endl;
        return false;
    }
    PGresult *defs = PQexec(s.raw(), "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
                                     " AND tablename IN ('actions', 'actions_search') AND indexname::regclass NOT IN"
                                     " (SELECT conindid FROM pg_constraint"
                                     "  WHERE conrelid IN ('actions'::regclass, 'actions_search'::regclass))");
    QList<QByteArray> names, definitions;
    for (int i = 0; PQresultStatus(defs) == PGRES_TUPLES_OK && i < PQntuples(defs); ++i) {
        names << QByteArray(PQgetvalue(defs, i, 0));
        definitions << QByteArray(PQgetvalue(defs, i, 1));
    }
    PQclear(defs);
    if (names.isEmpty() || !s.exec("BEGIN") || !s.exec("ALTER TABLE actions DISABLE TRIGGER actions_counts_insert")
        || !s.exec("ALTER TABLE actions DISABLE TRIGGER actions_search_insert"))
        return false;
    for (const QByteArray &name : std::as_const(names)) {
        if (!s.exec(QByteArray("DROP INDEX " + name).constData()))
            return false;
    }
    const qint64 end = nowMs();
    const QByteArray copy = QByteArrayLiteral("COPY actions (") + kInsertColumns + ") FROM STDIN";
    if (!s.exec(copy.constData()))
        return false;
    QByteArray chunk;
    for (qint64 n = 1; n <= ledger.actions; ++n) {
        const BenchRow r = benchRow(ledger, n, end);
        const QByteArray created = QByteArray::number(r.created);
        const QList<QByteArray> fields = { r.id, "refund", "charge", r.charge, r.order, QByteArray::number(r.amount), "usd",
                                           "requested_by_customer", "paysim", "", r.agent, r.reference, "\\N", r.payload,
                                           r.fingerprint, r.key, r.approved ? "1" : "0", r.state, r.approved ? "4" : "1",
                                           r.reason, r.reason[0] ? "1" : "0", "\\N", "\\N", created, created, created };
        chunk += fields.join('\t') + '\n';
        if (chunk.size() > (1 << 20) || n == ledger.actions) {
            if (PQputCopyData(s.raw(), chunk.constData(), int(chunk.size())) != 1)
                return false;
            chunk.clear();
        }
    }
    if (PQputCopyEnd(s.raw(), nullptr) != 1)
        return false;
    PGresult *result = PQgetResult(s.raw());
    const bool copied = PQresultStatus(result) == PGRES_COMMAND_OK;
    if (!copied)
        QTextStream(stderr) << "bench_console: COPY: " << PQresultErrorMessage(result) << Qt::endl;
    PQclear(result);
    while ((result = PQgetResult(s.raw())))
        PQclear(result);
    if (!copied)
        return false;
    if (!s.exec("INSERT INTO actions_search (id, target_id, business_reference, requested_by, client_reference)"
                " SELECT id, target_id, business_reference, requested_by, client_reference FROM actions"))
        return false;
    for (const QByteArray &definition : std::as_const(definitions)) {
        if (!s.exec(definition.constData()))
            return false;
    }
    return s.exec("INSERT INTO action_state_counts (state, n) SELECT state, COUNT(*) FROM actions GROUP BY state"
                  " ON CONFLICT (state) DO UPDATE SET n = EXCLUDED.n")
        && s.exec("INSERT INTO action_requester_state_counts (requested_by, state, n)"
                  " SELECT requested_by, state, COUNT(*) FROM actions GROUP BY requested_by, state"
                  " ON CONFLICT (requested_by, state) DO UPDATE SET n = EXCLUDED.n")
        && s.exec("ALTER TABLE actions ENABLE TRIGGER actions_counts_insert")
        && s.exec("ALTER TABLE actions ENABLE TRIGGER actions_search_insert") && s.exec("COMMIT") && s.exec("VACUUM ANALYZE");
}

// reuse: keep a SQLite ledger file from an earlier --keep run when it holds the same number of
// actions (writing 10^6 actions with their search index takes about 90 s).
bool buildLedger(Ledger &ledger, const QString &dir, bool reuse, cs::test::PgCluster *cluster)
{
    const bool postgres = cluster != nullptr;
    bool reused = false;
    if (postgres) {
        ledger.path = cluster->createDatabase(ledger.name);
        ledger.log = dir + QStringLiteral("/pg-") + ledger.name + QStringLiteral(".log");
        if (ledger.path.isEmpty())
            return false;
    } else {
        ledger.path = dir + QStringLiteral("/") + ledger.name + QStringLiteral(".db");
        ledger.log = ledger.path + QStringLiteral(".log");
        reused = reuse && existingActions(ledger.path) == ledger.actions;
        if (!reused) {
            for (const char *suffix : { "", "-wal", "-shm" })
                QFile::remove(ledger.path + QLatin1String(suffix));
        }
    }
    if (!addUser(ledger))
        return false;
    if (reused) {
        out() << "  " << ledger.name << ": reusing " << ledger.path << " (" << ledger.actions << " actions)" << Qt::endl;
        return true;
    }
    QElapsedTimer timer;
    timer.start();
    if (!(postgres ? writePostgres(ledger) : writeSqlite(ledger)))
        return false;
    out() << "  " << ledger.name << ": " << ledger.actions << " actions (" << ledger.queue << " in the queue) written in "
          << timer.elapsed() << " ms" << Qt::endl;
    return true;
}

bool startServer(Ledger &ledger)
{
    ledger.server = std::make_unique<QProcess>();
    ledger.server->setStandardErrorFile(ledger.log);
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
    const QCommandLineOption smallSize(QStringLiteral("small"),
                                       QStringLiteral("Actions in the small ledger, all in the queue (default 10: the goals' baseline)."),
                                       QStringLiteral("N"), QStringLiteral("10"));
    const QCommandLineOption engine(QStringLiteral("engine"), QStringLiteral("sqlite, postgres or both (one table each)."),
                                    QStringLiteral("engine"), QStringLiteral("sqlite"));
    parser.addOptions({ actions, queue, runs, keep, reuse, smallSize, engine });
    parser.process(app);

    const QString engineChoice = parser.value(engine);
    if (engineChoice != u"sqlite" && engineChoice != u"postgres" && engineChoice != u"both") {
        QTextStream(stderr) << "bench_console: --engine is sqlite, postgres or both" << Qt::endl;
        return 2;
    }
    QStringList engines;
    if (engineChoice != u"postgres")
        engines << QStringLiteral("sqlite");
    if (engineChoice != u"sqlite")
        engines << QStringLiteral("postgres");

    QTemporaryDir temp;
    const QString dir = parser.isSet(keep) ? QDir(parser.value(keep)).absolutePath() : temp.path();
    QDir().mkpath(dir);
    // PostgreSQL: a private cluster with full durability (fsync on) for both of its ledgers.
    std::unique_ptr<cs::test::PgCluster> cluster;
    if (engines.contains(u"postgres")) {
        cluster = std::make_unique<cs::test::PgCluster>(cs::test::PgCluster::Durability::Full);
        if (!cluster->start()) {
            QTextStream(stderr) << "bench_console: cannot start PostgreSQL: " << cluster->errorString() << Qt::endl;
            return 1;
        }
    }
    // Per engine, the small and the large ledger ([0], [1]).
    std::vector<std::array<Ledger, 2>> ledgers(size_t(engines.size()));
    const qint64 largeActions = parser.value(actions).toLongLong();
    const qint64 largeQueue = parser.value(queue).toLongLong();
    const qint64 smallActions = std::max<qint64>(5, parser.value(smallSize).toLongLong());
    // One matching action, from the middle of the ledger's life (in the queue): the backend's
    // substring search has to walk back that far.
    const qint64 every = std::max<qint64>(1, largeActions / std::max<qint64>(1, largeQueue));
    out() << "bench_console: building the ledgers in " << dir << Qt::endl;
    for (int e = 0; e < engines.size(); ++e) {
        for (int i = 0; i < 2; ++i) {
            Ledger &l = ledgers[size_t(e)][size_t(i)];
            l.engine = engines.at(e);
            l.name = i == 0 ? QStringLiteral("small") : QStringLiteral("large");
            l.actions = i == 0 ? smallActions : largeActions;
            l.queue = i == 0 ? smallActions : largeQueue;
            l.search = i == 0 ? orderOf(5) : orderOf((largeActions / 2 / every) * every);
            if (!buildLedger(l, dir, parser.isSet(reuse), l.engine == u"postgres" ? cluster.get() : nullptr) || !startServer(l)) {
                QTextStream(stderr) << "bench_console: could not prepare the " << l.engine << " " << l.name << " ledger" << Qt::endl;
                return 1;
            }
        }
    }

    const int n = qMax(1, parser.value(runs).toInt());
    const QString self = QCoreApplication::applicationFilePath();
    struct Figures
    {
        QList<double> first, search, rss;
        QMap<QString, QList<double>> sorted; // by the child's result name
    };
    std::vector<std::array<Figures, 2>> figures(size_t(engines.size()));
    for (auto &pair : ledgers) { // warm the file cache and the fonts once
        runConsole(pair[0], self);
        runConsole(pair[1], self);
    }
    for (int run = 0; run < n; ++run) {
        for (size_t e = 0; e < ledgers.size(); ++e) {
            for (size_t i = 0; i < 2; ++i) {
                const Ledger &l = ledgers[e][i];
                const QJsonObject r = runConsole(l, self);
                if (r.isEmpty())
                    return 1;
                Figures &f = figures[e][i];
                f.first << r.value(QLatin1String("first_page_ms")).toDouble();
                f.search << r.value(QLatin1String("search_ms")).toDouble();
                for (auto it = r.constBegin(); it != r.constEnd(); ++it) {
                    if (it.key().startsWith(QLatin1String("sorted_")))
                        f.sorted[it.key()] << it.value().toDouble();
                }
                f.rss << r.value(QLatin1String("peak_rss_kb")).toDouble() / 1024.0;
                out() << "  run " << run + 1 << " " << l.engine << " " << l.name << ": "
                      << QJsonDocument(r).toJson(QJsonDocument::Compact) << Qt::endl;
            }
        }
    }
    for (auto &pair : ledgers) {
        for (Ledger &l : pair) {
            l.server->terminate();
            l.server->waitForFinished(10000);
        }
    }

    const auto row = [](const QString &what, double small, double large, int decimals, const QString &unit, const QString &goal) {
        const bool memory = unit == u"MB";
        const QString compared = memory ? QStringLiteral("+%1 MB").arg(large - small, 0, 'f', 1)
                                        : QStringLiteral("%1x").arg(large / small, 0, 'f', 2);
        return QStringLiteral("%1 %2 %3 %4 %5").arg(what, -22).arg(QStringLiteral("%1 %2").arg(small, 0, 'f', decimals).arg(unit), 14)
            .arg(QStringLiteral("%1 %2").arg(large, 0, 'f', decimals).arg(unit), 18).arg(compared, 9).arg(goal);
    };
    for (size_t e = 0; e < ledgers.size(); ++e) {
        const auto &f = figures[e];
        out() << Qt::endl << QStringLiteral("%1 %2 %3 %4").arg(engines.at(int(e)) + QStringLiteral(", median of ") + QString::number(n)
                                                                 + QStringLiteral(" runs"), -22)
                                 .arg(QStringLiteral("%1 actions").arg(smallActions), 14).arg(QStringLiteral("%1 actions").arg(largeActions), 18)
                                 .arg(QStringLiteral("ratio / delta"), 16)
              << Qt::endl;
        out() << row(QStringLiteral("first page painted"), median(f[0].first), median(f[1].first), 0, QStringLiteral("ms"),
                     QStringLiteral("(goal <= 1.5x)")) << Qt::endl;
        out() << row(QStringLiteral("search first page"), median(f[0].search), median(f[1].search), 1, QStringLiteral("ms"),
                     QStringLiteral("(goal <= 1.5x)")) << Qt::endl;
        for (const auto &[key, label] : { std::pair{ "sorted_amount_ms", "sorted by amount" },
                                          std::pair{ "sorted_attempts_ms", "sorted by attempts" },
                                          std::pair{ "sorted_last_event_ms", "sorted by last event" },
                                          std::pair{ "sorted_age_ms", "sorted by age (oldest)" } }) {
            out() << row(QLatin1String(label), median(f[0].sorted.value(QLatin1String(key))),
                         median(f[1].sorted.value(QLatin1String(key))), 1, QStringLiteral("ms"), QStringLiteral("(goal <= 1.5x)"))
                  << Qt::endl;
            const QString answer = QString::fromLatin1(key).replace(QLatin1String("_ms"), QLatin1String("_answer_ms"));
            out() << row(QStringLiteral("  of which the answer"), median(f[0].sorted.value(answer)), median(f[1].sorted.value(answer)), 1,
                         QStringLiteral("ms"), QString())
                  << Qt::endl;
            // The finer phases, each since the click (the answer lies between parsed and
            // inserted; the rest until the sorted figure is layout and paint), and the paint
            // alone (a repaint of the painted page, not since the click).
            const QString base = QString::fromLatin1(key).chopped(3);
            for (const auto &[suffix, what] : { std::pair{ "_reply_ms", "    reply received" }, std::pair{ "_parsed_ms", "    rows parsed" },
                                                std::pair{ "_inserted_ms", "    rows inserted" },
                                                std::pair{ "_paint_start_ms", "    paint started" }, std::pair{ "_repaint_ms", "    a repaint alone" } }) {
                const QString name = base + QLatin1String(suffix);
                if (f[0].sorted.contains(name) && f[1].sorted.contains(name))
                    out() << row(QLatin1String(what), median(f[0].sorted.value(name)), median(f[1].sorted.value(name)), 1,
                                 QStringLiteral("ms"), QString())
                          << Qt::endl;
            }
        }
        out() << row(QStringLiteral("peak RSS"), median(f[0].rss), median(f[1].rss), 1, QStringLiteral("MB"),
                     QStringLiteral("(goal <= +50)")) << Qt::endl;
    }
    return 0;
}
