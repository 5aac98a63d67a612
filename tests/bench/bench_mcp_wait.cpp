// bench_mcp_wait (issue 34): GET /health while agents wait on /mcp and consoles follow the event
// stream, with a real countersignd on a temporary SQLite ledger on 127.0.0.1.
//
//   (a) /health p50/p99 with no load: the baseline of the same server in the same run;
//   (b) /health p50/p99 with W concurrent wait_for_decision calls over /mcp (Streamable HTTP,
//       timeout 30 s, called again when one times out; every other one with a progress token,
//       so its answer is an SSE stream of progress notifications) and S clients on
//       GET /api/v1/events, while an approver rejects other actions through the REST API at C per
//       second (each a commit streamed to every console and named to the waits);
//   then D decisions, one at a time: the time from sending a rejection to the answer of the wait
//   on that action.
// Goal: (b)'s p99 <= 50 ms with 200 waits and 1,000 SSE clients at --mcp-poll-ms 200. The caps
// are raised as docs/OPERATIONS.md tells an operator (--max-connections,
// --max-connections-per-address; --mcp-max-sessions covers the agents' sessions).
//
// Usage: bench_mcp_wait [--waits 200] [--sse 1000] [--seconds 20] [--poll-ms 200]
//                       [--commits-per-second 5] [--decisions 50] [--settle-ms 2000]
//                       [--countersignd PATH] [--before PATH] [--require]
// --before runs (a) and (b) again against another build (the countersignd of before issue 34,
// whose waits polled the ledger), seeded the same way, and prints the ratio. Each build adds its
// users with its own `countersignd user add` and the agents propose over REST, so builds of
// other schema versions compare. --require: exit 1 when the goal is not met. See docs/PERFORMANCE.md, "Waiting agents and /health".

#include "tests/bench/benchstats.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTimer>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <thread>

