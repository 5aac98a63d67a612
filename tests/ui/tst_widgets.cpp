// Widgets without a backend (offscreen): the queue view keeps the selection and what is on
// screen when rows arrive above it; state colours stay readable in light and dark palettes;
// the timeline maps every mark inside its width.

#include "models/actionqueuemodel.h"
#include "models/displayformat.h"
#include "tests/ui/fakepagesource.h"
#include "ui/actiondetailpane.h"
#include "ui/chargestoryview.h"
#include "ui/dialogparts.h"
#include "ui/draftstore.h"
#include "ui/queueview.h"
#include "ui/statepalette.h"
#include "ui/timelinewidget.h"

#include <QApplication>
#include <QDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QScrollBar>
#include <QStyleFactory>
#include <QSignalSpy>
#include <QTest>
#include <QTableView>

using namespace cs;

namespace {

double luminance(const QColor &c)
{
    const auto channel = [](double v) {
        v /= 255.0;
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.red()) + 0.7152 * channel(c.green()) + 0.0722 * channel(c.blue());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (qMax(la, lb) + 0.05) / (qMin(la, lb) + 0.05);
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(37, 37, 40));
    p.setColor(QPalette::Base, QColor(30, 30, 33));
    p.setColor(QPalette::AlternateBase, QColor(42, 42, 46));
    p.setColor(QPalette::Text, QColor(225, 225, 228));
    p.setColor(QPalette::WindowText, QColor(225, 225, 228));
    return p;
}

} // namespace

