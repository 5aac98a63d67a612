// A full review with the keyboard alone (issue 17): the real main window (offscreen) against a
// real countersignd and paysim, driven only by key events sent to whatever has the keyboard focus
// (QApplication::focusWidget()), as a person at the keyboard would — no mouse click, no slot
// called, no widget set. Each step also checks where the focus is, so that the next key has
// somewhere sensible to go: the queue at start, the dialog's input while a dialog is open, the
// queue again once it is closed.
//
// Tab must go round every window and dialog on the way and come back (no table keeps it cell by
// cell, nothing lets it out).
//
//   approverApprovesAndRejects  an approver picks a PENDING action with Ctrl+2 and the arrows,
//                               reads the dialog and approves (Ctrl+Shift+A, the note has the
//                               focus, Ctrl+Enter); the console moves on to the next one and the approved one leaves.
//                               Then rejects another (Ctrl+Shift+R, the reason with the arrows,
//                               Tab, a note, Tab to Reject, Enter), and the two left at once
//                               (Shift+Down, Ctrl+Alt+A, a note, Tab to Approve, Enter, Esc).
//   supervisorReconcilesNotCommitted  paysim answers idempotency_error: REQUIRES_REVIEW. Ctrl+4,
//                               look up (Ctrl+Shift+L, Ctrl+Enter: NOT_FOUND, Esc), reconcile
//                               (Ctrl+Shift+C, Alt+N, Alt+E and Space for the lookup, Tab, a
//                               note, Ctrl+Enter): REJECTED on that evidence.
//   supervisorFindsReconcilesAndFollowsUp  a lost answer (the refund exists, every later try and
//                               lookup fails): REQUIRES_REVIEW. Ctrl+5, Ctrl+F and the order
//                               reference, Enter; look up (FOUND); Ctrl+Tab to the evidence;
//                               reconcile committed (Alt+C, Alt+E and the arrows to the FOUND
//                               lookup, Tab, a note, Tab to Confirm, Enter): COMPLETED; follow up
//                               (Ctrl+Shift+F) to 45.00 in total: the dialog computes 5.00 and the
//                               backend records a 5.00 follow-up.

#include "tests/ui/testconsole.h"
#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actionqueuemodel.h"
#include "models/bulkdecisionmodel.h"
#include "tests/client/backendprocess.h"
#include "tests/support/quietoffscreen.h"
#include "ui/actiondetailpane.h"
#include "ui/bulkdecisioncontroller.h"
#include "ui/bulkdecisiondialog.h"
#include "ui/consolesettings.h"
#include "ui/decisioncontroller.h"
#include "ui/decisiondialog.h"
#include "ui/mainwindow.h"
#include "ui/queueview.h"
#include "ui/reconciledialog.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

namespace {

// One console session (tests/ui/testconsole.h).
struct Console : test::TestConsole
{
    using TestConsole::TestConsole;};

using test::child;

// "QPlainTextEdit noteEdit in reconcileDialog": where the focus is, for failure messages.
QString describe(const QWidget *w)
{
    if (!w)
        return QStringLiteral("nothing (no widget has the keyboard focus)");
    return QStringLiteral("%1 %2 in %3")
        .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName(), w->window()->objectName());
}

QString focusDescription()
{
    return describe(QApplication::focusWidget());
}

// Sends one key to whatever has the keyboard focus; false (and a warning) when nothing has it.
bool press(Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QWidget *target = QApplication::focusWidget();
    if (!target) {
        qWarning("a key with nowhere to go: no widget has the keyboard focus");
        return false;
    }
    QTest::keyClick(target, key, modifiers);
    return true;
}

// Types text, key by key, into whatever has the keyboard focus.
bool type(const QString &text)
{
    QWidget *target = QApplication::focusWidget();
    if (!target) {
        qWarning("text with nowhere to go: no widget has the keyboard focus");
        return false;
    }
    QTest::keyClicks(target, text);
    return true;
}

// Tab from the focused widget until the focus comes back to it: no control holds Tab (an item
// view that moves between its cells instead) and none lets the focus out of the window. A label's
// links are stops of their own (Tab selects each, then leaves): a few Tabs in one widget are
// fine, more are a trap. `stops` gets every widget on the way.
bool tabGoesRound(QWidgetList *stops, int limit = 80)
{
    QWidget *start = QApplication::focusWidget();
    if (!start)
        return false;
    QWidget *previous = start;
    int stay = 0;
    for (int i = 0; i < limit; ++i) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QWidget *now = QApplication::focusWidget();
        if (now == start)
            return true;
        if (now == previous) {
            if (++stay < 3)
                continue;
            qWarning("Tab stays in %s", qPrintable(describe(now)));
            return false;
        }
        stay = 0;
        if (!now || now->window() != start->window() || stops->contains(now)) {
            qWarning("Tab went from %s to %s, a cycle without %s", qPrintable(describe(previous)), qPrintable(describe(now)),
                     qPrintable(describe(start)));
            return false;
        }
        stops->append(now);
        previous = now;
    }
    qWarning("Tab did not come back to %s in %d steps", qPrintable(describe(start)), limit);
    return false;
}