namespace {

struct Options
{
    int waits = 200;
    int sse = 1000;
    int seconds = 20;
    int pollMs = 200;
    int commitsPerSecond = 5;
    int decisions = 50;
    int settleMs = 2000; // after the waits are called, before (b) is measured
    QString countersignd = QStringLiteral(COUNTERSIGND_BIN);
    QString before;
    bool require = false;
};

constexpr int kWaitsPerAgent = 10; // one MCP session per agent, ten calls in flight in each
constexpr int kProbeGapMs = 20;

void say(const QString &line)
{
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

void runFor(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

// Runs the event loop until `done` holds or `ms` pass; whether it holds.
template <typename Predicate>
bool runUntil(Predicate done, int ms)
{
    QElapsedTimer clock;
    clock.start();
    while (!done() && clock.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return done();
}

// What the bench seeded on a server: tokens and actions.
struct Fixture
{
    QStringList agentTokens;           // agent-1 … agent-N
    QString approverToken;             // ana: the consoles' streams and the decisions
    QString adminToken;                // root: GET /metrics
    QList<QPair<QString, int>> waited; // action id, its agent's index
    QStringList others;                // rejected in the background
};

// `countersignd user add` of the build under test (its own schema): the token, the last word.
QString addUser(const QString &program, const QString &db, const QString &name, const QString &role)
{
    QProcess process;
    process.start(program, {QStringLiteral("user"), QStringLiteral("add"), name, QStringLiteral("--role"), role,
                            QStringLiteral("--db"), db});
    if (!process.waitForFinished(30000) || process.exitCode() != 0)
        return {};
    return QString::fromUtf8(process.readAllStandardOutput()).trimmed().split(u' ').constLast();
}

bool seedUsers(const QString &program, const QString &db, const Options &options, Fixture *fixture)
{
    const int agents = (options.waits + kWaitsPerAgent - 1) / kWaitsPerAgent;
    for (int a = 0; a < agents; ++a)
        fixture->agentTokens << addUser(program, db, QStringLiteral("agent-%1").arg(a + 1), QStringLiteral("agent"));
    fixture->approverToken = addUser(program, db, QStringLiteral("ana"), QStringLiteral("approver"));
    fixture->adminToken = addUser(program, db, QStringLiteral("root"), QStringLiteral("admin"));
    return !fixture->agentTokens.contains(QString()) && !fixture->approverToken.isEmpty() && !fixture->adminToken.isEmpty();
}

// One request on a connection of its own (Connection: close), answered in full; "" if none.
QByteArray exchange(quint16 port, const QByteArray &request)
{
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), port);
    if (!socket.waitForConnected(5000))
        return {};
    socket.write(request);
    QByteArray answer;
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(10000))
        answer += socket.readAll();
    return answer + socket.readAll();
}

// The waited actions and the background's, proposed by the agents over the REST API, a charge
// each: the detail an agent reads lists possible duplicates on the same charge, which would
// measure that list instead.
bool seedActions(quint16 port, const Options &options, Fixture *fixture)
{
    const int others = options.commitsPerSecond * (options.seconds + 5) + 10;
    for (int i = 0; i < options.waits + others; ++i) {
        const int agent = (i % options.waits) / kWaitsPerAgent;
        const QByteArray body = QJsonDocument(QJsonObject{
            {QStringLiteral("kind"), QStringLiteral("refund")},
            {QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), QStringLiteral("ch_bench%1").arg(i, 6, 10, QLatin1Char('0'))}}},
            {QStringLiteral("amount"), 4000},
            {QStringLiteral("currency"), QStringLiteral("usd")},
            {QStringLiteral("client_reference"), QStringLiteral("bench-%1").arg(i)}}).toJson(QJsonDocument::Compact);
        const QByteArray answer = exchange(port, "POST /api/v1/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                                                     + fixture->agentTokens.at(agent).toLatin1()
                                                     + "\r\nContent-Type: application/json\r\nContent-Length: "
                                                     + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        const QString id = QJsonDocument::fromJson(answer.mid(answer.indexOf("\r\n\r\n") + 4)).object().value(QStringLiteral("id")).toString();
        if (!answer.startsWith("HTTP/1.1 201") || id.isEmpty())
            return false;
        if (i < options.waits)
            fixture->waited.append({id, agent});
        else
            fixture->others << id;
    }
    return true;
}

// countersignd serve as a child process; its URL is the first line it prints.
class Server
{
public:
    bool start(const QString &program, const QString &db, const Options &options)
    {
        const int connections = options.sse + options.waits + 256;
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(program, {QStringLiteral("serve"), QStringLiteral("--db"), db, QStringLiteral("--listen"),
                                  QStringLiteral("127.0.0.1:0"), QStringLiteral("--no-executor"),
                                  QStringLiteral("--mcp-poll-ms"), QString::number(options.pollMs),
                                  QStringLiteral("--max-connections"), QString::number(connections),
                                  QStringLiteral("--max-connections-per-address"), QString::number(connections),
                                  QStringLiteral("--mcp-max-sessions"), QStringLiteral("1024")});
        if (!m_process.waitForStarted(5000))
            return false;
        QByteArray line;
        QElapsedTimer clock;
        clock.start();
        while (!line.contains('\n') && clock.elapsed() < 15000 && m_process.waitForReadyRead(200))
            line += m_process.readAllStandardOutput();
        port = quint16(QUrl(QString::fromUtf8(line.trimmed())).port());
        return port != 0;
    }
    ~Server()
    {
        m_process.terminate();
        if (!m_process.waitForFinished(10000))
            m_process.kill();
        m_process.waitForFinished(2000);
    }
    double cpuSeconds() const
    {
        QFile stat(QStringLiteral("/proc/%1/stat").arg(m_process.processId()));
        if (!stat.open(QIODevice::ReadOnly))
            return -1;
        const QByteArray text = stat.readAll();
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        return double(fields.value(11).toLongLong() + fields.value(12).toLongLong()) / double(sysconf(_SC_CLK_TCK));
    }

