// File → Export in the console (ExportController, ActionExportJob; docs/EXPORT.md) against an
// in-process page source (offscreen): every page of the query is written, the file is exactly the
// expected bytes, a cancel mid-way or a page that fails leaves no file (and a file it would have
// replaced as it was), the file dialog's choice sets the format, the progress dialog counts and
// is not modal, one export runs at a time.
#include "models/actionexport.h"
#include "models/actionexportjob.h"
#include "tests/ui/fakepagesource.h"
#include "ui/consolesettings.h"
#include "ui/exportcontroller.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWidget>

using namespace cs;

namespace {

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QStringList filesIn(const QString &dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
}

// Three rows over two pages: a yen amount, a business reference a spreadsheet would run, a
// comma and an umlaut.
void fillThree(FakePageSource *source)
{
    source->fill(3);
    source->ledger[0].record.businessReference = QStringLiteral("=1+2");
    source->ledger[1].record.amount = 5000;
    source->ledger[1].record.currency = QStringLiteral("jpy");
    source->ledger[1].record.businessReference = QStringLiteral("M\u00fcller, K.");
    source->ledger[2].record.state = ActionState::RequiresReview;
    source->ledger[2].record.reviewReason = QStringLiteral("timeout");
    source->ledger[2].attemptCount = 1;
}

} // namespace

class TestExportController : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void completeExportIsTheExpectedFile_data();
    void completeExportIsTheExpectedFile();
    void everyPageIsExported();
    void cancelMidwayLeavesNoFile_data();
    void cancelMidwayLeavesNoFile();
    void failingPageLeavesNoFile();
    void unwritableFolderFails();
    void progressDialogCounts_data();
    void progressDialogCounts();
    void oneExportAtATime();
    void fileDialogChoosesTheFormat_data();
    void fileDialogChoosesTheFormat();
    void historyNeedsAnAction();

private:
    QWidget m_window;
};

void TestExportController::initTestCase()
{
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); // "1,234" in the counts
    qRegisterMetaType<cs::ExportOutcome>();
}

