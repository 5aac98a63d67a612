// --log-format json on the real binaries (docs/OPERATIONS.md, "Logs"): countersignd (its format
// from a --config file) and paysim (from the flag), every countersign.* category at debug, one
// refund through proposal, approval, a lost answer (paysim drops the response after committing),
// the reconciler's lookup and a signed webhook. Every line either process writes on stderr must
// be one strict JSON object with the promised members, and every line that names the action has
// `action` equal to its id; a line of the executor, reconciler, provider or webhook categories
// that does not name it must be one of the few known lines about no single action.
#include "tests/api/apitestsupport.h"

#include "server/api/strictjson.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMessageAuthenticationCode>
#include <QRegularExpression>
#include <QStringDecoder>
#include <QTest>

namespace {

constexpr const char *kSecret = "whsec_countersign_logs_test";

struct LogLine
{
    QJsonObject object;
    QString category;
    QString message;
    QString action;
};

// Every line of `stderrBytes` as a JSON object; the first problem found goes to *problem.
QList<LogLine> readLog(const QByteArray &stderrBytes, qint64 pid, const QString &who, QString *problem)
{
    static const QRegularExpression rfc3339(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$"));
    static const QStringList levels = {QStringLiteral("debug"), QStringLiteral("info"), QStringLiteral("warning"),
                                       QStringLiteral("critical"), QStringLiteral("fatal")};
    static const QSet<QString> allowed = {QStringLiteral("time"), QStringLiteral("level"), QStringLiteral("category"),
                                          QStringLiteral("message"), QStringLiteral("action"), QStringLiteral("pid")};
    QList<LogLine> out;
    QList<QByteArray> lines = stderrBytes.split('\n');
    if (!stderrBytes.isEmpty() && !lines.constLast().isEmpty()) {
        *problem = who + QStringLiteral(": the last line has no newline");
        return {};
    }
    lines.removeLast();
    for (const QByteArray &line : std::as_const(lines)) {
        const auto refuse = [&](const QString &why) {
            *problem = QStringLiteral("%1: %2: %3").arg(who, why, QString::fromUtf8(line.left(400)));
            return QList<LogLine>();
        };
        QStringDecoder utf8(QStringDecoder::Utf8);
        [[maybe_unused]] const QString decoded = utf8(line);
        if (utf8.hasError())
            return refuse(QStringLiteral("not UTF-8"));
        const auto parsed = cs::StrictJson::parseObject(line);
        if (const auto *error = std::get_if<cs::StrictJson::Error>(&parsed))
            return refuse(QStringLiteral("not one JSON object (%1)").arg(error->message));
        const QJsonObject object = std::get<QJsonObject>(parsed);
        for (const QString &key : object.keys()) {
            if (!allowed.contains(key))
                return refuse(QStringLiteral("unexpected member %1").arg(key));
        }
        for (const char *member : {"time", "level", "category", "message"}) {
            const QJsonValue value = object.value(QLatin1String(member));
            if (!value.isString() || !value.toString().isValidUtf16())
                return refuse(QStringLiteral("member %1 is missing or not valid text").arg(QLatin1String(member)));
        }
        if (!rfc3339.match(object.value(QStringLiteral("time")).toString()).hasMatch())
            return refuse(QStringLiteral("time is not RFC 3339 UTC with milliseconds"));
        if (!levels.contains(object.value(QStringLiteral("level")).toString()))
            return refuse(QStringLiteral("unknown level"));
        if (!cs::StrictJson::isIntegerLiteral(object.value(QStringLiteral("pid")))
            || object.value(QStringLiteral("pid")).toInteger() != pid)
            return refuse(QStringLiteral("pid is not %1").arg(pid));
        if (object.contains(QStringLiteral("action")) && !object.value(QStringLiteral("action")).isString())
            return refuse(QStringLiteral("action is not a string"));
        out.append({object, object.value(QStringLiteral("category")).toString(),
                    object.value(QStringLiteral("message")).toString(), object.value(QStringLiteral("action")).toString()});
    }
    return out;
}

} // namespace

class TestApiLogs : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    QTemporaryDir m_dir;