    quint16 port = 0;

private:
    QProcess m_process;
};

// One GET /api/v1/health on a new connection (plain sockets: the probe thread has no event loop);
// milliseconds from connect to the end of the answer, or -1 when it did not answer 200.
double healthOnce(quint16 port)
{
    const auto started = std::chrono::steady_clock::now();
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    timeval timeout{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QByteArray answer;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0) {
        static const char request[] = "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        if (::send(fd, request, sizeof request - 1, MSG_NOSIGNAL) == ssize_t(sizeof request - 1)) {
            char buffer[4096];
            ssize_t got = 0;
            while ((got = ::recv(fd, buffer, sizeof buffer, 0)) > 0)
                answer.append(buffer, got);
        }
    }
    ::close(fd);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return answer.startsWith("HTTP/1.1 200") ? ms : -1;
}

struct Probes
{
    QList<double> ms;
    QList<double> at; // when each was sent, ms after the first
    int failed = 0;
};

// /health every kProbeGapMs for durationMs on a thread of its own, while this thread's event loop
// serves the load (the streams, the waits, the decisions).
Probes probe(quint16 port, int durationMs)
{
    Probes probes;
    QEventLoop loop;
    std::thread prober([&] {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < durationMs) {
            const qint64 sentAt = clock.elapsed();
            const double ms = healthOnce(port);
            if (ms < 0) {
                ++probes.failed;
            } else {
                probes.ms << ms;
                probes.at << double(sentAt);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(kProbeGapMs));
        }
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec();
    prober.join();
    return probes;
}

QString figures(const Probes &p)
{
    // The three slowest, with when they were sent: a stall shows as one, a load as many.
    QList<qsizetype> order(p.ms.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&p](qsizetype a, qsizetype b) { return p.ms.at(a) > p.ms.at(b); });
    QStringList slowest;
    for (qsizetype i = 0; i < std::min<qsizetype>(3, order.size()); ++i)
        slowest << QStringLiteral("%1 ms at %2 s").arg(p.ms.at(order.at(i)), 0, 'f', 1).arg(p.at.at(order.at(i)) / 1000.0, 0, 'f', 1);
    return QStringLiteral("p50 %1 ms, p99 %2 ms, max %3 ms (%4 probes, %5 failed; slowest %6)")
        .arg(cs::bench::percentile(p.ms, 50), 0, 'f', 2)
        .arg(cs::bench::percentile(p.ms, 99), 0, 'f', 2)
        .arg(cs::bench::percentile(p.ms, 100), 0, 'f', 2)
        .arg(p.ms.size())
        .arg(p.failed)
        .arg(slowest.join(QStringLiteral(", ")));
}

// S consoles on GET /api/v1/events: raw sockets whose bytes are read and dropped.
class Consoles : public QObject
{
public:
    int live = 0;
    qint64 events = 0;

    bool open(quint16 port, const QString &token, int count)
    {
        const QByteArray request = "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token.toLatin1()
            + "\r\nAccept: text/event-stream\r\n\r\n";
        for (int i = 0; i < count; ++i) {
            auto *socket = new QTcpSocket(this);
            connect(socket, &QTcpSocket::connected, socket, [socket, request] { socket->write(request); });
            connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                const QByteArray data = socket->readAll();
                if (!socket->property("live").toBool() && data.startsWith("HTTP/1.1 200")) {
                    socket->setProperty("live", true);
                    ++live;
                }
                events += data.count("event: action.changed");
            });
            socket->connectToHost(QStringLiteral("127.0.0.1"), port);
            if (i % 50 == 49 && !runUntil([&] { return live >= i + 1; }, 10000)) // the listen backlog (50)
                return false;
        }
        return runUntil([&] { return live >= count; }, 10000);
    }
};

