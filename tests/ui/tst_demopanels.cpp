// The demo mode's console panels against a real paysim and countersignd (subprocesses on
// loopback): the fault-injection form and rules table, the ground-truth view's mismatch, the
// narration panel's kinds and focus, and the role switcher's token.

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "demo/console/faultinjectionpanel.h"
#include "demo/console/groundtruthview.h"
#include "demo/console/narrationpanel.h"
#include "demo/console/roleswitcher.h"
#include "tests/client/backendprocess.h"
#include "ui/consolesettings.h"
#include "ui/mainwindow.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

class TestDemoPanels : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    QStringList m_charges;
    int m_next = 0;

    QMap<QString, QString> demoRoles() const
    {
        return { { QStringLiteral("agent7"), QStringLiteral("agent") },
                 { QStringLiteral("ana"), QStringLiteral("approver") },
                 { QStringLiteral("sue"), QStringLiteral("supervisor") },
                 { QStringLiteral("audrey"), QStringLiteral("auditor") },
                 { QStringLiteral("root"), QStringLiteral("admin") } };
    }
    QMap<QString, QString> demoTokens() const
    {
        QMap<QString, QString> tokens;
        for (const QString &user : demoRoles().keys())
            tokens.insert(user, m_backend.token(user));
        return tokens;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_backend.start(), qPrintable(m_backend.error()));
        QVERIFY(m_dir.isValid());
        m_charges = m_backend.charges();
        QVERIFY(!m_charges.isEmpty());
    }

    void faultRuleJson_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("fault");
        QTest::addColumn<int>("nth");
        QTest::addColumn<int>("times");
        QTest::addColumn<double>("probability");
        QTest::addColumn<int>("delay");
        QTest::newRow("lost answer on the first refund") << "POST" << "/v1/refunds" << "drop_response_after_commit" << 1 << 1 << 1.0 << 0;
        QTest::newRow("unlimited outage, any method") << "*" << "/v1/refunds*" << "outage_503" << 2 << 0 << 0.5 << 0;
        QTest::newRow("empty path means any") << "GET" << "" << "lookup_lag" << 1 << 3 << 1.0 << 4000;
    }
    void faultRuleJson()
    {
        QFETCH(QString, method);
        QFETCH(QString, path);
        QFETCH(QString, fault);
        QFETCH(int, nth);
        QFETCH(int, times);
        QFETCH(double, probability);
        QFETCH(int, delay);
        FaultInjectionPanel panel;
        panel.methodBox()->setCurrentText(method);
        panel.pathEdit()->setText(path);
        panel.faultBox()->setCurrentText(fault);
        panel.nthBox()->setValue(nth);
        panel.timesBox()->setValue(times);
        panel.probabilityBox()->setValue(probability);
        panel.delayBox()->setValue(delay);
        const QJsonObject rule = panel.ruleFromForm();
        QCOMPARE(rule.value(QLatin1String("method")).toString(), method);
        QCOMPARE(rule.value(QLatin1String("path")).toString(), path.isEmpty() ? QStringLiteral("*") : path);
        QCOMPARE(rule.value(QLatin1String("fault")).toString(), fault);
        QCOMPARE(rule.value(QLatin1String("nth")).toInt(), nth);
        QCOMPARE(rule.value(QLatin1String("times")).toInt(), times);
        QCOMPARE(rule.value(QLatin1String("probability")).toDouble(), probability);
        QCOMPARE(rule.value(QLatin1String("delay_ms")).toInt(), delay);
        QVERIFY(FaultInjectionPanel::faultNames().contains(fault));
    }

    void faultPanelTalksToPaysim()
    {
        FaultInjectionPanel panel;
        QSignalSpy changed(&panel, &FaultInjectionPanel::rulesChanged);
        QSignalSpy failed(&panel, &FaultInjectionPanel::failed);
        QVERIFY(changed.isValid());
        QVERIFY(failed.isValid());
        QSignalSpy shown(&panel, &FaultInjectionPanel::rulesShown);
        QVERIFY(shown.isValid());
        panel.setPaysimUrl(m_backend.paysimUrl());
        QVERIFY(shown.wait(5000)); // the first GET, before anything is added
        panel.faultBox()->setCurrentText(QStringLiteral("rate_limit_429"));
        panel.timesBox()->setValue(2);
        panel.addRule();
        QVERIFY(changed.wait(5000));
        QCOMPARE(failed.count(), 0);
        QTRY_COMPARE(panel.rulesTable()->rowCount(), 1);
        QCOMPARE(panel.rulesTable()->item(0, 3)->text(), QStringLiteral("rate_limit_429"));
        QCOMPARE(panel.rulesTable()->item(0, 2)->text(), QStringLiteral("/v1/refunds"));
        // paysim really holds it.
        const BackendProcess::Reply held = m_backend.paysimAdmin("GET", QStringLiteral("/_sim/faults"));
        const QJsonArray rules = held.body.value(QLatin1String("rules")).toArray();
        QCOMPARE(rules.size(), 1);
        QCOMPARE(rules.at(0).toObject().value(QLatin1String("fault")).toString(), QStringLiteral("rate_limit_429"));
        QCOMPARE(rules.at(0).toObject().value(QLatin1String("times")).toInt(), 2);

        panel.faultBox()->setCurrentText(QStringLiteral("outage_503"));
        panel.addRule();
        QTRY_COMPARE(panel.rulesTable()->rowCount(), 2);
        panel.rulesTable()->setCurrentCell(0, 0);
        panel.deleteSelected();
        QTRY_COMPARE(panel.rulesTable()->rowCount(), 1);
        QCOMPARE(panel.rulesTable()->item(0, 3)->text(), QStringLiteral("outage_503"));
        panel.clearAll();
        QTRY_COMPARE(panel.rulesTable()->rowCount(), 0);
        QCOMPARE(m_backend.paysimAdmin("GET", QStringLiteral("/_sim/faults")).body.value(QLatin1String("rules")).toArray().size(), 0);

        // A bad rule is refused by paysim and reported.
        panel.delayBox()->setValue(0);
        panel.faultBox()->setCurrentText(QStringLiteral("lookup_lag")); // needs delay_ms > 0
        panel.addRule();
        QTRY_COMPARE(failed.count(), 1);
    }

    void groundTruthShowsDoubleRefund()
    {
        const QString charge = m_charges.at(m_next++ % m_charges.size());
        const QJsonObject action = m_backend.propose(charge, 100, QStringLiteral("gt-double-%1").arg(m_next));
        const QString actionId = action.value(QLatin1String("id")).toString();
        QVERIFY(!actionId.isEmpty());
        QVERIFY(m_backend.plantProviderRefund(charge, 100, actionId));
        QVERIFY(m_backend.plantProviderRefund(charge, 100, actionId));

        ApiClient client;
        client.setBaseUrl(m_backend.url());
        client.setToken(m_backend.token(QStringLiteral("root")));
        GroundTruthView view(&client);
        QSignalSpy refreshed(&view, &GroundTruthView::refreshed);
        QVERIFY(refreshed.isValid());
        view.setPaysimUrl(m_backend.paysimUrl());
        QVERIFY(refreshed.wait(10000));
        QTableWidget *table = view.table();
        int rows = 0;
        for (int row = 0; row < table->rowCount(); ++row) {
            if (table->item(row, GroundTruthView::ColAction)->text() != actionId)
                continue;
            ++rows;
            QCOMPARE(table->item(row, GroundTruthView::ColLedgerState)->text(), QStringLiteral("PENDING"));
            QVERIFY2(table->item(row, GroundTruthView::ColVerdict)->text().contains(QLatin1String("2 refunds")),
                     qPrintable(table->item(row, GroundTruthView::ColVerdict)->text()));
            QCOMPARE(table->item(row, GroundTruthView::ColAmount)->text(), QStringLiteral("100 usd"));
            QVERIFY(table->item(row, GroundTruthView::ColRefund)->background().color().red() > 200);
        }
        QCOMPARE(rows, 2);
        QVERIFY(view.mismatchCount() >= 2);
    }

    void narrationKindsAndFocus()
    {
        NarrationPanel panel;
        panel.begin(QStringLiteral("The retry that refunded twice"), QStringLiteral("A lost answer and a blind retry."));
        panel.append(QStringLiteral("The agent proposes a refund"), NarrationPanel::Kind::Step);
        panel.append(QStringLiteral("The retry created a second refund"), NarrationPanel::Kind::Problem);
        panel.append(QStringLiteral("Same key: the provider replays"), NarrationPanel::Kind::Cure);
        panel.append(QStringLiteral("VERDICT PASS"), NarrationPanel::Kind::Verdict);
        QListWidget *steps = panel.steps();
        QCOMPARE(steps->count(), 4);
        const QColor problem = steps->item(1)->foreground().color();
        const QColor cure = steps->item(2)->foreground().color();
        QVERIFY(problem.red() > problem.green() && problem.red() > problem.blue());
        QVERIFY(cure.green() > cure.red() && cure.green() > cure.blue());
        QVERIFY(steps->item(3)->font().bold());
        QVERIFY(!steps->item(0)->font().bold());
        QVERIFY(steps->item(1)->text().contains(QLatin1String("second refund")));

        // actionFocused → the console selects the action.
        const QString charge = m_charges.at(m_next++ % m_charges.size());
        const QString actionId = m_backend.propose(charge, 300, QStringLiteral("focus-%1").arg(m_next)).value(QLatin1String("id")).toString();
        ApiClient client;
        client.setBaseUrl(m_backend.url());
        client.setToken(m_backend.token(QStringLiteral("ana")));
        EventStreamClient events;
        events.setBaseUrl(m_backend.url());
        events.setToken(m_backend.token(QStringLiteral("ana")));
        ConsoleSettings settings(m_dir.filePath(QStringLiteral("focus.ini")));
        MainWindow window(&client, &events, &settings);
        window.show();
        QSignalSpy identity(&window, &MainWindow::identityKnown);
        window.start();
        QVERIFY(identity.wait(10000));
        QSignalSpy focus(&panel, &NarrationPanel::focusRequested);
        QVERIFY(focus.isValid());
        connect(&panel, &NarrationPanel::focusRequested, &window, &MainWindow::selectAction);
        panel.followAction(actionId);
        QCOMPARE(focus.count(), 1);
        QCOMPARE(focus.at(0).at(0).toString(), actionId);
        QCOMPARE(panel.focusedAction(), actionId);
        QTRY_COMPARE(window.currentActionId(), actionId);
    }

    void roleSwitchChangesToken()
    {
        ApiClient client;
        client.setBaseUrl(m_backend.url());
        client.setDeadline(5s);
        EventStreamClient events;
        events.setBaseUrl(m_backend.url());
        ConsoleSettings settings(m_dir.filePath(QStringLiteral("roles.ini")));
        MainWindow window(&client, &events, &settings);
        window.show();
        RoleSwitcher roles(&window, demoRoles(), demoTokens());
        QCOMPARE(roles.userFor(QStringLiteral("auditor")), QStringLiteral("audrey"));
        QCOMPARE(roles.menu()->actions().size(), 5);
        QSignalSpy identity(&window, &MainWindow::identityKnown);
        QVERIFY(identity.isValid());

        for (const QString &role : RoleSwitcher::roleOrder()) {
            identity.clear();
            QVERIFY(roles.signInAs(role));
            const QString user = roles.userFor(role);
            QCOMPARE(client.token(), m_backend.token(user));
            QVERIFY(identity.wait(10000));
            QCOMPARE(identity.last().at(0).toString(), user);
            QCOMPARE(identity.last().at(1).toString(), role);
            QCOMPARE(window.role(), role);
            // whoami with the client's token, straight from the backend.
            ApiCall *me = client.me();
            QSignalSpy done(me, &ApiCall::finished);
            QVERIFY(done.wait(5000));
            QCOMPARE(me->response().object().value(QLatin1String("user")).toString(), user);
        }
        QVERIFY(!roles.signInAs(QStringLiteral("nobody")));
        QCOMPARE(roles.currentRole(), QStringLiteral("admin"));
    }
};

QTEST_MAIN(TestDemoPanels)
#include "tst_demopanels.moc"
