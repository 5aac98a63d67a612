// One selection (issue 36): the row highlighted, the action the detail shows and the action a
// command acts on are one and the same — after start-up, insertions, filter changes, keyboard
// jumps, a selection asked for from elsewhere (a scenario, the charge view), several selected
// rows, and decisions. And the queue holds still: arrivals never move the row a person reads.
//
//   view-level (QueueView over the in-process FakePageSource, shown offscreen):
//     startSelectsTheFirstRow, jumpsSelect, arrivalsHoldStill, filterChangeKeepsOrMovesOn,
//     severalRowsHaveNoSingleTarget, rowDecidedElsewhereStaysWhileHeld, oldestFirstByDefault
//   the real main window against a real countersignd and paysim:
//     highlightDetailAndTargetAgree (start, arrows, Ctrl+End, filter changes, Shift+Down),
//     selectionFromElsewhere (an action of another state: the queue shows it under All),
//     decisionAdvancesToTheNextUndecided (the decided row leaves at once; the next is shown)

#include "tests/ui/testconsole.h"
#include "models/actionqueuemodel.h"
#include "tests/client/backendprocess.h"
#include "tests/support/quietoffscreen.h"
#include "tests/ui/fakepagesource.h"
#include "ui/actiondetailpane.h"
#include "ui/decisioncontroller.h"
#include "ui/decisiondialog.h"
#include "ui/mainwindow.h"
#include "ui/queueview.h"

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace cs;

namespace {

struct Console : test::TestConsole
{
    using TestConsole::TestConsole;
};

using test::child;

QString highlighted(QueueView *queue)
{
    const QStringList ids = queue->selectedActionIds();
    return ids.size() == 1 ? ids.first() : QString();
}

// The three agree: the one highlighted row, the queue's current row, the detail shown, and the
// target of the single-action commands. Empty when they do; else what differs.
QString disagreement(MainWindow *window)
{
    QueueView *queue = window->queueView();
    ActionDetailPane *pane = window->detailPane();
    const QString row = highlighted(queue);
    const QString current = queue->currentActionId();
    const QString shown = pane->hasDetail() ? pane->detail().record.id : QString();
    const QString target = queue->target();
    if (row.isEmpty() || row != current || current != shown || shown != target || window->currentActionId() != row)
        return QStringLiteral("highlighted %1, current %2, shown %3, target %4, window %5")
            .arg(row, current, shown, target, window->currentActionId());
    return QString();
}

} // namespace

