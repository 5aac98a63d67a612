// The queue model and its sort proxy under QAbstractItemModelTester, against an in-process
// page source: paging, counts, live updates in place, stale pages, failures.

#include "models/actionqueuemodel.h"
#include "tests/ui/fakepagesource.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace cs;

class TestActionQueueModel : public QObject
{
    Q_OBJECT

private:
    FakePageSource *m_source = nullptr;
    ActionQueueModel *m_model = nullptr;
    QAbstractItemModelTester *m_tester = nullptr;

    void loadFirstPage()
    {
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        m_model->setQuery(ActionQuery::queue());
        QVERIFY(loaded.wait(2000));
    }

private slots:
    void init()
    {
        m_source = new FakePageSource(this);
        m_model = new ActionQueueModel(m_source, this);
        m_model->setPageSize(10);
        m_model->setClock([] { return QDateTime(QDate(2026, 1, 2), QTime(0, 0), Qt::UTC); });
        m_tester = new QAbstractItemModelTester(m_model, QAbstractItemModelTester::FailureReportingMode::QtTest, this);
    }

    void cleanup()
    {
        delete m_tester;
        delete m_model;
        delete m_source;
        m_tester = nullptr;
        m_model = nullptr;
        m_source = nullptr;
    }

    void firstPageArrivesWithoutWaitingForAView()
    {
        m_source->fill(25);
        QSignalSpy inserted(m_model, &QAbstractItemModel::rowsInserted);
        QSignalSpy loading(m_model, &ActionQueueModel::loadingChanged);
        QVERIFY(inserted.isValid());
        QVERIFY(loading.isValid());
        loadFirstPage();
        QVERIFY(inserted.count() >= 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(inserted.at(0).at(2).toInt(), 9);
        QCOMPARE(m_source->limits.first(), 10);
        QCOMPARE(loading.first().at(0).toBool(), true);
        // newest first
        QCOMPARE(m_model->index(0, ActionQueueModel::IdColumn).data().toString(), FakePageSource::make(25).record.id);
    }

    // The model tester behaves like a greedy view: it calls fetchMore() whenever rows arrive.
    // Pages must still come one at a time, in order, each exactly once.
    void fetchMorePagesUntilTheLastOne()
    {
        m_source->fill(25);
        QSignalSpy inserted(m_model, &QAbstractItemModel::rowsInserted);
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QVERIFY(inserted.isValid());
        QVERIFY(loaded.isValid());
        m_model->setQuery(ActionQuery::queue());
        QVERIFY(m_model->isLoading());
        QVERIFY(!m_model->canFetchMore(QModelIndex())); // one page at a time
        m_model->fetchMore(QModelIndex());             // ignored while one is on its way
        QTRY_VERIFY(!m_model->isLoading() && !m_model->canFetchMore(QModelIndex()));
        QCOMPARE(m_model->rowCount(), 25);
        QCOMPARE(m_source->pageRequests, 3);
        QCOMPARE(m_source->limits, (QList<int>{ 10, 10, 10 }));
        QCOMPARE(inserted.count(), 3);
        const QList<QPair<int, int>> ranges{ { 0, 9 }, { 10, 19 }, { 20, 24 } };
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(inserted.at(i).at(1).toInt(), ranges.at(i).first);
            QCOMPARE(inserted.at(i).at(2).toInt(), ranges.at(i).second);
        }
        QCOMPARE(loaded.count(), 3);
        QCOMPARE(loaded.last().at(0).toInt(), 5);
        QCOMPARE(loaded.last().at(1).toBool(), false);
        for (int r = 0; r < 25; ++r)
            QCOMPARE(m_model->index(r, ActionQueueModel::IdColumn).data().toString(), FakePageSource::make(25 - r).record.id);
    }

    void withoutAViewOnlyTheFirstPageIsLoaded()
    {
        // No tester, no view: nothing asks for more, so only one page is fetched.
        FakePageSource source;
        source.fill(1000);
        ActionQueueModel model(&source);
        model.setPageSize(50);
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        model.setQuery(ActionQuery::queue());
        QVERIFY(loaded.wait(2000));
        QTest::qWait(20);
        QCOMPARE(model.rowCount(), 50);
        QCOMPARE(source.pageRequests, 1);
        QVERIFY(model.canFetchMore(QModelIndex()));
        model.fetchMore(QModelIndex());
        QVERIFY(loaded.wait(2000));
        QCOMPARE(model.rowCount(), 100);
        QCOMPARE(source.pageRequests, 2);
    }

