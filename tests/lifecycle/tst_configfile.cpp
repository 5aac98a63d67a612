// ConfigFile (lifecycle/configfile.h): the strict key = value reader behind countersignd serve
// --config, and how its entries merge with the command line. The last two cases run the real
// countersignd: a bad line stops the start with FILE:LINE, a good file serves, flags override it.
#include "lifecycle/configfile.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace cs;

namespace {

QList<QCommandLineOption> flags()
{
    return {QCommandLineOption(QStringLiteral("db"), QString(), QStringLiteral("FILE")),
            QCommandLineOption(QStringLiteral("listen"), QString(), QStringLiteral("HOST:PORT")),
            QCommandLineOption(QStringLiteral("provider-account"), QString(), QStringLiteral("LABEL")),
            QCommandLineOption(QStringLiteral("mcp-allow-origin"), QString(), QStringLiteral("ORIGIN")),
            QCommandLineOption(QStringLiteral("mcp-poll-ms"), QString(), QStringLiteral("ms")),
            QCommandLineOption(QStringLiteral("no-executor"), QString())};
}

const QSet<QString> repeatable{QStringLiteral("mcp-allow-origin")};

std::optional<ConfigFile> parse(const QByteArray &text, QString *error)
{
    return ConfigFile::parse(QStringLiteral("cs.conf"), text, flags(), repeatable, error);
}

} // namespace

class TestConfigFile : public QObject
{
    Q_OBJECT
private slots:
    void readsEntries();
    void refuses_data();
    void refuses();
    void commandLineOverrides();
    void explainNamesTheLine();
    void refusesAFileOthersMayWrite();
    void countersigndStopsAtABadLine();
    void countersigndServesFromTheFile();
};

void TestConfigFile::readsEntries()
{
    QString error;
    const auto config = parse("\xEF\xBB\xBF# comment\r\n\n  db = /var/lib/countersign/ledger.db  \n"
                              "provider-account = \"Acme \\\"EU\\\" \\\\ 2\"\n"
                              "mcp-allow-origin = https://a.example#not-a-comment\n"
                              "mcp-allow-origin=https://b.example\n"
                              "no-executor = true\n"
                              "listen = 127.0.0.1:8470",
                              &error);
    QVERIFY2(config, qPrintable(error));
    const QList<ConfigFile::Entry> &e = config->entries();
    QCOMPARE(e.size(), 6);
    QCOMPARE(e.at(0).key, QStringLiteral("db"));
    QCOMPARE(e.at(0).value, QStringLiteral("/var/lib/countersign/ledger.db"));
    QCOMPARE(e.at(0).line, 3);
    QCOMPARE(e.at(1).value, QStringLiteral("Acme \"EU\" \\ 2"));
    QCOMPARE(e.at(2).value, QStringLiteral("https://a.example#not-a-comment"));
    QCOMPARE(e.at(3).value, QStringLiteral("https://b.example"));
    QCOMPARE(e.at(4).value, QStringLiteral("true"));
    QCOMPARE(e.at(5).line, 8);
}

void TestConfigFile::refuses_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown key") << QByteArray("db = x\nlisen = 1") << QStringLiteral("cs.conf:2: unknown key \"lisen\" (did you mean listen?)");
    QTest::newRow("unknown, nothing near") << QByteArray("colour = red") << QStringLiteral("cs.conf:1: unknown key \"colour\"");
    QTest::newRow("a flag's dashes") << QByteArray("--db = x") << QStringLiteral("cs.conf:1: \"--db\" is not a key (lower-case flag names without --, e.g. listen)");
    QTest::newRow("no equals") << QByteArray("\n\ndb /x") << QStringLiteral("cs.conf:3: expected key = value, got \"db /x\"");
    QTest::newRow("twice") << QByteArray("db = a\n# x\ndb = b") << QStringLiteral("cs.conf:3: db is given again (first on line 1); only a repeatable flag may be");
    QTest::newRow("empty value") << QByteArray("listen =") << QStringLiteral("cs.conf:1: listen needs a value");
    QTest::newRow("empty quoted value") << QByteArray("listen = \"\"") << QStringLiteral("cs.conf:1: listen needs a value");
    QTest::newRow("switch not boolean") << QByteArray("no-executor = yes") << QStringLiteral("cs.conf:1: no-executor is a switch: true or false, not \"yes\"");
    QTest::newRow("open quote") << QByteArray("provider-account = \"Acme") << QStringLiteral("cs.conf:1: provider-account: the quote is not closed");
    QTest::newRow("after the quote") << QByteArray("provider-account = \"Acme\" EU") << QStringLiteral("cs.conf:1: provider-account: text after the closing quote");
    QTest::newRow("bad escape") << QByteArray("provider-account = \"a\\nb\"") << QStringLiteral("cs.conf:1: provider-account: only \\\" and \\\\ may follow a backslash in a quoted value");
    QTest::newRow("invalid UTF-8") << QByteArray("db = a\nprovider-account = \xC3\x28") << QStringLiteral("cs.conf:2: not valid UTF-8");
    QTest::newRow("help is not a key") << QByteArray("help = true") << QStringLiteral("cs.conf:1: unknown key \"help\"");
}