void TestExportController::completeExportIsTheExpectedFile_data()
{
    QTest::addColumn<ExportFormat>("format");
    QTest::addColumn<QByteArray>("expected");

    QTest::newRow("csv") << ExportFormat::Csv
                         << QByteArray(
                                "id,state,state_version,created_at,updated_at,requested_by,target_type,target_id,"
                                "business_reference,amount_minor,amount,currency,attempt_count,last_event_at,"
                                "review_reason,possible_duplicates\r\n"
                                "act_aaaaaaaaaaaaaaaaaaaaaaa3,PENDING,1,2026-01-01T00:03:00.000Z,2026-01-01T00:03:00.000Z,"
                                "agent-odd,charge,ch_3,'=1+2,4000,40.00,usd,0,2026-01-01T00:03:00.000Z,,0\r\n"
                                "act_aaaaaaaaaaaaaaaaaaaaaaa2,PENDING,1,2026-01-01T00:02:00.000Z,2026-01-01T00:02:00.000Z,"
                                "agent-even,charge,ch_2,\"M\xc3\xbcller, K.\",5000,5000,jpy,0,2026-01-01T00:02:00.000Z,,0\r\n"
                                "act_aaaaaaaaaaaaaaaaaaaaaaa1,REQUIRES_REVIEW,1,2026-01-01T00:01:00.000Z,"
                                "2026-01-01T00:01:00.000Z,agent-odd,charge,ch_1,order-1,4000,40.00,usd,1,"
                                "2026-01-01T00:01:00.000Z,timeout,0\r\n");
    QTest::newRow("json") << ExportFormat::Json
                          << QByteArray(
                                 "[\n"
                                 "{\"id\":\"act_aaaaaaaaaaaaaaaaaaaaaaa3\",\"state\":\"PENDING\",\"state_version\":1,"
                                 "\"created_at\":\"2026-01-01T00:03:00.000Z\",\"updated_at\":\"2026-01-01T00:03:00.000Z\","
                                 "\"requested_by\":\"agent-odd\",\"target_type\":\"charge\",\"target_id\":\"ch_3\","
                                 "\"business_reference\":\"=1+2\",\"amount_minor\":4000,\"amount\":\"40.00\","
                                 "\"currency\":\"usd\",\"attempt_count\":0,\"last_event_at\":\"2026-01-01T00:03:00.000Z\","
                                 "\"review_reason\":\"\",\"possible_duplicates\":0},\n"
                                 "{\"id\":\"act_aaaaaaaaaaaaaaaaaaaaaaa2\",\"state\":\"PENDING\",\"state_version\":1,"
                                 "\"created_at\":\"2026-01-01T00:02:00.000Z\",\"updated_at\":\"2026-01-01T00:02:00.000Z\","
                                 "\"requested_by\":\"agent-even\",\"target_type\":\"charge\",\"target_id\":\"ch_2\","
                                 "\"business_reference\":\"M\xc3\xbcller, K.\",\"amount_minor\":5000,\"amount\":\"5000\","
                                 "\"currency\":\"jpy\",\"attempt_count\":0,\"last_event_at\":\"2026-01-01T00:02:00.000Z\","
                                 "\"review_reason\":\"\",\"possible_duplicates\":0},\n"
                                 "{\"id\":\"act_aaaaaaaaaaaaaaaaaaaaaaa1\",\"state\":\"REQUIRES_REVIEW\",\"state_version\":1,"
                                 "\"created_at\":\"2026-01-01T00:01:00.000Z\",\"updated_at\":\"2026-01-01T00:01:00.000Z\","
                                 "\"requested_by\":\"agent-odd\",\"target_type\":\"charge\",\"target_id\":\"ch_1\","
                                 "\"business_reference\":\"order-1\",\"amount_minor\":4000,\"amount\":\"40.00\","
                                 "\"currency\":\"usd\",\"attempt_count\":1,\"last_event_at\":\"2026-01-01T00:01:00.000Z\","
                                 "\"review_reason\":\"timeout\",\"possible_duplicates\":0}\n"
                                 "]\n");
}

void TestExportController::completeExportIsTheExpectedFile()
{
    QFETCH(ExportFormat, format);
    QFETCH(QByteArray, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    FakePageSource source;
    fillThree(&source);
    ExportController controller(nullptr, &source, nullptr, &m_window);
    controller.setPageSize(2);
    QSignalSpy finished(&controller, &ExportController::exportFinished);
    QSignalSpy status(&controller, &ExportController::statusMessage);
    QVERIFY(finished.isValid());
    QVERIFY(status.isValid());

    const QString path = dir.filePath(QStringLiteral("actions.") + toWire(format));
    QVERIFY(controller.startActionsExport(ActionQuery::allStates(), path, format));
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.at(0).at(0).value<ExportOutcome>(), ExportOutcome::Written);
    QCOMPARE(readAll(path), expected);
    QCOMPARE(filesIn(dir.path()), QStringList{QFileInfo(path).fileName()});
    QCOMPARE(source.pageRequests, 2);
    QCOMPARE(source.limits, (QList<int>{2, 2}));
    QVERIFY2(status.constLast().at(0).toString().startsWith(QStringLiteral("Exported 3 action")),
             qPrintable(status.constLast().at(0).toString()));
    QVERIFY(controller.exportActionsAction()->isEnabled());
}

