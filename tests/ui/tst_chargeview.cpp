// The charge view in the console (issue 17) against a real countersignd and paysim: Action → Show
// charge (and the detail pane's link) opens the selected action's charge with its actions, the
// provider's refunds (one made outside Countersign) and its budget; Refresh asks the provider and
// the backend records it (an auditor's only reads again); double-click selects an action in the
// queue; a change of one of its actions on the event stream shows at once; through a proxy that
// goes away, the window says it is offline and reads again once the backend is back; agents
// cannot open it.

#include "tests/ui/testconsole.h"
#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/chargeactionmodel.h"
#include "models/chargerefundmodel.h"
#include "tests/client/backendprocess.h"
#include "tests/client/faultproxy.h"
#include "tests/support/quietoffscreen.h"
#include "ui/actiondetailpane.h"
#include "ui/chargecontroller.h"
#include "ui/chargewindow.h"
#include "ui/consolesettings.h"
#include "ui/mainwindow.h"

#include <QAction>
#include <QJsonArray>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

namespace {

// One console session (tests/ui/testconsole.h).
struct Console : test::TestConsole
{
    using TestConsole::TestConsole;
    ChargeWindow *charge() const { return window->charges()->window(); }
};

// The offscreen platform cannot raise a window (the controller raises the charge view): noise.
QtMessageHandler g_previous = nullptr;
void quietRaise(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (!message.contains(QLatin1String("does not support raise()")) && g_previous)
        g_previous(type, context, message);
}

int rowOf(QTableView *view, int role, const QString &value)
{
    for (int r = 0; r < view->model()->rowCount(); ++r) {
        if (view->model()->index(r, 0).data(role).toString() == value)
            return r;
    }
    return -1;
}

} // namespace

