// The connection is the truth: an idle console learns within 5 seconds that its backend is gone
// (kill -9) or hung (SIGSTOP) — from the event stream's heartbeat (every 2 s) and its 4 s watchdog,
// no click needed — and says so in a banner that cannot be missed; decisions are off with the
// reason and "Execution running" becomes "unknown while offline". Back, everything shown is read
// again: an action proposed while the console was away is in the queue. A real countersignd and
// paysim (tests/client/backendprocess.h), the real MainWindow (offscreen).
#include "tests/ui/testconsole.h"
#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actionqueuemodel.h"
#include "tests/client/backendprocess.h"
#include "tests/client/faultproxy.h"
#include "tests/support/quietoffscreen.h"
#include "ui/mainwindow.h"
#include "ui/offlinebanner.h"
#include "ui/queueview.h"

#include <QAction>
#include <QElapsedTimer>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace cs;

namespace {

struct Console : test::TestConsole
{
    using TestConsole::TestConsole;
    QLabel *indicator() const { return window->findChild<QLabel *>(QStringLiteral("statusExecution")); }
};

} // namespace

class TestOffline : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        testsupport::installQuietOffscreen();
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_backend.start(4), qPrintable(m_backend.error()));
    }
    void cleanupTestCase() { m_backend.stop(); }

    void hungBackendIsShownWithinFiveSeconds() { backendStops(SIGSTOP); }
    void deadBackendIsShownWithinFiveSeconds() { backendStops(SIGKILL); }

private:
    std::unique_ptr<Console> open(const QUrl &url)
    {
        auto console = std::make_unique<Console>(url, m_backend.token(QStringLiteral("ana")),
                                                 m_dir.filePath(QStringLiteral("ana%1.ini").arg(++m_next)));
        console->showAndSignIn();
        return console;
    }

    // The backend stops answering while the console is idle, on an action an approver could
    // approve: the banner within 5 s, decisions off, execution unknown. Back (SIGCONT, or a new
    // process on the same ledger), what was proposed meanwhile shows without a click.
    void backendStops(int signal)
    {
        const QStringList charges = m_backend.charges();
        const QString id = m_backend.propose(charges.at(m_next % charges.size()), 1200 + m_next,
                                             QStringLiteral("offline-%1").arg(m_next)).value(QLatin1String("id")).toString();
        QVERIFY(!id.isEmpty());
        // Through a proxy: while the backend is gone the console can be kept from it until the test
        // has changed something behind its back.
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        auto c = open(proxy.url());
        QTRY_VERIFY_WITH_TIMEOUT(c->window->queueModel()->rowOf(id) >= 0, 10000);
        c->window->selectAction(id);
        QAction *approve = c->window->decisionAction(QStringLiteral("approve"));
        QTRY_VERIFY_WITH_TIMEOUT(approve->isEnabled(), 10000);
        QAction *bulkApprove = c->window->bulkDecisionAction(QStringLiteral("approve"));
        QVERIFY(bulkApprove->isEnabled()); // the selected row
        QTRY_VERIFY_WITH_TIMEOUT(c->events.state() == EventStreamClient::State::Live, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(c->indicator()->text() == QStringLiteral("Execution running"), 10000);
        QTest::qWait(500); // idle: nothing in flight

        const qint64 pid = m_backend.backendPid();
        QVERIFY(pid > 0);
        QElapsedTimer since;
        since.start();
        QCOMPARE(::kill(pid_t(pid), signal), 0);
        OfflineBanner *banner = c->window->offlineBanner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 8000);
        const qint64 noticed = since.elapsed();
        qInfo("backend %s: the banner showed after %lld ms", signal == SIGSTOP ? "hung" : "gone", noticed);
        QVERIFY2(noticed <= 5000, qPrintable(QString::number(noticed)));
        QVERIFY2(banner->text().contains(QStringLiteral("does not answer")), qPrintable(banner->text()));
        QVERIFY(!approve->isEnabled());
        QVERIFY2(approve->toolTip().contains(QStringLiteral("the backend does not answer")), qPrintable(approve->toolTip()));
        QVERIFY(!bulkApprove->isEnabled()); // bulk decisions too
        QVERIFY2(bulkApprove->toolTip().contains(QStringLiteral("the backend does not answer")), qPrintable(bulkApprove->toolTip()));
        QCOMPARE(c->indicator()->text(), QStringLiteral("Execution: unknown while offline"));

        // Back. Something changed meanwhile: a new proposal the console has not heard of.
        proxy.goDown();
        if (signal == SIGSTOP)
            QCOMPARE(::kill(pid_t(pid), SIGCONT), 0);
        else
            QVERIFY2(m_backend.restartBackend(), qPrintable(m_backend.error()));
        const QString meanwhile = m_backend.propose(charges.at((m_next + 1) % charges.size()), 1300 + m_next,
                                                    QStringLiteral("meanwhile-%1").arg(m_next))
                                      .value(QLatin1String("id")).toString();
        QVERIFY(!meanwhile.isEmpty());
        QVERIFY(c->window->queueModel()->rowOf(meanwhile) < 0);
        QVERIFY(proxy.comeBack());
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(c->window->queueModel()->rowOf(meanwhile) >= 0, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(approve->isEnabled(), 10000);
        QTRY_VERIFY(bulkApprove->isEnabled());
        // Read again in place: the row in view is still the one shown and acted on.
        QCOMPARE(c->window->queueView()->target(), id);
        QTRY_COMPARE_WITH_TIMEOUT(c->indicator()->text(), QStringLiteral("Execution running"), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(c->events.state() == EventStreamClient::State::Live, 10000);
    }

    BackendProcess m_backend;
    QTemporaryDir m_dir;
    int m_next = 0;
};

QTEST_MAIN(TestOffline)
#include "tst_offline.moc"
