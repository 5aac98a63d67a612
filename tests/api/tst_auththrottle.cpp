// AuthThrottle (server/api/auththrottle.h) with an injected monotonic clock: N failures in the
// window lock an address out for the lockout, per address (IPv6 per /64), in bounded memory.
#include "server/api/auththrottle.h"

#include <QTest>

#include <memory>

using namespace cs;
using namespace std::chrono_literals;

class TestAuthThrottle : public QObject
{
    Q_OBJECT

    std::shared_ptr<AuthThrottle::TimePoint> m_now;

    AuthThrottle make(int maxFailures, int maxAddresses = 100)
    {
        m_now = std::make_shared<AuthThrottle::TimePoint>(AuthThrottle::TimePoint(1000h));
        AuthThrottle::Options options;
        options.maxFailures = maxFailures;
        options.window = 60s;
        options.lockout = 30s;
        options.maxAddresses = maxAddresses;
        auto now = m_now;
        return AuthThrottle(options, [now] { return *now; });
    }

    static QHostAddress ip(const char *text) { return QHostAddress(QString::fromLatin1(text)); }
    static qint64 wait(const AuthThrottle &throttle, const QHostAddress &address)
    {
        return qint64(throttle.retryAfter(address).count());
    }

private slots:
    void locksOutAfterMaxFailures()
    {
        AuthThrottle throttle = make(3);
        const QHostAddress a = ip("192.0.2.1");
        for (int i = 0; i < 2; ++i) {
            throttle.recordFailure(a);
            QCOMPARE(wait(throttle, a), qint64(0));
        }
        *m_now += 5s;
        throttle.recordFailure(a);
        QCOMPARE(wait(throttle, a), qint64(30000));
        QCOMPARE(wait(throttle, ip("192.0.2.2")), qint64(0)); // another address is not affected
        *m_now += 29999ms;
        QCOMPARE(wait(throttle, a), qint64(1));
        *m_now += 1ms;
        QCOMPARE(wait(throttle, a), qint64(0));
        // After the lockout the count starts again.
        throttle.recordFailure(a);
        QCOMPARE(wait(throttle, a), qint64(0));
    }

    void failuresOutsideTheWindowDoNotAddUp()
    {
        AuthThrottle throttle = make(3);
        const QHostAddress a = ip("192.0.2.1");
        throttle.recordFailure(a);
        throttle.recordFailure(a);
        *m_now += 60s; // the window is over
        throttle.recordFailure(a);
        throttle.recordFailure(a);
        QCOMPARE(wait(throttle, a), qint64(0));
        throttle.recordFailure(a);
        QVERIFY(wait(throttle, a) > 0);
    }

    void ipv6CountsPerSlash64AndMappedV4AsV4()
    {
        QCOMPARE(AuthThrottle::keyFor(ip("2001:db8:1:2:aaaa::1")), QStringLiteral("2001:db8:1:2::/64"));
        QCOMPARE(AuthThrottle::keyFor(ip("::ffff:192.0.2.7")), QStringLiteral("192.0.2.7"));
        AuthThrottle throttle = make(2);
        throttle.recordFailure(ip("2001:db8:1:2::1"));
        throttle.recordFailure(ip("2001:db8:1:2::2"));
        QVERIFY(wait(throttle, ip("2001:db8:1:2:ffff::9")) > 0);
        QCOMPARE(wait(throttle, ip("2001:db8:1:3::1")), qint64(0));
        throttle.recordFailure(ip("::ffff:192.0.2.7"));
        throttle.recordFailure(ip("192.0.2.7"));
        QVERIFY(wait(throttle, ip("192.0.2.7")) > 0);
    }

    // Many addresses never grow the table beyond its cap. When it is full of live entries the
    // one with the oldest last failure goes (docs/SECURITY.md: what is not defended).
    void memoryIsBounded()
    {
        AuthThrottle throttle = make(2, 50);
        const QHostAddress locked = ip("198.51.100.1");
        throttle.recordFailure(locked);
        throttle.recordFailure(locked);
        QVERIFY(wait(throttle, locked) > 0);
        for (int i = 0; i < 49; ++i) {
            *m_now += 1ms;
            throttle.recordFailure(QHostAddress(quint32(0x0A000000 + i)));
        }
        QCOMPARE(throttle.trackedAddresses(), 50);
        for (int i = 49; i < 5000; ++i) {
            *m_now += 1ms;
            throttle.recordFailure(QHostAddress(quint32(0x0A000000 + i)));
            QVERIFY(throttle.trackedAddresses() <= 50);
        }
        // The oldest entry went first: `locked` (last failure before all the others) was evicted.
        QCOMPARE(wait(throttle, locked), qint64(0));
        QCOMPARE(throttle.trackedAddresses(), 50);
    }
};

QTEST_GUILESS_MAIN(TestAuthThrottle)
#include "tst_auththrottle.moc"
