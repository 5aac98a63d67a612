// The export formats (models/actionexport.h, models/historyexport.h; docs/EXPORT.md): CSV per
// RFC 4180 with the spreadsheet guard, JSON written incrementally, money in minor units plus the
// currency's decimals, one action's history in both forms, the atomic file write.

#include "models/actionexport.h"
#include "models/historyexport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace cs;

namespace {

QDateTime at(int minute, int ms = 0)
{
    return QDateTime(QDate(2026, 11, 29), QTime(22, minute, 0, ms), Qt::UTC);
}

ActionSummary row(const QString &id, qint64 amount, const QString &currency, const QString &businessReference = QString())
{
    ActionSummary s;
    s.record.id = id;
    s.record.targetType = TargetType::Charge;
    s.record.targetId = QStringLiteral("ch_3Pq8");
    s.record.businessReference = businessReference;
    s.record.amount = amount;
    s.record.currency = currency;
    s.record.requestedBy = QStringLiteral("returns-agent");
    s.record.state = ActionState::Pending;
    s.record.stateVersion = 3;
    s.record.createdAt = at(38, 123);
    s.record.updatedAt = at(39);
    s.attemptCount = 0;
    s.lastEventAt = at(40);
    return s;
}

QByteArray actionsFile(ExportFormat format, const QList<QList<ActionSummary>> &pages)
{
    ActionExportWriter writer(format);
    QByteArray out = writer.begin();
    for (const QList<ActionSummary> &page : pages)
        out += writer.rows(page);
    return out + writer.end();
}

} // namespace

class TestActionExport : public QObject
{
    Q_OBJECT

private slots:
    void csvField_data();
    void csvField();
    void csvRecordEndsWithCrlf();
    void formats();
    void amount_data();
    void amount();
    void actionsCsvIsTheExpectedBytes();
    void actionsJsonIsTheExpectedBytes();
    void jsonRowsAreValidAndTyped_data();
    void jsonRowsAreValidAndTyped();
    void pagesMakeTheSameFileAsOneWrite_data();
    void pagesMakeTheSameFileAsOneWrite();
    void emptyExports();
    void historyCsvRows();
    void historyJsonMoneyAndAudit();
    void writeFileAtomically();
};

void TestActionExport::csvField_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected");

    QTest::newRow("plain text as it is") << QStringLiteral("order-1042") << QStringLiteral("order-1042");
    QTest::newRow("empty stays empty") << QString() << QString();
    QTest::newRow("a comma is quoted") << QStringLiteral("a,b") << QStringLiteral("\"a,b\"");
    QTest::newRow("a quote is doubled and quoted") << QStringLiteral("say \"hi\"") << QStringLiteral("\"say \"\"hi\"\"\"");
    QTest::newRow("LF is quoted, kept") << QStringLiteral("line\nnext") << QStringLiteral("\"line\nnext\"");
    QTest::newRow("CRLF inside is quoted, kept") << QStringLiteral("a\r\nb") << QStringLiteral("\"a\r\nb\"");
    QTest::newRow("= formula gets an apostrophe") << QStringLiteral("=1+2") << QStringLiteral("'=1+2");
    QTest::newRow("+ formula gets an apostrophe") << QStringLiteral("+1") << QStringLiteral("'+1");
    QTest::newRow("- formula gets an apostrophe") << QStringLiteral("-2+3") << QStringLiteral("'-2+3");
    QTest::newRow("@ formula gets an apostrophe") << QStringLiteral("@SUM(A1)") << QStringLiteral("'@SUM(A1)");
    QTest::newRow("TAB start gets an apostrophe") << QStringLiteral("\t=1") << QStringLiteral("'\t=1");
    QTest::newRow("CR start gets an apostrophe, then quoted") << QStringLiteral("\r=1") << QStringLiteral("\"'\r=1\"");
    QTest::newRow("HYPERLINK with a comma: apostrophe and quotes")
        << QStringLiteral("=HYPERLINK(\"http://x\",\"y\")") << QStringLiteral("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
    QTest::newRow("= later in the text is harmless") << QStringLiteral("a=b") << QStringLiteral("a=b");
    QTest::newRow("a space before = is not guarded") << QStringLiteral(" =1") << QStringLiteral(" =1");
    QTest::newRow("an apostrophe start is kept") << QStringLiteral("'quoted") << QStringLiteral("'quoted");
    QTest::newRow("umlauts as they are") << QStringLiteral("Bestellung M\u00fcller") << QStringLiteral("Bestellung M\u00fcller");
    QTest::newRow("CJK as it is") << QStringLiteral("\u6ce8\u6587-7") << QStringLiteral("\u6ce8\u6587-7");
    QTest::newRow("emoji (a surrogate pair) as it is") << QStringLiteral("gift \U0001F381") << QStringLiteral("gift \U0001F381");
}

