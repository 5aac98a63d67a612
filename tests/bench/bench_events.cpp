// Live updates (issue 13): from a commit to the SSE event on a console's client.
//
//   bench_events [N]   (default 300 events per case)
//
// Each case runs an instance "B" in this process — its Ledger and an ApiServer on a thread of
// its own, on 127.0.0.1 — with the console's EventStreamClient following B's GET /events on
// this thread. Each event is one proposal committed on this thread, after a random pause of
// 0-150 ms (so commits fall at every phase of a poll); the latency is from the moment the
// commit returned to the moment the client emitted the event.
//   sqlite, one instance   the commit through B's own Ledger (B's commit observer)
//   postgres, one instance the same on PostgreSQL (commit observer, and NOTIFY)
//   postgres, A -> B       the commit through a second Ledger on the same database (NOTIFY only)
// each beside the baseline: the same with the wake and the notifications off, so only the
// 150 ms poll of the audit log delivers (what every event waited for before issue 13).
// PostgreSQL is a private cluster (tests/support/pgcluster.h). Goals: p50 <= 20 ms on one
// instance, <= 50 ms from A to B. See docs/PERFORMANCE.md, "Live updates".

#include "client/eventstreamclient.h"
#include "server/api/apiserver.h"
#include "server/api/userstore.h"
#include "server/ledger/ledger.h"
#include "server/ledger/ledgerwatcher.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/pgcluster.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QHash>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <future>
#include <memory>
#include <thread>

using namespace std::chrono_literals;