// One request to /mcp on a connection of its own (Connection: close: the answer ends with it).
QByteArray mcpRequest(quint16 port, const QString &token, const QByteArray &session, const QJsonObject &message)
{
    const QByteArray body = QJsonDocument(message).toJson(QJsonDocument::Compact);
    QByteArray head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port) + "\r\nAuthorization: Bearer "
        + token.toLatin1() + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
    if (!session.isEmpty())
        head += "Mcp-Session-Id: " + session + "\r\n";
    return head + "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

// W waits over /mcp: one session per agent, each wait on a connection of its own, called again
// when it times out while the load runs.
class Agents : public QObject
{
public:
    struct Wait
    {
        QString actionId;
        int agent = 0;
        bool progress = false;
        bool decided = false; // rejected: not called again
        QElapsedTimer answeredAt;
        QString lastState;
    };
    QList<Wait> waits;
    int running = 0;
    int connected = 0;
    int timedOut = 0;
    int failed = 0;
    bool keepWaiting = true;

    bool open(quint16 port, const Fixture &fixture)
    {
        m_port = port;
        for (const QString &token : fixture.agentTokens) {
            m_tokens << token;
            const QByteArray session = initialize(token);
            if (session.isEmpty())
                return false;
            m_sessions << session;
        }
        for (int i = 0; i < fixture.waited.size(); ++i)
            waits.append(Wait{fixture.waited.at(i).first, fixture.waited.at(i).second, i % 2 == 1, false, {}, {}});
        // In batches: the listen backlog (50) is not a figure of this benchmark.
        for (int i = 0; i < waits.size(); ++i) {
            call(i);
            if (i % 50 == 49 && !runUntil([this] { return connected == running; }, 10000))
                return false;
        }
        return runUntil([this] { return connected == running; }, 10000);
    }

private:
    QByteArray initialize(const QString &token)
    {
        const QJsonObject init{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), 0},
                               {QStringLiteral("method"), QStringLiteral("initialize")},
                               {QStringLiteral("params"), QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                                                     {QStringLiteral("capabilities"), QJsonObject()},
                                                                     {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("bench")},
                                                                                                               {QStringLiteral("version"), QStringLiteral("1")}}}}}};
        const QByteArray answer = exchange(m_port, mcpRequest(m_port, token, {}, init));
        static const QRegularExpression id(QStringLiteral("Mcp-Session-Id: ([A-Za-z0-9_-]+)"), QRegularExpression::CaseInsensitiveOption);
        const QByteArray session = id.match(QString::fromLatin1(answer)).captured(1).toLatin1();
        const QJsonObject initialized{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                      {QStringLiteral("method"), QStringLiteral("notifications/initialized")}};
        if (session.isEmpty() || !exchange(m_port, mcpRequest(m_port, token, session, initialized)).startsWith("HTTP/1.1 202"))
            return {};
        return session;
    }
    void call(int i)
    {
        Wait &wait = waits[i];
        QJsonObject params{{QStringLiteral("name"), QStringLiteral("wait_for_decision")},
                           {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("action_id"), wait.actionId},
                                                                    {QStringLiteral("timeout_seconds"), 30}}}};
        if (wait.progress)
            params.insert(QStringLiteral("_meta"), QJsonObject{{QStringLiteral("progressToken"), i}});
        const QByteArray request = mcpRequest(m_port, m_tokens.at(wait.agent), m_sessions.at(wait.agent),
                                              QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                                          {QStringLiteral("id"), ++m_requestId},
                                                          {QStringLiteral("method"), QStringLiteral("tools/call")},
                                                          {QStringLiteral("params"), params}});
        auto *socket = new QTcpSocket(this);
        auto answer = std::make_shared<QByteArray>();
        connect(socket, &QTcpSocket::connected, socket, [this, socket, request] {
            ++connected;
            socket->write(request);
        });
        connect(socket, &QTcpSocket::readyRead, socket, [socket, answer] { *answer += socket->readAll(); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket, answer, i] {
            *answer += socket->readAll();
            socket->deleteLater();
            --running;
            --connected;
            answered(i, *answer);
        });
        ++running;
        socket->connectToHost(QStringLiteral("127.0.0.1"), m_port);
    }
    void answered(int i, const QByteArray &answer)
    {
        Wait &wait = waits[i];
        wait.answeredAt.start();
        static const QRegularExpression state(QStringLiteral("\"state\":\"([A-Z_]+)\""));
        QRegularExpressionMatchIterator it = state.globalMatch(QString::fromUtf8(answer));
        QString last;
        while (it.hasNext())
            last = it.next().captured(1);
        wait.lastState = last;
        if (last.isEmpty())
            ++failed;
        else if (last == u"PENDING")
            ++timedOut;
        if (keepWaiting && !wait.decided)
            call(i); // an agent calls again after a timeout
    }

    quint16 m_port = 0;
    QStringList m_tokens;
    QList<QByteArray> m_sessions;
    int m_requestId = 0;
};

