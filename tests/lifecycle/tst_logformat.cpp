// LogFormat (lifecycle/logformat.h): --log-format json. Every line it writes is read back with the
// API's strict JSON reader (StrictJson: RFC 8259 exactly, no duplicate members) and must be one
// object with exactly the promised members, valid UTF-8 and valid Unicode text, whatever the
// message held; `action` only for a message that begins with an action id.
#include "lifecycle/logformat.h"
#include "server/api/strictjson.h"
#include "server/ledger/ids.h"

#include <QLoggingCategory>
#include <QRegularExpression>
#include <QStringDecoder>
#include <QtTest>

#include <variant>

using namespace cs;

namespace {

Q_LOGGING_CATEGORY(lcTest, "countersign.logtest", QtDebugMsg)

const QString kId = QStringLiteral("act_abcdefghijklmnopqrstuvwx"); // 24 of a-z2-7
const QString kOtherId = QStringLiteral("act_234567abcdefghijklmnopqr");

// The line as a JSON object, or a failure message.
std::variant<QJsonObject, QString> readLine(const QByteArray &line)
{
    if (!line.endsWith('\n') || line.count('\n') != 1)
        return QStringLiteral("not exactly one line: ") + QString::fromUtf8(line);
    const QByteArray text = line.chopped(1);
    QStringDecoder utf8(QStringDecoder::Utf8);
    [[maybe_unused]] const QString decoded = utf8(text);
    if (utf8.hasError())
        return QStringLiteral("not valid UTF-8");
    const auto parsed = StrictJson::parseObject(text);
    if (const auto *error = std::get_if<StrictJson::Error>(&parsed))
        return QStringLiteral("not strict JSON: %1 at %2 in %3").arg(error->message).arg(error->offset).arg(QString::fromUtf8(text));
    const QJsonObject object = std::get<QJsonObject>(parsed);
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it->isString() && !it->toString().isValidUtf16())
            return QStringLiteral("member %1 is not valid Unicode").arg(it.key());
    }
    return object;
}

// QVERIFY2 evaluates its message even when it passes.
QString problemOf(const std::variant<QJsonObject, QString> &read)
{
    return std::holds_alternative<QString>(read) ? std::get<QString>(read) : QString();
}

// Installs a style whose lines are collected here; then QtTest's own handler again.
struct Captured
{
    explicit Captured(LogFormat::Style style)
        : previous(LogFormat::install(style, [this](const QByteArray &line) { lines << line; }))
    {
    }
    ~Captured() { release(); }
    void release()
    {
        if (!previous)
            return;
        LogFormat::install(LogFormat::Style::Text);
        qInstallMessageHandler(previous);
        previous = nullptr;
    }
    QList<QByteArray> lines;
    QtMessageHandler previous;
};

} // namespace

class TestLogFormat : public QObject
{
    Q_OBJECT
private slots:
    void jsonLine_data();
    void jsonLine();
    void levels_data();
    void levels();
    void handlerWritesWholeObjects_data();
    void handlerWritesWholeObjects();
    void sayKeepsTheTextStyle();
    void parse_data();
    void parse();
    void mintedIdsAreRecognised();
};