class TestChargeView : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    int m_next = 0;
    QString m_charge;    // 150.00 USD: 20.00 refunded in the dashboard, m_done, m_waiting
    QString m_done;      // 50.00 COMPLETED
    QString m_waiting;   // 30.00 PENDING

    std::unique_ptr<Console> open(const QString &user, const QUrl &url = QUrl())
    {
        auto console = std::make_unique<Console>(url.isValid() ? url : m_backend.url(), m_backend.token(user),
                                                 m_dir.filePath(user + QString::number(++m_next) + QStringLiteral(".ini")));
        console->showAndSignIn();
        return console;
    }

    // Selects the action and opens its charge with Action → Show charge.
    bool showCharge(Console &c, const QString &actionId)
    {
        if (!QTest::qWaitFor([&] { return c.window->queueModel()->rowOf(actionId) >= 0; }, 10000))
            return false;
        c.window->selectAction(actionId);
        if (!QTest::qWaitFor([&] { return c.window->showChargeAction()->isEnabled()
                                        && c.window->detailPane()->detail().record.id == actionId; }, 10000))
            return false;
        c.window->showChargeAction()->trigger();
        return QTest::qWaitFor([&] { return c.charge()->isVisible() && c.charge()->overview()
                                        && c.charge()->activity() == ChargeWindow::Activity::Idle; }, 10000);
    }

    QJsonObject chargeJson() const
    {
        return m_backend.get(QStringLiteral("audrey"), QStringLiteral("/charges/") + m_charge).body;
    }

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
        g_previous = qInstallMessageHandler(quietRaise);
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_backend.start(2, { QStringLiteral("--sse-heartbeat-ms"), QStringLiteral("1000"),
                                      QStringLiteral("--sse-poll-ms"), QStringLiteral("50") }),
                 qPrintable(m_backend.error()));
        const BackendProcess::Reply seeded = m_backend.paysimAdmin(
            "POST", QStringLiteral("/_sim/charges"), QJsonObject{{QStringLiteral("count"), 1}, {QStringLiteral("amount"), 15000}});
        m_charge = seeded.body.value(QLatin1String("data")).toArray().first().toObject().value(QLatin1String("id")).toString();
        QVERIFY(m_charge.startsWith(u"ch_"));
        QVERIFY(m_backend.plantProviderRefund(m_charge, 2000, QString())); // made in the dashboard
        m_done = m_backend.propose(m_charge, 5000, QStringLiteral("cv-done"), QStringLiteral("order-1150")).value(QLatin1String("id")).toString();
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/approvals").arg(m_done),
                                QJsonObject{{QStringLiteral("note"), QStringLiteral("ok")}}, 1).status,
                 200);
        QTRY_COMPARE_WITH_TIMEOUT(m_backend.action(m_done).value(QLatin1String("state")).toString(), QStringLiteral("COMPLETED"), 20000);
        m_waiting = m_backend.propose(m_charge, 3000, QStringLiteral("cv-wait"), QStringLiteral("order-1150")).value(QLatin1String("id")).toString();
        QVERIFY(!m_waiting.isEmpty());
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    // The selected action's charge: its two actions with their states, the dashboard's refund
    // highlighted, the budget; Refresh reads the provider and the backend keeps the read.
    void showsTheSelectedActionsCharge()
    {
        auto c = open(QStringLiteral("ana"));
        QVERIFY(showCharge(*c, m_waiting));
        ChargeWindow *w = c->charge();
        QCOMPARE(w->targetId(), m_charge);
        QTableView *actions = w->actionTable();
        QCOMPARE(actions->model()->rowCount(), 2);
        const int done = rowOf(actions, ChargeActionModel::ActionIdRole, m_done);
        const int waiting = rowOf(actions, ChargeActionModel::ActionIdRole, m_waiting);
        QVERIFY(done >= 0 && waiting >= 0);
        QCOMPARE(actions->model()->index(done, ChargeActionModel::StateColumn).data().toString(), QStringLiteral("Completed"));
        QCOMPARE(actions->model()->index(waiting, ChargeActionModel::StateColumn).data().toString(), QStringLiteral("Pending"));
        QCOMPARE(actions->model()->index(waiting, ChargeActionModel::BudgetColumn).data().toString(), QStringLiteral("reserved"));
        QTableView *refunds = w->refundTable();
        QCOMPARE(refunds->model()->rowCount(), 2);
        QVERIFY(rowOf(refunds, ChargeRefundModel::MadeOutsideRole, QStringLiteral("true")) >= 0);
        QVERIFY(rowOf(refunds, ChargeRefundModel::ActionIdRole, m_done) >= 0);
        QVERIFY(w->outsideBanner()->isVisible());
        QCOMPARE(w->budgetBar() != nullptr, true);
        QVERIFY(w->budgetLabel()->text().contains(QStringLiteral("<b>50.00 USD left</b>"))); // 150 - 20 - 50 refunded - 30 reserved

        // Refresh: the provider is asked now, as ana, and the backend recorded it.
        const int seqBefore = chargeJson().value(QLatin1String("snapshot")).toObject().value(QLatin1String("seq")).toInt();
        QCOMPARE(w->refreshButton()->text(), QStringLiteral("&Look up now"));
        w->refreshButton()->click();
        QCOMPARE(w->activity(), ChargeWindow::Activity::LookingUp);
        QTRY_COMPARE_WITH_TIMEOUT(w->activity(), ChargeWindow::Activity::Idle, 15000);
        QVERIFY(w->lastReadLabel()->text().contains(QStringLiteral("by ana")));
        const QJsonObject recorded = chargeJson().value(QLatin1String("snapshot")).toObject();
        QCOMPARE(recorded.value(QLatin1String("asked_by")).toString(), QStringLiteral("ana"));
        QCOMPARE(recorded.value(QLatin1String("seq")).toInt(), seqBefore + 1);

        // Double-click the COMPLETED one: it is selected in the queue (the filter shows all).
        const QRect cell = actions->visualRect(actions->model()->index(done, ChargeActionModel::IdColumn));
        QTest::mouseClick(actions->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(actions->viewport(), Qt::LeftButton, {}, cell.center());
        QTRY_COMPARE_WITH_TIMEOUT(c->window->currentActionId(), m_done, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(c->window->detailPane()->detail().record.id, m_done, 10000);
    }

    // The detail pane's link opens the same view.
    void detailPaneLink()
    {
        auto c = open(QStringLiteral("sue"));
        QTRY_VERIFY_WITH_TIMEOUT(c->window->queueModel()->rowOf(m_waiting) >= 0, 10000);
        c->window->selectAction(m_waiting);
        QTRY_COMPARE_WITH_TIMEOUT(c->window->detailPane()->detail().record.id, m_waiting, 10000);
        auto *link = c->window->detailPane()->findChild<QLabel *>(QStringLiteral("chargeTitle"));
        QVERIFY(link);
        QVERIFY(link->text().contains(QStringLiteral("href")));
        emit link->linkActivated(QStringLiteral("#charge"));
        QTRY_VERIFY_WITH_TIMEOUT(c->charge()->isVisible() && c->charge()->overview(), 10000);
        QCOMPARE(c->charge()->overview()->chargeId, m_charge);
    }

    // An auditor reads again; the provider is not asked (nothing recorded).
    void auditorReloads()
    {
        auto c = open(QStringLiteral("audrey"));
        QVERIFY(showCharge(*c, m_waiting));
        ChargeWindow *w = c->charge();
        QCOMPARE(w->refreshButton()->text(), QStringLiteral("&Reload"));
        const int seqBefore = chargeJson().value(QLatin1String("snapshot")).toObject().value(QLatin1String("seq")).toInt();
        w->refreshButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(w->activity(), ChargeWindow::Activity::Idle, 10000);
        QCOMPARE(chargeJson().value(QLatin1String("snapshot")).toObject().value(QLatin1String("seq")).toInt(), seqBefore);
    }

    void agentsCannotOpenIt()
    {
        auto c = open(QStringLiteral("agent7"));
        QTRY_VERIFY_WITH_TIMEOUT(c->window->queueModel()->rowOf(m_waiting) >= 0, 10000);
        c->window->selectAction(m_waiting);
        QTRY_COMPARE_WITH_TIMEOUT(c->window->detailPane()->detail().record.id, m_waiting, 10000);
        QVERIFY(!c->window->showChargeAction()->isEnabled());
        QVERIFY(c->window->showChargeAction()->toolTip().contains(QStringLiteral("Agents")));
        // Asked anyway (the link): the backend's refusal is said.
        c->window->charges()->open(m_charge);
        QTRY_COMPARE_WITH_TIMEOUT(c->charge()->activity(), ChargeWindow::Activity::Failed, 10000);
        QVERIFY(c->charge()->statusLabel()->text().contains(QStringLiteral("403")));
        QVERIFY(!c->charge()->overview());
    }

    // A change of one of the shown actions reaches the window on the event stream.
    void liveChange()
    {
        const QString another = m_backend.propose(m_charge, 1000, QStringLiteral("cv-live"), QStringLiteral("order-1150"))
                                     .value(QLatin1String("id")).toString();
        auto c = open(QStringLiteral("ana"));
        QTRY_VERIFY_WITH_TIMEOUT(c->events.state() == EventStreamClient::State::Live, 10000);
        QVERIFY(showCharge(*c, another));
        QTableView *actions = c->charge()->actionTable();
        const int row = rowOf(actions, ChargeActionModel::ActionIdRole, another);
        QVERIFY(row >= 0);
        QCOMPARE(actions->model()->index(row, ChargeActionModel::StateColumn).data().toString(), QStringLiteral("Pending"));
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(another),
                                QJsonObject{{QStringLiteral("reason"), QStringLiteral("duplicate")}}, 1).status,
                 200);
        QTRY_COMPARE_WITH_TIMEOUT(actions->model()->index(rowOf(actions, ChargeActionModel::ActionIdRole, another),
                                                          ChargeActionModel::StateColumn).data().toString(),
                                  QStringLiteral("Rejected"), 10000);
    }

    // The backend goes away: Refresh says so and keeps what was shown; back, the view is read again.
    void offlineAndBack()
    {
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        auto c = open(QStringLiteral("ana"), proxy.url());
        QVERIFY(showCharge(*c, m_waiting));
        ChargeWindow *w = c->charge();
        proxy.goDown();
        w->refreshButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(w->activity(), ChargeWindow::Activity::Offline, 10000);
        QVERIFY(w->statusLabel()->text().contains(QStringLiteral("Offline")));
        QCOMPARE(w->actionTable()->model()->rowCount() >= 2, true); // still shown
        QVERIFY(w->refreshButton()->isEnabled());
        QVERIFY(proxy.comeBack());
        QTRY_COMPARE_WITH_TIMEOUT(w->activity(), ChargeWindow::Activity::Idle, 15000);
        QVERIFY(!w->statusLabel()->isVisible());
    }
};

QTEST_MAIN(TestChargeView)
#include "tst_chargeview.moc"