// An approver's rejections through the REST API (If-Match: the fresh proposal's version), each
// written in one piece on a connection of its own, so that no delayed ACK sits in the figures.
class Approver : public QObject
{
public:
    Approver(quint16 port, QString token) : m_port(port), m_token(std::move(token)) {}
    int sent = 0;
    int refused = 0;

    void reject(const QString &actionId, std::function<void()> answered = {})
    {
        const QByteArray body = R"({"reason":"duplicate"})";
        const QByteArray request = "POST /api/v1/actions/" + actionId.toLatin1() + "/rejections HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Authorization: Bearer " + m_token.toLatin1() + "\r\nIf-Match: \"1\"\r\nContent-Type: application/json\r\n"
            "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
        auto *socket = new QTcpSocket(this);
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        auto answer = std::make_shared<QByteArray>();
        connect(socket, &QTcpSocket::connected, socket, [socket, request] { socket->write(request); });
        connect(socket, &QTcpSocket::readyRead, socket, [socket, answer] { *answer += socket->readAll(); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket, answer, answered] {
            socket->deleteLater();
            if (!answer->startsWith("HTTP/1.1 200"))
                ++refused;
            if (answered)
                answered();
        });
        ++sent;
        socket->connectToHost(QStringLiteral("127.0.0.1"), m_port);
    }
    // GET /metrics: countersign_mcp_wait_reads_total by cause (empty if the build has none).
    QHash<QString, double> waitReads(const QString &adminToken)
    {
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(m_port)));
        request.setRawHeader("Authorization", "Bearer " + adminToken.toLatin1());
        QNetworkReply *reply = m_network.get(request);
        runUntil([reply] { return reply->isFinished(); }, 10000);
        reply->deleteLater();
        QHash<QString, double> reads;
        static const QRegularExpression line(QStringLiteral("^countersign_mcp_wait_reads_total\\{cause=\"(\\w+)\"\\} (\\S+)$"),
                                             QRegularExpression::MultilineOption);
        QRegularExpressionMatchIterator it = line.globalMatch(QString::fromUtf8(reply->readAll()));
        while (it.hasNext()) {
            const auto match = it.next();
            reads.insert(match.captured(1), match.captured(2).toDouble());
        }
        return reads;
    }

private:
    QNetworkAccessManager m_network;
    quint16 m_port;
    QString m_token;
};

QString readsText(const QHash<QString, double> &before, const QHash<QString, double> &after)
{
    if (after.isEmpty())
        return QStringLiteral("not exported by this build");
    QStringList parts;
    for (const QString &cause : {QStringLiteral("start"), QStringLiteral("change"), QStringLiteral("poll"),
                                 QStringLiteral("retry"), QStringLiteral("deadline")})
        parts << QStringLiteral("%1 %2").arg(cause).arg(after.value(cause) - before.value(cause), 0, 'f', 0);
    return parts.join(QStringLiteral(", "));
}