void TestActionExport::csvField()
{
    QFETCH(QString, value);
    QFETCH(QString, expected);
    QCOMPARE(csv::field(value), expected);
}

void TestActionExport::csvRecordEndsWithCrlf()
{
    QCOMPARE(csv::record({QStringLiteral("a"), QString(), QStringLiteral("M\u00fcller, K.")}),
             QByteArray("a,,\"M\xc3\xbcller, K.\"\r\n"));
    QCOMPARE(csv::record({}), QByteArray("\r\n"));
}

void TestActionExport::formats()
{
    QCOMPARE(toWire(ExportFormat::Csv), QStringLiteral("csv"));
    QCOMPARE(toWire(ExportFormat::Json), QStringLiteral("json"));
    QCOMPARE(exportFormatFromWire(u"json"), std::optional<ExportFormat>(ExportFormat::Json));
    QCOMPARE(exportFormatFromWire(u"csv"), std::optional<ExportFormat>(ExportFormat::Csv));
    QVERIFY(!exportFormatFromWire(u"CSV"));
    QVERIFY(!exportFormatFromWire(u"xlsx"));
}

void TestActionExport::amount_data()
{
    QTest::addColumn<qint64>("minor");
    QTest::addColumn<QString>("currency");
    QTest::addColumn<QString>("formatted");

    QTest::newRow("usd: two decimals") << qint64(4000) << QStringLiteral("usd") << QStringLiteral("40.00");
    QTest::newRow("usd: one cent") << qint64(1) << QStringLiteral("usd") << QStringLiteral("0.01");
    QTest::newRow("usd: zero") << qint64(0) << QStringLiteral("usd") << QStringLiteral("0.00");
    QTest::newRow("jpy: no decimals") << qint64(5000) << QStringLiteral("jpy") << QStringLiteral("5000");
    QTest::newRow("krw: no decimals") << qint64(12) << QStringLiteral("krw") << QStringLiteral("12");
    QTest::newRow("kwd: three decimals") << qint64(1250) << QStringLiteral("kwd") << QStringLiteral("1.250");
    QTest::newRow("bhd: three decimals, below one") << qint64(5) << QStringLiteral("bhd") << QStringLiteral("0.005");
    QTest::newRow("clf: four decimals") << qint64(12345) << QStringLiteral("clf") << QStringLiteral("1.2345");
    QTest::newRow("the largest amount") << qint64(1'000'000'000'000) << QStringLiteral("usd")
                                        << QStringLiteral("10000000000.00");
    QTest::newRow("unknown currency: no formatted amount") << qint64(100) << QStringLiteral("xxx") << QString();
}

void TestActionExport::amount()
{
    QFETCH(qint64, minor);
    QFETCH(QString, currency);
    QFETCH(QString, formatted);
    QCOMPARE(formattedAmount(minor, currency), formatted);

    const ActionSummary s = row(QStringLiteral("act_1"), minor, currency);
    const QStringList values = ActionExportWriter::values(s);
    const QStringList &columns = ActionExportWriter::columns();
    QCOMPARE(values.size(), columns.size());
    QCOMPARE(values.at(columns.indexOf(u"amount_minor")), QString::number(minor));
    QCOMPARE(values.at(columns.indexOf(u"amount")), formatted);
    QCOMPARE(values.at(columns.indexOf(u"currency")), currency);

    const QJsonDocument json = QJsonDocument::fromJson(actionsFile(ExportFormat::Json, {{s}}));
    const QJsonObject object = json.array().at(0).toObject();
    QCOMPARE(object.value(u"amount_minor").toInteger(-1), minor);
    if (formatted.isEmpty())
        QVERIFY(object.value(u"amount").isNull());
    else
        QCOMPARE(object.value(u"amount").toString(), formatted);
}

