// Exercise mode (demo/exercise.h, docs/DEMO.md "Exercises"): the score sheet's three formats row by
// row and its all-or-nothing save; then scenario 3 played as an exercise against a real demo stack
// (paysim + countersignd) with this test as the person at the console: the scenario stops and
// waits — nothing is approved or reconciled for the trainee — and judges what the test then does
// through the API against paysim's ground truth. The scripted trainee (right and wrong answers)
// runs through countersign-demo in ctest (demo_exercise_*).
#include "demo/demostack.h"
#include "demo/exercise.h"
#include "demo/scenariorunner.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUuid>
#include <QTest>

using namespace cs::demo;

Q_DECLARE_METATYPE(cs::demo::ScoreSheet::Format)

namespace {

ScoreSheet twoDecisions()
{
    ScoreSheet sheet;
    sheet.append({2, QStringLiteral("Same key, changed amount"), QStringLiteral("follow_up"), QStringLiteral("act_a"), false,
                  QStringLiteral("proposed follow-up act_a of $45.00"), QStringLiteral("propose $5.00, the difference"),
                  QStringLiteral("owed \"$45.00\" in all,\nnot more")});
    sheet.append({3, QStringLiteral("Provider says the key was reused"), QStringLiteral("reconcile"), QStringLiteral("act_b"), true,
                  QStringLiteral("reconciled act_b as not_committed"), QStringLiteral("reconcile it as not_committed"),
                  QStringLiteral("no refund")});
    return sheet;
}

} // namespace

class TestExercise : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<DemoStack> m_stack;
    QNetworkAccessManager m_network;

    QJsonObject call(const QString &role, const QByteArray &verb, const QString &path, const QJsonObject &body = {},
                     qint64 ifMatch = -1, int *status = nullptr)
    {
        QNetworkRequest request(QUrl(m_stack->backendUrl().toString() + QStringLiteral("/api/v1") + path));
        request.setRawHeader("Authorization", "Bearer " + m_stack->tokens().value(m_stack->userFor(role)).toUtf8());
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        if (ifMatch >= 0)
            request.setRawHeader("If-Match", '"' + QByteArray::number(ifMatch) + '"');
        if (verb == "POST")
            request.setRawHeader("Idempotency-Key", QUuid::createUuid().toByteArray(QUuid::WithoutBraces));
        QNetworkReply *reply = m_network.sendCustomRequest(request, verb, verb == "GET" ? QByteArray()
                                                                                        : QJsonDocument(body).toJson());
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(20000);
        if (status)
            *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QJsonObject json = QJsonDocument::fromJson(reply->readAll()).object();
        reply->deleteLater();
        return json;
    }

