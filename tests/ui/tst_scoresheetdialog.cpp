// The exercise's score sheet in the console (demo/console/scoresheetdialog.h): the score, one row
// per decision with RIGHT in green and WRONG in red, "what was right" only where it was wrong,
// activating a row names its action, and Export writes the sheet in the format of its suffix.
#include "demo/console/scoresheetdialog.h"

#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace cs;

class TestScoreSheetDialog : public QObject
{
    Q_OBJECT

private slots:
    void showsTheJudgements()
    {
        demo::ScoreSheet sheet;
        sheet.append({2, QStringLiteral("Same key, changed amount"), QStringLiteral("follow_up"), QStringLiteral("act_one"), false,
                      QStringLiteral("proposed follow-up of $45.00"), QStringLiteral("propose $5.00"), QStringLiteral("owed $45 in all")});
        sheet.append({2, QStringLiteral("Same key, changed amount"), QStringLiteral("approve"), QStringLiteral("act_two"), true,
                      QStringLiteral("approved act_two"), QStringLiteral("approve it"), QStringLiteral("safe")});
        sheet.append({3, QStringLiteral("Provider says the key was reused"), QStringLiteral("reconcile"), QStringLiteral("act_three"),
                      true, QStringLiteral("reconciled act_three as not_committed"), QStringLiteral("reconcile it as not_committed"),
                      QStringLiteral("no refund")});
        ScoreSheetDialog dialog(sheet);
        QCOMPARE(dialog.findChild<QLabel *>(QStringLiteral("scoreLabel"))->text(), QStringLiteral("2 of 3 decision(s) right"));
        QTableWidget *table = dialog.table();
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("WRONG"));
        QCOMPARE(table->item(0, 2)->foreground().color(), QColor(0xb0, 0x1e, 0x1e));
        QCOMPARE(table->item(1, 2)->text(), QStringLiteral("RIGHT"));
        QCOMPARE(table->item(1, 2)->foreground().color(), QColor(0x1b, 0x7a, 0x2e));
        QCOMPARE(table->item(0, 4)->text(), QStringLiteral("propose $5.00"));
        QCOMPARE(table->item(1, 4)->text(), QString()); // right: nothing to correct
        QCOMPARE(table->item(2, 0)->text(), QStringLiteral("Reconcile\n3. Provider says the key was reused"));

        QSignalSpy activated(&dialog, &ScoreSheetDialog::actionActivated);
        QVERIFY(activated.isValid());
        emit table->itemActivated(table->item(2, 3));
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated.first().first().toString(), QStringLiteral("act_three"));

        QTemporaryDir dir;
        QString error;
        const QString json = dir.filePath(QStringLiteral("sheet.json"));
        QVERIFY2(dialog.exportTo(json, &error), qPrintable(error));
        QFile file(json);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), sheet.render(demo::ScoreSheet::Format::Json));
    }
};

QTEST_MAIN(TestScoreSheetDialog)
#include "tst_scoresheetdialog.moc"