void TestActionExport::actionsCsvIsTheExpectedBytes()
{
    ActionSummary usd = row(QStringLiteral("act_usd"), 4000, QStringLiteral("usd"), QStringLiteral("=HYPERLINK(\"x\")"));
    ActionSummary jpy = row(QStringLiteral("act_jpy"), 5000, QStringLiteral("jpy"), QStringLiteral("Bestellung M\u00fcller, 7"));
    jpy.record.targetType = TargetType::PaymentIntent;
    jpy.record.targetId = QStringLiteral("pi_9");
    jpy.record.state = ActionState::RequiresReview;
    jpy.record.reviewReason = QStringLiteral("timeout; then 503");
    jpy.attemptCount = 2;
    jpy.possibleDuplicates = 1;
    const QByteArray expected =
        "id,state,state_version,created_at,updated_at,requested_by,target_type,target_id,business_reference,"
        "amount_minor,amount,currency,attempt_count,last_event_at,review_reason,possible_duplicates\r\n"
        "act_usd,PENDING,3,2026-11-29T22:38:00.123Z,2026-11-29T22:39:00.000Z,returns-agent,charge,ch_3Pq8,"
        "\"'=HYPERLINK(\"\"x\"\")\",4000,40.00,usd,0,2026-11-29T22:40:00.000Z,,0\r\n"
        "act_jpy,REQUIRES_REVIEW,3,2026-11-29T22:38:00.123Z,2026-11-29T22:39:00.000Z,returns-agent,payment_intent,pi_9,"
        "\"Bestellung M\xc3\xbcller, 7\",5000,5000,jpy,2,2026-11-29T22:40:00.000Z,timeout; then 503,1\r\n";
    QCOMPARE(actionsFile(ExportFormat::Csv, {{usd, jpy}}), expected);
}

void TestActionExport::actionsJsonIsTheExpectedBytes()
{
    ActionSummary kwd = row(QStringLiteral("act_kwd"), 1250, QStringLiteral("kwd"), QStringLiteral("tab\there \"q\" \\ \u0001"));
    kwd.lastEventAt = QDateTime();
    const QByteArray expected =
        "[\n"
        "{\"id\":\"act_kwd\",\"state\":\"PENDING\",\"state_version\":3,\"created_at\":\"2026-11-29T22:38:00.123Z\","
        "\"updated_at\":\"2026-11-29T22:39:00.000Z\",\"requested_by\":\"returns-agent\",\"target_type\":\"charge\","
        "\"target_id\":\"ch_3Pq8\",\"business_reference\":\"tab\\there \\\"q\\\" \\\\ \\u0001\",\"amount_minor\":1250,"
        "\"amount\":\"1.250\",\"currency\":\"kwd\",\"attempt_count\":0,\"last_event_at\":null,\"review_reason\":\"\","
        "\"possible_duplicates\":0}\n"
        "]\n";
    QCOMPARE(actionsFile(ExportFormat::Json, {{kwd}}), expected);
}

void TestActionExport::jsonRowsAreValidAndTyped_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("plain") << QStringLiteral("order-1");
    QTest::newRow("quotes and backslashes") << QStringLiteral("\"\\\"\\\\");
    QTest::newRow("every control character") << [] {
        QString s;
        for (char16_t c = 0; c < 0x20; ++c)
            s += QChar(c);
        return s;
    }();
    QTest::newRow("DEL and C1 controls") << QStringLiteral("\u007f\u0085\u009f");
    QTest::newRow("line and paragraph separators") << QStringLiteral("\u2028\u2029");
    QTest::newRow("umlauts, CJK, emoji") << QStringLiteral("M\u00fcller \u6ce8\u6587 \U0001F381");
    QTest::newRow("a formula is not guarded in JSON") << QStringLiteral("=1+2");
}