void TestConfigFile::refuses()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!parse(text, &error));
    QCOMPARE(error, message);
}

void TestConfigFile::commandLineOverrides()
{
    QString error;
    const auto config = parse("db = /file.db\nlisten = 127.0.0.1:1\nmcp-allow-origin = https://a\nmcp-allow-origin = https://b\n"
                              "no-executor = false\nmcp-poll-ms = 300",
                              &error);
    QVERIFY2(config, qPrintable(error));
    const QStringList merged = config->merged(
        {QStringLiteral("countersignd"), QStringLiteral("serve"), QStringLiteral("--listen=127.0.0.1:2"),
         QStringLiteral("--mcp-allow-origin"), QStringLiteral("https://c")},
        1, flags());
    QCOMPARE(merged, (QStringList{QStringLiteral("countersignd"), QStringLiteral("serve"), QStringLiteral("--db"),
                                  QStringLiteral("/file.db"), QStringLiteral("--mcp-poll-ms"), QStringLiteral("300"),
                                  QStringLiteral("--listen=127.0.0.1:2"), QStringLiteral("--mcp-allow-origin"),
                                  QStringLiteral("https://c")}));
    QCommandLineParser parser;
    parser.addOptions(flags());
    QVERIFY(parser.parse(merged.mid(1)));
    QCOMPARE(parser.value(QStringLiteral("listen")), QStringLiteral("127.0.0.1:2"));
    QCOMPARE(parser.values(QStringLiteral("mcp-allow-origin")), QStringList{QStringLiteral("https://c")});
    QVERIFY(!parser.isSet(QStringLiteral("no-executor")));
    QCOMPARE(config->origin(QStringLiteral("db")), QStringLiteral("cs.conf:1"));
    QCOMPARE(config->origin(QStringLiteral("listen")), QString());

    // Without the command line's list, the file's whole list.
    const QStringList fromFile = config->merged({QStringLiteral("countersignd"), QStringLiteral("serve")}, 1, flags());
    QCommandLineParser second;
    second.addOptions(flags());
    QVERIFY(second.parse(fromFile.mid(1)));
    QCOMPARE(second.values(QStringLiteral("mcp-allow-origin")), (QStringList{QStringLiteral("https://a"), QStringLiteral("https://b")}));
    QCOMPARE(config->origin(QStringLiteral("mcp-allow-origin")), QStringLiteral("cs.conf:3"));
}

void TestConfigFile::explainNamesTheLine()
{
    QString error;
    const auto config = parse("\nmcp-poll-ms = 10\nlisten = 127.0.0.1:0", &error);
    QVERIFY2(config, qPrintable(error));
    config->merged({QStringLiteral("countersignd"), QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("x")}, 1, flags());
    QCOMPARE(config->explain(QStringLiteral("--mcp-poll-ms expects 50 to 60000")),
             QStringLiteral("cs.conf:2: --mcp-poll-ms expects 50 to 60000"));
    QCOMPARE(config->explain(QStringLiteral("--listen expects host:port")), QStringLiteral("--listen expects host:port"));
    QCOMPARE(config->explain(QStringLiteral("cannot start")), QStringLiteral("cannot start"));
}