    QString token(const QString &user) const { return m_harness.token(user); }
    QString writeFile(const QString &name, const QByteArray &content)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
            return QString();
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        return path;
    }
    // countersignd serve that stops at once: its exit code and stderr.
    QPair<int, QByteArray> serveFails(const QStringList &arguments)
    {
        QProcess p;
        p.start(ApiHarness::countersigndBinary(),
                QStringList{QStringLiteral("serve"), QStringLiteral("--db"), m_dir.filePath(QStringLiteral("unused.db"))} + arguments);
        if (!p.waitForFinished(10000)) {
            p.kill();
            p.waitForFinished();
            return {-1, QByteArray()};
        }
        return {p.exitCode(), p.readAllStandardError()};
    }

private slots:
    void initTestCase();
    void badFormatIsRefused();
    void aStopReasonIsJsonToo();
    void everyLineOfOneRefundCarriesItsId();
};

void TestApiLogs::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    // A category declared at warning shows info only when asked too: .debug=true alone leaves it off.
    environment.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("countersign.*.debug=true;countersign.*.info=true"));
    m_harness.countersignd().process().setProcessEnvironment(environment);
    m_harness.paysim().process().setProcessEnvironment(environment);

    const QString secretFile = writeFile(QStringLiteral("webhook.secret"), kSecret);
    const QString executionFile = writeFile(
        QStringLiteral("execution.json"),
        QJsonDocument(QJsonObject{{QStringLiteral("workers"), 2},
                                  {QStringLiteral("request_timeout_ms"), 3000},
                                  {QStringLiteral("lease_duration_ms"), 15000},
                                  {QStringLiteral("idle_poll_ms"), 50},
                                  {QStringLiteral("backoff_base_ms"), 100},
                                  {QStringLiteral("backoff_max_ms"), 500}})
            .toJson());
    // The format comes from the config file: the key is registered like every serve flag.
    const QString configFile = writeFile(QStringLiteral("countersignd.conf"),
                                         "# as a service would have it\nlog-format = json\n");
    QVERIFY(!secretFile.isEmpty() && !executionFile.isEmpty() && !configFile.isEmpty());
    ApiHarness::Options options;
    options.withPaysim = true;
    options.paysimArguments = {QStringLiteral("--log-format"), QStringLiteral("json")};
    options.extraServeArguments = {QStringLiteral("--webhook-secret-file"), secretFile, QStringLiteral("--execution-config"),
                                   executionFile, QStringLiteral("--config"), configFile};
    QString error;
    QVERIFY2(m_harness.start(options, &error), qPrintable(error));
    m_client = std::make_unique<ApiClient>(m_harness.api());
}

void TestApiLogs::badFormatIsRefused()
{
    const auto flag = serveFails({QStringLiteral("--log-format"), QStringLiteral("yaml")});
    QCOMPARE(flag.first, 2);
    QCOMPARE(flag.second, QByteArray("countersignd: --log-format expects text or json\n"));

    const QString config = writeFile(QStringLiteral("bad.conf"), "listen = 127.0.0.1:0\nlog-format = JSON\n");
    const auto file = serveFails({QStringLiteral("--config"), config});
    QCOMPARE(file.first, 2);
    QVERIFY2(file.second.contains(":2: --log-format expects text or json"), file.second.constData());
}

// What stops a start, said after the format is known, is a JSON line like the rest.
void TestApiLogs::aStopReasonIsJsonToo()
{
    const auto stopped = serveFails({QStringLiteral("--log-format"), QStringLiteral("json"), QStringLiteral("--listen"),
                                     QStringLiteral("nowhere \"x\"")});
    QCOMPARE(stopped.first, 2);
    QCOMPARE(stopped.second.count('\n'), 1);
    const auto parsed = cs::StrictJson::parseObject(stopped.second.trimmed());
    QVERIFY2(std::holds_alternative<QJsonObject>(parsed), stopped.second.constData());
    const QJsonObject object = std::get<QJsonObject>(parsed);
    QCOMPARE(object.value(QStringLiteral("level")).toString(), QStringLiteral("critical"));
    QCOMPARE(object.value(QStringLiteral("category")).toString(), QStringLiteral("countersignd"));
    QVERIFY(object.value(QStringLiteral("message")).toString().startsWith(QStringLiteral("--listen expects host:port")));
}