    void countsComeWithEveryPage()
    {
        m_source->fill(3);
        m_source->ledger.append(FakePageSource::make(0, ActionState::Completed));
        QSignalSpy counts(m_model, &ActionQueueModel::countsChanged);
        QVERIFY(counts.isValid());
        loadFirstPage();
        QCOMPARE(counts.count(), 1);
        QCOMPARE(m_model->counts().count(ActionState::Pending), 3);
        QCOMPARE(m_model->counts().count(ActionState::Completed), 1);
        QCOMPARE(m_model->counts().queueTotal(), 3);
        QCOMPARE(m_model->rowCount(), 3); // COMPLETED is not in the queue
    }

    void displayedValues_data()
    {
        QTest::addColumn<qint64>("amount");
        QTest::addColumn<QString>("currency");
        QTest::addColumn<QString>("text");
        QTest::newRow("dollars with cents") << qint64(4000) << QStringLiteral("usd") << QStringLiteral("40.00 USD");
        QTest::newRow("yen has no minor unit") << qint64(5000) << QStringLiteral("jpy") << QStringLiteral("5000 JPY");
        QTest::newRow("dinar has three digits") << qint64(1250) << QStringLiteral("kwd") << QStringLiteral("1.250 KWD");
        QTest::newRow("a cent") << qint64(1) << QStringLiteral("eur") << QStringLiteral("0.01 EUR");
    }

    void displayedValues()
    {
        QFETCH(qint64, amount);
        QFETCH(QString, currency);
        QFETCH(QString, text);
        m_source->ledger = { FakePageSource::make(1, ActionState::Pending, amount, currency) };
        loadFirstPage();
        const QModelIndex cell = m_model->index(0, ActionQueueModel::AmountColumn);
        QCOMPARE(cell.data().toString(), text);
        QCOMPARE(cell.data(Qt::TextAlignmentRole).value<Qt::Alignment>(), Qt::AlignRight | Qt::AlignVCenter);
        QCOMPARE(m_model->index(0, ActionQueueModel::StateColumn).data().toString(), QStringLiteral("Pending"));
        // created 2026-01-01 00:01, the clock says 2026-01-02 00:00
        QCOMPARE(m_model->index(0, ActionQueueModel::AgeColumn).data().toString(), QStringLiteral("23 h"));
        const auto summary = m_model->index(0, 0).data(ActionQueueModel::ActionRole).value<ActionSummary>();
        QCOMPARE(summary.record.amount, amount);
    }

