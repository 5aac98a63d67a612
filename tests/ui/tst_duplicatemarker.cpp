// The console's possible-duplicate marker (issue 14): a queue row the backend flags carries its
// count in ActionQueueModel::PossibleDuplicatesRole, says why in the state cell's tooltip and
// accessible text, and QueueItemDelegate paints a "dup" marker after the state chip (wider cell);
// the detail's related list shows each possible duplicate with the backend's sentence as its
// tooltip; the list row's JSON keeps the count.
#include "models/actiondetail.h"
#include "models/actionqueuemodel.h"
#include "models/relatedactionmodel.h"
#include "tests/ui/fakepagesource.h"
#include "ui/queueitemdelegate.h"

#include <QAbstractItemModelTester>
#include <QImage>
#include <QJsonArray>
#include <QPainter>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace cs;

class TestDuplicateMarker : public QObject
{
    Q_OBJECT

private slots:
    void queueRowCarriesTheFlag()
    {
        FakePageSource source;
        ActionSummary flagged = FakePageSource::make(2);
        flagged.possibleDuplicates = 2;
        source.ledger = {flagged, FakePageSource::make(1)};
        ActionQueueModel model(&source);
        QAbstractItemModelTester tester(&model);
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        model.setQuery(ActionQuery::queue());
        QVERIFY(loaded.wait(2000));
        QCOMPARE(model.rowCount(), 2);

        const QModelIndex dup = model.index(0, ActionQueueModel::StateColumn);
        const QModelIndex plain = model.index(1, ActionQueueModel::StateColumn);
        QCOMPARE(dup.data(ActionQueueModel::PossibleDuplicatesRole).toInt(), 2);
        QCOMPARE(plain.data(ActionQueueModel::PossibleDuplicatesRole).toInt(), 0);
        QVERIFY2(dup.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Possible duplicate")),
                 qPrintable(dup.data(Qt::ToolTipRole).toString()));
        QVERIFY(dup.data(Qt::ToolTipRole).toString().contains(QStringLiteral("needs a note")));
        QVERIFY(!plain.data(Qt::ToolTipRole).toString().contains(QStringLiteral("duplicate")));
        QVERIFY(dup.data(Qt::AccessibleTextRole).toString().endsWith(QStringLiteral("possible duplicate")));

        QCOMPARE(QueueItemDelegate::duplicateMarker(dup), QStringLiteral("dup 2"));
        QCOMPARE(QueueItemDelegate::duplicateMarker(plain), QString());

        // Painted in a real view (offscreen): the flagged cell is wider and paints its marker.
        QTableView view;
        view.setModel(&model);
        QueueItemDelegate delegate(ActionQueueModel::StateColumn, {});
        view.setItemDelegate(&delegate);
        view.resize(900, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QStyleOptionViewItem option;
        option.initFrom(&view);
        QVERIFY(delegate.sizeHint(option, dup).width() > delegate.sizeHint(option, plain).width());
        const auto painted = [&](const QModelIndex &index) {
            QImage image(240, 30, QImage::Format_ARGB32);
            image.fill(Qt::white);
            QPainter painter(&image);
            QStyleOptionViewItem o = option;
            o.rect = image.rect();
            delegate.paint(&painter, o, index);
            painter.end();
            // The right half: past the chip, where only the marker is drawn.
            int inked = 0;
            for (int x = 120; x < image.width(); ++x)
                for (int y = 0; y < image.height(); ++y)
                    inked += image.pixel(x, y) != qRgb(255, 255, 255);
            return inked;
        };
        QVERIFY(painted(dup) > painted(plain));
    }

    void relatedListShowsTheSentence()
    {
        ActionDetail detail;
        detail.record = FakePageSource::make(3).record;
        PossibleDuplicate d;
        d.summary = FakePageSource::make(4, ActionState::Completed);
        d.same = QStringLiteral("business_reference");
        d.sentence = QStringLiteral("order order-4 already has 40.00 USD COMPLETED by agent-even, 1 h ago");
        detail.possibleDuplicates = {d};
        RelatedActionModel model;
        QAbstractItemModelTester tester(&model);
        model.setDetail(detail);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, RelatedActionModel::RelationColumn).data().toString(), QStringLiteral("possible duplicate"));
        QCOMPARE(model.index(0, RelatedActionModel::IdColumn).data(Qt::ToolTipRole).toString(), d.sentence);
        QCOMPARE(model.index(0, RelatedActionModel::StateColumn).data().toString(), QStringLiteral("Completed"));
    }

    void wireKeepsTheCount()
    {
        ActionSummary s = FakePageSource::make(5);
        s.possibleDuplicates = 3;
        const QJsonObject json = s.toJson();
        QCOMPARE(json.value(QStringLiteral("possible_duplicate")).toBool(), true);
        QCOMPARE(json.value(QStringLiteral("possible_duplicates")).toInt(), 3);
        QString error;
        const auto back = ActionSummary::fromJson(json, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->possibleDuplicates, 3);
        PossibleDuplicate d{s, QStringLiteral("charge"), QStringLiteral("charge ch_5 also has 40.00 USD PENDING by x, just now")};
        const auto read = PossibleDuplicate::fromJson(d.toJson(), &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(*read, d);
    }

    // Dual control in the queue (issue 14): a PENDING row under a quorum shows "1 of 2" after its
    // chip and who approved in the tooltip; the list row's JSON carries both; a row that needs
    // one approver, or is no longer PENDING, shows nothing.
    void queueRowShowsTheQuorum()
    {
        FakePageSource source;
        ActionSummary quorum = FakePageSource::make(2);
        quorum.approvalsRequired = 2;
        quorum.approvalsGiven = {{QStringLiteral("alice"), QDateTime::currentDateTimeUtc()}};
        ActionSummary done = FakePageSource::make(3, ActionState::Completed);
        done.approvalsRequired = 2;
        source.ledger = {quorum, FakePageSource::make(1), done};
        ActionQueueModel model(&source);
        QAbstractItemModelTester tester(&model);
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        model.setQuery(ActionQuery::allStates());
        QVERIFY(loaded.wait(2000));
        QModelIndex withQuorum, plain, completed;
        for (int row = 0; row < model.rowCount(); ++row) {
            const QModelIndex i = model.index(row, ActionQueueModel::StateColumn);
            const QString id = i.data(ActionQueueModel::ActionIdRole).toString();
            (id == quorum.id() ? withQuorum : id == done.id() ? completed : plain) = i;
        }
        QVERIFY(withQuorum.isValid() && plain.isValid() && completed.isValid());
        QCOMPARE(QueueItemDelegate::quorumMarker(withQuorum), QStringLiteral("1 of 2"));
        QCOMPARE(QueueItemDelegate::quorumMarker(plain), QString());
        QCOMPARE(QueueItemDelegate::quorumMarker(completed), QString());
        QVERIFY2(withQuorum.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Dual control: 1 of 2 approvals, by alice")),
                 qPrintable(withQuorum.data(Qt::ToolTipRole).toString()));
        QVERIFY(withQuorum.data(Qt::AccessibleTextRole).toString().endsWith(QStringLiteral("1 of 2 approvals")));

        QTableView view;
        view.setModel(&model);
        QueueItemDelegate delegate(ActionQueueModel::StateColumn, {});
        view.setItemDelegate(&delegate);
        QStyleOptionViewItem option;
        option.initFrom(&view);
        QVERIFY(delegate.sizeHint(option, withQuorum).width() > delegate.sizeHint(option, plain).width());

        const QJsonObject json = quorum.toJson();
        QCOMPARE(json.value(QStringLiteral("approvals_required")).toInt(), 2);
        QCOMPARE(json.value(QStringLiteral("approvals_given")).toArray().size(), 1);
        QVERIFY(!FakePageSource::make(1).toJson().contains(QStringLiteral("approvals_required")));
        QString error;
        const auto back = ActionSummary::fromJson(json, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->approvalsRequired, 2);
        QCOMPARE(back->approvalsGiven.constFirst().approver, QStringLiteral("alice"));

        // A row refreshed from the action's detail (after an event) keeps the quorum and the
        // possible duplicates the list row had.
        ActionDetail detail;
        detail.record = quorum.record;
        detail.quorum.required = 2;
        detail.quorum.given = {{QStringLiteral("alice"), QDateTime::currentDateTimeUtc()}};
        detail.possibleDuplicates = {PossibleDuplicate{FakePageSource::make(9), QStringLiteral("charge"), QString()}};
        const ActionSummary refreshed = detail.summary();
        QCOMPARE(refreshed.approvalsRequired, 2);
        QCOMPARE(refreshed.approvalsGiven.size(), 1);
        QCOMPARE(refreshed.possibleDuplicates, 1);
        detail.record.state = ActionState::Executing;
        QCOMPARE(detail.summary().approvalsRequired, 0);
    }
};

QTEST_MAIN(TestDuplicateMarker)
#include "tst_duplicatemarker.moc"
