// systemd readiness (lifecycle/servicenotify.h) against the real countersignd: with NOTIFY_SOCKET
// naming a datagram socket of this test, it sends READY=1 (with its URL) only once it answers
// HTTP, and STOPPING=1 on SIGTERM before it exits 0; with an abstract "@name" the same; without
// the variable nothing is required of it.
#include "lifecycle/servicenotify.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

// A datagram socket bound to `name` (a path, or "@abstract").
class NotifySocket
{
public:
    explicit NotifySocket(const QByteArray &name) : m_name(name)
    {
        m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un address {};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, name.constData(), size_t(name.size()));
        if (address.sun_path[0] == '@')
            address.sun_path[0] = '\0';
        m_bound = ::bind(m_fd, reinterpret_cast<const sockaddr *>(&address),
                         socklen_t(offsetof(sockaddr_un, sun_path) + size_t(name.size()))) == 0;
    }
    ~NotifySocket() { ::close(m_fd); }
    bool bound() const { return m_bound; }

    // The next datagram within timeoutMs (the event loop keeps running meanwhile); empty if none.
    QByteArray next(int timeoutMs)
    {
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < timeoutMs) {
            pollfd p {m_fd, POLLIN, 0};
            if (::poll(&p, 1, 20) == 1) {
                char buffer[4096];
                const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
                return n > 0 ? QByteArray(buffer, n) : QByteArray();
            }
            QCoreApplication::processEvents();
        }
        return QByteArray();
    }

private:
    QByteArray m_name;
    int m_fd = -1;
    bool m_bound = false;
};

} // namespace

class TestServiceNotify : public QObject
{
    Q_OBJECT
private slots:
    void withoutTheVariableNothingIsSent();
    void refusesAMalformedTarget();
    void countersigndIsReadyThenStopping_data();
    void countersigndIsReadyThenStopping();
};

void TestServiceNotify::withoutTheVariableNothingIsSent()
{
    qunsetenv("NOTIFY_SOCKET");
    QVERIFY(cs::ServiceNotify::ready("x"));
}

void TestServiceNotify::refusesAMalformedTarget()
{
    qputenv("NOTIFY_SOCKET", "relative/path");
    QVERIFY(!cs::ServiceNotify::send("READY=1"));
    qputenv("NOTIFY_SOCKET", QByteArray(200, '/'));
    QVERIFY(!cs::ServiceNotify::send("READY=1"));
    qputenv("NOTIFY_SOCKET", "/nonexistent/notify.sock");
    QVERIFY(!cs::ServiceNotify::send("READY=1"));
    qunsetenv("NOTIFY_SOCKET");
}

void TestServiceNotify::countersigndIsReadyThenStopping_data()
{
    QTest::addColumn<bool>("abstract");
    QTest::newRow("path") << false;
    QTest::newRow("abstract") << true;
}

void TestServiceNotify::countersigndIsReadyThenStopping()
{
    QFETCH(bool, abstract);
    QTemporaryDir dir;
    const QByteArray name = abstract ? "@countersign-test-" + QByteArray::number(QRandomGenerator::system()->generate())
                                     : dir.filePath(QStringLiteral("notify.sock")).toUtf8();
    NotifySocket socket(name);
    QVERIFY(socket.bound());

    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("NOTIFY_SOCKET"), QString::fromUtf8(name));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(COUNTERSIGND_BIN),
                  {QStringLiteral("serve"), QStringLiteral("--db"), dir.filePath(QStringLiteral("ledger.db")),
                   QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    QVERIFY(process.waitForStarted());

    const QByteArray ready = socket.next(20000);
    QVERIFY2(ready.startsWith("READY=1\nSTATUS=listening on http://127.0.0.1:"), ready.constData());
    // Ready means it answers: /health responds at once.
    const QString url = QString::fromUtf8(ready.mid(ready.indexOf("http://")));
    QNetworkAccessManager nam;
    QNetworkReply *reply = nam.get(QNetworkRequest(QUrl(url + QStringLiteral("/api/v1/health"))));
    QSignalSpy finished(reply, &QNetworkReply::finished);
    QVERIFY(finished.wait(5000));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    reply->deleteLater();

    process.terminate();
    const QByteArray stopping = socket.next(10000);
    QCOMPARE(stopping, QByteArray("STOPPING=1\nSTATUS=draining"));
    QVERIFY(process.waitForFinished(20000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestServiceNotify)
#include "tst_servicenotify.moc"