private slots:
    void formats_data()
    {
        QTest::addColumn<ScoreSheet::Format>("format");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("text: score, verdicts, expected only when wrong")
            << ScoreSheet::Format::Text
            << QByteArray("SCORE 1 of 2 decisions right\n"
                          "WRONG scenario 2 (Same key, changed amount), follow_up act_a: proposed follow-up act_a of $45.00\n"
                          "    expected: propose $5.00, the difference\n"
                          "    owed \"$45.00\" in all,\nnot more\n"
                          "RIGHT scenario 3 (Provider says the key was reused), reconcile act_b: reconciled act_b as not_committed\n"
                          "    no refund\n");
        QTest::newRow("csv: RFC 4180 quoting, CRLF")
            << ScoreSheet::Format::Csv
            << QByteArray("scenario,scenario_title,task,action_id,right,decided,expected,explanation\r\n"
                          "2,\"Same key, changed amount\",follow_up,act_a,no,proposed follow-up act_a of $45.00,"
                          "\"propose $5.00, the difference\",\"owed \"\"$45.00\"\" in all,\nnot more\"\r\n"
                          "3,Provider says the key was reused,reconcile,act_b,yes,reconciled act_b as not_committed,"
                          "reconcile it as not_committed,no refund\r\n");
    }

    void formats()
    {
        QFETCH(ScoreSheet::Format, format);
        QFETCH(QByteArray, expected);
        QCOMPARE(twoDecisions().render(format), expected);
    }

    void json()
    {
        const QJsonObject sheet = QJsonDocument::fromJson(twoDecisions().render(ScoreSheet::Format::Json)).object();
        QCOMPARE(sheet.value(QStringLiteral("right")).toInt(), 1);
        QCOMPARE(sheet.value(QStringLiteral("total")).toInt(), 2);
        const QJsonObject first = sheet.value(QStringLiteral("decisions")).toArray().first().toObject();
        QCOMPARE(first.value(QStringLiteral("task")).toString(), QStringLiteral("follow_up"));
        QCOMPARE(first.value(QStringLiteral("right")).toBool(), false);
        QCOMPARE(first.value(QStringLiteral("explanation")).toString(), QStringLiteral("owed \"$45.00\" in all,\nnot more"));
        // And back: the same sheet.
        QString error;
        const std::optional<ScoreSheet> read = ScoreSheet::fromJson(twoDecisions().render(ScoreSheet::Format::Json), &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(read->render(ScoreSheet::Format::Csv), twoDecisions().render(ScoreSheet::Format::Csv));
        QVERIFY(!ScoreSheet::fromJson("{\"right\": 1}", &error));
        QVERIFY(!error.isEmpty());
    }

    void saveIsWholeOrNothing()
    {
        QTemporaryDir dir;
        QString error;
        const QString csv = dir.filePath(QStringLiteral("sheet.csv"));
        QVERIFY2(twoDecisions().save(csv, &error), qPrintable(error));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), twoDecisions().render(ScoreSheet::Format::Csv));
        QCOMPARE(ScoreSheet::formatFor(QStringLiteral("x.JSON")), ScoreSheet::Format::Json);
        QCOMPARE(ScoreSheet::formatFor(QStringLiteral("x.txt")), ScoreSheet::Format::Text);
        // A folder that does not exist: refused, nothing written anywhere.
        const QString missing = dir.filePath(QStringLiteral("no/such/sheet.csv"));
        QVERIFY(!twoDecisions().save(missing, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!QFile::exists(missing));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("sheet.csv")});
    }

    // The test is the trainee: scenario 3 waits for it at the approval and at the review.
    void aPersonDecides()
    {
        DemoStack::Options options;
        options.paysimPath = QStringLiteral(PAYSIM_BIN);
        options.countersigndPath = QStringLiteral(COUNTERSIGND_BIN);
        m_stack = std::make_unique<DemoStack>(options);
        QVERIFY2(m_stack->start(), qPrintable(m_stack->errorString()));

        ScoreSheet sheet;
        Exercise exercise;
        exercise.sheet = &sheet;
        exercise.pollMs = 50;
        ScenarioRunner runner(m_stack.get());
        runner.setStepDelayMs(0);
        runner.setExercise(&exercise);
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        QVERIFY(finished.isValid());
        QStringList tasks;
        QString focused;
        connect(&runner, &ScenarioRunner::actionFocused, this, [&focused](const QString &id) { focused = id; });
        connect(&runner, &ScenarioRunner::narration, this, [&tasks](const QString &text, ScenarioRunner::NarrationKind kind) {
            if (kind == ScenarioRunner::NarrationKind::Task)
                tasks << text;
        });
        runner.start(3, ScenarioRunner::Mode::Continuous);

        // 1. The approval is ours: the action waits, PENDING and unapproved, whatever the time.
        QTRY_COMPARE_WITH_TIMEOUT(tasks.size(), 1, 30000);
        QVERIFY2(tasks.first().contains(QLatin1String("approver")), qPrintable(tasks.first()));
        const QString id = focused;
        QVERIFY(id.startsWith(QLatin1String("act_")));
        QTest::qWait(500); // several of the scenario's polls: it must not decide for us
        QJsonObject action = call(QStringLiteral("supervisor"), "GET", QStringLiteral("/actions/") + id);
        QCOMPARE(action.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING"));
        QVERIFY(action.value(QStringLiteral("approvals")).toArray().isEmpty());
        int status = 0;
        call(QStringLiteral("approver"), "POST", QStringLiteral("/actions/%1/approvals").arg(id), {},
             action.value(QStringLiteral("state_version")).toInteger(), &status);
        QCOMPARE(status, 200);

        // 2. The provider refuses the key (idempotency_error): REQUIRES_REVIEW, and the review is ours.
        QTRY_COMPARE_WITH_TIMEOUT(tasks.size(), 2, 30000);
        QVERIFY2(tasks.last().contains(QLatin1String("REQUIRES_REVIEW")), qPrintable(tasks.last()));
        QTest::qWait(500);
        action = call(QStringLiteral("supervisor"), "GET", QStringLiteral("/actions/") + id);
        QCOMPARE(action.value(QStringLiteral("state")).toString(), QStringLiteral("REQUIRES_REVIEW"));
        QVERIFY(action.value(QStringLiteral("reconciliations")).toArray().isEmpty());
        const QJsonObject looked = call(QStringLiteral("supervisor"), "POST", QStringLiteral("/actions/%1/lookups").arg(id), {},
                                        action.value(QStringLiteral("state_version")).toInteger(), &status);
        QCOMPARE(status, 200);
        const QJsonObject lookup = looked.value(QStringLiteral("lookup")).toObject();
        QCOMPARE(lookup.value(QStringLiteral("result")).toString(), QStringLiteral("NOT_FOUND"));
        action = call(QStringLiteral("supervisor"), "GET", QStringLiteral("/actions/") + id);
        call(QStringLiteral("supervisor"), "POST", QStringLiteral("/actions/%1/reconciliations").arg(id),
             QJsonObject{{QStringLiteral("outcome"), QStringLiteral("not_committed")},
                         {QStringLiteral("evidence_lookup_seq"), lookup.value(QStringLiteral("seq")).toInt()},
                         {QStringLiteral("note"), QStringLiteral("the test, as the trainee")}},
             action.value(QStringLiteral("state_version")).toInteger(), &status);
        QCOMPARE(status, 200);

        QVERIFY(finished.wait(60000) || finished.size() == 1);
        QCOMPARE(finished.size(), 1);
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QCOMPARE(sheet.total(), 2);
        QCOMPARE(sheet.right(), 2);
        QCOMPARE(sheet.decisions().at(0).task, QStringLiteral("approve"));
        QCOMPARE(sheet.decisions().at(1).task, QStringLiteral("reconcile"));
        QCOMPARE(sheet.decisions().at(1).actionId, id);
        QVERIFY(sheet.decisions().at(1).explanation.contains(QLatin1String("no refund")));
        m_stack.reset();
    }
};

QTEST_GUILESS_MAIN(TestExercise)
#include "tst_exercise.moc"