void TestLogFormat::jsonLine_data()
{
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("expected"); // the message as read back
    QTest::addColumn<QString>("action");   // empty: no `action` member

    const QString plain = QStringLiteral("started 4 workers");
    QTest::newRow("plain") << plain << plain << QString();
    QTest::newRow("empty") << QString() << QString() << QString();
    const QString quotes = QStringLiteral("say \"hi\" \\ to C:\\temp and \"\"\"");
    QTest::newRow("quotes and backslashes") << quotes << quotes << QString();
    QString controls = QStringLiteral("a\nb\rc\td\be\ff");
    controls += QChar(0);
    controls += QChar(0x01);
    controls += QChar(0x1B);
    controls += QStringLiteral("[31mred");
    controls += QChar(0x1F);
    controls += QChar(0x7F);
    QTest::newRow("newline, CR, tab, NUL, ESC and other control characters") << controls << controls << QString();
    const QString injected = QStringLiteral("x\"}\n{\"level\":\"fatal\",\"message\":\"forged");
    QTest::newRow("a forged second object") << injected << injected << QString();
    QString separators = QStringLiteral("a");
    separators += QChar(0x2028);
    separators += QStringLiteral("b");
    separators += QChar(0x2029);
    QTest::newRow("U+2028 and U+2029") << separators << separators << QString();
    const QString unicode = QStringLiteral("Zoë paid € 12,00 — 支払い 😀 𝄞");
    QTest::newRow("non-ASCII and a surrogate pair") << unicode << unicode << QString();

    QString lone = QStringLiteral("a");
    lone += QChar(0xD800);
    lone += QStringLiteral("b");
    QTest::newRow("lone high surrogate") << lone << QStringLiteral("a\uFFFDb") << QString();
    QString low = QStringLiteral("a");
    low += QChar(0xDC00);
    QTest::newRow("lone low surrogate at the end") << low << QStringLiteral("a\uFFFD") << QString();
    QString reversed;
    reversed += QChar(0xDE00);
    reversed += QChar(0xD83D);
    QTest::newRow("a pair in the wrong order") << reversed << QStringLiteral("\uFFFD\uFFFD") << QString();
    QString trailingHigh = QStringLiteral("end");
    trailingHigh += QChar(0xDBFF);
    QTest::newRow("high surrogate at the end") << trailingHigh << QStringLiteral("end\uFFFD") << QString();

    const QString quoted = u'"' + kId + QStringLiteral("\" -> COMPLETED provider answered 200");
    QTest::newRow("action id first, as QDebug quotes it") << quoted << quoted << kId;
    const QString bare = kId + QStringLiteral(" round 1 -> COMPLETED");
    QTest::newRow("action id first, bare") << bare << bare << kId;
    QTest::newRow("action id alone") << kId << kId << kId;
    const QString colon = kId + QStringLiteral(": lease lost");
    QTest::newRow("action id and a colon") << colon << colon << kId;
    const QString quotedColon = u'"' + kId + QStringLiteral("\": x");
    QTest::newRow("quoted action id and a colon") << quotedColon << quotedColon << kId;
    const QString two = u'"' + kId + QStringLiteral("\" proposed as a follow-up of \"") + kOtherId + u'"';
    QTest::newRow("two ids: the first is the line's") << two << two << kId;

    const QString later = QStringLiteral("refused a webhook: ") + kId;
    QTest::newRow("no id: an id later in the text") << later << later << QString();
    const QString spaced = u' ' + kId;
    QTest::newRow("no id: a space before it") << spaced << spaced << QString();
    const QString shortId = kId.chopped(1) + QStringLiteral(" x");
    QTest::newRow("no id: 23 characters") << shortId << shortId << QString();
    const QString longer = kId + QStringLiteral("a x");
    QTest::newRow("no id: 25 characters") << longer << longer << QString();
    const QString upper = QStringLiteral("act_ABCDEFGHIJKLMNOPQRSTUVWX x");
    QTest::newRow("no id: upper case") << upper << upper << QString();
    const QString notBase32 = QStringLiteral("act_abcdefghijklmnopqrstuv01 x");
    QTest::newRow("no id: 0 and 1 are not base32") << notBase32 << notBase32 << QString();
    const QString unclosed = u'"' + kId + QStringLiteral(" x");
    QTest::newRow("no id: an unclosed quote") << unclosed << unclosed << QString();
    const QString escaped = u'"' + kId + QStringLiteral("\\\" x\"");
    QTest::newRow("no id: QDebug's escaped quote after it") << escaped << escaped << QString();
    const QString idempotencyKey = QStringLiteral("csk_abcdefghijklmnopqrstuvwx_v1_abcdefghijklmnop x");
    QTest::newRow("no id: an idempotency key") << idempotencyKey << idempotencyKey << QString();
}