    void liveChangeUpdatesTheRowInPlace()
    {
        m_source->fill(5);
        loadFirstPage();
        const QString id = FakePageSource::make(3).record.id;
        const int row = m_model->rowOf(id);
        QVERIFY(row >= 0);

        QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(m_model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(m_model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(m_model, &QAbstractItemModel::modelReset);
        QVERIFY(changed.isValid() && inserted.isValid() && removed.isValid() && reset.isValid());

        cs::ActionSummary *stored = m_source->find(id);
        stored->record.state = ActionState::ConfirmationUnknown;
        stored->record.stateVersion = 4;
        stored->attemptCount = 1;
        ActionChange change;
        change.actionId = id;
        change.state = ActionState::ConfirmationUnknown;
        change.stateVersion = 4;
        change.event = QStringLiteral("attempt_finished");
        m_model->applyChange(change);

        // The state shows at once; the full row (attempts) follows from the source.
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex().row(), row);
        QCOMPARE(m_model->index(row, ActionQueueModel::StateColumn).data().toString(), QStringLiteral("Confirmation unknown"));
        QTRY_COMPARE(m_model->index(row, ActionQueueModel::AttemptsColumn).data().toInt(), 1);
        QCOMPARE(m_model->rowOf(id), row);
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(removed.count(), 0);
        QCOMPARE(reset.count(), 0);
    }

    void olderVersionsAreIgnored()
    {
        m_source->fill(2);
        m_source->ledger[0].record.stateVersion = 5;
        loadFirstPage();
        const QString id = m_source->ledger[0].record.id;
        ActionSummary older = m_source->ledger[0];
        older.record.stateVersion = 3;
        older.record.state = ActionState::Rejected;
        QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
        QVERIFY(changed.isValid());
        m_model->updateSummary(older);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(m_model->index(m_model->rowOf(id), 0).data(ActionQueueModel::StateRole).toInt(), int(ActionState::Pending));
    }

    void newMatchingActionIsInsertedAtItsPlace()
    {
        m_source->fill(5);
        loadFirstPage();
        QSignalSpy inserted(m_model, &QAbstractItemModel::rowsInserted);
        QVERIFY(inserted.isValid());
        m_source->ledger.prepend(FakePageSource::make(6));
        ActionChange change;
        change.actionId = m_source->ledger.first().record.id;
        change.state = ActionState::Pending;
        change.stateVersion = 1;
        change.event = QStringLiteral("proposed");
        m_model->applyChange(change);
        QVERIFY(inserted.wait(2000));
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(m_model->rowCount(), 6);
        QCOMPARE(m_model->rowOf(change.actionId), 0);
        QCOMPARE(m_model->rowOf(FakePageSource::make(5).record.id), 1);
    }

    // reload() reads the list again without a reset: a view's selection (persistent indexes) and
    // scroll position survive; rows go, come, move and change in place.
    void reloadMergesInPlace()
    {
        m_source->fill(8);
        loadFirstPage(); // 8..1, newest first
        const QString kept = FakePageSource::make(5).record.id;
        const QPersistentModelIndex held = m_model->index(m_model->rowOf(kept), 0);
        QCOMPARE(held.row(), 3);
        // Meanwhile at the backend: 7 decided (leaves the queue), 9 proposed, 2 changed.
        m_source->find(FakePageSource::make(7).record.id)->record.state = ActionState::Rejected;
        m_source->ledger.prepend(FakePageSource::make(9));
        m_source->find(FakePageSource::make(2).record.id)->attemptCount = 3;
        m_source->find(FakePageSource::make(2).record.id)->record.stateVersion = 2;
        QSignalSpy reset(m_model, &QAbstractItemModel::modelReset);
        QSignalSpy removed(m_model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(m_model, &QAbstractItemModel::rowsInserted);
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QSignalSpy arrived(m_model, &ActionQueueModel::arrived);
        QVERIFY(reset.isValid() && removed.isValid() && inserted.isValid() && loaded.isValid() && arrived.isValid());
        m_model->reload();
        QCOMPARE(m_model->rowCount(), 8); // the old rows stay shown while it reads
        QVERIFY(loaded.wait(2000));
        QCOMPARE(reset.count(), 0);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(arrived.count(), 1);
        QCOMPARE(arrived.first().at(0).toString(), FakePageSource::make(9).record.id);
        QStringList order;
        for (int r = 0; r < m_model->rowCount(); ++r)
            order << m_model->index(r, ActionQueueModel::OrderColumn).data().toString();
        QCOMPARE(order.join(u' '), QStringLiteral("order-9 order-8 order-6 order-5 order-4 order-3 order-2 order-1"));
        QVERIFY(held.isValid());
        QCOMPARE(held.data(ActionQueueModel::ActionIdRole).toString(), kept);
        QCOMPARE(m_model->index(m_model->rowOf(FakePageSource::make(2).record.id), ActionQueueModel::AttemptsColumn).data().toInt(), 3);
    }

    // As deep as it was loaded: a person who scrolled to row 25 finds it again after F5.
    void reloadReadsAsDeepAsLoaded()
    {
        m_source->fill(25);
        loadFirstPage();
        m_model->fetchMore(QModelIndex());
        QTRY_VERIFY(!m_model->isLoading());
        m_model->fetchMore(QModelIndex());
        QTRY_VERIFY(!m_model->isLoading());
        QCOMPARE(m_model->rowCount(), 25);
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        m_model->reload();
        QVERIFY(loaded.wait(2000));
        QCOMPARE(m_model->rowCount(), 25);
        QVERIFY(!m_model->hasMore());
    }

    // A decided action leaves the list at once — unless a person holds it (pinned), then when they
    // let go; a reload keeps a held row too.
    void rowThatLeavesGoesUnlessPinned()
    {
        m_source->fill(5);
        loadFirstPage();
        const QString decided = FakePageSource::make(4).record.id;
        const QString held = FakePageSource::make(2).record.id;
        m_model->setPinned({ held });
        for (const QString &id : { decided, held }) {
            m_source->find(id)->record.state = ActionState::Rejected;
            m_source->find(id)->record.stateVersion = 2;
            ActionChange change;
            change.actionId = id;
            change.state = ActionState::Rejected;
            change.stateVersion = 2;
            m_model->applyChange(change);
        }
        QCOMPARE(m_model->rowOf(decided), -1); // at once, before its full row was read
        QVERIFY(m_model->rowOf(held) >= 0);
        QVERIFY(m_model->hasLeft(held));
        QCOMPARE(m_model->rowCount(), 4);
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        m_model->reload();
        QVERIFY(loaded.wait(2000));
        QCOMPARE(m_model->rowCount(), 4);
        QCOMPARE(m_model->rowOf(held), 2); // at its place in the order
        m_model->setPinned({});
        QCOMPARE(m_model->rowOf(held), -1);
        QCOMPARE(m_model->rowCount(), 3);
    }

    // Arrivals are announced: inserted among the loaded rows, or beyond them (a page further on).
    void arrivalsAreAnnounced()
    {
        // Without the model tester, which fetches every page like a greedy view.
        m_source->fill(15);
        ActionQueueModel model(m_source);
        model.setPageSize(10);
        ActionQuery oldestFirst = ActionQuery::queue();
        oldestFirst.descending = false;
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QSignalSpy arrived(&model, &ActionQueueModel::arrived);
        QVERIFY(loaded.isValid() && arrived.isValid());
        model.setQuery(oldestFirst);
        QVERIFY(loaded.wait(2000)); // 1..10 of 15
        m_source->ledger.prepend(FakePageSource::make(16));
        ActionChange change;
        change.actionId = FakePageSource::make(16).record.id;
        change.state = ActionState::Pending;
        change.stateVersion = 1;
        model.applyChange(change);
        QTRY_COMPARE(arrived.count(), 1);
        QCOMPARE(arrived.first().at(0).toString(), change.actionId);
        QCOMPARE(arrived.first().at(1).toBool(), false); // the newest comes last: not loaded yet
        QCOMPARE(model.rowCount(), 10);
        // An older one (a state change brought it here) lands among the loaded rows.
        ActionSummary back = FakePageSource::make(0, ActionState::RequiresReview);
        m_source->ledger.append(back);
        change.actionId = back.id();
        change.state = ActionState::RequiresReview;
        change.stateVersion = 3;
        model.applyChange(change);
        QTRY_COMPARE(arrived.count(), 2);
        QCOMPARE(arrived.last().at(1).toBool(), true);
        QCOMPARE(model.rowOf(back.id()), 0);
    }

    void awaitsDecision()
    {
        const QString me = QStringLiteral("alice");
        ActionSummary row = FakePageSource::make(1);
        QVERIFY(ActionQueueModel::awaitsDecision(row, me));
        row.record.approvalVersion = 1;
        row.record.idempotencyKey = QStringLiteral("k1"); // approved: the executor has it
        QVERIFY(!ActionQueueModel::awaitsDecision(row, me));
        row.record.idempotencyKey.clear();                 // the approval expired: to decide again
        QVERIFY(ActionQueueModel::awaitsDecision(row, me));
        row.queued = true;                                 // a list row says so without the key
        QVERIFY(!ActionQueueModel::awaitsDecision(row, me));
        row.queued = false;
        row.record.approvalVersion = 0;
        row.approvalsRequired = 2;
        row.approvalsGiven = { Approval::Signer{ me, QDateTime() } };
        QVERIFY(!ActionQueueModel::awaitsDecision(row, me));                  // alice signed
        QVERIFY(ActionQueueModel::awaitsDecision(row, QStringLiteral("bob"))); // bob may still
        for (ActionState state : { ActionState::ConfirmationUnknown, ActionState::RequiresReview }) {
            row.record.state = state;
            QVERIFY(ActionQueueModel::awaitsDecision(row, me));
        }
        for (ActionState state : { ActionState::Executing, ActionState::Completed, ActionState::Rejected }) {
            row.record.state = state;
            QVERIFY(!ActionQueueModel::awaitsDecision(row, me));
        }
        row.record.state = ActionState::Completed;
        row.settlementReview = true;
        QVERIFY(ActionQueueModel::awaitsDecision(row, me));
    }

    void actionOutsideTheFilterIsNotInserted()
    {
        m_source->fill(3);
        loadFirstPage();
        QSignalSpy inserted(m_model, &QAbstractItemModel::rowsInserted);
        QVERIFY(inserted.isValid());
        m_source->ledger.prepend(FakePageSource::make(9, ActionState::Completed));
        ActionChange change;
        change.actionId = m_source->ledger.first().record.id;
        change.state = ActionState::Completed;
        change.stateVersion = 3;
        m_model->applyChange(change);
        QTest::qWait(50);
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(m_source->summaryRequests, 0); // not even asked for
    }

    void rowBeyondTheLoadedPagesWaitsForItsPage()
    {
        m_source->fill(30);
        loadFirstPage(); // rows 30..21
        ActionSummary old = FakePageSource::make(0); // older than everything loaded
        m_source->ledger.append(old);
        QSignalSpy inserted(m_model, &QAbstractItemModel::rowsInserted);
        QVERIFY(inserted.isValid());
        m_model->updateSummary(old);
        QCOMPARE(inserted.count(), 0);
    }

    void liveRowIsNotDuplicatedByALaterPage()
    {
        m_source->fill(15);
        loadFirstPage(); // 15..6
        // A new action arrives live at the top; the source's next page overlaps what is loaded
        // (an offset cursor shifted by the insert): the overlapping row must not appear twice.
        m_source->ledger.prepend(FakePageSource::make(16));
        m_model->updateSummary(m_source->ledger.first());
        QCOMPARE(m_model->rowCount(), 11);
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        m_model->fetchMore(QModelIndex());
        QVERIFY(loaded.wait(2000));
        m_model->fetchMore(QModelIndex());
        QTRY_VERIFY(!m_model->isLoading());
        QCOMPARE(m_model->rowCount(), 16);
        QSet<QString> ids;
        for (int r = 0; r < m_model->rowCount(); ++r)
            ids.insert(m_model->index(r, ActionQueueModel::IdColumn).data().toString());
        QCOMPARE(ids.size(), 16);
    }

    void pageOfAPreviousQueryIsIgnored()
    {
        m_source->fill(5);
        m_source->ledger.append(FakePageSource::make(0, ActionState::RequiresReview));
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        m_model->setQuery(ActionQuery::queue());
        ActionQuery review;
        review.states = { ActionState::RequiresReview };
        m_model->setQuery(review); // before the first answer arrived
        QVERIFY(loaded.wait(2000));
        QTest::qWait(20);
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(m_model->rowCount(), 1);
        QCOMPARE(m_model->index(0, 0).data(ActionQueueModel::StateRole).toInt(), int(ActionState::RequiresReview));
    }

    void searchGoesToTheSource()
    {
        m_source->fill(12);
        ActionQuery query = ActionQuery::queue();
        query.search = QStringLiteral("ORDER-7");
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        m_model->setQuery(query);
        QVERIFY(loaded.wait(2000));
        QCOMPARE(m_model->rowCount(), 1);
        QCOMPARE(m_model->index(0, ActionQueueModel::OrderColumn).data().toString(), QStringLiteral("order-7"));
    }

    void failureStopsFetchingUntilRetry()
    {
        m_source->fill(5);
        m_source->failing = true;
        QSignalSpy failed(m_model, &ActionQueueModel::loadFailed);
        QVERIFY(failed.isValid());
        m_model->setQuery(ActionQuery::queue());
        QVERIFY(failed.wait(2000));
        QVERIFY(m_model->hasFailed());
        QVERIFY(!m_model->canFetchMore(QModelIndex())); // a scrolling view must not hammer it
        m_source->failing = false;
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        m_model->retry();
        QVERIFY(loaded.wait(2000));
        QCOMPARE(m_model->rowCount(), 5);
        QVERIFY(!m_model->hasFailed());
    }

    void liveChangesRefreshTheCountsOnce()
    {
        m_source->fill(4);
        loadFirstPage();
        const int before = m_source->pageRequests;
        for (int i = 1; i <= 4; ++i) {
            ActionChange change;
            change.actionId = FakePageSource::make(i).record.id;
            change.state = ActionState::Pending;
            change.stateVersion = 1;
            m_model->applyChange(change);
        }
        QTRY_COMPARE(m_source->pageRequests, before + 1);
        QCOMPARE(m_source->limits.last(), 1);
        QTest::qWait(500);
        QCOMPARE(m_source->pageRequests, before + 1);
    }

    void sortParameterAndOrder()
    {
        ActionQuery query;
        QCOMPARE(query.sortParameter(), QString()); // the default: newest first
        query.descending = false;
        QCOMPARE(query.sortParameter(), QStringLiteral("created_at"));
        query.sort = ActionQuery::SortKey::Amount;
        QCOMPARE(query.sortParameter(), QStringLiteral("amount"));
        query.descending = true;
        QCOMPARE(query.sortParameter(), QStringLiteral("-amount"));
        query.sort = ActionQuery::SortKey::AttemptCount;
        QCOMPARE(query.sortParameter(), QStringLiteral("-attempt_count"));
        query.sort = ActionQuery::SortKey::LastEventAt;
        QCOMPARE(query.sortParameter(), QStringLiteral("-last_event_at"));

        // Amounts order by currency, then amount (minor units); ties by creation, then id; the
        // whole key in one direction. Never across currencies by face value.
        query.sort = ActionQuery::SortKey::Amount;
        const ActionSummary yen = FakePageSource::make(1, ActionState::Pending, 1000, QStringLiteral("jpy"));  // 1000
        const ActionSummary dollars = FakePageSource::make(2, ActionState::Pending, 4000, QStringLiteral("usd")); // 40.00
        const ActionSummary dinars = FakePageSource::make(3, ActionState::Pending, 40000, QStringLiteral("kwd")); // 40.000
        const ActionSummary more = FakePageSource::make(4, ActionState::Pending, 5000, QStringLiteral("usd")); // 50.00
        const ActionSummary same = FakePageSource::make(5, ActionState::Pending, 4000, QStringLiteral("usd")); // 40.00, newer
        QCOMPARE(yen.scaledAmount(), 10000000);
        QCOMPARE(dollars.scaledAmount(), dinars.scaledAmount());
        QVERIFY(query.before(more, dollars));
        QVERIFY(query.before(dollars, dinars)); // usd, then kwd, then jpy
        QVERIFY(query.before(dinars, yen));
        QVERIFY(query.before(same, dollars));   // equal amounts: the newer first (descending)
        QVERIFY(!query.before(dollars, same));
        query.descending = false;
        QVERIFY(query.before(yen, dinars));
        QVERIFY(query.before(dinars, dollars));
        QVERIFY(query.before(dollars, same));
        QVERIFY(query.before(same, more));
        QVERIFY(!query.before(dollars, dollars));
    }

    void sortGoesToTheSourceAndLiveRowsFollowIt()
    {
        m_source->ledger = {
            FakePageSource::make(4, ActionState::Pending, 1000, QStringLiteral("jpy")),  // 1000 JPY
            FakePageSource::make(3, ActionState::Pending, 999, QStringLiteral("usd")),   // 9.99
            FakePageSource::make(2, ActionState::Pending, 12500, QStringLiteral("kwd")), // 12.500
            FakePageSource::make(1, ActionState::Pending, 4000, QStringLiteral("usd")),  // 40.00
        };
        ActionQuery query = ActionQuery::queue();
        query.sort = ActionQuery::SortKey::Amount;
        query.descending = true;
        QSignalSpy loaded(m_model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        m_model->setQuery(query);
        QVERIFY(loaded.wait(2000));
        QCOMPARE(m_source->queries.last().sort, ActionQuery::SortKey::Amount);
        QVERIFY(m_source->queries.last().descending);
        const auto amounts = [this] {
            QStringList order;
            for (int r = 0; r < m_model->rowCount(); ++r)
                order << m_model->index(r, ActionQueueModel::AmountColumn).data().toString();
            return order;
        };
        QCOMPARE(amounts(), (QStringList{ QStringLiteral("40.00 USD"), QStringLiteral("9.99 USD"),
                                          QStringLiteral("12.500 KWD"), QStringLiteral("1000 JPY") }));
        // A new action arrives live: it goes to its place in this order, not to the top.
        const ActionSummary fresh = FakePageSource::make(9, ActionState::Pending, 2000, QStringLiteral("usd")); // 20.00
        m_source->ledger.append(fresh);
        m_model->updateSummary(fresh);
        QCOMPARE(amounts(), (QStringList{ QStringLiteral("40.00 USD"), QStringLiteral("20.00 USD"), QStringLiteral("9.99 USD"),
                                          QStringLiteral("12.500 KWD"), QStringLiteral("1000 JPY") }));
        // A changed row keeps its place until the next reload (the selection does not jump).
        ActionSummary grown = m_source->ledger.at(1); // 9.99 USD
        grown.record.amount = 999999;
        grown.record.stateVersion = 2;
        *m_source->find(grown.id()) = grown;
        m_model->updateSummary(grown);
        QCOMPARE(m_model->rowOf(grown.id()), 2);
        m_model->reload();
        QVERIFY(loaded.wait(2000));
        QCOMPARE(m_model->rowOf(grown.id()), 0);
    }
};

QTEST_GUILESS_MAIN(TestActionQueueModel)
#include "tst_actionqueuemodel.moc"
