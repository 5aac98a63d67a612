// The console's --screenshot option, through the real executable (offscreen) against a real
// countersignd: the picture is saved once the queue, and the --select'ed action on its --tab,
// are shown, at --window-size, and the console then quits with 0. (scripts/screenshots.sh and
// screenshot_scenarios rely on exactly this.)

#include "tests/client/backendprocess.h"

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestScreenshot : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    QString m_actionId;
    QString m_reviewId;

    // Runs the console; returns the exit code (-1 if it did not finish within 60 s).
    int shoot(const QString &file, const QString &select, const QString &tab, const QString &filter = QStringLiteral("all"))
    {
        QProcess console;
        console.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        QStringList args{ QStringLiteral("--backend"), m_backend.url().toString(),
                          QStringLiteral("--token-file"), m_backend.tokenFile(QStringLiteral("sue")),
                          QStringLiteral("--settings"), m_dir.filePath(file + QStringLiteral(".ini")),
                          QStringLiteral("--window-size"), QStringLiteral("1200x800"),
                          QStringLiteral("--filter"), filter,
                          QStringLiteral("--screenshot"), m_dir.filePath(file) };
        if (!select.isEmpty())
            args << QStringLiteral("--select") << select;
        if (!tab.isEmpty())
            args << QStringLiteral("--tab") << tab;
        console.start(QStringLiteral(COUNTERSIGN_BIN), args);
        if (!console.waitForFinished(60000)) {
            console.kill();
            console.waitForFinished();
            return -1;
        }
        return console.exitStatus() == QProcess::NormalExit ? console.exitCode() : -1;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_backend.start(8), qPrintable(m_backend.error()));
        const QStringList charges = m_backend.charges();
        QVERIFY(charges.size() >= 8);
        m_actionId = m_backend.propose(charges.at(0), 1500, QStringLiteral("shot-1")).value(QLatin1String("id")).toString();
        QVERIFY(!m_actionId.isEmpty());
        // An older action (not the first row) with a changed resubmission: a diff tab to show.
        m_reviewId = m_backend.propose(charges.at(1), 4000, QStringLiteral("shot-review")).value(QLatin1String("id")).toString();
        QCOMPARE(m_backend.resubmitChanged(charges.at(1), 4500, QStringLiteral("shot-review")).status, 409);
        for (int i = 2; i < 5; ++i)
            m_backend.propose(charges.at(i), 1000 + i, QStringLiteral("shot-%1").arg(i));
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    void savesThePictureAndQuits_data()
    {
        QTest::addColumn<QString>("select");
        QTest::addColumn<QString>("tab");
        QTest::addColumn<QString>("file");
        QTest::newRow("the queue's first row, no --select") << QString() << QString() << QStringLiteral("queue.png");
        QTest::newRow("an older action, on its overview") << QStringLiteral("review") << QStringLiteral("overview")
                                                          << QStringLiteral("review-overview.png");
        QTest::newRow("an older action, on its diff tab") << QStringLiteral("review") << QStringLiteral("diff")
                                                          << QStringLiteral("review-diff.png");
        QTest::newRow("an unknown tab keeps the remembered one") << QStringLiteral("first") << QStringLiteral("nonsense")
                                                                 << QStringLiteral("first-nonsense.png");
    }

    void savesThePictureAndQuits()
    {
        QFETCH(QString, select);
        QFETCH(QString, tab);
        QFETCH(QString, file);
        const QString id = select == QLatin1String("review") ? m_reviewId : select == QLatin1String("first") ? m_actionId : QString();
        QCOMPARE(shoot(file, id, tab), 0);
        const QImage picture(m_dir.filePath(file));
        QVERIFY(!picture.isNull());
        QCOMPARE(picture.size(), QSize(1200, 800));
    }

    // The tab is part of the picture: the same action on two tabs gives two pictures.
    void theTabChangesThePicture()
    {
        QCOMPARE(shoot(QStringLiteral("overview.png"), m_reviewId, QStringLiteral("overview")), 0);
        QCOMPARE(shoot(QStringLiteral("audit.png"), m_reviewId, QStringLiteral("audit")), 0);
        const QImage overview(m_dir.filePath(QStringLiteral("overview.png")));
        const QImage audit(m_dir.filePath(QStringLiteral("audit.png")));
        QVERIFY(!overview.isNull() && !audit.isNull());
        QVERIFY(overview != audit);
    }
};

QTEST_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