class TestWidgets : public QObject
{
    Q_OBJECT

private slots:
    void newRowsAboveKeepTheViewAndTheSelection()
    {
        FakePageSource source;
        source.fill(150);
        ActionQueueModel model(&source);
        model.setPageSize(150);
        QueueView view(&model);
        view.resize(900, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        view.apply(QueueView::Filter::Queue, QString());
        QVERIFY(loaded.wait(2000));

        const QString selected = FakePageSource::make(100).record.id;
        QVERIFY(view.selectAction(selected));
        QTableView *table = view.table();
        table->scrollTo(table->currentIndex(), QAbstractItemView::PositionAtTop);
        QTest::qWait(50);
        const QString topBefore = table->indexAt(QPoint(5, 5)).data(ActionQueueModel::ActionIdRole).toString();
        QVERIFY(!topBefore.isEmpty());

        // Three actions arrive live, newer than everything: inserted at the top.
        for (int n = 151; n <= 153; ++n)
            model.updateSummary(FakePageSource::make(n));
        QCOMPARE(model.rowCount(), 153);
        QTRY_COMPARE(table->indexAt(QPoint(5, 5)).data(ActionQueueModel::ActionIdRole).toString(), topBefore);
        QCOMPARE(view.currentActionId(), selected);
        QCOMPARE(table->currentIndex().data(ActionQueueModel::ActionIdRole).toString(), selected);
    }

    // A million-row ledger must open like a ten-row one: the view asks for a page only when the
    // last loaded row comes into sight (QTreeView would page through everything).
    void theViewFetchesOnlyWhatItShows()
    {
        FakePageSource source;
        source.fill(5000);
        ActionQueueModel model(&source);
        QueueView view(&model);
        view.resize(900, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        view.apply(QueueView::Filter::Queue, QString());
        QVERIFY(loaded.wait(2000));
        QTest::qWait(300);
        QCOMPARE(source.pageRequests, 1);
        QCOMPARE(model.rowCount(), ActionQueueModel::DefaultPageSize);
        // Scrolling to the end asks for the next page, once.
        view.table()->scrollToBottom();
        QTRY_COMPARE(source.pageRequests, 2);
        QTRY_COMPARE(model.rowCount(), 2 * ActionQueueModel::DefaultPageSize);
        QTest::qWait(300);
        QCOMPARE(source.pageRequests, 2);
    }

    // The backend sorts: a header click asks for the list in that order (first click: largest
    // first; again: reversed); a column the backend cannot sort by changes nothing; the order is
    // remembered with the header's state.
    void headerClicksSortInTheBackend()
    {
        FakePageSource source;
        for (int n = 1; n <= 30; ++n)
            source.ledger.prepend(FakePageSource::make(n, ActionState::Pending, 100 * ((n * 7) % 30 + 1)));
        ActionQueueModel model(&source);
        QueueView view(&model);
        view.resize(1200, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        view.apply(QueueView::Filter::Queue, QString());
        QVERIFY(loaded.wait(2000));
        QHeaderView *header = view.table()->horizontalHeader();
        // Oldest first: the age column descending (what waits longest on top).
        QCOMPARE(header->sortIndicatorSection(), int(ActionQueueModel::AgeColumn));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        QVERIFY(!source.queries.last().descending);
        const auto click = [&](int column) {
            const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2, header->height() / 2);
            QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
        };
        const auto amounts = [&] {
            QList<qint64> values;
            for (int r = 0; r < model.rowCount(); ++r)
                values << model.index(r, 0).data(ActionQueueModel::ActionRole).value<ActionSummary>().record.amount;
            return values;
        };

        const int requests = source.pageRequests;
        click(ActionQueueModel::AmountColumn);
        QTRY_COMPARE(source.pageRequests, requests + 1);
        QCOMPARE(source.queries.last().sort, ActionQuery::SortKey::Amount);
        QVERIFY(source.queries.last().descending);
        QTRY_VERIFY(!model.isLoading() && model.rowCount() == 30);
        QList<qint64> values = amounts();
        QVERIFY2(std::is_sorted(values.rbegin(), values.rend()), "largest first");
        QCOMPARE(header->sortIndicatorSection(), int(ActionQueueModel::AmountColumn));

        click(ActionQueueModel::AmountColumn);
        QTRY_COMPARE(source.pageRequests, requests + 2);
        QVERIFY(!source.queries.last().descending);
        QTRY_VERIFY(!model.isLoading() && model.rowCount() == 30);
        values = amounts();
        QVERIFY2(std::is_sorted(values.begin(), values.end()), "smallest first");

        click(ActionQueueModel::TargetColumn); // not a backend sort key
        QTest::qWait(100);
        QCOMPARE(source.pageRequests, requests + 2);
        QCOMPARE(header->sortIndicatorSection(), int(ActionQueueModel::AmountColumn));
        QCOMPARE(header->sortIndicatorOrder(), Qt::AscendingOrder);

        const QByteArray remembered = view.headerState();
        click(ActionQueueModel::AgeColumn); // back to newest first
        QTRY_COMPARE(source.pageRequests, requests + 3);
        QCOMPARE(source.queries.last().sort, ActionQuery::SortKey::CreatedAt);
        QVERIFY(source.queries.last().descending);

        QueueView restored(&model);
        restored.restoreHeaderState(remembered);
        QCOMPARE(restored.sortKey(), ActionQuery::SortKey::Amount);
        QVERIFY(!restored.sortDescending());
        restored.apply(QueueView::Filter::All, QString());
        QCOMPARE(source.queries.last().sort, ActionQuery::SortKey::Amount);
    }

    // One human intent, one Idempotency-Key: the same unresolved request reuses its key (the
    // backend replays the first answer); another request, or an answered one, gets a fresh key.
    void draftKeysFollowTheRequest()
    {
        DraftStore drafts;
        int minted = 0;
        const auto mint = [&minted] { return QStringLiteral("key-%1").arg(++minted); };
        const QString draft = DraftStore::keyFor(QStringLiteral("approve"), QStringLiteral("act_1"));
        const QString first = drafts.keyForRequest(draft, "POST /a\n1\n{\"note\":\"x\"}", mint);
        QCOMPARE(drafts.keyForRequest(draft, "POST /a\n1\n{\"note\":\"x\"}", mint), first);
        const QString edited = drafts.keyForRequest(draft, "POST /a\n1\n{\"note\":\"y\"}", mint);
        QVERIFY(edited != first);
        drafts.resolve(draft);
        QVERIFY(drafts.keyForRequest(draft, "POST /a\n1\n{\"note\":\"y\"}", mint) != edited);
        drafts.saveFields(draft, { { QStringLiteral("note"), QStringLiteral("y") } });
        QCOMPARE(drafts.draft(draft).fields.value(QStringLiteral("note")).toString(), QStringLiteral("y"));
        QCOMPARE(minted, 3);
    }

    void stateColoursAreReadable_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light palette") << false;
        QTest::newRow("dark palette") << true;
    }

    void stateColoursAreReadable()
    {
        QFETCH(bool, dark);
        const QPalette palette = dark ? darkPalette() : QApplication::palette();
        QCOMPARE(StatePalette::isDark(palette), dark);
        for (ActionState state : { ActionState::Pending, ActionState::Executing, ActionState::ConfirmationUnknown,
                                   ActionState::Completed, ActionState::Rejected, ActionState::RequiresReview }) {
            const StatePalette::Chip chip = StatePalette::stateChip(state, palette);
            // WCAG AA for normal text: 4.5:1 between the chip's text and its fill.
            QVERIFY2(contrast(chip.text, chip.fill) >= 4.5,
                     qPrintable(QStringLiteral("%1: %2").arg(int(state)).arg(contrast(chip.text, chip.fill))));
        }
    }

    // The queue and the detail pane follow a dark palette (the system's, in real life): the
    // background is dark, and nothing stays in light-theme colours. Set CS_WIDGET_PICTURES to a
    // folder to keep the rendering for a look.
    void followsADarkPalette()
    {
        const QPalette previous = QApplication::palette();
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QPalette dark = darkPalette();
        dark.setColor(QPalette::Button, QColor(50, 50, 54));
        dark.setColor(QPalette::ButtonText, QColor(225, 225, 228));
        dark.setColor(QPalette::Highlight, QColor(42, 110, 190));
        dark.setColor(QPalette::HighlightedText, Qt::white);
        QApplication::setPalette(dark);

        FakePageSource source;
        source.fill(12);
        source.ledger[2].record.state = ActionState::RequiresReview;
        source.ledger[4].record.state = ActionState::ConfirmationUnknown;
        ActionQueueModel model(&source);
        QWidget window;
        auto *layout = new QHBoxLayout(&window);
        auto *queue = new QueueView(&model, &window);
        auto *pane = new ActionDetailPane(&window);
        layout->addWidget(queue, 1);
        layout->addWidget(pane, 1);
        window.resize(1300, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        queue->apply(QueueView::Filter::Queue, QString());
        QVERIFY(loaded.wait(2000));
        ActionDetail detail;
        detail.record = source.ledger[2].record;
        detail.record.reviewReason = QStringLiteral("key window passed");
        Attempt a;
        a.seq = 1;
        a.startedAt = detail.record.createdAt.addSecs(30);
        a.finishedAt = a.startedAt.addSecs(10);
        a.outcome = Attempt::Outcome::Unknown;
        detail.attempts = { a };
        AuditEvent e;
        e.seq = 1;
        e.at = detail.record.createdAt;
        e.event = QStringLiteral("proposed");
        e.after = QJsonObject{ { QStringLiteral("state"), QStringLiteral("PENDING") } };
        detail.audit = { e };
        pane->setDetail(detail);
        queue->selectAction(detail.record.id);
        QTest::qWait(50);
        const QImage picture = window.grab().toImage();
        if (const QByteArray folder = qgetenv("CS_WIDGET_PICTURES"); !folder.isEmpty())
            picture.save(QString::fromLocal8Bit(folder) + QStringLiteral("/dark.png"));
        // The table's empty area and the timeline are dark.
        const QPoint queueBlank = queue->table()->viewport()->mapTo(&window, QPoint(20, queue->table()->viewport()->height() - 10));
        QVERIFY(picture.pixelColor(queueBlank).lightness() < 80);
        QVERIFY(StatePalette::isDark(pane->timeline()->palette()));
        QApplication::setPalette(previous);
    }

    void timelineMapsEveryMarkInside()
    {
        ActionDetail detail;
        detail.record.id = QStringLiteral("act_x");
        detail.record.state = ActionState::RequiresReview;
        detail.record.createdAt = QDateTime::currentDateTimeUtc().addSecs(-120);
        Attempt a;
        a.seq = 1;
        a.startedAt = detail.record.createdAt.addSecs(5);
        a.finishedAt = a.startedAt.addSecs(30);
        a.outcome = Attempt::Outcome::Unknown;
        detail.attempts = { a };
        ProviderLookup l;
        l.seq = 1;
        l.at = a.finishedAt.addSecs(10);
        l.result = ProviderLookup::Result::NotFound;
        detail.lookups = { l };
        detail.keyWindowEndsAt = a.startedAt.addSecs(23 * 3600);
        TimelineWidget timeline;
        timeline.resize(800, timeline.sizeHint().height());
        timeline.setDetail(detail);
        timeline.show();
        QVERIFY(QTest::qWaitForWindowExposed(&timeline));
        double previous = -1;
        for (const QDateTime &t : { detail.record.createdAt, a.startedAt, a.finishedAt, l.at, detail.keyWindowEndsAt }) {
            const double x = timeline.xFor(t);
            QVERIFY(x > 0 && x < timeline.width());
            QVERIFY(x > previous); // in time order
            previous = x;
        }
        // A 30 s attempt and a 23 h window share the axis: the attempt is still visible.
        QVERIFY(timeline.xFor(a.finishedAt) - timeline.xFor(a.startedAt) > 20);
        const QImage picture = timeline.grab().toImage();
        QVERIFY(!picture.isNull());
    }

    void timelineLabelsNeverOverlap()
    {
        // As in docs/screenshot-review.png: three attempts and three lookups within a second,
        // several state changes at once.
        ActionDetail detail;
        detail.record.id = QStringLiteral("act_y");
        detail.record.state = ActionState::RequiresReview;
        detail.record.createdAt = QDateTime::currentDateTimeUtc().addSecs(-10);
        for (int i = 1; i <= 3; ++i) {
            Attempt a;
            a.seq = i;
            a.startedAt = detail.record.createdAt.addMSecs(100 + 500 * i);
            a.finishedAt = a.startedAt.addMSecs(5);
            a.outcome = Attempt::Outcome::Unknown;
            a.httpStatus = 503;
            detail.attempts << a;
            ProviderLookup l;
            l.seq = i;
            l.at = a.finishedAt.addMSecs(100);
            l.result = ProviderLookup::Result::Error;
            detail.lookups << l;
        }
        const char *events[] = { "proposed", "state_changed", "state_changed", "state_changed" };
        const char *states[] = { "PENDING", "EXECUTING", "CONFIRMATION_UNKNOWN", "REQUIRES_REVIEW" };
        for (int i = 0; i < 4; ++i) {
            AuditEvent e;
            e.seq = i + 1;
            e.at = detail.record.createdAt.addMSecs(i < 3 ? 100 * i : 1400);
            e.event = QString::fromLatin1(events[i]);
            e.after = QJsonObject{ { QStringLiteral("state"), QString::fromLatin1(states[i]) } };
            detail.audit << e;
        }
        detail.keyWindowEndsAt = detail.record.createdAt.addSecs(23 * 3600);
        TimelineWidget timeline;
        timeline.resize(700, timeline.sizeHint().height());
        timeline.setDetail(detail);
        timeline.show();
        QVERIFY(QTest::qWaitForWindowExposed(&timeline));
        QVERIFY(!timeline.grab().isNull()); // paints
        const QList<QRectF> rects = timeline.shownLabelRects();
        const QStringList labels = timeline.shownLabels();
        QVERIFY(rects.size() >= 6);
        for (qsizetype i = 0; i < rects.size(); ++i) {
            QVERIFY2(rects.at(i).right() <= timeline.width(), qPrintable(labels.at(i)));
            for (qsizetype j = i + 1; j < rects.size(); ++j)
                QVERIFY2(!rects.at(i).intersects(rects.at(j)), qPrintable(labels.at(i) + QStringLiteral(" / ") + labels.at(j)));
        }
        for (const char *start : { "#1", "#2", "#3" }) {
            int count = 0;
            for (const QString &label : labels)
                count += label.startsWith(QLatin1String(start)) ? 1 : 0;
            QVERIFY2(count == 2, start); // the attempt and the lookup, both labelled
        }
    }

    // Approval expiry in the console (docs/POLICY.md): the detail's Approval field says when the
    // current approval expires unless sent, then that it expired; the timeline marks "v1 expired".
    void approvalExpiryIsShown()
    {
        ActionDetail detail;
        detail.record.id = QStringLiteral("act_expiry");
        detail.record.state = ActionState::Pending;
        detail.record.amount = 4000;
        detail.record.currency = QStringLiteral("usd");
        detail.record.createdAt = QDateTime::currentDateTimeUtc().addSecs(-600);
        detail.record.updatedAt = detail.record.createdAt;
        detail.record.approvalVersion = 1;
        detail.record.idempotencyKey = QStringLiteral("csk_1");
        Approval approval;
        approval.actionId = detail.record.id;
        approval.version = 1;
        approval.decidedBy = QStringLiteral("alice");
        approval.decision = Approval::Decision::Approved;
        approval.decidedAt = detail.record.createdAt.addSecs(60);
        approval.idempotencyKey = QStringLiteral("csk_1");
        approval.expiresAt = approval.decidedAt.addSecs(4 * 3600);
        detail.approvals = {approval};
        ActionDetailPane pane;
        pane.setDetail(detail);
        const auto field = [&] { return pane.findChild<QLabel *>(QStringLiteral("fieldApproval"))->text(); };
        QVERIFY2(field().contains(QStringLiteral("expires %1 unless sent").arg(display::time(approval.expiresAt))), qPrintable(field()));

        // Expired unsent: the key cleared, the approval's expired_at set.
        detail.record.idempotencyKey.clear();
        detail.approvals.first().expiredAt = detail.record.createdAt.addSecs(300);
        pane.setDetail(detail);
        QVERIFY2(field().contains(QStringLiteral("v1 expired unsent")) && field().contains(QStringLiteral("needs approval again")),
                 qPrintable(field()));
        QVERIFY2(!field().contains(QStringLiteral("unless sent")), qPrintable(field()));
        TimelineWidget timeline;
        timeline.resize(800, timeline.sizeHint().height());
        timeline.setDetail(detail);
        timeline.show();
        QVERIFY(QTest::qWaitForWindowExposed(&timeline));
        QVERIFY(!timeline.grab().isNull());
        QVERIFY2(timeline.shownLabels().contains(QStringLiteral("v1 expired")), qPrintable(timeline.shownLabels().join(u'|')));
    }

    // The confirm dialogs' Enter (dialogparts::handleEnter): a plain Enter never confirms (it
    // belongs to the text fields), Ctrl+Enter confirms only a visible, enabled button, other keys
    // are left to the dialog.
    // The server decides which charge warnings apply (its codes); the console says each in its own
    // translatable words from the charge as read: a full refund is "the whole captured amount",
    // refunds are listed by amount and status (no provider ids), an unknown code keeps the server's
    // sentence, and only the critical ones are severe.
    void chargeWarningsInTheConsolesWords()
    {
        const QDateTime now = QDateTime::fromString(QStringLiteral("2026-12-07T12:00:00Z"), Qt::ISODate);
        cs::ChargeView view;
        cs::ChargeSnapshot &s = view.snapshot;
        s.result = cs::ChargeSnapshot::Result::Found;
        s.chargeId = s.targetId = QStringLiteral("ch_1");
        s.currency = QStringLiteral("usd");
        s.amount = s.amountCaptured = 19900;
        s.amountRefunded = 3000;
        s.created = now.addDays(-200);
        s.disputed = true;
        cs::ChargeSnapshot::Refund outside;
        outside.id = QStringLiteral("re_outside");
        outside.amount = 3000;
        outside.status = QStringLiteral("succeeded");
        outside.created = now.addSecs(-7200);
        s.refunds = { outside };
        view.requested = 19900;
        view.requestedCurrency = QStringLiteral("usd");
        for (const char *code : { "disputed", "over_half", "past_refund_window", "refunds_made", "exceeds_remaining", "new_kind" })
            view.warnings.append({ QString::fromLatin1(code), QStringLiteral("server words for %1").arg(QLatin1String(code)) });
        const QList<cs::WarningLine> lines = cs::ChargeStoryView::warningLines(view, now);
        QCOMPARE(lines.size(), 6);
        QCOMPARE(lines.at(0).text, QStringLiteral("The customer disputed this charge: a refund now may pay them twice."));
        QVERIFY(lines.at(0).severe);
        QCOMPARE(lines.at(1).text, QStringLiteral("199.00 USD is the whole captured amount of the charge."));
        QVERIFY(!lines.at(1).severe);
        QCOMPARE(lines.at(2).text, QStringLiteral("The charge is 200 days old, past the 180-day card refund window: the provider "
                                                  "may refuse the refund."));
        QCOMPARE(lines.at(3).text, QStringLiteral("Already refunded 30.00 USD of 199.00 USD: 30.00 USD succeeded, 2 h ago "
                                                  "(made outside Countersign)."));
        QVERIFY(!lines.at(3).text.contains(QStringLiteral("re_")));
        QCOMPARE(lines.at(4).text, QStringLiteral("199.00 USD asked, more than the 169.00 USD the provider says is left "
                                                  "(captured 199.00 USD \u2212 refunded 30.00 USD)."));
        QVERIFY(lines.at(4).severe);
        QCOMPARE(lines.at(5).text, QStringLiteral("server words for new_kind"));
        view.requested = 10000;
        QCOMPARE(cs::ChargeStoryView::warningLines(view, now).at(1).text,
                 QStringLiteral("100.00 USD is more than half of the charge's captured 199.00 USD."));
    }

    void enterNeedsControlToConfirm()
    {
        QDialog dialog;
        const dialogparts::ResendButtons buttons = dialogparts::resendButtons(&dialog, QStringLiteral("Confirm"));
        auto *layout = new QHBoxLayout(&dialog);
        layout->addLayout(buttons.row);
        dialog.show();
        QVERIFY(!buttons.confirm->autoDefault() && !buttons.stop->autoDefault());
        QVERIFY(!buttons.stop->isVisible());
        QSignalSpy clicks(buttons.confirm, &QPushButton::clicked);
        const auto press = [&](int key, Qt::KeyboardModifiers modifiers) {
            QKeyEvent event(QEvent::KeyPress, key, modifiers);
            return dialogparts::handleEnter(&event, buttons.confirm);
        };
        QVERIFY(press(Qt::Key_Return, Qt::NoModifier));
        QVERIFY(press(Qt::Key_Enter, Qt::KeypadModifier));
        QCOMPARE(clicks.count(), 0);
        QVERIFY(press(Qt::Key_Return, Qt::ControlModifier));
        QCOMPARE(clicks.count(), 1);
        buttons.confirm->setEnabled(false);
        QVERIFY(press(Qt::Key_Enter, Qt::ControlModifier | Qt::KeypadModifier));
        QCOMPARE(clicks.count(), 1);
        buttons.confirm->setEnabled(true);
        buttons.confirm->setVisible(false);
        QVERIFY(press(Qt::Key_Return, Qt::ControlModifier));
        QCOMPARE(clicks.count(), 1);
        QVERIFY(!press(Qt::Key_Escape, Qt::NoModifier));
        QVERIFY(!press(Qt::Key_A, Qt::ControlModifier));
    }
};

QTEST_MAIN(TestWidgets)
#include "tst_widgets.moc"