class TestSelection : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    QStringList m_charges;
    int m_next = 0;

    // The queue view alone over a fake ledger of n PENDING actions, shown at 700×400.
    struct View
    {
        FakePageSource source;
        ActionQueueModel model{ &source };
        QueueView view{ &model };
        View(int n)
        {
            source.fill(n);
            model.setPageSize(100);
            view.resize(700, 400);
            view.show();
        }
        bool load()
        {
            QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
            view.apply(QueueView::Filter::Queue, QString());
            return loaded.wait(2000);
        }
        QTableView *table() { return view.table(); }
        QString idAt(int row) { return model.index(row, 0).data(ActionQueueModel::ActionIdRole).toString(); }
        int viewportY(const QString &id) { return table()->rowViewportPosition(model.rowOf(id)); }
    };

    std::unique_ptr<Console> open(const QString &user)
    {
        auto console = std::make_unique<Console>(m_backend.url(), m_backend.token(user),
                                                 m_dir.filePath(user + QString::number(++m_next) + QStringLiteral(".ini")));
        console->showAndSignIn();
        return console;
    }

    QString propose(qint64 amount)
    {
        const int n = ++m_next;
        return m_backend.propose(m_charges.at(n % m_charges.size()), amount, QStringLiteral("sel-%1").arg(n))
            .value(QLatin1String("id"))
            .toString();
    }

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_backend.start(40, { QStringLiteral("--sse-heartbeat-ms"), QStringLiteral("1000"),
                                       QStringLiteral("--sse-poll-ms"), QStringLiteral("50") }),
                 qPrintable(m_backend.error()));
        m_charges = m_backend.charges();
        QVERIFY(m_charges.size() >= 40);
    }

    void cleanupTestCase() { m_backend.stop(); }

    // ---- the view alone ------------------------------------------------------------------

    void startSelectsTheFirstRow()
    {
        View v(5);
        QSignalSpy current(&v.view, &QueueView::currentActionChanged);
        QVERIFY(current.isValid());
        QVERIFY(v.load());
        QCOMPARE(v.view.currentActionId(), v.idAt(0));
        QCOMPARE(highlighted(&v.view), v.idAt(0));
        QCOMPARE(v.view.target(), v.idAt(0));
        QCOMPARE(current.count(), 1);
        QCOMPARE(current.first().at(0).toString(), v.idAt(0));
    }

    void oldestFirstByDefault()
    {
        View v(5);
        QVERIFY(v.load());
        QCOMPARE(v.view.sortKey(), ActionQuery::SortKey::CreatedAt);
        QVERIFY(!v.view.sortDescending());
        QCOMPARE(v.source.queries.last().descending, false);
        QCOMPARE(v.idAt(0), FakePageSource::make(1).record.id); // the one waiting longest
        // The order is remembered with the header.
        v.view.setSort(ActionQuery::SortKey::CreatedAt, true);
        const QByteArray state = v.view.headerState();
        View w(5);
        w.view.restoreHeaderState(state);
        QVERIFY(w.view.sortDescending());
    }

    // Home/End and Ctrl+Home/End select, as the arrows do (a table's own Ctrl+Home moves the
    // current row without the selection); with Shift they extend it.
    void jumpsSelect()
    {
        View v(30);
        QVERIFY(v.load());
        v.view.focusTable();
        const int last = v.model.rowCount() - 1;
        QTest::keyClick(v.table(), Qt::Key_End, Qt::ControlModifier);
        QCOMPARE(highlighted(&v.view), v.idAt(last));
        QCOMPARE(v.view.target(), v.idAt(last));
        QTest::keyClick(v.table(), Qt::Key_Home, Qt::ControlModifier);
        QCOMPARE(highlighted(&v.view), v.idAt(0));
        QCOMPARE(v.view.target(), v.idAt(0));
        QTest::keyClick(v.table(), Qt::Key_End);
        QCOMPARE(v.view.target(), v.idAt(last));
        QTest::keyClick(v.table(), Qt::Key_Home);
        QCOMPARE(v.view.target(), v.idAt(0));
        QTest::keyClick(v.table(), Qt::Key_Down);
        QCOMPARE(v.view.target(), v.idAt(1));
        QTest::keyClick(v.table(), Qt::Key_End, Qt::ShiftModifier);
        QCOMPARE(v.view.selectedActionIds().size(), last);
        QCOMPARE(v.view.currentActionId(), v.idAt(last));
        QCOMPARE(v.view.target(), QString()); // several selected: no single target
    }

    void severalRowsHaveNoSingleTarget()
    {
        View v(5);
        QVERIFY(v.load());
        v.view.focusTable();
        QTest::keyClick(v.table(), Qt::Key_Down, Qt::ShiftModifier);
        QCOMPARE(v.view.selectedActionIds(), (QStringList{ v.idAt(0), v.idAt(1) }));
        QCOMPARE(v.view.currentActionId(), v.idAt(1));
        QCOMPARE(v.view.target(), QString());
        // Ctrl+Down moves the current row without selecting it: shown, but not a target.
        QTest::keyClick(v.table(), Qt::Key_Down);
        QCOMPARE(v.view.target(), v.idAt(2));
        QTest::keyClick(v.table(), Qt::Key_Down, Qt::ControlModifier);
        QCOMPARE(v.view.currentActionId(), v.idAt(3));
        QCOMPARE(v.view.target(), QString());
        QTest::keyClick(v.table(), Qt::Key_Space);
        QCOMPARE(v.view.target(), QString()); // rows 2 and 3 now
        QCOMPARE(v.view.selectedActionIds(), (QStringList{ v.idAt(2), v.idAt(3) }));
    }

    // Rows arriving above the current one (in any order: here the newest first) never move it on
    // the screen, nor the row under the pointer; they are announced instead.
    void arrivalsHoldStill()
    {
        View v(60);
        QVERIFY(v.load());
        v.view.setSort(ActionQuery::SortKey::CreatedAt, true); // newest first: arrivals on top
        QTRY_VERIFY(!v.model.isLoading() && v.model.rowCount() == 60);
        v.view.focusTable();
        v.view.selectAction(v.idAt(20));
        const QString held = v.view.currentActionId();
        const int y = v.viewportY(held);
        QVERIFY2(y >= 0 && y < v.table()->viewport()->height(), "the current row is in view");
        QToolButton *announce = child<QToolButton>(&v.view, "queueNewButton");
        QVERIFY(announce && !announce->isVisible());
        for (int n = 61; n <= 63; ++n) {
            v.source.ledger.prepend(FakePageSource::make(n));
            ActionChange change;
            change.actionId = FakePageSource::make(n).record.id;
            change.state = ActionState::Pending;
            change.stateVersion = 1;
            v.model.applyChange(change);
        }
        QTRY_COMPARE(v.model.rowCount(), 63);
        // Synchronously: no moment in which a click could land on another row.
        QCOMPARE(v.viewportY(held), y);
        QCOMPARE(v.view.currentActionId(), held);
        QCOMPARE(highlighted(&v.view), held);
        QCOMPARE(v.view.unseenArrivals(), 3);
        QVERIFY(announce->isVisible());
        QVERIFY2(announce->text().contains(QStringLiteral("3 new")), qPrintable(announce->text()));
        QVERIFY(announce->text().contains(QChar(0x2191))); // above
        // Shown, they are seen.
        QTest::mouseClick(announce, Qt::LeftButton);
        QTRY_COMPARE(v.view.unseenArrivals(), 0);
        QVERIFY(!announce->isVisible());
        QCOMPARE(v.view.currentActionId(), held); // scrolling selected nothing
    }

    // A row another person decided leaves the list at once — but not the row this person reads,
    // which stays (its new state shown) until the selection moves on. The rows that go above it
    // do not move it on the screen.
    void rowDecidedElsewhereStaysWhileHeld()
    {
        View v(40);
        QVERIFY(v.load());
        v.view.focusTable();
        v.view.selectAction(v.idAt(25));
        const QString held = v.idAt(25);
        const QString above = v.idAt(3);
        const int y = v.viewportY(held);
        for (const QString &id : { held, above }) {
            v.source.find(id)->record.state = ActionState::Rejected;
            v.source.find(id)->record.stateVersion = 2;
            ActionChange change;
            change.actionId = id;
            change.state = ActionState::Rejected;
            change.stateVersion = 2;
            v.model.applyChange(change);
        }
        QCOMPARE(v.model.rowOf(above), -1);
        QVERIFY(v.model.rowOf(held) >= 0);
        QCOMPARE(v.viewportY(held), y);
        QCOMPARE(v.view.target(), held);
        QTest::keyClick(v.table(), Qt::Key_Down);
        QCOMPARE(v.model.rowOf(held), -1);
        QCOMPARE(v.model.rowCount(), 38);
    }

    void filterChangeKeepsOrMovesOn()
    {
        View v(6);
        v.source.ledger[1].record.state = ActionState::RequiresReview;
        v.source.ledger[4].record.state = ActionState::RequiresReview;
        QVERIFY(v.load());
        const QString review = v.source.ledger[4].record.id;
        v.view.selectAction(review);
        QSignalSpy current(&v.view, &QueueView::currentActionChanged);
        QVERIFY(current.isValid());
        QSignalSpy loaded(&v.model, &ActionQueueModel::pageLoaded);
        v.view.apply(QueueView::Filter::Review, QString());
        QVERIFY(loaded.wait(2000));
        QCOMPARE(v.view.currentActionId(), review); // still here: still current, not reloaded
        QCOMPARE(current.count(), 0);
        v.view.apply(QueueView::Filter::Pending, QString());
        QVERIFY(loaded.wait(2000));
        // Not in Pending: the first row becomes current, highlighted and announced.
        QCOMPARE(v.view.currentActionId(), v.idAt(0));
        QCOMPARE(highlighted(&v.view), v.idAt(0));
        QCOMPARE(current.count(), 1);
        // An empty list has no current row, and says so.
        v.view.apply(QueueView::Filter::Unknown, QString());
        QVERIFY(loaded.wait(2000));
        QCOMPARE(v.view.currentActionId(), QString());
        QCOMPARE(current.count(), 2);
        QCOMPARE(current.last().at(0).toString(), QString());
    }

    // The search reads amounts as the person writes them in their locale, and sends them as the
    // backend reads amounts; any other text goes as typed.
    void amountsAsWritten_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("locale");
        QTest::addColumn<QString>("sent");
        QTest::newRow("whole") << "199" << "en_US" << "199";
        QTest::newRow("cents") << "199.00" << "en_US" << "199.00";
        QTest::newRow("grouped") << "1,234.50" << "en_US" << "1234.50";
        QTest::newRow("German comma") << "199,00" << "de_DE" << "199.00";
        QTest::newRow("German grouped") << "1.234,50" << "de_DE" << "1234.50";
        QTest::newRow("German, written with a point") << "199.00" << "de_DE" << "199.00";
        QTest::newRow("a comma in English") << "199,00" << "en_US" << "199,00";
        QTest::newRow("badly grouped") << "12,34,5" << "en_US" << "12,34,5";
        QTest::newRow("five decimals") << "1,23456" << "de_DE" << "1,23456";
        QTest::newRow("an order") << "order-199" << "de_DE" << "order-199";
        QTest::newRow("spaces") << "  42  " << "en_US" << "42";
    }

    void amountsAsWritten()
    {
        QFETCH(QString, typed);
        QFETCH(QString, locale);
        QFETCH(QString, sent);
        QCOMPARE(QueueView::searchParameter(typed, QLocale(locale)), sent);
        QCOMPARE(QueueView::queryFor(QueueView::Filter::All, typed, QLocale(locale)).search, sent);
    }

    // ---- the main window against a backend ---------------------------------------------------

    void highlightDetailAndTargetAgree()
    {
        for (int i = 0; i < 6; ++i)
            QVERIFY(!propose(1000 + i).isEmpty());
        auto c = open(QStringLiteral("ana"));
        MainWindow *w = c->window.get();
        QTableView *table = w->queueView()->table();
        const auto settled = [w] {
            return disagreement(w).isEmpty() && w->decisionAction(QStringLiteral("approve"))->isEnabled();
        };
        // Start-up: the first row, highlighted and shown.
        QTRY_VERIFY2_WITH_TIMEOUT(settled(), qPrintable(disagreement(w)), 10000);
        QCOMPARE(w->queueView()->currentActionId(), w->queueModel()->index(0, 0).data(ActionQueueModel::ActionIdRole).toString());
        QTest::keyClick(table, Qt::Key_Down);
        QTRY_VERIFY2_WITH_TIMEOUT(settled(), qPrintable(disagreement(w)), 10000);
        QTest::keyClick(table, Qt::Key_End, Qt::ControlModifier);
        QTRY_VERIFY2_WITH_TIMEOUT(settled(), qPrintable(disagreement(w)), 10000);
        QCOMPARE(w->queueModel()->rowOf(w->currentActionId()), w->queueModel()->rowCount() - 1);
        QTest::keyClick(table, Qt::Key_Home, Qt::ControlModifier);
        QTRY_VERIFY2_WITH_TIMEOUT(settled(), qPrintable(disagreement(w)), 10000);
        // A filter that does not show it: the first row of the new list.
        QTest::keyClick(table, Qt::Key_4, Qt::ControlModifier); // Review: empty here
        QTRY_VERIFY_WITH_TIMEOUT(w->queueView()->filter() == QueueView::Filter::Review && !w->queueModel()->isLoading(), 5000);
        QTRY_COMPARE(w->currentActionId(), QString());
        QVERIFY(!w->decisionAction(QStringLiteral("approve"))->isEnabled());
        QTest::keyClick(table, Qt::Key_1, Qt::ControlModifier);
        QTRY_VERIFY2_WITH_TIMEOUT(settled(), qPrintable(disagreement(w)), 10000);
        // Several rows: the detail shows the current one; single-action commands are off, bulk on.
        QTest::keyClick(table, Qt::Key_Down, Qt::ShiftModifier);
        QTRY_COMPARE(w->queueView()->selectedActionIds().size(), 2);
        QTRY_VERIFY(w->detailPane()->hasDetail() && w->detailPane()->detail().record.id == w->queueView()->currentActionId());
        QVERIFY(!w->decisionAction(QStringLiteral("approve"))->isEnabled());
        QVERIFY(w->decisionAction(QStringLiteral("approve"))->toolTip().contains(QStringLiteral("2 actions are selected")));
        QVERIFY(w->bulkDecisionAction(QStringLiteral("approve"))->isEnabled());
        QTest::keyClick(table, Qt::Key_Up);
        QTRY_VERIFY2_WITH_TIMEOUT(settled(), qPrintable(disagreement(w)), 10000);
    }

    // Asked for from elsewhere (a scenario's step, the charge view, a notice): the queue shows it
    // highlighted — under All, searched by its id, when the filter does not show it.
    void selectionFromElsewhere()
    {
        const QString pending = propose(2100);
        const QString rejected = propose(2200);
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(rejected),
                                { { QStringLiteral("reason"), QStringLiteral("duplicate") },
                                  { QStringLiteral("note"), QStringLiteral("seen twice") } },
                                1)
                     .status,
                 200);
        auto c = open(QStringLiteral("ana"));
        MainWindow *w = c->window.get();
        QTRY_VERIFY_WITH_TIMEOUT(w->hasShownFirstPage(), 10000);
        w->selectAction(pending);
        QTRY_VERIFY2_WITH_TIMEOUT(disagreement(w).isEmpty() && w->currentActionId() == pending, qPrintable(disagreement(w)), 10000);
        QCOMPARE(w->queueView()->filter(), QueueView::Filter::Queue);
        w->selectAction(rejected);
        QTRY_VERIFY2_WITH_TIMEOUT(disagreement(w).isEmpty() && w->currentActionId() == rejected, qPrintable(disagreement(w)), 10000);
        QCOMPARE(w->queueView()->filter(), QueueView::Filter::All);
        QCOMPARE(w->queueView()->searchText(), rejected);
    }

    // "199,00" typed in a German console finds the refunds of 199.00 (any currency) through the
    // backend, and the one found is the one shown.
    void searchFindsAnAmountAsWrittenInGerman()
    {
        const QString wanted = propose(19900);
        const QString other = propose(19901);
        auto c = open(QStringLiteral("ana"));
        MainWindow *w = c->window.get();
        QTRY_VERIFY_WITH_TIMEOUT(w->hasShownFirstPage(), 10000);
        const QLocale before;
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        QLineEdit *search = w->queueView()->searchEdit();
        search->setFocus();
        QTest::keyClicks(search, QStringLiteral("199,00"));
        QTest::keyClick(search, Qt::Key_Return);
        QLocale::setDefault(before);
        QTRY_VERIFY_WITH_TIMEOUT(!w->queueModel()->isLoading() && w->queueModel()->rowOf(wanted) >= 0, 10000);
        QCOMPARE(w->queueModel()->rowOf(other), -1);
        QCOMPARE(w->queueModel()->query().search, QStringLiteral("199.00"));
        QTRY_VERIFY2_WITH_TIMEOUT(disagreement(w).isEmpty(), qPrintable(disagreement(w)), 10000);
    }

    // After a decision the selection moves on to the next action that awaits one, and the decided
    // row leaves the to-do list at once.
    void decisionAdvancesToTheNextUndecided()
    {
        auto c = open(QStringLiteral("ana"));
        MainWindow *w = c->window.get();
        QTRY_VERIFY_WITH_TIMEOUT(w->hasShownFirstPage(), 10000);
        w->queueView()->apply(QueueView::Filter::Queue, QStringLiteral("dec-"));
        const QString first = m_backend.propose(m_charges.at(30), 3100, QStringLiteral("dec-1"), QStringLiteral("dec-1")).value(QLatin1String("id")).toString();
        const QString second = m_backend.propose(m_charges.at(31), 3200, QStringLiteral("dec-2"), QStringLiteral("dec-2")).value(QLatin1String("id")).toString();
        QTRY_VERIFY_WITH_TIMEOUT(w->queueModel()->rowOf(first) >= 0 && w->queueModel()->rowOf(second) >= 0, 10000);
        w->selectAction(first);
        QAction *approve = w->decisionAction(QStringLiteral("approve"));
        QTRY_VERIFY_WITH_TIMEOUT(disagreement(w).isEmpty() && w->currentActionId() == first && approve->isEnabled(), 10000);
        approve->trigger();
        DecisionDialog *dialog = w->decisions()->openDialog();
        QVERIFY(dialog);
        QVERIFY2(dialog->windowTitle().contains(QStringLiteral("31.00 USD")), qPrintable(dialog->windowTitle()));
        QTRY_VERIFY_WITH_TIMEOUT(dialog->confirmButton()->isEnabled(), 5000);
        QSignalSpy applied(w, &MainWindow::decisionApplied);
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QVERIFY(applied.wait(10000));
        QCOMPARE(applied.first().at(1).toString(), first);
        // Moved on at once, to the next undecided one.
        QCOMPARE(w->queueView()->currentActionId(), second);
        QTRY_VERIFY2_WITH_TIMEOUT(disagreement(w).isEmpty() && w->currentActionId() == second, qPrintable(disagreement(w)), 10000);
        // The decided one has left the to-do list.
        QTRY_COMPARE_WITH_TIMEOUT(w->queueModel()->rowOf(first), -1, 5000);
    }
};

QTEST_MAIN(TestSelection)
#include "tst_selection.moc"