// D decisions one at a time: from sending the rejection to the answer of the wait on it, and
// how much of that the rejection's own answer took.
struct Decisions
{
    QList<double> waitMs;
    QList<double> rejectionMs;
};

Decisions decide(Agents &agents, Approver &approver, int count)
{
    Decisions d;
    for (int i = 0; i < count && i < agents.waits.size(); ++i) {
        Agents::Wait &wait = agents.waits[i];
        wait.decided = true;
        wait.answeredAt.invalidate();
        QElapsedTimer clock;
        clock.start();
        double rejectionMs = -1;
        approver.reject(wait.actionId, [&rejectionMs, &clock] { rejectionMs = double(clock.nsecsElapsed()) / 1e6; });
        if (runUntil([&] { return wait.answeredAt.isValid() && rejectionMs >= 0; }, 10000) && wait.lastState == u"REJECTED") {
            d.waitMs << double(clock.nsecsElapsed() - wait.answeredAt.nsecsElapsed()) / 1e6;
            d.rejectionMs << rejectionMs;
        }
        runFor(50);
    }
    return d;
}

struct Run
{
    Probes baseline;
    Probes loaded;
    Decisions decisions;
    bool ok = false;
};

// (a) and (b) against one build, on a ledger of its own that it made and seeded.
Run measure(const QString &program, const QString &db, const Options &options)
{
    Run run;
    Fixture fixture;
    QProcess::execute(program, {QStringLiteral("migrate"), QStringLiteral("--db"), db});
    if (!seedUsers(program, db, options, &fixture)) {
        say(QStringLiteral("  cannot add the users with %1").arg(program));
        return run;
    }
    Server server;
    if (!server.start(program, db, options) || !seedActions(server.port, options, &fixture)) {
        say(QStringLiteral("  cannot start %1 or propose the actions").arg(program));
        return run;
    }
    runFor(300);
    run.baseline = probe(server.port, 5000);
    say(QStringLiteral("  (a) /health, no load: %1").arg(figures(run.baseline)));

    Consoles consoles;
    if (!consoles.open(server.port, fixture.approverToken, options.sse))
        say(QStringLiteral("  only %1 of %2 event streams came up").arg(consoles.live).arg(options.sse));
    Approver approver(server.port, fixture.approverToken);
    const QHash<QString, double> readsBefore = approver.waitReads(fixture.adminToken);
    Agents agents;
    if (!agents.open(server.port, fixture)) {
        say(QStringLiteral("  cannot open the agents' MCP sessions"));
        return run;
    }
    runFor(options.settleMs); // every wait has made its first read

    int next = 0;
    QTimer commits;
    QObject::connect(&commits, &QTimer::timeout, &commits, [&] {
        if (next < fixture.others.size())
            approver.reject(fixture.others.at(next++));
    });
    commits.start(1000 / std::max(1, options.commitsPerSecond));
    const double cpuBefore = server.cpuSeconds();
    run.loaded = probe(server.port, options.seconds * 1000);
    const double cpu = server.cpuSeconds() - cpuBefore;
    commits.stop();
    const QHash<QString, double> readsAfter = approver.waitReads(fixture.adminToken);
    say(QStringLiteral("  (b) /health, %1 waits + %2 event streams + %3 rejections: %4")
            .arg(agents.running).arg(consoles.live).arg(next).arg(figures(run.loaded)));
    say(QStringLiteral("      countersignd CPU meanwhile %1 % of one core; wait reads meanwhile (and the start): %2")
            .arg(100.0 * cpu / options.seconds, 0, 'f', 0)
            .arg(readsText(readsBefore, readsAfter)));
    say(QStringLiteral("      %1 action.changed events received by the streams; waits timed out and called again: %2, "
                       "failed: %3; rejections refused: %4")
            .arg(consoles.events).arg(agents.timedOut).arg(agents.failed).arg(approver.refused));

    run.decisions = decide(agents, approver, options.decisions);
    const QList<double> &waited = run.decisions.waitMs;
    say(QStringLiteral("  decision -> its wait answered (%1 of %2 rejections, one at a time): p50 %3 ms, p99 %4 ms, max %5 ms "
                       "(the rejection's own answer: p50 %6 ms)")
            .arg(waited.size()).arg(options.decisions)
            .arg(cs::bench::percentile(waited, 50), 0, 'f', 1)
            .arg(cs::bench::percentile(waited, 99), 0, 'f', 1)
            .arg(cs::bench::percentile(waited, 100), 0, 'f', 1)
            .arg(cs::bench::percentile(run.decisions.rejectionMs, 50), 0, 'f', 1));
    agents.keepWaiting = false;
    run.ok = run.loaded.failed == 0 && consoles.live == options.sse && agents.failed == 0;
    return run;
}