void TestLogFormat::jsonLine()
{
    QFETCH(QString, message);
    QFETCH(QString, expected);
    QFETCH(QString, action);
    const QDateTime time(QDate(2026, 12, 1), QTime(9, 30, 0, 123), Qt::UTC);
    const QByteArray line = LogFormat::jsonLine(QtInfoMsg, "countersign.executor", message, time, 4242);
    const auto read = readLine(line);
    QVERIFY2(std::holds_alternative<QJsonObject>(read), qPrintable(problemOf(read)));
    const QJsonObject object = std::get<QJsonObject>(read);

    QStringList keys = {QStringLiteral("time"), QStringLiteral("level"), QStringLiteral("category"),
                        QStringLiteral("message"), QStringLiteral("pid")};
    if (!action.isEmpty())
        keys << QStringLiteral("action");
    keys.sort();
    QCOMPARE(object.keys(), keys);
    QCOMPARE(object.value(QStringLiteral("time")).toString(), QStringLiteral("2026-12-01T09:30:00.123Z"));
    QCOMPARE(object.value(QStringLiteral("level")).toString(), QStringLiteral("info"));
    QCOMPARE(object.value(QStringLiteral("category")).toString(), QStringLiteral("countersign.executor"));
    QCOMPARE(object.value(QStringLiteral("message")).toString(), expected);
    QVERIFY(StrictJson::isIntegerLiteral(object.value(QStringLiteral("pid"))));
    QCOMPARE(object.value(QStringLiteral("pid")).toInteger(), 4242);
    if (!action.isEmpty()) {
        QCOMPARE(object.value(QStringLiteral("action")).toString(), action);
        QCOMPARE(LogFormat::actionOf(message), action);
    } else {
        QVERIFY(LogFormat::actionOf(message).isEmpty());
    }
}

void TestLogFormat::levels_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("level");
    QTest::newRow("debug") << int(QtDebugMsg) << QStringLiteral("debug");
    QTest::newRow("info") << int(QtInfoMsg) << QStringLiteral("info");
    QTest::newRow("warning") << int(QtWarningMsg) << QStringLiteral("warning");
    QTest::newRow("critical") << int(QtCriticalMsg) << QStringLiteral("critical");
    QTest::newRow("fatal") << int(QtFatalMsg) << QStringLiteral("fatal");
}

// Each level by name; a time in another zone is written in UTC; no category is "default".
void TestLogFormat::levels()
{
    QFETCH(int, type);
    QFETCH(QString, level);
    const QDateTime time(QDate(2026, 12, 1), QTime(10, 30, 0, 5), Qt::OffsetFromUTC, 3600);
    const auto read = readLine(LogFormat::jsonLine(QtMsgType(type), nullptr, QStringLiteral("m"), time, 1));
    QVERIFY2(std::holds_alternative<QJsonObject>(read), qPrintable(problemOf(read)));
    const QJsonObject object = std::get<QJsonObject>(read);
    QCOMPARE(object.value(QStringLiteral("level")).toString(), level);
    QCOMPARE(object.value(QStringLiteral("time")).toString(), QStringLiteral("2026-12-01T09:30:00.005Z"));
    QCOMPARE(object.value(QStringLiteral("category")).toString(), QStringLiteral("default"));
}

void TestLogFormat::handlerWritesWholeObjects_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("level");
    QTest::newRow("qCDebug") << int(QtDebugMsg) << QStringLiteral("debug");
    QTest::newRow("qCInfo") << int(QtInfoMsg) << QStringLiteral("info");
    QTest::newRow("qCWarning") << int(QtWarningMsg) << QStringLiteral("warning");
    QTest::newRow("qCCritical") << int(QtCriticalMsg) << QStringLiteral("critical");
}

