// What the approver must see first (issue 35), without a backend: the reconcile dialog opens with
// the look-up that decides on top and chosen, the provider's failures folded into one row that
// cannot be chosen; the detail pane's review banner says why in words, the raw reason and the
// provider's answer behind a collapsed "Details"; the look-up dialog's answer in words (offscreen).
#include "models/lookuptablemodel.h"
#include "tests/models/reviewtestdata.h"
#include "ui/actiondetailpane.h"
#include "ui/detailsdisclosure.h"
#include "ui/lookupdialog.h"
#include "ui/reconciledialog.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTest>
#include <QTextDocumentFragment>
#include <QToolButton>

using namespace cs;

namespace {

const QDateTime T0 = QDateTime::currentDateTimeUtc().addSecs(-3600);
const QString Json503 = QStringLiteral("{ \"error\": { \"message\": \"The service is temporarily unavailable\", \"type\": \"api_error\" } }");

template <typename T>
T *child(const QObject *parent, const char *name)
{
    T *found = parent->findChild<T *>(QString::fromLatin1(name));
    if (!found)
        qFatal("no child %s", name);
    return found;
}

QString plain(const QLabel *label)
{
    return QTextDocumentFragment::fromHtml(label->text()).toPlainText();
}

ProviderLookup lookup(int seq, int secondsAfterT0, ProviderLookup::Result result, int http)
{
    ProviderLookup l;
    l.actionId = QStringLiteral("act_review");
    l.seq = seq;
    l.at = T0.addSecs(secondsAfterT0);
    l.askedBy = result == ProviderLookup::Result::Error ? QStringLiteral("reconciler") : QStringLiteral("sue");
    l.result = result;
    l.httpStatus = http;
    if (result == ProviderLookup::Result::Found) {
        l.providerObjectId = QStringLiteral("re_1");
        l.status = QStringLiteral("succeeded");
        l.amount = 4000;
        l.currency = QStringLiteral("usd");
    }
    if (result == ProviderLookup::Result::Error)
        l.excerpt = Json503;
    return l;
}

// A refund whose answer was lost; the reconciler's 12 look-ups met HTTP 503 until it asked for
// review, and sue's look-up since then found the refund.
ActionDetail twelveFailuresAndAFind()
{
    const QString reason = QStringLiteral("gave up after 12 reconciliation rounds: the provider lookups failed (ERROR HTTP 503 ")
        + Json503.left(30);
    ActionDetail d = test::stoppedForReview(QStringLiteral("act_review"), T0, T0.addSecs(200), reason);
    ActionRecord &r = d.record;
    r.businessReference = QStringLiteral("order-1042");
    r.idempotencyKey = QStringLiteral("csk_1");
    r.stateVersion = 9;
    for (int i = 0; i < 12; ++i)
        d.lookups << lookup(i + 1, i * 7, ProviderLookup::Result::Error, 503);
    d.lookups << lookup(13, 900, ProviderLookup::Result::Found, 200);
    d.permissions.lookup.allowed = true;
    d.permissions.reconcile.allowed = true;
    return d;
}

} // namespace

class TestReviewEvidence : public QObject
{
    Q_OBJECT

private slots:
    void reconcileDialogOpensOnTheDecidingLookup()
    {
        ReconcileDialog dialog(twelveFailuresAndAFind());
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *evidence = child<QTableView>(&dialog, "evidenceView");
        QAbstractItemModelTester tester(evidence->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        // The FOUND look-up first, chosen; the 12 failures one row under it.
        QCOMPARE(evidence->model()->rowCount(), 2);
        const QModelIndex found = evidence->model()->index(0, LookupTableModel::ResultColumn);
        QCOMPARE(found.data().toString(), QStringLiteral("FOUND"));
        QCOMPARE(found.data(LookupTableModel::SeqRole).toInt(), 13);
        QCOMPARE(dialog.evidenceLookupSeq(), 13);
        QCOMPARE(evidence->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(evidence->selectionModel()->selectedRows().first().row(), 0);
        QVERIFY(!dialog.outcomeChosen()); // the person still chooses the outcome

        const QModelIndex folded = evidence->model()->index(1, LookupTableModel::ResultColumn);
        QCOMPARE(folded.data(LookupTableModel::FoldCountRole).toInt(), 12);
        QCOMPARE(folded.data(LookupTableModel::SeqRole).toInt(), 0);
        QCOMPARE(folded.data().toString(), QStringLiteral("12 look-ups failed (HTTP 503)"));
        QVERIFY2(evidence->columnWidth(LookupTableModel::ResultColumn) >= static_cast<QAbstractItemView *>(evidence)->sizeHintForColumn(LookupTableModel::ResultColumn),
                 "the folded row's words are cut");
        const QString tip = folded.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("#1  ")) && tip.contains(QStringLiteral("#12  ")), qPrintable(tip));

        // The folded row cannot be chosen as evidence.
        QTest::mouseClick(evidence->viewport(), Qt::LeftButton, {}, evidence->visualRect(folded).center());
        QVERIFY(!evidence->selectionModel()->isRowSelected(1, QModelIndex()));
        QCOMPARE(dialog.evidenceLookupSeq(), 0); // a click on it chooses nothing
        QVERIFY(dialog.selectEvidence(13));
        QVERIFY(!dialog.selectEvidence(5)); // folded: not a row of its own

        // Why, in words; the raw text behind Details, collapsed.
        const QString description = plain(child<QLabel>(&dialog, "descriptionLabel"));
        QVERIFY2(description.contains(QStringLiteral("Why it needs review: paysim was unavailable (HTTP 503) \u2014 12 look-ups failed")),
                 qPrintable(description));
        QVERIFY2(description.contains(QStringLiteral("Since then, look-up #13 found a refund of 40.00 USD")), qPrintable(description));
        QVERIFY2(!description.contains(QLatin1Char('{')), qPrintable(description));
        auto *details = child<DetailsDisclosure>(&dialog, "reviewDetails");
        QVERIFY(details->isVisible());
        QVERIFY(!details->isExpanded());
        QVERIFY(!details->textLabel()->isVisible());
        QVERIFY(details->details().contains(dialog.detail().record.reviewReason.trimmed()));
        QVERIFY(details->details().contains(Json503));
        QTest::mouseClick(details->toggle(), Qt::LeftButton);
        QVERIFY(details->textLabel()->isVisible());

        // Choosing the outcome confirms on the chosen look-up at once.
        dialog.setOutcome(true);
        QVERIFY2(plain(child<QLabel>(&dialog, "descriptionLabel")).contains(QStringLiteral("lookup #13")),
                 qPrintable(plain(child<QLabel>(&dialog, "descriptionLabel"))));
        QCOMPARE(ReconcileDialog::evidenceProblem(dialog.detail(), true, dialog.evidenceLookupSeq()), QString());
    }

