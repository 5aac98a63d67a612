// bench_http: countersignd's connection limits against issue 12's figures, with a real countersignd
// on 127.0.0.1 (docs/PERFORMANCE.md, "Hostile connections"; docs/SECURITY.md, "The HTTP layer").
//
//   1. RSS growth while one client uploads 300 MB without a token: as one request with
//      Content-Length 300 MB, as 300 MB of unterminated head, and as 300 MB of keep-alive requests
//      at the body limit (each one read whole and answered 401). Goal: <= 10 MB.
//   2. GET /health p99 with 500 slow-header connections open, against the same run's p99 with none.
//      Goal: <= 50 ms.
//   3. countersignd under `prlimit --nofile=64` with 100 idle sockets: its CPU time over 10 s
//      (goal: near 0, < 0.5 s) and /health answered again once they close (goal: within 2 s).
//
// Usage: bench_http [slow-connections=500] [--server PROGRAM]. Takes about a minute. --server runs
// the same load against another server that takes serve's arguments and prints its URL first
// (beast_http_server, for the HTTP-layer decision). Prints each figure with its goal
// and "met" or "NOT met"; exits 1 if any is not met.
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>
#include <QUrl>

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace {

QTextStream out(stdout);
bool allMet = true;

void figure(const QString &name, double value, const QString &unit, const QString &goal, bool met)
{
    allMet = allMet && met;
    out << QStringLiteral("%1: %2 %3 (goal %4) %5").arg(name).arg(value, 0, 'f', 1).arg(unit, goal, met ? QStringLiteral("met") : QStringLiteral("NOT met"))
        << Qt::endl;
}

struct Server
{
    QProcess process;
    quint16 port = 0;
    qint64 pid = 0;

    bool start(const QStringList &arguments, const QString &program = QStringLiteral(COUNTERSIGND_BIN))
    {
        process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process.start(program, arguments);
        if (!process.waitForStarted(5000))
            return false;
        QByteArray line;
        QElapsedTimer clock;
        clock.start();
        while (!line.contains('\n') && clock.elapsed() < 10000 && process.waitForReadyRead(200))
            line += process.readAllStandardOutput();
        const QUrl url(QString::fromUtf8(line.trimmed()));
        port = quint16(url.port());
        pid = process.processId();
        return port != 0;
    }
    ~Server()
    {
        process.terminate();
        if (!process.waitForFinished(5000))
            process.kill();
        process.waitForFinished(2000);
    }

    qint64 rssKb() const
    {
        QFile status(QStringLiteral("/proc/%1/status").arg(pid));
        if (!status.open(QIODevice::ReadOnly))
            return -1;
        for (const QByteArray &line : status.readAll().split('\n')) {
            if (line.startsWith("VmRSS:"))
                return line.mid(6).trimmed().split(' ').first().toLongLong();
        }
        return -1;
    }
    double cpuSeconds() const
    {
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            return -1;
        const QByteArray text = stat.readAll();
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        // after "pid (comm) ": state is field 3, utime 14, stime 15
        return double(fields.value(11).toLongLong() + fields.value(12).toLongLong()) / double(sysconf(_SC_CLK_TCK));
    }
};

std::unique_ptr<QTcpSocket> connectTo(quint16 port)
{
    auto socket = std::make_unique<QTcpSocket>();
    socket->connectToHost(QStringLiteral("127.0.0.1"), port);
    socket->waitForConnected(3000);
    return socket;
}

// One GET /health on a new connection; its status (0: none) and the milliseconds it took.
std::pair<int, double> health(quint16 port)
{
    QElapsedTimer clock;
    clock.start();
    auto socket = connectTo(port);
    socket->write("GET /api/v1/health HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n");
    QByteArray raw;
    while (socket->state() == QAbstractSocket::ConnectedState && socket->waitForReadyRead(3000))
        raw += socket->readAll();
    raw += socket->readAll();
    const double ms = double(clock.nsecsElapsed()) / 1e6;
    const int status = raw.startsWith("HTTP/1.1 ") ? raw.mid(9, 3).toInt() : 0;
    return {status, ms};
}

double p99(std::vector<double> samples)
{
    if (samples.empty())
        return 0;
    std::sort(samples.begin(), samples.end());
    return samples[std::min(samples.size() - 1, size_t(double(samples.size()) * 0.99))];
}

// Streams `total` bytes after `head` on one connection until the server closes it; the largest
// RSS growth of the server meanwhile, and what it answered.
struct Upload
{
    qint64 sent = 0;
    qint64 maxGrowthKb = 0;
    int status = 0;
    double answerMs = -1;
};

Upload upload(Server &server, const QByteArray &head, qint64 total, char fill)
{
    Upload result;
    const qint64 baseline = server.rssKb();
    auto socket = connectTo(server.port);
    QElapsedTimer clock;
    clock.start();
    socket->write(head);
    const QByteArray chunk(1 << 20, fill);
    QByteArray answer;
    while (result.sent < total && socket->state() == QAbstractSocket::ConnectedState) {
        socket->write(chunk);
        socket->waitForBytesWritten(2000);
        result.sent += chunk.size();
        answer += socket->readAll();
        if (result.answerMs < 0 && !answer.isEmpty())
            result.answerMs = double(clock.nsecsElapsed()) / 1e6;
        result.maxGrowthKb = std::max(result.maxGrowthKb, server.rssKb() - baseline);
        if (!socket->isValid())
            break;
    }
    socket->waitForReadyRead(500);
    answer += socket->readAll();
    if (result.answerMs < 0 && !answer.isEmpty())
        result.answerMs = double(clock.nsecsElapsed()) / 1e6;
    result.status = answer.startsWith("HTTP/1.1 ") ? answer.mid(9, 3).toInt() : 0;
    result.maxGrowthKb = std::max(result.maxGrowthKb, server.rssKb() - baseline);
    return result;
}

// 300 MB as keep-alive requests at the body limit, no token: each read whole, answered 401.
Upload keepAliveUpload(Server &server, qint64 total, qint64 bodyBytes)
{
    Upload result;
    const qint64 baseline = server.rssKb();
    auto socket = connectTo(server.port);
    const QByteArray request = "POST /api/v1/actions HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                               "Content-Length: " + QByteArray::number(bodyBytes) + "\r\n\r\n" + QByteArray(bodyBytes, ' ');
    qint64 answers = 0;
    qint64 unauthenticated = 0;
    for (qint64 i = 0; result.sent < total && socket->state() == QAbstractSocket::ConnectedState; ++i) {
        socket->write(request);
        result.sent += request.size();
        socket->waitForBytesWritten(2000);
        // one answer per request before the next
        while (answers <= i && socket->waitForReadyRead(3000)) {
            const QByteArray got = socket->readAll();
            answers += got.count("HTTP/1.1 ");
            unauthenticated += got.count("HTTP/1.1 401");
        }
        if (answers <= i)
            break;
        if (i % 64 == 0)
            result.maxGrowthKb = std::max(result.maxGrowthKb, server.rssKb() - baseline);
    }
    result.status = answers > 0 && unauthenticated == answers ? 401 : 0;
    result.maxGrowthKb = std::max(result.maxGrowthKb, server.rssKb() - baseline);
    return result;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    int slowCount = 500;
    QString program = QStringLiteral(COUNTERSIGND_BIN);
    for (int i = 1; i < argc; ++i) {
        if (QByteArray(argv[i]) == "--server" && i + 1 < argc)
            program = QString::fromLocal8Bit(argv[++i]);
        else
            slowCount = QByteArray(argv[i]).toInt();
    }
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("ledger.db"));
    QProcess::execute(QStringLiteral(COUNTERSIGND_BIN), {QStringLiteral("migrate"), QStringLiteral("--db"), db});

    out << "bench_http against " << program << Qt::endl;
    {
        Server server;
        if (!server.start({QStringLiteral("serve"), QStringLiteral("--db"), db, QStringLiteral("--listen"),
                           QStringLiteral("127.0.0.1:0"), QStringLiteral("--no-executor"), QStringLiteral("--max-connections"),
                           QString::number(slowCount + 64), QStringLiteral("--max-connections-per-address"),
                           QString::number(slowCount + 64)},
                          program)) {
            out << "cannot start countersignd" << Qt::endl;
            return 2;
        }
        QThread::msleep(300);
        out << "server RSS at start: " << server.rssKb() / 1024 << " MB" << Qt::endl;

        constexpr qint64 k300MB = 300LL * 1024 * 1024;
        const Upload oneRequest = upload(server,
                                         "POST /api/v1/actions HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                                         "Content-Length: 314572800\r\n\r\n",
                                         k300MB, ' ');
        out << QStringLiteral("  Content-Length 300 MB: answered %1 after %2 ms; the client got %3 MB out before the close")
                   .arg(oneRequest.status)
                   .arg(oneRequest.answerMs, 0, 'f', 1)
                   .arg(double(oneRequest.sent) / 1048576.0, 0, 'f', 1)
            << Qt::endl;
        figure(QStringLiteral("RSS growth, 300 MB as one Content-Length request"), double(oneRequest.maxGrowthKb) / 1024.0,
               QStringLiteral("MB"), QStringLiteral("<= 10 MB"), oneRequest.maxGrowthKb <= 10 * 1024 && oneRequest.status == 413);

        const Upload unterminated = upload(server, "GET /api/v1/health HTTP/1.1\r\nX-Pad: ", k300MB, 'a');
        out << QStringLiteral("  300 MB of unterminated head: answered %1 after %2 ms; %3 MB out before the close")
                   .arg(unterminated.status)
                   .arg(unterminated.answerMs, 0, 'f', 1)
                   .arg(double(unterminated.sent) / 1048576.0, 0, 'f', 1)
            << Qt::endl;
        figure(QStringLiteral("RSS growth, 300 MB of unterminated head"), double(unterminated.maxGrowthKb) / 1024.0,
               QStringLiteral("MB"), QStringLiteral("<= 10 MB"), unterminated.maxGrowthKb <= 10 * 1024 && unterminated.status == 431);

        QElapsedTimer clock;
        clock.start();
        const Upload keepAlive = keepAliveUpload(server, k300MB, 65536);
        out << QStringLiteral("  300 MB as 64 KiB keep-alive requests: %1 MB read and answered 401 in %2 s")
                   .arg(double(keepAlive.sent) / 1048576.0, 0, 'f', 1)
                   .arg(double(clock.elapsed()) / 1000.0, 0, 'f', 1)
            << Qt::endl;
        figure(QStringLiteral("RSS growth, 300 MB of keep-alive requests read whole"), double(keepAlive.maxGrowthKb) / 1024.0,
               QStringLiteral("MB"), QStringLiteral("<= 10 MB"), keepAlive.maxGrowthKb <= 10 * 1024 && keepAlive.sent >= k300MB);

        // 2. /health p99: baseline, then with slow-header connections open.
        constexpr int probes = 300;
        std::vector<double> baseline;
        int failures = 0;
        for (int i = 0; i < probes; ++i) {
            const auto [status, ms] = health(server.port);
            failures += status != 200;
            baseline.push_back(ms);
        }
        std::vector<std::unique_ptr<QTcpSocket>> slow;
        for (int i = 0; i < slowCount; ++i) {
            slow.push_back(connectTo(server.port));
            slow.back()->write("GET /api/v1/health HTTP/1.1\r\nHost: bench\r\nX-Slow: ");
            slow.back()->flush();
        }
        QElapsedTimer slowClock;
        slowClock.start();
        std::vector<double> loaded;
        for (int i = 0; i < probes; ++i) {
            for (int k = 0; k < 5; ++k) { // drip: the slow heads keep arriving, a byte at a time
                QTcpSocket &s = *slow[size_t((i * 5 + k) % slowCount)];
                s.write("a");
                s.flush();
            }
            const auto [status, ms] = health(server.port);
            failures += status != 200;
            loaded.push_back(ms);
        }
        int stillOpen = 0;
        for (auto &s : slow) {
            s->waitForReadyRead(0);
            stillOpen += s->state() == QAbstractSocket::ConnectedState && s->bytesAvailable() == 0;
        }
        out << QStringLiteral("  /health p99 with 0 slow connections: %1 ms (same run's baseline)").arg(p99(baseline), 0, 'f', 2)
            << Qt::endl;
        out << QStringLiteral("  %1 of %2 slow-header connections still open after the %3 probes (%4 ms); %5 probes failed")
                   .arg(stillOpen)
                   .arg(slowCount)
                   .arg(probes)
                   .arg(slowClock.elapsed())
                   .arg(failures)
            << Qt::endl;
        figure(QStringLiteral("/health p99 with %1 slow-header connections").arg(slowCount), p99(loaded), QStringLiteral("ms"),
               QStringLiteral("<= 50 ms"), p99(loaded) <= 50 && failures == 0 && stillOpen == slowCount);
        // Each slow head is answered 408 and closed once the head timeout (10 s) passes.
        int timedOut = 0;
        QElapsedTimer waitClock;
        waitClock.start();
        for (auto &s : slow) {
            QByteArray raw;
            while (s->state() == QAbstractSocket::ConnectedState && waitClock.elapsed() < 15000) {
                s->waitForReadyRead(100);
                raw += s->readAll();
            }
            raw += s->readAll();
            timedOut += raw.startsWith("HTTP/1.1 408");
        }
        out << QStringLiteral("  %1 of %2 slow-header connections answered 408 and closed within %3 s of opening")
                   .arg(timedOut)
                   .arg(slowCount)
                   .arg(double(slowClock.elapsed()) / 1000.0, 0, 'f', 1)
            << Qt::endl;
    }

    // 3. The descriptor limit.
    {
        Server server;
        if (!server.start({QStringLiteral("--nofile=64:64"), program, QStringLiteral("serve"),
                           QStringLiteral("--db"), db, QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                           QStringLiteral("--no-executor"), QStringLiteral("--head-timeout-ms"), QStringLiteral("60000"),
                           QStringLiteral("--idle-timeout-ms"), QStringLiteral("60000"), QStringLiteral("--max-connections-per-address"),
                           QStringLiteral("1000")},
                          QStringLiteral("prlimit"))) {
            out << "cannot start countersignd under prlimit" << Qt::endl;
            return 2;
        }
        QThread::msleep(300);
        const double idleBefore = server.cpuSeconds();
        QThread::sleep(2);
        const double idleCpu = server.cpuSeconds() - idleBefore;
        std::vector<std::unique_ptr<QTcpSocket>> idle;
        for (int i = 0; i < 100; ++i)
            idle.push_back(connectTo(server.port));
        const auto [statusDuring, msDuring] = health(server.port);
        const double before = server.cpuSeconds();
        QThread::sleep(10);
        const double cpu = server.cpuSeconds() - before;
        int open = 0;
        for (auto &s : idle) {
            s->waitForReadyRead(0);
            open += s->state() == QAbstractSocket::ConnectedState && s->bytesAvailable() == 0;
        }
        out << QStringLiteral("  under prlimit --nofile=64: %1 of 100 idle sockets held open, the rest answered 503; "
                              "/health meanwhile: %2; CPU over 2 s with none: %3 s")
                   .arg(open)
                   .arg(statusDuring)
                   .arg(idleCpu, 0, 'f', 2)
            << Qt::endl;
        figure(QStringLiteral("CPU time over 10 s at the descriptor limit (100 idle sockets)"), cpu, QStringLiteral("s"),
               QStringLiteral("< 0.5 s"), cpu < 0.5);
        idle.clear();
        QElapsedTimer clock;
        clock.start();
        int status = 0;
        while (clock.elapsed() < 5000 && (status = health(server.port).first) != 200)
            QThread::msleep(20);
        figure(QStringLiteral("/health answered after the idle sockets closed"), double(clock.elapsed()), QStringLiteral("ms"),
               QStringLiteral("200 within 2000 ms"), status == 200 && clock.elapsed() <= 2000);
    }
    out << (allMet ? "all figures met" : "some figures NOT met") << Qt::endl;
    return allMet ? 0 : 1;
}