void TestConfigFile::refusesAFileOthersMayWrite()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("cs.conf"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("db = x\n");
    file.close();
    QString error;
    QVERIFY(file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther));
    QVERIFY2(ConfigFile::read(path, flags(), repeatable, &error), qPrintable(error));
    QVERIFY(file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::WriteGroup));
    QVERIFY(!ConfigFile::read(path, flags(), repeatable, &error));
    QVERIFY2(error.contains(QLatin1String("group or others may write it")), qPrintable(error));
    QVERIFY(!ConfigFile::read(dir.filePath(QStringLiteral("missing.conf")), flags(), repeatable, &error));
    QVERIFY2(error.startsWith(dir.filePath(QStringLiteral("missing.conf")) + QStringLiteral(": cannot read it")), qPrintable(error));
}

namespace {

QString writeConfig(const QTemporaryDir &dir, const QByteArray &text)
{
    const QString path = dir.filePath(QStringLiteral("countersignd.conf"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return QString();
    file.write(text);
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    return path;
}

} // namespace

void TestConfigFile::countersigndStopsAtABadLine()
{
    QTemporaryDir dir;
    const QByteArray db = dir.filePath(QStringLiteral("ledger.db")).toUtf8();
    struct Case { QByteArray text; QString expected; };
    const QList<Case> cases{
        {"db = " + db + "\nlisten = 127.0.0.1:0\nmcp-poll-ms = 10\n", QStringLiteral("countersignd.conf:3: --mcp-poll-ms expects 50 to 60000")},
        {"db = " + db + "\nlisten = 127.0.0.1:0\nprovder = paysim\n", QStringLiteral("countersignd.conf:3: unknown key \"provder\" (did you mean provider?)")},
        {"db = " + db + "\nlisten = nowhere\n", QStringLiteral("countersignd.conf:2: --listen expects host:port")},
        // Issue 33: a key window longer than the provider promises to keep a key is refused, with why.
        {"db = " + db + "\nlisten = 127.0.0.1:0\nkey-window-hours = 1000000\n",
         QStringLiteral("--key-window-hours 1000000 is longer than the 24 h for which stripe promises to remember an"
                        " idempotency key")},
    };
    for (const Case &c : cases) {
        const QString path = writeConfig(dir, c.text);
        QProcess process;
        process.start(QStringLiteral(COUNTERSIGND_BIN), {QStringLiteral("serve"), QStringLiteral("--config"), path});
        QVERIFY(process.waitForFinished(20000));
        QCOMPARE(process.exitCode(), 2);
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QVERIFY2(err.contains(c.expected), qPrintable(err));
    }
}

void TestConfigFile::countersigndServesFromTheFile()
{
    QTemporaryDir dir;
    const QByteArray db = dir.filePath(QStringLiteral("ledger.db")).toUtf8();
    // The file's listen address is taken by the command line's; its bad poll interval is never
    // looked at because the command line gives a good one.
    const QString path = writeConfig(dir, "db = \"" + db + "\"\nlisten = 127.0.0.1:1\nmcp-poll-ms = 10\nno-executor = true\n");
    QProcess process;
    process.start(QStringLiteral(COUNTERSIGND_BIN), {QStringLiteral("serve"), QStringLiteral("--config"), path,
                                                    QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                                                    QStringLiteral("--mcp-poll-ms"), QStringLiteral("500")});
    QElapsedTimer started;
    started.start();
    while (!process.canReadLine() && started.elapsed() < 20000)
        process.waitForReadyRead(500);
    QVERIFY2(process.canReadLine(), qPrintable(QString::fromUtf8(process.readAllStandardError())));
    const QString url = QString::fromUtf8(process.readLine()).trimmed();
    QVERIFY2(url.startsWith(QLatin1String("http://127.0.0.1:")) && !url.endsWith(QLatin1String(":1")), qPrintable(url));
    QVERIFY(QFile::exists(QString::fromUtf8(db)));
    process.terminate();
    QVERIFY(process.waitForFinished(20000));
    QCOMPARE(process.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestConfigFile)
#include "tst_configfile.moc"