void TestExportController::everyPageIsExported()
{
    QTemporaryDir dir;
    FakePageSource source;
    source.fill(1234);
    for (int i = 0; i < source.ledger.size(); i += 3)
        source.ledger[i].record.state = ActionState::Completed;
    ActionQuery query;
    query.states = {ActionState::Pending};
    query.sort = ActionQuery::SortKey::Amount; // the queue's order, whatever it is
    query.descending = false;
    ExportController controller(nullptr, &source, nullptr, &m_window);
    QSignalSpy finished(&controller, &ExportController::exportFinished);
    QVERIFY(finished.isValid());
    const QString path = dir.filePath(QStringLiteral("pending.csv"));
    QVERIFY(controller.startActionsExport(query, path, ExportFormat::Csv));
    QSignalSpy progress(controller.actionsJob(), &ActionExportJob::progress);
    QVERIFY(progress.isValid());
    QVERIFY(finished.wait(10000));

    const QList<ActionSummary> rows = source.matching(query);
    QCOMPARE(rows.size(), 822);
    ActionExportWriter writer(ExportFormat::Csv);
    QCOMPARE(readAll(path), writer.begin() + writer.rows(rows) + writer.end());
    QCOMPARE(source.pageRequests, 5); // 200 × 4 + 22
    for (const ActionQuery &asked : std::as_const(source.queries))
        QCOMPARE(asked, query);
    QCOMPARE(progress.size(), 5);
    QCOMPARE(progress.at(0).at(0).toLongLong(), 200);
    QCOMPARE(progress.at(0).at(1).toLongLong(), 822); // from the first page's counts
    QCOMPARE(progress.constLast().at(0).toLongLong(), 822);
}

void TestExportController::cancelMidwayLeavesNoFile_data()
{
    QTest::addColumn<bool>("existing");
    QTest::newRow("a new file: nothing left") << false;
    QTest::newRow("an existing file: left as it was") << true;
}

void TestExportController::cancelMidwayLeavesNoFile()
{
    QFETCH(bool, existing);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("all.json"));
    if (existing) {
        QFile old(path);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("yesterday's export\n");
    }
    FakePageSource source;
    source.fill(1000);
    ExportController controller(nullptr, &source, nullptr, &m_window);
    controller.setPageSize(100);
    QSignalSpy finished(&controller, &ExportController::exportFinished);
    QSignalSpy status(&controller, &ExportController::statusMessage);
    QVERIFY(finished.isValid());
    QVERIFY(status.isValid());
    QVERIFY(controller.startActionsExport(ActionQuery::allStates(), path, ExportFormat::Json));
    ActionExportJob *job = controller.actionsJob();
    QSignalSpy progress(job, &ActionExportJob::progress);
    QVERIFY(progress.isValid());
    QVERIFY(progress.wait(5000)); // the first page is written; the second is asked for
    QCOMPARE(job->rowsWritten(), 100);
    QVERIFY(job->bytesWritten() > 0);
    QVERIFY(controller.isExporting());

    // What the user does: the progress dialog's Cancel.
    QProgressDialog *dialog = controller.progressDialog();
    QVERIFY(dialog);
    auto *cancel = dialog->findChild<QPushButton *>();
    QVERIFY(cancel);
    cancel->click();

    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.at(0).at(0).value<ExportOutcome>(), ExportOutcome::Cancelled);
    QCOMPARE(status.constLast().at(0).toString(), QStringLiteral("Export cancelled: no file was written."));
    QTest::qWait(50); // the second page's answer arrives and is dropped
    QCOMPARE(source.pageRequests, 2);
    QCOMPARE(finished.size(), 1);
    QVERIFY(!controller.isExporting());
    QVERIFY(controller.exportActionsAction()->isEnabled());
    QTRY_VERIFY(!controller.progressDialog());
    if (existing) {
        QCOMPARE(filesIn(dir.path()), QStringList{QStringLiteral("all.json")});
        QCOMPARE(readAll(path), QByteArray("yesterday's export\n"));
    } else {
        QCOMPARE(filesIn(dir.path()), QStringList());
    }
}

