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
};

QTEST_MAIN(TestDuplicateMarker)
#include "tst_duplicatemarker.moc"