namespace {

QElapsedTimer g_clock; // one clock for commits and arrivals

double nowMs()
{
    return double(g_clock.nsecsElapsed()) / 1e6;
}

// B's ApiServer, created, run and destroyed on a thread of its own: a std::thread, whose join()
// returns only after its thread_local ledger connection is gone (QThread::wait() may return
// before), so the ledger can be closed right after.
class ServerThread
{
public:
    ServerThread(cs::Ledger *ledger, const cs::LedgerWatcher::Options &changes)
    {
        std::promise<void> ready;
        m_thread = std::thread([this, ledger, changes, &ready] {
            QEventLoop loop;
            cs::ApiServer::Options options;
            options.events.changes = changes;
            auto api = std::make_unique<cs::ApiServer>(ledger, nullptr, options);
            QString error;
            if (!api->listen(QHostAddress::LocalHost, 0, &error))
                qFatal("cannot listen: %s", qPrintable(error));
            m_url = api->baseUrl();
            static std::atomic<int> serial = 0; // one user per server: the ledger may be the last case's
            const auto token = api->users()->addUser(QStringLiteral("ana-%1").arg(++serial), cs::Role::Approver);
            if (!token.ok())
                qFatal("cannot add a user: %s", qPrintable(token.error().toString()));
            m_token = *token;
            m_loop = &loop;
            ready.set_value();
            loop.exec();
        });
        ready.get_future().wait();
    }
    ~ServerThread()
    {
        QMetaObject::invokeMethod(m_loop, [loop = m_loop] { loop->quit(); }, Qt::QueuedConnection);
        m_thread.join();
    }
    QUrl url() const { return m_url; }
    QString token() const { return m_token; }

private:
    std::thread m_thread;
    QEventLoop *m_loop = nullptr;
    QUrl m_url;
    QString m_token;
};

struct Figures
{
    double p50 = 0, p90 = 0, p99 = 0, max = 0;
    int missed = 0;
};

double percentile(const QList<double> &sorted, double p)
{
    if (sorted.isEmpty())
        return 0;
    const qsizetype rank = std::clamp<qsizetype>(qsizetype(std::ceil(p * double(sorted.size()))) - 1, 0, sorted.size() - 1);
    return sorted.at(rank);
}

void waitMs(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

// N commits on `committer`, each followed to its event on B's stream.
Figures measure(cs::Ledger &committer, cs::Ledger &b, const cs::LedgerWatcher::Options &changes, int n,
                const QString &tag)
{
    ServerThread server(&b, changes);
    cs::EventStreamClient client;
    QHash<QString, double> arrivedAt;
    QEventLoop *waiting = nullptr;
    QString awaited;
    QObject::connect(&client, &cs::EventStreamClient::actionChanged, &client, [&](const cs::ActionChange &change) {
        arrivedAt.insert(change.actionId, nowMs());
        if (waiting && change.actionId == awaited)
            waiting->quit();
    });
    client.setBaseUrl(server.url());
    client.setToken(server.token());
    client.setHeartbeatTimeout(60s);
    client.start();
    for (int i = 0; i < 500 && client.state() != cs::EventStreamClient::State::Live; ++i)
        waitMs(10);
    if (client.state() != cs::EventStreamClient::State::Live)
        qFatal("the event stream did not come up: %s", qPrintable(client.lastError()));
    waitMs(300); // the stream's first read (its backlog) is behind us

    QList<double> latencies;
    Figures figures;
    for (int i = 0; i < n; ++i) {
        waitMs(int(QRandomGenerator::global()->bounded(150)));
        const auto proposed = committer.proposals().propose(cs::test::sampleInput(QStringLiteral("%1-%2").arg(tag).arg(i)),
                                                            QStringLiteral("agent-7"));
        const double committedAt = nowMs();
        if (!proposed.ok())
            qFatal("propose failed: %s", qPrintable(proposed.error().toString()));
        const QString id = proposed->record.id;
        if (!arrivedAt.contains(id)) {
            QEventLoop loop;
            QTimer::singleShot(5000, &loop, &QEventLoop::quit);
            waiting = &loop;
            awaited = id;
            loop.exec();
            waiting = nullptr;
        }
        if (!arrivedAt.contains(id)) {
            ++figures.missed;
            continue;
        }
        latencies << std::max(0.0, arrivedAt.value(id) - committedAt);
    }
    client.stop();
    std::sort(latencies.begin(), latencies.end());
    figures.p50 = percentile(latencies, 0.50);
    figures.p90 = percentile(latencies, 0.90);
    figures.p99 = percentile(latencies, 0.99);
    figures.max = latencies.isEmpty() ? 0 : latencies.constLast();
    return figures;
}

void print(const QString &name, const QString &mechanism, const Figures &f)
{
    std::printf("%-24s %-22s %8.2f %8.2f %8.2f %8.2f %6d\n", qPrintable(name), qPrintable(mechanism), f.p50, f.p90,
                f.p99, f.max, f.missed);
    std::fflush(stdout);
}

cs::LedgerWatcher::Options baseline()
{
    cs::LedgerWatcher::Options changes;
    changes.localCommits = false;
    changes.notifications = false;
    changes.pollMs = 150;
    return changes;
}

struct Row
{
    QString name;
    Figures now;
    Figures before;
};

// One case: the default configuration, then the baseline, on the same ledgers.
Row compare(const QString &name, const QString &mechanism, cs::Ledger &committer, cs::Ledger &b, int n,
            const QString &tag)
{
    Row row{name, {}, {}};
    row.now = measure(committer, b, cs::LedgerWatcher::Options(), n, tag);
    print(name, mechanism, row.now);
    row.before = measure(committer, b, baseline(), n, tag + QStringLiteral("-poll"));
    print(name, QStringLiteral("150 ms poll (before)"), row.before);
    return row;
}

void openOrDie(cs::Ledger &ledger, const QString &location)
{
    const cs::LedgerError error = ledger.open(location);
    if (!error.ok())
        qFatal("cannot open %s: %s", qPrintable(location), qPrintable(error.toString()));
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const int n = argc > 1 ? std::max(10, QString::fromLocal8Bit(argv[1]).toInt()) : 300;
    g_clock.start();
    qRegisterMetaType<cs::ActionChange>();

    std::printf("commit -> SSE event on the client, %d events per case, ms (a random 0-150 ms pause before each)\n", n);
    std::printf("%-24s %-22s %8s %8s %8s %8s %6s\n", "case", "delivered by", "p50", "p90", "p99", "max", "missed");
    QList<Row> rows;

    QTemporaryDir dir;
    {
        cs::Ledger b;
        openOrDie(b, dir.filePath(QStringLiteral("events.db")));
        rows << compare(QStringLiteral("sqlite, one instance"), QStringLiteral("commit observer"), b, b, n,
                        QStringLiteral("sqlite"));
    }

    cs::test::PgCluster cluster;
    if (!cluster.start()) {
        std::printf("no PostgreSQL cluster (%s): the PostgreSQL cases are skipped\n", qPrintable(cluster.errorString()));
    } else {
        const QString one = cluster.createDatabase(QStringLiteral("events_one"));
        const QString two = cluster.createDatabase(QStringLiteral("events_two"));
        {
            cs::Ledger b;
            openOrDie(b, one);
            rows << compare(QStringLiteral("postgres, one instance"), QStringLiteral("commit observer"), b, b, n,
                            QStringLiteral("pg"));
        }
        {
            cs::Ledger a;
            cs::Ledger b;
            openOrDie(a, two);
            openOrDie(b, two);
            rows << compare(QStringLiteral("postgres, A -> B"), QStringLiteral("LISTEN/NOTIFY"), a, b, n,
                            QStringLiteral("ab"));
        }
        cluster.stop();
    }

    std::printf("\n%-24s %14s %14s %8s\n", "case", "p50 now/before", "p99 now/before", "goal p50");
    for (const Row &row : std::as_const(rows)) {
        const bool ab = row.name.contains(u'>');
        std::printf("%-24s %14.3f %14.3f %8s\n", qPrintable(row.name), row.before.p50 > 0 ? row.now.p50 / row.before.p50 : 0.0,
                    row.before.p99 > 0 ? row.now.p99 / row.before.p99 : 0.0, ab ? "<= 50" : "<= 20");
    }
    return 0;
}