void TestExportController::failingPageLeavesNoFile()
{
    QTemporaryDir dir;
    FakePageSource source;
    source.fill(500);
    ExportController controller(nullptr, &source, nullptr, &m_window);
    QSignalSpy finished(&controller, &ExportController::exportFinished);
    QSignalSpy status(&controller, &ExportController::statusMessage);
    QVERIFY(finished.isValid());
    QVERIFY(status.isValid());
    const QString path = dir.filePath(QStringLiteral("all.csv"));
    QVERIFY(controller.startActionsExport(ActionQuery::allStates(), path, ExportFormat::Csv));
    QSignalSpy progress(controller.actionsJob(), &ActionExportJob::progress);
    QVERIFY(progress.wait(5000));
    source.failing = true; // the backend goes away after the first page
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.at(0).at(0).value<ExportOutcome>(), ExportOutcome::Failed);
    const QString message = status.constLast().at(0).toString();
    QVERIFY2(message.startsWith(QStringLiteral("Export failed, no file was written: page 2")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("backend unreachable")), qPrintable(message));
    QCOMPARE(filesIn(dir.path()), QStringList());
}

void TestExportController::unwritableFolderFails()
{
    QTemporaryDir dir;
    FakePageSource source;
    source.fill(3);
    ExportController controller(nullptr, &source, nullptr, &m_window);
    QSignalSpy finished(&controller, &ExportController::exportFinished);
    QSignalSpy status(&controller, &ExportController::statusMessage);
    QVERIFY(finished.isValid());
    QVERIFY(status.isValid());
    const QString path = dir.filePath(QStringLiteral("no/such/folder/all.csv"));
    QVERIFY(controller.startActionsExport(ActionQuery::allStates(), path, ExportFormat::Csv));
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.at(0).at(0).value<ExportOutcome>(), ExportOutcome::Failed);
    QVERIFY2(status.constLast().at(0).toString().contains(path), qPrintable(status.constLast().at(0).toString()));
    QCOMPARE(source.pageRequests, 0);
}

void TestExportController::progressDialogCounts_data()
{
    QTest::addColumn<QString>("search");
    QTest::addColumn<QString>("label");
    QTest::addColumn<int>("maximum");
    QTest::newRow("a filter: the count of its states")
        << QString() << QStringLiteral("Exporting to q.csv\n200 of 1,234 actions written\u2026") << 1000;
    QTest::newRow("a search: no total, a busy bar")
        << QStringLiteral("order-1") << QStringLiteral("Exporting to q.csv\n200 action(s) written\u2026") << 0;
}

void TestExportController::progressDialogCounts()
{
    QFETCH(QString, search);
    QFETCH(QString, label);
    QFETCH(int, maximum);
    QTemporaryDir dir;
    FakePageSource source;
    source.fill(1234);
    ActionQuery query = ActionQuery::queue();
    query.search = search;
    ExportController controller(nullptr, &source, nullptr, &m_window);
    QSignalSpy finished(&controller, &ExportController::exportFinished);
    QVERIFY(finished.isValid());
    QVERIFY(controller.startActionsExport(query, dir.filePath(QStringLiteral("q.csv")), ExportFormat::Csv));
    QSignalSpy progress(controller.actionsJob(), &ActionExportJob::progress);
    QVERIFY(progress.wait(5000));
    QProgressDialog *dialog = controller.progressDialog();
    QVERIFY(dialog);
    QVERIFY(!dialog->isModal()); // setValue would run the event loop inside our slot
    QCOMPARE(dialog->labelText(), label);
    QCOMPARE(dialog->maximum(), maximum);
    if (maximum > 0)
        QCOMPARE(dialog->value(), 200 * 1000 / 1234);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(0).value<ExportOutcome>(), ExportOutcome::Written);
}

void TestExportController::oneExportAtATime()
{
    QTemporaryDir dir;
    FakePageSource source;
    source.fill(600);
    ExportController controller(nullptr, &source, nullptr, &m_window);
    QSignalSpy finished(&controller, &ExportController::exportFinished);
    QSignalSpy status(&controller, &ExportController::statusMessage);
    QVERIFY(finished.isValid());
    QVERIFY(status.isValid());
    QVERIFY(controller.startActionsExport(ActionQuery::allStates(), dir.filePath(QStringLiteral("a.csv")), ExportFormat::Csv));
    QVERIFY(controller.isExporting());
    QVERIFY(!controller.exportActionsAction()->isEnabled());
    QVERIFY(!controller.exportHistoryAction()->isEnabled());
    QVERIFY(!controller.startActionsExport(ActionQuery::allStates(), dir.filePath(QStringLiteral("b.csv")),
                                           ExportFormat::Csv));
    QVERIFY(status.constLast().at(0).toString().startsWith(QStringLiteral("An export is running")));
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(filesIn(dir.path()), QStringList{QStringLiteral("a.csv")});
    QVERIFY(controller.exportActionsAction()->isEnabled());
}