bool focusIsIn(const QWidget *container)
{
    const QWidget *focus = QApplication::focusWidget();
    return focus && (focus == container || container->isAncestorOf(focus));
}

QString str(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

} // namespace

class TestKeyboardReview : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    QStringList m_charges;
    int m_next = 0;
    QElapsedTimer m_clock;

    QString nextCharge() { return m_charges.at(m_next++ % m_charges.size()); }

    // A console signed in as `user`, its window shown and active (as after starting it from the
    // desktop), its first queue page shown.
    std::unique_ptr<Console> open(const QString &user)
    {
        auto console = std::make_unique<Console>(m_backend.url(), m_backend.token(user),
                                                 m_dir.filePath(user + QString::number(++m_next) + QStringLiteral(".ini")));
        MainWindow *window = console->window.get();
        window->show();
        window->activateWindow(); // what the desktop does for a window just started
        if (!QTest::qWaitForWindowActive(window))
            qWarning("the main window did not become active");
        QSignalSpy firstPage(window, &MainWindow::firstPageShown);
        window->start();
        if (!firstPage.wait(10000))
            qWarning("no first page");
        return console;
    }

    // Arrow keys from the top of the queue until `id` is the current row; then its detail is shown.
    void arrowTo(Console &c, const QString &id)
    {
        QTableView *table = c.window->queueView()->table();
        QTRY_VERIFY_WITH_TIMEOUT(c.window->queueModel()->rowOf(id) >= 0, 10000);
        QTRY_COMPARE(QApplication::focusWidget(), table);
        QVERIFY(press(Qt::Key_Home, Qt::ControlModifier));
        const int rows = c.window->queueModel()->rowCount();
        for (int i = 0; i < rows && table->currentIndex().data(ActionQueueModel::ActionIdRole).toString() != id; ++i)
            QVERIFY(press(Qt::Key_Down));
        QCOMPARE(table->currentIndex().data(ActionQueueModel::ActionIdRole).toString(), id);
        QTRY_VERIFY_WITH_TIMEOUT(c.window->detailPane()->hasDetail() && c.window->detailPane()->detail().record.id == id, 10000);
        QCOMPARE(QApplication::focusWidget(), table); // the detail follows; the focus stays in the queue
    }

    // The decision's shortcut, pressed in the queue, opens its dialog with the focus inside it.
    DecisionDialog *openWithShortcut(Console &c, const char *kind, Qt::Key key, const char *dialogName)
    {
        QAction *action = c.window->decisionAction(QString::fromLatin1(kind));
        [&] { QTRY_VERIFY_WITH_TIMEOUT(action->isEnabled(), 10000); }();
        if (QTest::currentTestFailed() || !press(key, Qt::ControlModifier | Qt::ShiftModifier))
            return nullptr;
        DecisionDialog *dialog = nullptr;
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT((dialog = c.window->decisions()->openDialog()) != nullptr, 10000);
            QCOMPARE(dialog->objectName(), QString::fromLatin1(dialogName));
            QTRY_VERIFY2(focusIsIn(dialog), qPrintable(focusDescription()));
        }();
        return QTest::currentTestFailed() ? nullptr : dialog;
    }

    // The dialog has gone and the keyboard is back in the queue.
    void expectClosedAndBackInQueue(Console &c)
    {
        QTRY_VERIFY_WITH_TIMEOUT(!c.window->decisions()->openDialog(), 15000);
        QTRY_VERIFY2(QApplication::focusWidget() == c.window->queueView()->table(), qPrintable(focusDescription()));
    }

    // Look up now, with its shortcut, and close the dialog with the keyboard once it answered.
    void lookUp(Console &c, const QString &expected)
    {
        DecisionDialog *dialog = openWithShortcut(c, "lookup", Qt::Key_L, "lookupDialog");
        if (!dialog)
            return;
        QVERIFY(child<QLabel>(dialog, "descriptionLabel")->text().contains(QStringLiteral("cannot refund anything")));
        QVERIFY(press(Qt::Key_Return, Qt::ControlModifier));
        QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>(dialog, "lookupAnswer")->text().contains(expected), 20000);
        // The answer is read; the focus is on Close, and Escape closes like it.
        QTRY_VERIFY2(QApplication::focusWidget() == dialog->cancelButton(), qPrintable(focusDescription()));
        QVERIFY(press(Qt::Key_Escape));
        expectClosedAndBackInQueue(c);
    }

    // Replaces paysim's fault rules.
    void setFaults(const QJsonArray &rules)
    {
        const BackendProcess::Reply r = m_backend.paysimAdmin("POST", QStringLiteral("/_sim/faults"),
                                                              QJsonObject{ { QStringLiteral("rules"), rules } });
        QVERIFY2(r.status == 200 || r.status == 201, qPrintable(QString::number(r.status)));
    }

    // An action approved by ben (HTTP, not the console) whose execution runs into `rules`, until
    // it requires review; the faults are cleared then.
    QString actionInReview(qint64 amount, const QString &reference, const QJsonArray &rules)
    {
        QString id;
        [&] {
            setFaults(rules);
            if (QTest::currentTestFailed())
                return;
            id = m_backend.propose(nextCharge(), amount, reference + QStringLiteral("-refund"), reference).value(QLatin1String("id")).toString();
            QVERIFY(!id.isEmpty());
            QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/approvals").arg(id),
                                    QJsonObject{ { QStringLiteral("note"), QStringLiteral("ticket checked") } }, 1).status,
                     200);
            QTRY_COMPARE_WITH_TIMEOUT(str(m_backend.action(id), "state"), QStringLiteral("REQUIRES_REVIEW"), 60000);
            QCOMPARE(m_backend.paysimAdmin("DELETE", QStringLiteral("/_sim/faults")).status, 200);
        }();
        return id;
    }