    // A draft's choice wins over the preselection; a draft without one leaves it.
    void aDraftsChoiceStands()
    {
        ActionDetail detail = twelveFailuresAndAFind();
        ProviderLookup notFound = lookup(14, 1000, ProviderLookup::Result::NotFound, 200);
        detail.lookups << notFound;
        {
            ReconcileDialog dialog(detail);
            QCOMPARE(dialog.evidenceLookupSeq(), 14); // the newest deciding one
            dialog.restoreDraft({ { QStringLiteral("evidence"), 13 }, { QStringLiteral("committed"), true } });
            QCOMPARE(dialog.evidenceLookupSeq(), 13);
            QVERIFY(dialog.committedChosen());
        }
        {
            ReconcileDialog dialog(detail);
            dialog.restoreDraft({ { QStringLiteral("note"), QStringLiteral("half done") } });
            QCOMPARE(dialog.evidenceLookupSeq(), 14);
        }
    }

    void reviewBannerSaysWhyInWords()
    {
        QWidget window;
        auto *pane = new ActionDetailPane(&window);
        window.resize(1000, 760);
        pane->resize(window.size());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        pane->setDetail(twelveFailuresAndAFind());

        auto *banner = child<QLabel>(pane, "reviewReason");
        QVERIFY(banner->isVisible());
        const QString text = plain(banner);
        QVERIFY2(!text.contains(QLatin1Char('{')), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("paysim was unavailable (HTTP 503) \u2014 12 look-ups failed between")), qPrintable(text));
        auto *details = child<DetailsDisclosure>(pane, "reviewDetails");
        QVERIFY(details->isVisible() && !details->isExpanded() && !details->textLabel()->isVisible());
        QVERIFY(details->details().contains(Json503));

        // The Evidence tab's look-ups: the deciding one first, the failures folded.
        auto *lookups = child<QTableView>(pane, "lookupTable");
        QCOMPARE(lookups->model()->rowCount(), 2);
        QCOMPARE(lookups->model()->index(0, 0).data(LookupTableModel::SeqRole).toInt(), 13);
        QCOMPARE(lookups->model()->index(1, 0).data(LookupTableModel::FoldCountRole).toInt(), 12);
        pane->showTab(ActionDetailPane::EvidenceTab);
        for (int column : { int(LookupTableModel::AtColumn), int(LookupTableModel::ResultColumn) })
            QVERIFY2(lookups->columnWidth(column) >= static_cast<QAbstractItemView *>(lookups)->sizeHintForColumn(column),
                     qPrintable(QStringLiteral("column %1 cut").arg(column)));

        // Confirmation unknown: no review reason, no details.
        ActionDetail unknown = twelveFailuresAndAFind();
        unknown.record.state = ActionState::ConfirmationUnknown;
        unknown.record.reviewReason.clear();
        pane->setDetail(unknown);
        QVERIFY(!details->isVisible());
    }

    void lookupDialogAnswersInWords()
    {
        const ActionDetail detail = twelveFailuresAndAFind();
        LookupDialog dialog(detail);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *answer = child<QLabel>(&dialog, "lookupAnswer");
        auto *details = child<DetailsDisclosure>(&dialog, "lookupDetails");
        QVERIFY(!answer->isVisible() && !details->isVisible());
        dialog.showResult(detail.lookups.last(), detail.record);
        QCOMPARE(plain(answer), QStringLiteral("Found: paysim holds a refund of 40.00 USD, succeeded."));
        QVERIFY(details->isVisible() && !details->isExpanded());
        QVERIFY(details->details().startsWith(LookupTableModel::describe(detail.lookups.last())));

        LookupDialog failed(detail);
        failed.showResult(detail.lookups.first(), detail.record);
        QCOMPARE(plain(child<QLabel>(&failed, "lookupAnswer")), QStringLiteral("paysim did not answer (HTTP 503)."));
        QVERIFY(child<DetailsDisclosure>(&failed, "lookupDetails")->details().contains(Json503));
    }
};

QTEST_MAIN(TestReviewEvidence)
#include "tst_reviewevidence.moc"