void TestExportController::fileDialogChoosesTheFormat_data()
{
    QTest::addColumn<int>("filter"); // 0: CSV, 1: JSON
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("written");
    QTest::addColumn<ExportFormat>("format");
    QTest::newRow("JSON filter, a bare name: .json added") << 1 << QStringLiteral("march") << QStringLiteral("march.json")
                                                           << ExportFormat::Json;
    QTest::newRow("CSV filter, a bare name: .csv added") << 0 << QStringLiteral("march") << QStringLiteral("march.csv")
                                                         << ExportFormat::Csv;
    QTest::newRow("CSV filter, a .json name: the suffix decides") << 0 << QStringLiteral("march.json")
                                                                  << QStringLiteral("march.json") << ExportFormat::Json;
}

void TestExportController::fileDialogChoosesTheFormat()
{
    QFETCH(int, filter);
    QFETCH(QString, typed);
    QFETCH(QString, written);
    QFETCH(ExportFormat, format);
    QTemporaryDir dir;
    FakePageSource source;
    fillThree(&source);
    ConsoleSettings settings(dir.filePath(QStringLiteral("settings.ini")));
    ExportController controller(nullptr, &source, &settings, &m_window);
    ActionQuery query = ActionQuery::queue();
    query.search = QStringLiteral("agent-odd");
    controller.setQueryProvider([query] { return query; });
    QSignalSpy finished(&controller, &ExportController::exportFinished);
    QVERIFY(finished.isValid());

    const QString folder = dir.filePath(QStringLiteral("exports"));
    QVERIFY(QDir().mkpath(folder));
    controller.exportActionsAction()->trigger();
    QFileDialog *dialog = controller.fileDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->selectedFiles().constFirst().contains(QStringLiteral("countersign-actions-")));
    dialog->selectNameFilter(dialog->nameFilters().at(filter));
    emit dialog->filterSelected(dialog->nameFilters().at(filter));
    dialog->setDirectory(folder);
    dialog->selectFile(typed);
    QVERIFY(QMetaObject::invokeMethod(dialog, "accept")); // what Save does (protected in QFileDialog)
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.at(0).at(0).value<ExportOutcome>(), ExportOutcome::Written);
    QCOMPARE(QDir::cleanPath(finished.at(0).at(1).toString()), QDir::cleanPath(folder + QLatin1Char('/') + written));
    QCOMPARE(controller.actionsJob()->format(), format);
    QCOMPARE(source.queries.constLast(), query);
    const QByteArray bytes = readAll(finished.at(0).at(1).toString());
    if (format == ExportFormat::Json)
        QCOMPARE(QJsonDocument::fromJson(bytes).array().size(), 2); // the search matches two of the three
    else
        QCOMPARE(bytes.count("\r\n"), 1 + 2);
    // Remembered for the next dialog.
    QCOMPARE(QDir::cleanPath(settings.exportDirectory), QDir::cleanPath(folder));
    QCOMPARE(QString(settings.exportFormat), toWire(format));
}

void TestExportController::historyNeedsAnAction()
{
    FakePageSource source;
    ExportController controller(nullptr, &source, nullptr, &m_window);
    controller.setActionProvider([] { return QString(); });
    QSignalSpy status(&controller, &ExportController::statusMessage);
    QVERIFY(status.isValid());
    controller.exportHistoryAction()->trigger();
    QCOMPARE(status.size(), 1);
    QVERIFY(status.at(0).at(0).toString().startsWith(QStringLiteral("Select an action first")));
    QVERIFY(!controller.fileDialog());
}

QTEST_MAIN(TestExportController)
#include "tst_exportcontroller.moc"