Options parse(const QStringList &arguments)
{
    Options o;
    for (int i = 1; i < arguments.size(); ++i) {
        const QString &a = arguments.at(i);
        const QString value = arguments.value(i + 1);
        if (a == u"--require")
            o.require = true;
        else if (a == u"--waits" && ++i)
            o.waits = value.toInt();
        else if (a == u"--sse" && ++i)
            o.sse = value.toInt();
        else if (a == u"--seconds" && ++i)
            o.seconds = value.toInt();
        else if (a == u"--poll-ms" && ++i)
            o.pollMs = value.toInt();
        else if (a == u"--commits-per-second" && ++i)
            o.commitsPerSecond = value.toInt();
        else if (a == u"--decisions" && ++i)
            o.decisions = value.toInt();
        else if (a == u"--settle-ms" && ++i)
            o.settleMs = value.toInt();
        else if (a == u"--countersignd" && ++i)
            o.countersignd = value;
        else if (a == u"--before" && ++i)
            o.before = value;
        else
            qFatal("unknown argument %s (see the head of bench_mcp_wait.cpp)", qPrintable(a));
    }
    o.waits = std::max(1, o.waits);
    o.seconds = std::max(1, o.seconds);
    return o;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const Options options = parse(app.arguments());
    QTemporaryDir dir;
    say(QStringLiteral("bench_mcp_wait: %1 wait_for_decision calls over /mcp (--mcp-poll-ms %2, every other one with a "
                       "progress token), %3 event streams, %4 rejections/s, %5 s")
            .arg(options.waits).arg(options.pollMs).arg(options.sse).arg(options.commitsPerSecond).arg(options.seconds));

    say(QStringLiteral("countersignd: %1").arg(options.countersignd));
    const Run now = measure(options.countersignd, dir.filePath(QStringLiteral("now.db")), options);
    const double p99 = cs::bench::percentile(now.loaded.ms, 99);
    const double base = cs::bench::percentile(now.baseline.ms, 99);
    say(QStringLiteral("  p99 loaded / p99 baseline: %1").arg(base > 0 ? p99 / base : 0.0, 0, 'f', 1));

    if (!options.before.isEmpty()) {
        say(QStringLiteral("before: %1 (a ledger of its own, seeded the same way)").arg(options.before));
        const Run before = measure(options.before, dir.filePath(QStringLiteral("before.db")), options);
        const double beforeP99 = cs::bench::percentile(before.loaded.ms, 99);
        say(QStringLiteral("  p99 loaded now / before: %1 / %2 ms = %3")
                .arg(p99, 0, 'f', 2).arg(beforeP99, 0, 'f', 2).arg(beforeP99 > 0 ? p99 / beforeP99 : 0.0, 0, 'f', 3));
    }
    const bool met = now.ok && p99 <= 50;
    say(QStringLiteral("/health p99 with %1 waits and %2 event streams: %3 ms (goal <= 50 ms) %4")
            .arg(options.waits).arg(options.sse).arg(p99, 0, 'f', 2).arg(met ? QStringLiteral("met") : QStringLiteral("NOT met")));
    return options.require && !met ? 1 : 0;
}