void TestApiLogs::everyLineOfOneRefundCarriesItsId()
{
    // Proposed on a fresh charge, approved, its answer lost: CONFIRMATION_UNKNOWN, then the
    // reconciler's lookup finds the refund: COMPLETED.
    const ApiReply charges = m_harness.sim("POST", QStringLiteral("/_sim/charges"),
                                           {{QStringLiteral("count"), 1}, {QStringLiteral("amount"), 4000}});
    QString charge;
    for (const char *member : {"data", "charges", "created"}) {
        const QJsonArray list = charges.json.value(QLatin1String(member)).toArray();
        if (!list.isEmpty())
            charge = list.first().toObject().value(QStringLiteral("id")).toString();
    }
    QVERIFY2(!charge.isEmpty(), charges.body.constData());
    const ApiReply fault = m_harness.sim("POST", QStringLiteral("/_sim/faults"),
                                         {{QStringLiteral("method"), QStringLiteral("POST")},
                                          {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                          {QStringLiteral("times"), 1},
                                          {QStringLiteral("fault"), QStringLiteral("drop_response_after_commit")}});
    QVERIFY2(fault.status == 200 || fault.status == 201, fault.body.constData());
    const ApiReply proposed = m_client->propose(token(QStringLiteral("agent-7")),
                                                ApiClient::proposal(QStringLiteral("logs-1"), 4000, charge));
    QCOMPARE(proposed.status, 201);
    const QString id = proposed.json.value(QStringLiteral("id")).toString();
    QVERIFY(id.startsWith(QStringLiteral("act_")));
    const ApiReply approved = m_client->approve(token(QStringLiteral("ana")), id, proposed.ifMatch(), "logs-approve-1");
    QCOMPARE(approved.status, 200);
    const auto state = [&] {
        return m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("aud")))
            .json.value(QStringLiteral("state")).toString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(state(), QStringLiteral("COMPLETED"), 20000);

    // The provider's webhook about it: one forged (refused before its body is read), one signed.
    const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("sam")));
    const QString refundId = detail.json.value(QStringLiteral("attempts")).toArray().last().toObject()
                                 .value(QStringLiteral("provider_object_id")).toString();
    const QJsonObject event{
        {QStringLiteral("id"), QStringLiteral("evt_logs_test_1")},
        {QStringLiteral("object"), QStringLiteral("event")},
        {QStringLiteral("type"), QStringLiteral("refund.updated")},
        {QStringLiteral("created"), QDateTime::currentSecsSinceEpoch()},
        {QStringLiteral("data"), QJsonObject{{QStringLiteral("object"), QJsonObject{
            {QStringLiteral("id"), refundId.isEmpty() ? QStringLiteral("re_logs") : refundId},
            {QStringLiteral("object"), QStringLiteral("refund")},
            {QStringLiteral("amount"), 4000}, {QStringLiteral("currency"), QStringLiteral("usd")},
            {QStringLiteral("status"), QStringLiteral("succeeded")}, {QStringLiteral("charge"), charge},
            {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("countersign_action_id"), id}}}}}}},
    };
    const QByteArray body = QJsonDocument(event).toJson(QJsonDocument::Compact);
    const QByteArray t = QByteArray::number(QDateTime::currentSecsSinceEpoch());
    const QByteArray v1 = QMessageAuthenticationCode::hash(t + '.' + body, kSecret, QCryptographicHash::Sha256).toHex();
    const ApiReply forged = m_client->postRaw(QStringLiteral("/webhooks/provider"), QString(), body,
                                              {{"Content-Type", "application/json"}, {"Stripe-Signature", "t=" + t + ",v1=" + QByteArray(64, 'a')}});
    QCOMPARE(forged.status, 400);
    const ApiReply accepted = m_client->postRaw(QStringLiteral("/webhooks/provider"), QString(), body,
                                                {{"Content-Type", "application/json"}, {"Stripe-Signature", "t=" + t + ",v1=" + v1}});
    QVERIFY2(accepted.status == 200, accepted.body.constData());

    const qint64 countersigndPid = m_harness.countersignd().process().processId();
    const qint64 paysimPid = m_harness.paysim().process().processId();
    QVERIFY(m_harness.countersignd().stop());
    QVERIFY(m_harness.paysim().stop());

    QString problem;
    const QList<LogLine> lines = readLog(m_harness.countersignd().standardError(), countersigndPid,
                                         QStringLiteral("countersignd"), &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    const QList<LogLine> paysimLines = readLog(m_harness.paysim().standardError(), paysimPid, QStringLiteral("paysim"), &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(std::any_of(paysimLines.cbegin(), paysimLines.cend(),
                        [](const LogLine &line) { return line.category == u"countersign.paysim"; }));

    // The lines of the four execution categories that are about no single action, and the
    // provider's reads of a charge (at proposal, before the action exists).
    static const QList<QRegularExpression> aboutNoAction = {
        QRegularExpression(QStringLiteral("^started \\d+ workers$")),
        QRegularExpression(QStringLiteral("^stopped$")),
        QRegularExpression(QStringLiteral("^committed \\d+ finishes and \\d+ claim requests$")),
        QRegularExpression(QStringLiteral("^(startup recovery|recovery sweep|approval expiry sweep):")),
        QRegularExpression(QStringLiteral("^\"GET\" \"/v1/(charges|payment_intents)/")),
        QRegularExpression(QStringLiteral("^charge \"")),
        QRegularExpression(QStringLiteral("^refused a webhook:")),
        QRegularExpression(QStringLiteral("^the secret key file .* is readable by other users")),
    };
    static const QSet<QString> execution = {QStringLiteral("countersign.executor"), QStringLiteral("countersign.reconciler"),
                                            QStringLiteral("countersign.provider"), QStringLiteral("countersign.webhook")};
    QHash<QString, int> aboutIt; // category → lines whose action is the refund's
    for (const LogLine &line : lines) {
        const QString shown = line.category + QStringLiteral(": ") + line.message;
        if (!line.action.isEmpty())
            QVERIFY2(line.action == id, qPrintable(QStringLiteral("action %1 in: %2").arg(line.action, shown)));
        if (line.message.contains(id)) {
            // The ledger's transaction lines ("acquireLease refused: conflict: act_… is leased by …")
            // name their operation, not an action: LedgerDatabase::write serves every operation,
            // a group commit many actions; the id is only quoted in the error they report.
            static const QRegularExpression transaction(QStringLiteral("^[A-Za-z.]+ (refused|rolled back)"));
            if (line.category == u"countersign.ledger" && line.action.isEmpty()
                && transaction.match(line.message).hasMatch())
                continue;
            QVERIFY2(line.action == id, qPrintable(QStringLiteral("names the action without `action`: ") + shown));
            ++aboutIt[line.category];
        } else if (execution.contains(line.category)) {
            const bool known = std::any_of(aboutNoAction.cbegin(), aboutNoAction.cend(),
                                           [&](const QRegularExpression &re) { return re.match(line.message).hasMatch(); });
            QVERIFY2(known, qPrintable(QStringLiteral("a line about an action without its id: ") + shown));
        }
    }
    // What this refund went through, each category in its own words.
    for (const QString &category : {QStringLiteral("countersign.api"), QStringLiteral("countersign.executor"),
                                    QStringLiteral("countersign.provider"), QStringLiteral("countersign.reconciler"),
                                    QStringLiteral("countersign.webhook")})
        QVERIFY2(aboutIt.value(category) > 0, qPrintable(QStringLiteral("no line of %1 about the action").arg(category)));
    const auto said = [&](const QString &category, const QString &words) {
        return std::any_of(lines.cbegin(), lines.cend(), [&](const LogLine &line) {
            return line.category == category && line.action == id && line.message.contains(words);
        });
    };
    QVERIFY(said(QStringLiteral("countersign.executor"), QStringLiteral("CONFIRMATION_UNKNOWN")));
    QVERIFY(said(QStringLiteral("countersign.reconciler"), QStringLiteral("-> \"completed\"")));
    QVERIFY(said(QStringLiteral("countersign.provider"), QStringLiteral("refund with key")));
    QVERIFY(said(QStringLiteral("countersign.provider"), QStringLiteral("/v1/refunds")));
    QVERIFY(said(QStringLiteral("countersign.api"), QStringLiteral("approved by")));
}

QTEST_GUILESS_MAIN(TestApiLogs)
#include "tst_api_logs.moc"