void TestActionExport::jsonRowsAreValidAndTyped()
{
    QFETCH(QString, text);
    ActionSummary s = row(QStringLiteral("act_x"), 4000, QStringLiteral("usd"), text);
    s.record.reviewReason = text;
    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(actionsFile(ExportFormat::Json, {{s}, {s}}), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(json.array().size(), 2);
    const QJsonObject object = json.array().at(1).toObject();
    QCOMPARE(object.value(u"business_reference").toString(), text);
    QCOMPARE(object.value(u"review_reason").toString(), text);
    QVERIFY(object.value(u"state_version").isDouble());
    QVERIFY(object.value(u"amount_minor").isDouble());
    QVERIFY(object.value(u"amount").isString());
    QCOMPARE(object.keys().size(), ActionExportWriter::columns().size());
}

void TestActionExport::pagesMakeTheSameFileAsOneWrite_data()
{
    QTest::addColumn<ExportFormat>("format");
    QTest::newRow("csv") << ExportFormat::Csv;
    QTest::newRow("json") << ExportFormat::Json;
}

void TestActionExport::pagesMakeTheSameFileAsOneWrite()
{
    QFETCH(ExportFormat, format);
    QList<ActionSummary> all;
    for (int i = 0; i < 7; ++i)
        all << row(QStringLiteral("act_%1").arg(i), 100 * i, QStringLiteral("eur"));
    const QByteArray once = actionsFile(format, {all});
    QCOMPARE(actionsFile(format, {all.mid(0, 3), {}, all.mid(3, 3), all.mid(6)}), once);
    QCOMPARE(actionsFile(format, {{}, all, {}}), once);
}

void TestActionExport::emptyExports()
{
    QCOMPARE(actionsFile(ExportFormat::Json, {}), QByteArray("[\n]\n"));
    QCOMPARE(QJsonDocument::fromJson(actionsFile(ExportFormat::Json, {{}})).array().size(), 0);
    const QByteArray csv = actionsFile(ExportFormat::Csv, {});
    QVERIFY(csv.startsWith("id,state,"));
    QVERIFY(csv.endsWith("possible_duplicates\r\n"));
    QCOMPARE(csv.count('\n'), 1);
    QVERIFY(!csv.startsWith("\xef\xbb\xbf")); // no byte-order mark
}

namespace {

ActionHistory sampleHistory()
{
    ActionHistory h;
    h.record = row(QStringLiteral("act_h"), 1250, QStringLiteral("kwd"), QStringLiteral("order-9")).record;
    h.record.state = ActionState::Completed;
    h.record.clientReference = QStringLiteral("ref-9");
    h.record.reason = QStringLiteral("requested_by_customer");

    Attempt attempt;
    attempt.actionId = h.record.id;
    attempt.seq = 1;
    attempt.executor = QStringLiteral("worker-1@host:7");
    attempt.startedAt = at(41);
    attempt.finishedAt = at(42);
    attempt.outcome = Attempt::Outcome::Unknown;
    attempt.httpStatus = 0;
    attempt.errorExcerpt = QStringLiteral("timeout");
    h.attempts << attempt;

    ProviderLookup found;
    found.actionId = h.record.id;
    found.seq = 1;
    found.method = ProviderLookup::Method::ListByMetadata;
    found.askedBy = QStringLiteral("reconciler");
    found.at = at(43);
    found.result = ProviderLookup::Result::Found;
    found.providerObjectId = QStringLiteral("re_1");
    found.status = QStringLiteral("succeeded");
    found.amount = 1250;
    found.currency = QStringLiteral("kwd");
    found.httpStatus = 200;
    ProviderLookup missing = found;
    missing.seq = 2;
    missing.result = ProviderLookup::Result::NotFound;
    missing.providerObjectId.clear();
    missing.status.clear();
    missing.amount = 0;
    missing.currency.clear();
    h.lookups << found << missing;

    Approval approval;
    approval.actionId = h.record.id;
    approval.version = 1;
    approval.decidedBy = QStringLiteral("ana");
    approval.note = QStringLiteral("-5 looks odd, but fine");
    approval.decidedAt = at(40);
    approval.expiredAt = at(44);
    h.approvals << approval;

    Reconciliation reconciliation;
    reconciliation.actionId = h.record.id;
    reconciliation.seq = 1;
    reconciliation.decidedBy = QStringLiteral("sue");
    reconciliation.outcome = Reconciliation::Outcome::Committed;
    reconciliation.evidenceLookupSeq = 1;
    reconciliation.note = QStringLiteral("found at the provider");
    reconciliation.decidedAt = at(45);
    h.reconciliations << reconciliation;

    AuditEvent event;
    event.seq = 17;
    event.actionId = h.record.id;
    event.at = at(38);
    event.actor = QStringLiteral("returns-agent");
    event.event = QStringLiteral("proposed");
    event.reason = QStringLiteral("=cmd|' /C calc'!A0");
    event.after = QJsonObject{{QStringLiteral("amount"), 1250}, {QStringLiteral("currency"), QStringLiteral("kwd")}};
    event.prevHash = QString(64, QLatin1Char('0'));
    event.hash = event.chainHash(event.prevHash);
    h.audit << event;
    return h;
}

// The CSV's records, split by the CRLF that ends each (fields here hold no CRLF of their own).
QList<QStringList> csvRows(const QByteArray &bytes)
{
    QList<QStringList> rows;
    const QString text = QString::fromUtf8(bytes);
    QStringList lines = text.split(QStringLiteral("\r\n"));
    if (!lines.isEmpty() && lines.constLast().isEmpty())
        lines.removeLast();
    for (const QString &line : std::as_const(lines)) {
        QStringList fields;
        QString field;
        bool quoted = false;
        for (qsizetype i = 0; i < line.size(); ++i) {
            const QChar c = line.at(i);
            if (quoted) {
                if (c == u'"' && i + 1 < line.size() && line.at(i + 1) == u'"') {
                    field += u'"';
                    ++i;
                } else if (c == u'"') {
                    quoted = false;
                } else {
                    field += c;
                }
            } else if (c == u'"') {
                quoted = true;
            } else if (c == u',') {
                fields << field;
                field.clear();
            } else {
                field += c;
            }
        }
        fields << field;
        rows << fields;
    }
    return rows;
}

} // namespace

void TestActionExport::historyCsvRows()
{
    const ActionHistory h = sampleHistory();
    const QList<QStringList> rows = csvRows(HistoryExport::write(h, ExportFormat::Csv));
    QCOMPARE(rows.size(), 1 + 7);
    QCOMPARE(rows.at(0), HistoryExport::columns());
    const QStringList &c = HistoryExport::columns();
    const auto cell = [&](int r, const char *column) { return rows.at(r).at(c.indexOf(QLatin1String(column))); };
    for (int r = 1; r < rows.size(); ++r) {
        QCOMPARE(rows.at(r).size(), c.size());
        QCOMPARE(cell(r, "action_id"), QStringLiteral("act_h"));
    }
    const QStringList sections = {QStringLiteral("action"), QStringLiteral("attempt"), QStringLiteral("lookup"),
                                  QStringLiteral("lookup"), QStringLiteral("approval"), QStringLiteral("reconciliation"),
                                  QStringLiteral("audit")};
    for (int r = 1; r < rows.size(); ++r)
        QCOMPARE(cell(r, "section"), sections.at(r - 1));

    // The action: its money, state, requester.
    QCOMPARE(cell(1, "amount_minor"), QStringLiteral("1250"));
    QCOMPARE(cell(1, "amount"), QStringLiteral("1.250"));
    QCOMPARE(cell(1, "currency"), QStringLiteral("kwd"));
    QCOMPARE(cell(1, "outcome"), QStringLiteral("COMPLETED"));
    QCOMPARE(cell(1, "actor"), QStringLiteral("returns-agent"));
    // The attempt: no HTTP answer is an empty status, not 0.
    QCOMPARE(cell(2, "outcome"), QStringLiteral("unknown"));
    QCOMPARE(cell(2, "http_status"), QString());
    QCOMPARE(cell(2, "at"), QStringLiteral("2026-11-29T22:41:00.000Z"));
    // Lookups: money only when found.
    QCOMPARE(cell(3, "outcome"), QStringLiteral("FOUND"));
    QCOMPARE(cell(3, "amount"), QStringLiteral("1.250"));
    QCOMPARE(cell(3, "note"), QStringLiteral("succeeded"));
    QCOMPARE(cell(3, "provider_object_id"), QStringLiteral("re_1"));
    QCOMPARE(cell(4, "outcome"), QStringLiteral("NOT_FOUND"));
    QCOMPARE(cell(4, "amount_minor"), QString());
    QCOMPARE(cell(4, "amount"), QString());
    // The approval expired unsent; its note starts with "-": guarded.
    QCOMPARE(cell(5, "event"), QStringLiteral("approved"));
    QCOMPARE(cell(5, "outcome"), QStringLiteral("expired"));
    QCOMPARE(cell(5, "note"), QStringLiteral("'-5 looks odd, but fine"));
    QCOMPARE(cell(6, "outcome"), QStringLiteral("committed"));
    // The audit event: its reason guarded in the cell, untouched in the detail.
    QCOMPARE(cell(7, "seq"), QStringLiteral("17"));
    QCOMPARE(cell(7, "note"), QStringLiteral("'=cmd|' /C calc'!A0"));
    const QJsonObject detail = QJsonDocument::fromJson(cell(7, "detail").toUtf8()).object();
    QCOMPARE(detail.value(u"reason").toString(), QStringLiteral("=cmd|' /C calc'!A0"));
    // Every detail is the row's whole JSON element.
    for (int r = 1; r < rows.size(); ++r) {
        QJsonParseError error;
        QJsonDocument::fromJson(cell(r, "detail").toUtf8(), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
    }
    QCOMPARE(QJsonDocument::fromJson(cell(1, "detail").toUtf8()).object(),
             HistoryExport::toJson(h).value(u"action").toObject());
}

void TestActionExport::historyJsonMoneyAndAudit()
{
    const ActionHistory h = sampleHistory();
    const QByteArray bytes = HistoryExport::write(h, ExportFormat::Json);
    QJsonParseError error;
    const QJsonObject json = QJsonDocument::fromJson(bytes, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(json.keys(), (QStringList{QStringLiteral("action"), QStringLiteral("approvals"), QStringLiteral("attempts"),
                                       QStringLiteral("audit"), QStringLiteral("lookups"), QStringLiteral("reconciliations")}));

    const QJsonObject action = json.value(u"action").toObject();
    QCOMPARE(action.value(u"amount_minor").toInteger(), 1250);
    QCOMPARE(action.value(u"amount").toString(), QStringLiteral("1.250"));
    QCOMPARE(action.value(u"client_reference").toString(), QStringLiteral("ref-9"));
    const QJsonArray lookups = json.value(u"lookups").toArray();
    QCOMPARE(lookups.at(0).toObject().value(u"amount").toString(), QStringLiteral("1.250"));
    QCOMPARE(lookups.at(0).toObject().value(u"amount_minor").toInteger(), 1250);
    QVERIFY(lookups.at(1).toObject().value(u"amount").isNull());
    QCOMPARE(json.value(u"attempts").toArray().size(), 1);
    QCOMPARE(json.value(u"approvals").toArray().size(), 1);
    QCOMPARE(json.value(u"reconciliations").toArray().at(0).toObject().value(u"evidence_lookup_seq").toInt(), 1);

    // The audit event as the log holds it: its amount untouched and its hash chain checkable.
    const std::optional<AuditEvent> event = AuditEvent::fromJson(json.value(u"audit").toArray().at(0).toObject());
    QVERIFY(event);
    QCOMPARE(*event, h.audit.constFirst());
    QCOMPARE(event->after.value(u"amount").toInteger(), 1250);
    QCOMPARE(event->chainHash(event->prevHash), event->hash);
}

void TestActionExport::writeFileAtomically()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("out.csv"));
    QString error;
    QVERIFY(cs::writeFileAtomically(path, "a,b\r\n", &error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("a,b\r\n"));
    file.close();

    const QString nowhere = dir.filePath(QStringLiteral("missing/out.csv"));
    QVERIFY(!cs::writeFileAtomically(nowhere, "x", &error));
    QVERIFY2(error.contains(nowhere), qPrintable(error));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::NoDotAndDotDot), QStringList{QStringLiteral("out.csv")});
}

QTEST_GUILESS_MAIN(TestActionExport)
#include "tst_actionexport.moc"