// Through Qt's own logging: the installed handler writes what a qC* statement of a real category
// says, with the id QDebug streamed first as `action`, and hostile text streamed after it escaped.
void TestLogFormat::handlerWritesWholeObjects()
{
    QFETCH(int, type);
    QFETCH(QString, level);
    Captured captured(LogFormat::Style::Json);
    QCOMPARE(LogFormat::installed(), LogFormat::Style::Json);
    QString hostile = QStringLiteral("reason \"}\n{\"x\":1 ");
    hostile += QChar(0xD800);
    switch (QtMsgType(type)) {
    case QtDebugMsg: qCDebug(lcTest).noquote() << kId << "->" << hostile; break;
    case QtInfoMsg: qCInfo(lcTest) << kId << "->" << hostile; break;
    case QtWarningMsg: qCWarning(lcTest) << kId << "->" << hostile; break;
    default: qCCritical(lcTest) << kId << "->" << hostile; break;
    }
    qCInfo(lcTest) << "no action here";
    captured.release();
    const QList<QByteArray> &lines = captured.lines;
    QCOMPARE(lines.size(), 2);

    const auto first = readLine(lines.at(0));
    QVERIFY2(std::holds_alternative<QJsonObject>(first), qPrintable(problemOf(first)));
    const QJsonObject object = std::get<QJsonObject>(first);
    QCOMPARE(object.value(QStringLiteral("level")).toString(), level);
    QCOMPARE(object.value(QStringLiteral("category")).toString(), QStringLiteral("countersign.logtest"));
    QCOMPARE(object.value(QStringLiteral("action")).toString(), kId);
    QVERIFY(object.value(QStringLiteral("message")).toString().contains(QStringLiteral("->")));
    QCOMPARE(object.value(QStringLiteral("pid")).toInteger(), QCoreApplication::applicationPid());
    static const QRegularExpression rfc3339(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$"));
    QVERIFY2(rfc3339.match(object.value(QStringLiteral("time")).toString()).hasMatch(),
             qPrintable(object.value(QStringLiteral("time")).toString()));

    const auto second = readLine(lines.at(1));
    QVERIFY2(std::holds_alternative<QJsonObject>(second), qPrintable(problemOf(second)));
    QVERIFY(!std::get<QJsonObject>(second).contains(QStringLiteral("action")));
    QCOMPARE(std::get<QJsonObject>(second).value(QStringLiteral("message")).toString(), QStringLiteral("no action here"));
}

// What main() says: unchanged in the text style, an object in the json style.
void TestLogFormat::sayKeepsTheTextStyle()
{
    QList<QByteArray> lines;
    {
        Captured text(LogFormat::Style::Text);
        LogFormat::say(QtCriticalMsg, QStringLiteral("countersignd"), QStringLiteral("--listen expects host:port, e.g. \"x\""));
        lines += text.lines;
    }
    {
        Captured json(LogFormat::Style::Json);
        LogFormat::say(QtCriticalMsg, QStringLiteral("countersignd"), QStringLiteral("--listen expects host:port\nnext"));
        lines += json.lines;
    }
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines.at(0), QByteArray("countersignd: --listen expects host:port, e.g. \"x\"\n"));
    const auto read = readLine(lines.at(1));
    QVERIFY2(std::holds_alternative<QJsonObject>(read), qPrintable(problemOf(read)));
    const QJsonObject object = std::get<QJsonObject>(read);
    QCOMPARE(object.value(QStringLiteral("category")).toString(), QStringLiteral("countersignd"));
    QCOMPARE(object.value(QStringLiteral("level")).toString(), QStringLiteral("critical"));
    QCOMPARE(object.value(QStringLiteral("message")).toString(), QStringLiteral("--listen expects host:port\nnext"));
}

void TestLogFormat::parse_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("style"); // -1: refused
    QTest::newRow("text") << QStringLiteral("text") << int(LogFormat::Style::Text);
    QTest::newRow("json") << QStringLiteral("json") << int(LogFormat::Style::Json);
    QTest::newRow("upper case is refused") << QStringLiteral("JSON") << -1;
    QTest::newRow("empty is refused") << QString() << -1;
    QTest::newRow("another format is refused") << QStringLiteral("logfmt") << -1;
    QTest::newRow("spaces are refused") << QStringLiteral(" json") << -1;
}

void TestLogFormat::parse()
{
    QFETCH(QString, name);
    QFETCH(int, style);
    const auto parsed = LogFormat::parse(name);
    QCOMPARE(parsed.has_value(), style >= 0);
    if (parsed)
        QCOMPARE(int(*parsed), style);
}

// The formatter's copy of the id pattern agrees with the ids the ledger mints.
void TestLogFormat::mintedIdsAreRecognised()
{
    for (int i = 0; i < 200; ++i) {
        const QString id = Ids::newActionId();
        QCOMPARE(LogFormat::actionOf(QString(u'"' + id + QStringLiteral("\" -> COMPLETED"))), id);
        QCOMPARE(LogFormat::actionOf(id), id);
    }
}

QTEST_GUILESS_MAIN(TestLogFormat)
#include "tst_logformat.moc"