private slots:
    void initTestCase()
    {
        m_clock.start();
        cs::testsupport::installQuietOffscreen();
        QVERIFY(m_dir.isValid());
        // Short waits, so that a lost answer ends in REQUIRES_REVIEW within seconds.
        const QString config = m_dir.filePath(QStringLiteral("execution.json"));
        QFile file(config);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"workers": 2, "request_timeout_ms": 2000, "lease_duration_ms": 8000, "idle_poll_ms": 100,
                       "recovery_sweep_ms": 1000, "backoff_base_ms": 300, "backoff_max_ms": 800,
                       "max_reconcile_tries": 2})");
        file.close();
        QVERIFY2(m_backend.start(20, { QStringLiteral("--execution-config"), config, QStringLiteral("--sse-heartbeat-ms"),
                                       QStringLiteral("1000"), QStringLiteral("--sse-poll-ms"), QStringLiteral("50") }),
                 qPrintable(m_backend.error()));
        m_charges = m_backend.charges();
        QVERIFY(m_charges.size() >= 20);
    }

    void cleanupTestCase()
    {
        m_backend.stop();
        qInfo("keyboard review: %lld ms in all", qint64(m_clock.elapsed()));
    }

    void approverApprovesAndRejects()
    {
        // The one to approve comes with the agent's reasons: its facts are a table, in the
        // detail pane and in the dialog, which Tab must pass through, not into.
        QJsonObject proposal{ { QStringLiteral("kind"), QStringLiteral("refund") },
                              { QStringLiteral("target"), QJsonObject{ { QStringLiteral("charge"), nextCharge() } } },
                              { QStringLiteral("amount"), 4321 }, { QStringLiteral("currency"), QStringLiteral("usd") },
                              { QStringLiteral("reason"), QStringLiteral("requested_by_customer") },
                              { QStringLiteral("client_reference"), QStringLiteral("kb-approve-refund") },
                              { QStringLiteral("business_reference"), QStringLiteral("kb-approve") },
                              { QStringLiteral("justification"), QStringLiteral("The customer returned the item; the warehouse scanned it.") },
                              { QStringLiteral("context_url"), QStringLiteral("https://support.example.com/tickets/4321") },
                              { QStringLiteral("facts"), QJsonObject{ { QStringLiteral("return_scanned"), QStringLiteral("RTN-4321") },
                                                                      { QStringLiteral("order_total"), QStringLiteral("USD 43.21") } } } };
        const BackendProcess::Reply proposed = m_backend.post(QStringLiteral("agent7"), QStringLiteral("/actions"), proposal);
        QCOMPARE(proposed.status, 201);
        const QString toApprove = str(proposed.body, "id");
        const QString between = m_backend.propose(nextCharge(), 1500, QStringLiteral("kb-between-refund"), QStringLiteral("kb-between"))
                                    .value(QLatin1String("id")).toString();
        const QString toReject = m_backend.propose(nextCharge(), 9900, QStringLiteral("kb-reject-refund"), QStringLiteral("kb-reject"))
                                     .value(QLatin1String("id")).toString();
        m_backend.propose(nextCharge(), 2500, QStringLiteral("kb-newest-refund"), QStringLiteral("kb-newest"));

        auto c = open(QStringLiteral("ana"));
        QTableView *table = c->window->queueView()->table();
        // Nothing needs the mouse to begin: the queue has the focus.
        QTRY_VERIFY2(QApplication::focusWidget() == table, qPrintable(focusDescription()));

        // Ctrl+2: the Pending filter; the keyboard stays in the queue, where the arrows work.
        QVERIFY(press(Qt::Key_2, Qt::ControlModifier));
        QTRY_COMPARE(c->window->queueView()->filter(), QueueView::Filter::Pending);
        QTRY_VERIFY2(QApplication::focusWidget() == table, qPrintable(focusDescription()));
        arrowTo(*c, toApprove);
        if (QTest::currentTestFailed())
            return;
        // Tab goes round the whole window, through the decision buttons and the agent's facts,
        // and back to the queue.
        QWidgetList stops;
        QVERIFY(tabGoesRound(&stops));
        QVERIFY(stops.contains(child<QWidget>(c->window->detailPane(), "approveActionButton")));
        QVERIFY(stops.contains(child<QWidget>(c->window->detailPane(), "factsTable")));
        QVERIFY(stops.contains(c->window->queueView()->searchEdit()));

        // Ctrl+Shift+A: the dialog says what will happen; the focus is in the note.
        DecisionDialog *dialog = openWithShortcut(*c, "approve", Qt::Key_A, "approveDialog");
        if (!dialog)
            return;
        const QString description = child<QLabel>(dialog, "descriptionLabel")->text();
        QVERIFY(description.contains(QStringLiteral("43.21 USD")));
        QVERIFY(description.contains(QStringLiteral("Approving signs this exact refund")));
        QVERIFY(description.contains(QStringLiteral("Nothing is sent")));
        QVERIFY(child<QLabel>(dialog, "justificationLabel")->text().contains(QStringLiteral("warehouse scanned it")));
        QTRY_VERIFY2(QApplication::focusWidget() == child<QPlainTextEdit>(dialog, "noteEdit"), qPrintable(focusDescription()));
        stops.clear();
        QVERIFY(tabGoesRound(&stops)); // through Approve, Cancel and the agent's reasons
        QVERIFY(stops.contains(dialog->confirmButton()));
        QVERIFY(stops.contains(child<QWidget>(dialog, "factsTable")));
        QVERIFY(type(QStringLiteral("ticket 4321 checked")));
        QVERIFY(press(Qt::Key_Return, Qt::ControlModifier)); // Ctrl+Enter confirms
        expectClosedAndBackInQueue(*c);
        if (QTest::currentTestFailed())
            return;

        const QJsonObject approved = m_backend.action(toApprove);
        const QJsonArray approvals = approved.value(QLatin1String("approvals")).toArray();
        QCOMPARE(approvals.size(), 1);
        QCOMPARE(str(approvals.first().toObject(), "decided_by"), QStringLiteral("ana"));
        QCOMPARE(str(approvals.first().toObject(), "note"), QStringLiteral("ticket 4321 checked"));
        // Decided: the console moves on to the next action awaiting a decision (oldest first:
        // kb-between), and the approved one leaves the Pending list at once (approved, then
        // executed). F5 reads the list again, still without it. The keyboard stays in the queue.
        QTRY_COMPARE_WITH_TIMEOUT(c->window->currentActionId(), between, 5000);
        QCOMPARE(c->window->queueView()->selectedActionIds(), QStringList{ between });
        QTRY_VERIFY_WITH_TIMEOUT(c->window->queueModel()->rowOf(toApprove) < 0, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(str(m_backend.action(toApprove), "state"), QStringLiteral("COMPLETED"), 20000);
        QVERIFY(press(Qt::Key_F5));
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->queueModel()->isLoading() && c->window->queueModel()->rowOf(toApprove) < 0
                                     && c->window->queueModel()->rowOf(toReject) >= 0,
                                 10000);
        QCOMPARE(c->window->currentActionId(), between); // a reload keeps the row in view
        QTRY_VERIFY2(QApplication::focusWidget() == table, qPrintable(focusDescription()));

        // The other one: Ctrl+Shift+R, the reason with the arrows, Tab to the note, Tab to
        // Reject, Enter.
        arrowTo(*c, toReject);
        if (QTest::currentTestFailed())
            return;
        dialog = openWithShortcut(*c, "reject", Qt::Key_R, "rejectDialog");
        if (!dialog)
            return;
        QVERIFY(child<QLabel>(dialog, "descriptionLabel")->text().contains(QStringLiteral("99.00 USD")));
        auto *reason = child<QComboBox>(dialog, "reasonCombo");
        QTRY_VERIFY2(QApplication::focusWidget() == reason, qPrintable(focusDescription()));
        stops.clear();
        QVERIFY(tabGoesRound(&stops));
        QVERIFY(!dialog->confirmButton()->isEnabled()); // no reason yet
        QVERIFY(press(Qt::Key_Down));
        QVERIFY(press(Qt::Key_Down));
        QCOMPARE(reason->currentData().toString(), QStringLiteral("duplicate"));
        QVERIFY(press(Qt::Key_Tab));
        QTRY_VERIFY2(QApplication::focusWidget() == child<QPlainTextEdit>(dialog, "noteEdit"), qPrintable(focusDescription()));
        QVERIFY(type(QStringLiteral("same return as kb-between")));
        QVERIFY(press(Qt::Key_Tab));
        QTRY_VERIFY2(QApplication::focusWidget() == dialog->confirmButton(), qPrintable(focusDescription()));
        QVERIFY(dialog->confirmButton()->isEnabled());
        QVERIFY(press(Qt::Key_Return)); // Enter on the focused Reject button
        expectClosedAndBackInQueue(*c);
        if (QTest::currentTestFailed())
            return;

        const QJsonObject rejected = m_backend.action(toReject);
        QCOMPARE(str(rejected, "state"), QStringLiteral("REJECTED"));
        const QJsonObject rejection = rejected.value(QLatin1String("approvals")).toArray().first().toObject();
        QCOMPARE(str(rejection, "decided_by"), QStringLiteral("ana"));
        QCOMPARE(str(rejection, "reason"), QStringLiteral("duplicate"));
        QCOMPARE(str(rejection, "note"), QStringLiteral("same return as kb-between"));
        QVERIFY(press(Qt::Key_F5));
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->queueModel()->isLoading() && c->window->queueModel()->rowCount() >= 2
                                     && c->window->queueModel()->rowOf(toReject) < 0,
                                 10000);
        QTRY_VERIFY2(QApplication::focusWidget() == table, qPrintable(focusDescription()));

        // The two left, at once: Ctrl+Home, Shift+Down, Ctrl+Alt+A; the keyboard starts in the
        // note; Tab to Approve and Enter send one approval each; Esc closes the results.
        QVERIFY(press(Qt::Key_Home, Qt::ControlModifier));
        QVERIFY(press(Qt::Key_Down, Qt::ShiftModifier));
        const QStringList both = c->window->queueView()->selectedActionIds();
        QCOMPARE(both.size(), 2);
        QVERIFY(press(Qt::Key_A, Qt::ControlModifier | Qt::AltModifier));
        BulkDecisionDialog *bulk = nullptr;
        QTRY_VERIFY((bulk = c->window->bulkDecisions()->openDialog()) != nullptr);
        QTRY_COMPARE_WITH_TIMEOUT(bulk->model()->count(BulkDecisionModel::Status::Ready), 2, 10000);
        QTRY_VERIFY2(QApplication::focusWidget() == child<QPlainTextEdit>(bulk, "noteEdit"), qPrintable(focusDescription()));
        stops.clear();
        QVERIFY(tabGoesRound(&stops)); // through the list of both and the buttons
        QVERIFY(stops.contains(bulk->table()));
        QVERIFY(type(QStringLiteral("both returns scanned")));
        QVERIFY(press(Qt::Key_Tab));
        QTRY_VERIFY2(QApplication::focusWidget() == bulk->confirmButton(), qPrintable(focusDescription()));
        QVERIFY(press(Qt::Key_Return)); // Enter on the focused Approve button
        QTRY_COMPARE_WITH_TIMEOUT(bulk->model()->count(BulkDecisionModel::Status::Done), 2, 10000);
        QVERIFY2(focusIsIn(bulk), qPrintable(focusDescription()));
        QVERIFY(press(Qt::Key_Escape));
        QTRY_VERIFY(!c->window->bulkDecisions()->openDialog());
        QTRY_VERIFY2(QApplication::focusWidget() == table, qPrintable(focusDescription()));
        for (const QString &id : both) {
            const QJsonArray signatures = m_backend.action(id).value(QLatin1String("approvals")).toArray();
            QCOMPARE(signatures.size(), 1);
            QCOMPARE(str(signatures.first().toObject(), "decided_by"), QStringLiteral("ana"));
            QCOMPARE(str(signatures.first().toObject(), "note"), QStringLiteral("both returns scanned"));
            // Sent before the next scenario sets paysim's faults.
            QTRY_COMPARE_WITH_TIMEOUT(str(m_backend.action(id), "state"), QStringLiteral("COMPLETED"), 20000);
        }
    }

    void supervisorReconcilesNotCommitted()
    {
        // The provider says the key was reused (demo scenario 3): execution stops for review.
        const QString id = actionInReview(2500, QStringLiteral("kb-keyreused"),
                                          QJsonArray{ QJsonObject{ { QStringLiteral("method"), QStringLiteral("POST") },
                                                                   { QStringLiteral("path"), QStringLiteral("/v1/refunds") },
                                                                   { QStringLiteral("nth"), 1 }, { QStringLiteral("times"), 1 },
                                                                   { QStringLiteral("fault"), QStringLiteral("idempotency_error") } } });
        if (QTest::currentTestFailed())
            return;
        // The agent meanwhile resubmits another amount under the same reference: refused, and
        // shown side by side on the detail pane's Diff tab.
        const QString charge = m_backend.action(id).value(QLatin1String("target")).toObject().value(QLatin1String("charge")).toString();
        QCOMPARE(m_backend.resubmitChanged(charge, 3000, QStringLiteral("kb-keyreused-refund"), QStringLiteral("kb-keyreused")).status, 409);

        auto c = open(QStringLiteral("sue"));
        QTableView *table = c->window->queueView()->table();
        QTRY_VERIFY2(QApplication::focusWidget() == table, qPrintable(focusDescription()));
        QVERIFY(press(Qt::Key_4, Qt::ControlModifier)); // Requires review
        QTRY_COMPARE(c->window->queueView()->filter(), QueueView::Filter::Review);
        QTRY_VERIFY2(QApplication::focusWidget() == table, qPrintable(focusDescription()));
        arrowTo(*c, id);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(c->window->detailPane()->detail().record.state, ActionState::RequiresReview);
        // Ctrl+Tab through the detail's tabs to the Diff; Tab passes through its table.
        QTabWidget *tabs = c->window->detailPane()->tabs();
        for (int i = 0; i < tabs->count() && tabs->currentIndex() != ActionDetailPane::DiffTab; ++i)
            QVERIFY(press(Qt::Key_Tab, Qt::ControlModifier));
        QCOMPARE(tabs->currentIndex(), int(ActionDetailPane::DiffTab));
        QCOMPARE(QApplication::focusWidget(), table);
        {
            QWidgetList stops;
            QVERIFY(tabGoesRound(&stops));
            QVERIFY(stops.contains(child<QWidget>(c->window->detailPane(), "diffTable")));
        }

        QCOMPARE(c->window->detailPane()->detail().lookups.size(), 0);
        lookUp(*c, QStringLiteral("Not found:"));
        if (QTest::currentTestFailed())
            return;
        QTRY_COMPARE_WITH_TIMEOUT(c->window->detailPane()->detail().lookups.size(), 1, 10000);

        // Ctrl+Shift+C: Alt+N for "not committed", Alt+E and Space to choose the one lookup as
        // evidence, Tab to the note, Ctrl+Enter.
        DecisionDialog *dialog = openWithShortcut(*c, "reconcile", Qt::Key_C, "reconcileDialog");
        if (!dialog)
            return;
        QVERIFY(!dialog->confirmButton()->isEnabled());
        QTRY_VERIFY2(QApplication::focusWidget() == child<QRadioButton>(dialog, "committedRadio"), qPrintable(focusDescription()));
        QWidgetList stops;
        QVERIFY(tabGoesRound(&stops)); // through the evidence, Look up now, the note and the buttons
        QVERIFY(stops.contains(child<QWidget>(dialog, "evidenceView")));
        QVERIFY(stops.contains(child<QWidget>(dialog, "dialogLookupButton")));
        QVERIFY(stops.contains(child<QWidget>(dialog, "noteEdit")));
        QVERIFY(press(Qt::Key_N, Qt::AltModifier));
        QTRY_VERIFY(child<QRadioButton>(dialog, "notCommittedRadio")->isChecked());
        QVERIFY(press(Qt::Key_E, Qt::AltModifier));
        auto *evidence = child<QTableView>(dialog, "evidenceView");
        QTRY_VERIFY2(QApplication::focusWidget() == evidence, qPrintable(focusDescription()));
        QVERIFY(press(Qt::Key_Space));
        QTRY_COMPARE(evidence->selectionModel()->selectedRows().size(), 1);
        QVERIFY(press(Qt::Key_Tab));
        QTRY_VERIFY2(QApplication::focusWidget() == child<QPlainTextEdit>(dialog, "noteEdit"), qPrintable(focusDescription()));
        QVERIFY(type(QStringLiteral("lookup 1: no refund under the key")));
        QVERIFY2(dialog->confirmButton()->isEnabled(), qPrintable(child<QLabel>(dialog, "blockingLabel")->text()));
        QVERIFY(child<QLabel>(dialog, "descriptionLabel")->text().contains(QStringLiteral("REJECTED")));
        QVERIFY(press(Qt::Key_Return, Qt::ControlModifier));
        expectClosedAndBackInQueue(*c);
        if (QTest::currentTestFailed())
            return;

        const QJsonObject action = m_backend.action(id);
        QCOMPARE(str(action, "state"), QStringLiteral("REJECTED"));
        const QJsonArray reconciliations = action.value(QLatin1String("reconciliations")).toArray();
        QCOMPARE(reconciliations.size(), 1);
        const QJsonObject reconciliation = reconciliations.first().toObject();
        QCOMPARE(str(reconciliation, "outcome"), QStringLiteral("not_committed"));
        QCOMPARE(reconciliation.value(QLatin1String("evidence_lookup_seq")).toInt(), 1);
        QCOMPARE(str(reconciliation, "note"), QStringLiteral("lookup 1: no refund under the key"));
        QCOMPARE(str(action.value(QLatin1String("lookups")).toArray().first().toObject(), "result"), QStringLiteral("NOT_FOUND"));
    }

    void supervisorFindsReconcilesAndFollowsUp()
    {
        // A lost answer (demo scenarios 1 and 7): the refund is made but its answer is reset; every
        // resend meets an outage and every lookup an error, until the reconciler asks for review.
        const auto refundRule = [](int nth, int times, const char *fault) {
            return QJsonObject{ { QStringLiteral("method"), QStringLiteral("POST") }, { QStringLiteral("path"), QStringLiteral("/v1/refunds") },
                                { QStringLiteral("nth"), nth }, { QStringLiteral("times"), times },
                                { QStringLiteral("fault"), QString::fromLatin1(fault) } };
        };
        QJsonObject lost = refundRule(1, 1, "reset_connection");
        lost.insert(QStringLiteral("after_commit"), true);
        const QString id = actionInReview(
            4000, QStringLiteral("kb-lost"),
            QJsonArray{ lost, refundRule(2, 0, "outage_503"),
                        QJsonObject{ { QStringLiteral("method"), QStringLiteral("GET") }, { QStringLiteral("path"), QStringLiteral("/v1/refunds*") },
                                     { QStringLiteral("times"), 0 }, { QStringLiteral("fault"), QStringLiteral("forced_error") },
                                     { QStringLiteral("status"), 500 }, { QStringLiteral("type"), QStringLiteral("api_error") },
                                     { QStringLiteral("code"), QString() }, { QStringLiteral("message"), QStringLiteral("bank connection") } } });
        if (QTest::currentTestFailed())
            return;

        auto c = open(QStringLiteral("sue"));
        QTableView *table = c->window->queueView()->table();
        QTRY_VERIFY2(QApplication::focusWidget() == table, qPrintable(focusDescription()));
        // Every state (the action stays in the list once reconciled), then Ctrl+F and the order
        // reference; Enter goes back to the queue with the one match current.
        QVERIFY(press(Qt::Key_5, Qt::ControlModifier));
        QTRY_COMPARE(c->window->queueView()->filter(), QueueView::Filter::All);
        QVERIFY(press(Qt::Key_F, Qt::ControlModifier));
        QTRY_VERIFY2(QApplication::focusWidget() == c->window->queueView()->searchEdit(), qPrintable(focusDescription()));
        QVERIFY(type(QStringLiteral("kb-lost")));
        QVERIFY(press(Qt::Key_Return));
        QTRY_COMPARE_WITH_TIMEOUT(c->window->queueModel()->rowCount(), 1, 10000);
        QTRY_VERIFY2(QApplication::focusWidget() == table, qPrintable(focusDescription()));
        QTRY_COMPARE_WITH_TIMEOUT(c->window->currentActionId(), id, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(c->window->detailPane()->hasDetail() && c->window->detailPane()->detail().record.id == id, 10000);

        // The reconciler's lookups met the provider's errors; the supervisor's finds the refund.
        const qsizetype lookupsBefore = c->window->detailPane()->detail().lookups.size();
        QVERIFY(lookupsBefore > 0);
        lookUp(*c, QStringLiteral("Found:"));
        if (QTest::currentTestFailed())
            return;
        QTRY_COMPARE_WITH_TIMEOUT(c->window->detailPane()->detail().lookups.size(), lookupsBefore + 1, 10000);
        const int foundSeq = c->window->detailPane()->detail().lookups.last().seq;
        // Ctrl+Tab shows the evidence: Tab passes through its attempts and lookups tables and
        // comes back to the queue.
        QVERIFY(press(Qt::Key_Tab, Qt::ControlModifier));
        QTRY_COMPARE(c->window->detailPane()->tabs()->currentIndex(), int(ActionDetailPane::EvidenceTab));
        QCOMPARE(QApplication::focusWidget(), table);
        QWidgetList stops;
        QVERIFY(tabGoesRound(&stops));
        QVERIFY(stops.contains(child<QWidget>(c->window->detailPane(), "attemptTable")));
        QVERIFY(stops.contains(child<QWidget>(c->window->detailPane(), "lookupTable")));

        // Reconcile: Alt+C for committed, Alt+E and the arrows down to the FOUND lookup, Tab, a
        // note, Tab to Confirm, Enter.
        DecisionDialog *dialog = openWithShortcut(*c, "reconcile", Qt::Key_C, "reconcileDialog");
        if (!dialog)
            return;
        QVERIFY(press(Qt::Key_C, Qt::AltModifier));
        QTRY_VERIFY(child<QRadioButton>(dialog, "committedRadio")->isChecked());
        QVERIFY(press(Qt::Key_E, Qt::AltModifier));
        auto *evidence = child<QTableView>(dialog, "evidenceView");
        QTRY_VERIFY2(QApplication::focusWidget() == evidence, qPrintable(focusDescription()));
        auto *reconcile = qobject_cast<ReconcileDialog *>(dialog);
        QVERIFY(reconcile);
        for (int i = 0; i <= lookupsBefore && reconcile->evidenceLookupSeq() != foundSeq; ++i)
            QVERIFY(press(Qt::Key_Down));
        QCOMPARE(reconcile->evidenceLookupSeq(), foundSeq);
        QVERIFY(press(Qt::Key_Tab));
        QTRY_VERIFY2(QApplication::focusWidget() == child<QPlainTextEdit>(dialog, "noteEdit"), qPrintable(focusDescription()));
        QVERIFY(type(QStringLiteral("the last lookup found the 40.00 refund")));
        QVERIFY(press(Qt::Key_Tab));
        QTRY_VERIFY2(QApplication::focusWidget() == dialog->confirmButton(), qPrintable(focusDescription()));
        QVERIFY2(dialog->confirmButton()->isEnabled(), qPrintable(child<QLabel>(dialog, "blockingLabel")->text()));
        QVERIFY(press(Qt::Key_Return));
        expectClosedAndBackInQueue(*c);
        if (QTest::currentTestFailed())
            return;
        const QJsonObject reconciled = m_backend.action(id);
        QCOMPARE(str(reconciled, "state"), QStringLiteral("COMPLETED"));
        const QJsonObject reconciliation = reconciled.value(QLatin1String("reconciliations")).toArray().first().toObject();
        QCOMPARE(str(reconciliation, "outcome"), QStringLiteral("committed"));
        QCOMPARE(reconciliation.value(QLatin1String("evidence_lookup_seq")).toInt(), foundSeq);
        QCOMPARE(str(reconciliation, "note"), QStringLiteral("the last lookup found the 40.00 refund"));

        // The customer is owed 45.00 in all: Ctrl+Shift+F, the total, Tab, a note, Ctrl+Enter.
        QTRY_COMPARE_WITH_TIMEOUT(c->window->detailPane()->detail().record.state, ActionState::Completed, 10000);
        dialog = openWithShortcut(*c, "follow_up", Qt::Key_F, "followUpDialog");
        if (!dialog)
            return;
        QTRY_VERIFY2(QApplication::focusWidget() == child<QLineEdit>(dialog, "desiredTotalEdit"), qPrintable(focusDescription()));
        stops.clear();
        QVERIFY(tabGoesRound(&stops));
        QVERIFY(type(QStringLiteral("45.00")));
        QCOMPARE(child<QLabel>(dialog, "remainderLabel")->text(), QStringLiteral("5.00 USD"));
        QVERIFY(press(Qt::Key_Tab));
        QTRY_VERIFY2(QApplication::focusWidget() == child<QPlainTextEdit>(dialog, "noteEdit"), qPrintable(focusDescription()));
        QVERIFY(type(QStringLiteral("owed 45.00 in total")));
        QVERIFY(child<QLabel>(dialog, "descriptionLabel")->text().contains(QStringLiteral("5.00 USD")));
        QVERIFY(press(Qt::Key_Return, Qt::ControlModifier));
        expectClosedAndBackInQueue(*c);
        if (QTest::currentTestFailed())
            return;
        const QJsonArray followUps = m_backend.action(id).value(QLatin1String("related")).toObject()
                                         .value(QLatin1String("follow_ups")).toArray();
        QCOMPARE(followUps.size(), 1);
        QCOMPARE(followUps.first().toObject().value(QLatin1String("amount")).toInteger(), 500);
        QCOMPARE(str(followUps.first().toObject(), "state"), QStringLiteral("PENDING"));
    }
};

QTEST_MAIN(TestKeyboardReview)
#include "tst_keyboard_review.moc"
