#include "tests/chaos/chaosrun.h"

#include "demo/webhookrelay.h"
#include "server/ledger/ledger.h"
#include "server/policy/policy.h"

#include "models/settlement.h"

#include "tests/support/pgcluster.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>
#include <QUrlQuery>

#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include <signal.h>

#include <tuple>

namespace cs::chaos {

namespace {

constexpr auto SecretKey = "sk_test_countersign_chaos";
constexpr auto WebhookSecret = "whsec_countersign_chaos";

void out(const QString &line)
{
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

// Runs the event loop for ms (child processes' output keeps being read meanwhile).
void sleepMs(int ms)
{
    if (ms <= 0) {
        QCoreApplication::processEvents();
        return;
    }
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

struct HttpReply
{
    int status = 0;
    QByteArray body;
    QJsonObject json;
    QString error;
    bool replayed = false; // Idempotent-Replayed: true (countersignd's client idempotency)
};

class Http
{
public:
    HttpReply send(const QByteArray &verb, const QUrl &url, const QByteArray &body = {},
                   const QByteArray &contentType = "application/json", const QByteArray &idempotencyKey = {},
                   const QByteArray &bearer = SecretKey, const QByteArray &ifMatch = {})
    {
        QNetworkRequest request(url);
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        request.setRawHeader("Authorization", QByteArray("Bearer ") + bearer);
        if (!ifMatch.isEmpty())
            request.setRawHeader("If-Match", ifMatch);
        if (!body.isEmpty() || verb == "POST")
            request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
        if (!idempotencyKey.isEmpty())
            request.setRawHeader("Idempotency-Key", idempotencyKey);
        request.setTransferTimeout(10000);
        QNetworkReply *reply = m_nam.sendCustomRequest(request, verb, body);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        if (!reply->isFinished())
            loop.exec();
        HttpReply r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = reply->readAll();
        r.json = QJsonDocument::fromJson(r.body).object();
        r.replayed = reply->rawHeader("Idempotent-Replayed") == "true";
        if (reply->error() != QNetworkReply::NoError && r.status == 0)
            r.error = reply->errorString();
        reply->deleteLater();
        return r;
    }

private:
    QNetworkAccessManager m_nam;
};

QString excerpt(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes.left(300)).simplified();
}

// A refund of paysim's ground truth that failed or was canceled: it gave its amount back and
// will never move money — but it is still a refund the provider created.
bool moneyReturned(const QJsonObject &refund)
{
    const QString status = refund.value(QStringLiteral("status")).toString();
    return status == u"failed" || status == u"canceled";
}

struct Jump
{
    qint64 boundaryLedgerMs = 0; // attempts stamped before this started before the jump
};

// --postgres: one instance's SIGSTOP, and the leases it held then (action id -> worker id).
struct Stopped
{
    QString instance;   // "B2": name and generation
    qint64 auditSeqAtStop = 0;
    QHash<QString, QString> held;
    int holdMs = 0;
};

// One countersignd's stderr file (--postgres: kept, searched for the ledger's lease refusals).
struct InstanceLog
{
    QString instance; // "A1"
    QString path;
    bool stopped = false; // SIGSTOPped at some point
};

// The runs of one chaos process share one private cluster; each run gets its own database.
test::PgCluster &cluster()
{
    return test::PgCluster::shared();
}

class ChaosRun
{
public:
    explicit ChaosRun(const RunOptions &options)
        : m_options(options),
          m_schedule(scheduleFor(options.seed, options.actions, options.steps, options.viaApi, options.postgres)),
          m_apiRandom(options.seed ^ 0x5eedA91u),
          m_webhooks(options.viaApi
                     && (options.webhooks == RunOptions::Webhooks::On
                         || (options.webhooks == RunOptions::Webhooks::BySeed && webhooksFor(options.seed))))
    {
    }
    ~ChaosRun() { shutdown(); }

    RunResult run();

private:
    bool setUp();
    bool startPaysim();
    bool startExecutor(int index);
    void killExecutor(int index, bool whenBusy);
    int instanceCount() const { return m_options.postgres ? PostgresInstances : 2; }
    bool available(int index) const { return runningProcess(index) && !m_paused[index]; }
    bool anyAvailable() const;
    // --postgres.
    bool openLedger();
    bool setUpDatabase();
    QString instanceUri(int index) const;
    QHash<QString, QString> heldLeases(int index); // EXECUTING actions whose lease index's workers hold
    void stopInstance(const Step &step);
    void resumeInstance(int index, int generation);
    bool waitUntilResumed(int boundMs);
    void terminateBackends(const Step &step);
    bool restartDatabase(const Step &step);
    HttpReply probe(int index);
    void internalError(const QUrl &url, const HttpReply &reply);
    void checkFencing(const QHash<QString, QJsonArray> &refundsByAction, const QHash<QString, int> &postsByKey);
    void checkAuditRows();
    void dropDatabase();
    void stopExecutors();
    void shutdown();
    bool approve(int first, int count);
    bool runningProcess(int index) const;
    bool createUsers();
    QUrl apiUrl(const QString &path); // a running countersignd, chosen by m_apiRandom
    HttpReply apiPost(const QString &path, const QJsonObject &body, const QByteArray &key, const QByteArray &token,
                      const QByteArray &ifMatch = {});
    QJsonObject proposalBody(int index) const;
    void approveViaApi(int index);
    void checkNoUnexpectedExit();
    void proposeAgain(int index, const char *when);
    void flushDeferredApprovals();
    void approveExpiredAgain(); // without --via-api: an approval expired unsent is approved again
    bool clockJump(qint64 advanceMs);
    bool writeClockOffset(); // m_clockOffsetMs into the clock file the executors read
    // Issue 18.
    bool startRelay();     // paysim's webhooks -> the relay -> an available countersignd
    void retargetRelay();  // after an instance started or was killed, and after every step
    void waitForWebhooks(int boundMs); // until paysim retries no delivery, or the bound
    void countWebhooks();  // paysim's deliveries at the end, and what countersignd answered
    bool simClock(qint64 advanceMs);
    bool convergeSettlements();
    void sendSelfTestSettlement();
    HttpReply apiGet(const QString &path, const QByteArray &token);
    bool lookUpThroughApi(int index);
    int countState(ActionState state);
    bool settle();
    void sendSelfTestDuplicate();
    // Issue 14.
    void outsideRefund(const Step &step);
    bool recordChargeSnapshot(int actionIndex, QString *said); // ledger mode: read the charge, record it
    bool outsideLeftNoRoom(int actionIndex) const;             // an outside refund may have taken its room
    bool ledgerSeesNoRoom(int actionIndex);                    // its newest FOUND snapshot leaves it no room
    void checkProposalAfterOutside(int actionIndex);           // accepted: the ledger's view must have had room
    void twoAgents(const Step &step);
    void rejectViaApi(int index, qint64 stateVersion, const QString &why);
    QString agentName(int index) const;
    void check();
    QString checkSettlement(int index, const QString &id, const QJsonObject &refund); // invariant 11; its outcome words
    void violation(int invariant, const QString &text);
    QUrl simUrl(const QString &path) const;

    RunOptions m_options;
    Schedule m_schedule;
    RunResult m_result;
    QTemporaryDir m_dir;
    QString m_dbPath, m_keyFile, m_clockFile, m_stopFile;
    qint64 m_clockOffsetMs = 0;
    qint64 m_paysimAheadMs = 0; // paysim-only clock steps so far (simclock, skew, the settle's): paysim ahead of the ledger
    QList<Jump> m_jumps;
    Http m_http;
    std::unique_ptr<QProcess> m_paysim;
    std::unique_ptr<QProcess> m_executors[PostgresInstances];
    QByteArray m_executorOutput[PostgresInstances];
    int m_generation[PostgresInstances] = {0, 0, 0};
    QUrl m_baseUrl;
    QStringList m_chargeIds;        // by charge index
    QStringList m_paymentIntentIds; // by charge index
    QStringList m_actionIds; // index = planned action; empty until approved
    // --via-api: planned actions countersignd refused at the proposal (422 exceeds_refundable: it
    // read the charge and the refund does not fit); only over-the-charge and shared-charge ones may be.
    QSet<int> m_refusedAtProposal;
    std::unique_ptr<Ledger> m_ledger;
    QString m_selfTestAction;
    // --via-api: its own generator, so the schedule (and the other mode) draws exactly as before.
    QRandomGenerator m_apiRandom;
    QString m_executionConfigFile;
    QByteArray m_agentToken, m_approverToken;
    QByteArray m_supervisorToken; // issue 18: "look up now" on COMPLETED actions whose refund is unsettled
    QHash<QString, QJsonObject> m_apiSettlement; // --via-api: `settlement` as GET /api/v1/actions/{id} showed it
    QString m_selfTestSettlementRefund;
    bool m_webhooks = false; // --via-api, webhooksFor(seed) or --webhooks
    std::unique_ptr<demo::WebhookRelay> m_relay;
    int m_relayTarget = -1;  // the instance the relay forwards to (-1: none started yet)
    QString m_webhookSecretFile;
    QStringList m_webhookRefusals; // deliveries countersignd answered other than 200 or 503
    QUrl m_serverUrl[PostgresInstances];
    QList<int> m_deferred;     // planned actions whose approve step found no countersignd up
    QList<int> m_resendLater;  // planned actions whose proposal is resent once more before the settle
    bool m_exitReported[PostgresInstances] = {false, false, false};
    // --postgres.
    QString m_dbName;
    bool m_paused[PostgresInstances] = {false, false, false};
    QList<Stopped> m_stops;
    QList<InstanceLog> m_logs;
    QSet<QString> m_internalErrorReported;
    // Issue 14: the refunds made outside Countersign (by planned action), the two agents' step.
    struct Outside
    {
        qint64 requested = 0; // 0: the rest
        int variant = 0;
        QString stateThen;    // the action's state when it was sent
        int status = 0;       // paysim's last answer
        qint64 refunded = 0;  // its amount, when answered 200
        QString refundId;
        QString error;        // paysim's error code, or "no answer"
        QString read;         // what the read of the charge after it said
        bool mustNotSend = false; // read after it, no room, the action still unclaimed: never sent
        bool made = false;        // paysim's ground truth holds it (whatever the answers said)
    };
    QHash<int, Outside> m_outside;
    QByteArray m_agentBToken;
    std::optional<Step> m_twoAgentsDeferred; // no countersignd was up: at the settle
    QHash<int, QString> m_contested;         // planned action -> what its proposal was answered
    QSet<int> m_rejectedAtApproval;          // over the budget at the approval: rejected through the API
    bool m_twoAgentsReadFaulted = false;     // a read of their charge met a fault: its budget was not known
};

QUrl ChaosRun::simUrl(const QString &path) const
{
    QUrl url = m_baseUrl;
    const qsizetype q = path.indexOf(QLatin1Char('?'));
    url.setPath(q < 0 ? path : path.left(q));
    if (q >= 0)
        url.setQuery(path.mid(q + 1));
    return url;
}

void ChaosRun::violation(int invariant, const QString &text)
{
    const QString line = invariant > 0 ? QStringLiteral("invariant %1 violated: %2").arg(invariant).arg(text) : text;
    m_result.violations << line;
}

bool ChaosRun::startPaysim()
{
    m_paysim = std::make_unique<QProcess>();
    m_paysim->setProcessChannelMode(QProcess::SeparateChannels);
    if (!m_options.verbose)
        m_paysim->setStandardErrorFile(QProcess::nullDevice());
    else
        m_paysim->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QStringList arguments{QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--seed"),
                          QString::number(m_options.seed)};
    if (m_relay)
        arguments << QStringLiteral("--webhook-url") << m_relay->url().toString() << QStringLiteral("--webhook-secret")
                  << QString::fromLatin1(WebhookSecret);
    m_paysim->start(m_options.paysimBin, arguments);
    if (!m_paysim->waitForStarted(5000)) {
        out(QStringLiteral("cannot start paysim (%1): %2").arg(m_options.paysimBin, m_paysim->errorString()));
        return false;
    }
    QByteArray line;
    QElapsedTimer clock;
    clock.start();
    while (!line.contains('\n') && clock.elapsed() < 5000 && m_paysim->state() == QProcess::Running) {
        m_paysim->waitForReadyRead(200);
        line += m_paysim->readAllStandardOutput();
    }
    m_baseUrl = QUrl(QString::fromUtf8(line.left(line.indexOf('\n')).trimmed()));
    if (!m_baseUrl.isValid() || m_baseUrl.port() <= 0) {
        out(QStringLiteral("paysim did not say its URL: %1").arg(excerpt(line)));
        return false;
    }
    return true;
}

bool ChaosRun::openLedger()
{
    // The harness's own ledger handle, for its reads (and, without --via-api, its proposals).
    m_ledger = std::make_unique<Ledger>();
    Ledger::Options options;
    if (!m_options.postgres) {
        const QString clockPath = m_clockFile;
        options.clock = [clockPath] {
            qint64 offset = 0;
            QFile file(clockPath);
            if (file.open(QIODevice::ReadOnly))
                offset = file.readAll().trimmed().toLongLong();
            return QDateTime::currentDateTimeUtc().addMSecs(offset);
        };
    } // --postgres: no clock jumps; the ledger stamps the database's clock
    options.recoverExpiredLeasesOnOpen = false; // only the executors recover
    const LedgerError opened = m_ledger->open(
        m_options.postgres ? m_dbPath + QStringLiteral("?application_name=chaos-harness") : m_dbPath, options);
    if (!opened.ok()) {
        out(QStringLiteral("cannot open the ledger: %1").arg(opened.toString()));
        return false;
    }
    // Approval expiry (docs/POLICY.md): the harness approves under a policy whose one rule (every
    // action; one approver, as without a policy) lets an approval expire unsent after an hour, so a
    // clock jump (25 h and more) expires whatever is approved and not yet claimed then — the
    // claim and the executors' sweep record it, and the harness approves it again (a fresh key).
    auto policy = std::make_shared<Policy>();
    PolicyRule rule;
    rule.id = QStringLiteral("chaos-expiry");
    rule.requireApprovals = 1;
    rule.approvalExpiresAfterSeconds = 3600;
    policy->rules = {rule};
    policy->version = 1;
    m_ledger->approvals().setPolicy(policy);
    return true;
}

bool ChaosRun::setUp()
{
    if (!m_dir.isValid()) {
        out(QStringLiteral("no temporary directory"));
        return false;
    }
    m_dbPath = m_dir.filePath(QStringLiteral("ledger.db"));
    m_keyFile = m_dir.filePath(QStringLiteral("stripe.key"));
    m_clockFile = m_dir.filePath(QStringLiteral("clock-offset-ms"));
    m_stopFile = m_dir.filePath(QStringLiteral("stop"));
    QFile key(m_keyFile);
    if (!key.open(QIODevice::WriteOnly) || key.write(QByteArray(SecretKey) + '\n') < 0)
        return false;
    key.close();
    QFile clockFile(m_clockFile);
    if (!clockFile.open(QIODevice::WriteOnly) || clockFile.write("0\n") < 0)
        return false;
    clockFile.close();

    if (m_webhooks && !startRelay())
        return false;
    if (!startPaysim())
        return false;
    QJsonArray amounts;
    for (const qint64 amount : std::as_const(m_schedule.chargeAmounts))
        amounts.append(amount);
    const HttpReply charges = m_http.send("POST", simUrl(QStringLiteral("/_sim/charges")),
                                          QJsonDocument(QJsonObject{{QStringLiteral("amounts"), amounts}}).toJson());
    const QJsonArray data = charges.json.value(QStringLiteral("data")).toArray();
    if (charges.status != 200 || data.size() != amounts.size()) {
        out(QStringLiteral("paysim did not create the charges: %1 %2").arg(charges.status).arg(excerpt(charges.body)));
        return false;
    }
    for (const QJsonValue &c : data) {
        m_chargeIds << c.toObject().value(QStringLiteral("id")).toString();
        m_paymentIntentIds << c.toObject().value(QStringLiteral("payment_intent")).toString();
    }

    if (m_options.postgres && !setUpDatabase())
        return false;
    if (!openLedger())
        return false;
    for (int i = 0; i < m_schedule.actions.size(); ++i)
        m_actionIds << QString();
    if (m_options.viaApi) {
        // The same tuning as executor_child's where countersignd lets us set it. Its provider
        // adapter keeps its own 30 s deadline (no flag), so request_timeout_ms only sizes the
        // lease here: 1.5 s covers paysim's longest delay (1.2 s), and the lease is the
        // validated minimum 2 x 1.5 s + 1 s, after which a restarted process recovers the action.
        m_executionConfigFile = m_dir.filePath(QStringLiteral("execution.json"));
        // --postgres: executor_child's 300 ms and 1.6 s (the validated minimum for 300 ms), so that
        // a SIGSTOP of a few seconds outlasts the lease; paysim's delays past 300 ms are timeouts.
        const QJsonObject config{{QStringLiteral("workers"), 2},
                                 {QStringLiteral("request_timeout_ms"), m_options.postgres ? PostgresRequestTimeoutMs : 1500},
                                 {QStringLiteral("lease_duration_ms"), m_options.postgres ? PostgresLeaseMs : 4000},
                                 {QStringLiteral("idle_poll_ms"), 10},
                                 {QStringLiteral("recovery_sweep_ms"), 100},
                                 {QStringLiteral("backoff_base_ms"), 50},
                                 {QStringLiteral("backoff_max_ms"), 300},
                                 {QStringLiteral("max_busy_retries"), 3},
                                 {QStringLiteral("ambiguous_lookups"), 3},
                                 {QStringLiteral("max_reconcile_tries"), 8}};
        QFile file(m_executionConfigFile);
        if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(config).toJson()) < 0)
            return false;
        file.close();
        if (!createUsers())
            return false;
    }
    return true;
}

bool ChaosRun::createUsers()
{
    // countersignd user add NAME --role ROLE --db FILE prints the token as its last word.
    // agent-b-chaos: the second agent of the TwoAgents step.
    const QList<std::tuple<QString, QString, QByteArray *>> users{
        {QStringLiteral("agent-chaos"), QStringLiteral("agent"), &m_agentToken},
        {QStringLiteral("agent-b-chaos"), QStringLiteral("agent"), &m_agentBToken},
        {QStringLiteral("approver-chaos"), QStringLiteral("approver"), &m_approverToken},
        {QStringLiteral("supervisor-chaos"), QStringLiteral("supervisor"), &m_supervisorToken}};
    for (const auto &[name, role, token] : users) {
        QProcess add;
        add.setProcessChannelMode(QProcess::SeparateChannels);
        add.start(m_options.countersigndBin, {QStringLiteral("user"), QStringLiteral("add"), name,
                                              QStringLiteral("--role"), role, QStringLiteral("--db"), m_dbPath});
        const bool finished = add.waitForFinished(20000);
        const QByteArray said = add.readAllStandardOutput().trimmed();
        const QList<QByteArray> words = said.simplified().split(' ');
        *token = words.isEmpty() ? QByteArray() : words.last();
        if (!finished || add.exitCode() != 0 || !token->startsWith("cst_")) {
            out(QStringLiteral("countersignd user add %1 failed: %2 %3")
                    .arg(role, excerpt(said), excerpt(add.readAllStandardError())));
            return false;
        }
    }
    return true;
}

bool ChaosRun::runningProcess(int index) const
{
    return m_executors[index] && m_executors[index]->state() == QProcess::Running;
}

bool ChaosRun::startExecutor(int index)
{
    if (m_executors[index] && m_executors[index]->state() != QProcess::NotRunning)
        return true;
    auto process = std::make_unique<QProcess>();
    process->setProcessChannelMode(m_options.verbose ? QProcess::ForwardedErrorChannel : QProcess::SeparateChannels);
    if (m_options.postgres) {
        // Kept in a file (never a pipe a blocked harness could fill): the lease refusals are
        // searched for there after the run.
        const QString instance = executorName(index) + QString::number(m_generation[index] + 1);
        m_logs << InstanceLog{instance, m_dir.filePath(QStringLiteral("countersignd-%1.log").arg(instance)), false};
        process->setProcessChannelMode(QProcess::SeparateChannels);
        process->setStandardErrorFile(m_logs.last().path);
    } else if (!m_options.verbose) {
        process->setStandardErrorFile(QProcess::nullDevice());
    }
    m_executorOutput[index].clear();
    QProcess *raw = process.get();
    QObject::connect(raw, &QProcess::readyReadStandardOutput, raw, [this, raw, index] {
        const QByteArray chunk = raw->readAllStandardOutput();
        m_executorOutput[index] += chunk;
        if (m_options.verbose)
            out(QStringLiteral("    [%1] %2").arg(executorName(index), QString::fromUtf8(chunk).trimmed()));
    });
    ++m_generation[index];
    m_exitReported[index] = false;
    const QString name = executorName(index) + QString::number(m_generation[index]);
    if (m_options.viaApi) {
        // countersignd serve: API + executor + reconciler; recovers expired leases on start and
        // prints its URL as its first line once it listens.
        QStringList arguments{QStringLiteral("serve"), QStringLiteral("--db"), m_options.postgres ? instanceUri(index) : m_dbPath,
                              QStringLiteral("--listen"),
                              QStringLiteral("127.0.0.1:0"), QStringLiteral("--provider"), QStringLiteral("paysim"),
                              QStringLiteral("--provider-url"), m_baseUrl.toString(), QStringLiteral("--provider-key-file"),
                              m_keyFile, QStringLiteral("--execution-config"), m_executionConfigFile};
        if (m_relay)
            arguments << QStringLiteral("--webhook-secret-file") << m_webhookSecretFile;
        process->start(m_options.countersigndBin, arguments);
        if (!process->waitForStarted(5000)) {
            out(QStringLiteral("cannot start %1: %2").arg(m_options.countersigndBin, process->errorString()));
            return false;
        }
        m_executors[index] = std::move(process);
        QElapsedTimer clock;
        clock.start();
        while (!m_executorOutput[index].contains('\n') && clock.elapsed() < 10000 && raw->state() == QProcess::Running)
            sleepMs(5);
        const QByteArray &said = m_executorOutput[index];
        m_serverUrl[index] = QUrl(QString::fromUtf8(said.left(said.indexOf('\n')).trimmed()));
        if (!said.contains('\n') || !m_serverUrl[index].isValid() || m_serverUrl[index].port() <= 0) {
            out(QStringLiteral("countersignd %1 did not say its URL: %2").arg(name, excerpt(said)));
            return false;
        }
        ++m_result.starts;
        retargetRelay();
        return true;
    }
    process->start(m_options.childBin, {QStringLiteral("--db"), m_dbPath,
                                        QStringLiteral("--provider-url"), m_baseUrl.toString(),
                                        QStringLiteral("--key-file"), m_keyFile,
                                        QStringLiteral("--clock-file"), m_clockFile,
                                        QStringLiteral("--stop-file"), m_stopFile,
                                        QStringLiteral("--name"), name,
                                        QStringLiteral("--workers"), QStringLiteral("2"),
                                        // Short timeouts, leases and backoffs: many rounds in seconds.
                                        QStringLiteral("--timeout-ms"), QStringLiteral("300"),
                                        QStringLiteral("--lease-ms"), QStringLiteral("1600"),
                                        QStringLiteral("--backoff-max-ms"), QStringLiteral("300"),
                                        QStringLiteral("--max-busy-retries"), QStringLiteral("3"),
                                        QStringLiteral("--ambiguous-lookups"), QStringLiteral("3")});
    if (!process->waitForStarted(5000)) {
        out(QStringLiteral("cannot start %1: %2").arg(m_options.childBin, process->errorString()));
        return false;
    }
    m_executors[index] = std::move(process);
    // Wait until its workers run (start() recovers expired leases first), so that a kill soon
    // after does hit a working executor.
    QElapsedTimer clock;
    clock.start();
    while (!m_executorOutput[index].contains("started") && clock.elapsed() < 5000
           && raw->state() == QProcess::Running) {
        sleepMs(5);
    }
    if (!m_executorOutput[index].contains("started")) {
        out(QStringLiteral("executor %1 did not start: %2").arg(name, excerpt(m_executorOutput[index])));
        return false;
    }
    ++m_result.starts;
    return true;
}

void ChaosRun::killExecutor(int index, bool whenBusy)
{
    QProcess *process = m_executors[index].get();
    if (!process || process->state() == QProcess::NotRunning)
        return;
    if (whenBusy) {
        // Aim at a request in flight: the other executor's action counts too, which is fine
        // (the lease and recovery must cope either way).
        QElapsedTimer clock;
        clock.start();
        while (countState(ActionState::Executing) == 0 && clock.elapsed() < 400)
            sleepMs(1);
    }
    if (countState(ActionState::Executing) > 0)
        ++m_result.killsWithWorkInFlight;
    process->kill(); // SIGKILL: no stop, no rollback (a SIGSTOPped process dies as well)
    process->waitForFinished(5000);
    m_paused[index] = false;
    m_exitReported[index] = true; // ours
    ++m_result.kills;
    retargetRelay();
}

void ChaosRun::stopExecutors()
{
    if (m_options.viaApi) {
        // SIGTERM drains countersignd: the executor records what is in flight, then exit 0.
        for (int i = 0; i < instanceCount(); ++i) {
            QProcess *process = m_executors[i].get();
            if (!runningProcess(i))
                continue;
            process->terminate();
            QElapsedTimer clock;
            clock.start();
            while (process->state() != QProcess::NotRunning && clock.elapsed() < 8000)
                sleepMs(20);
            if (process->state() != QProcess::NotRunning) {
                violation(0, QStringLiteral("countersignd %1 did not stop within 8 s of SIGTERM").arg(executorName(i)));
                process->kill();
                process->waitForFinished(5000);
            } else if (process->exitStatus() != QProcess::NormalExit || process->exitCode() != 0) {
                violation(0, QStringLiteral("countersignd %1 exited with %2 after SIGTERM%3")
                                 .arg(executorName(i))
                                 .arg(process->exitCode())
                                 .arg(process->exitStatus() == QProcess::CrashExit ? QStringLiteral(" (crashed: signal)")
                                                                                   : QString()));
            }
        }
        return;
    }
    QFile stop(m_stopFile);
    if (stop.open(QIODevice::WriteOnly))
        stop.close();
    for (auto &process : m_executors) {
        if (!process || process->state() == QProcess::NotRunning)
            continue;
        QElapsedTimer clock;
        clock.start();
        while (process->state() != QProcess::NotRunning && clock.elapsed() < 8000)
            sleepMs(20);
        if (process->state() != QProcess::NotRunning) {
            violation(0, QStringLiteral("an executor did not stop within 8 s of its stop signal"));
            process->kill();
            process->waitForFinished(5000);
        }
    }
    QFile::remove(m_stopFile);
}

void ChaosRun::shutdown()
{
    for (auto &process : m_executors) {
        if (process && process->state() != QProcess::NotRunning) {
            process->kill();
            process->waitForFinished(5000);
        }
        process.reset();
    }
    if (m_paysim && m_paysim->state() != QProcess::NotRunning) {
        m_paysim->terminate();
        if (!m_paysim->waitForFinished(5000)) {
            m_paysim->kill();
            m_paysim->waitForFinished(5000);
        }
    }
    m_paysim.reset();
    m_ledger.reset();
}

bool ChaosRun::approve(int first, int count)
{
    if (m_options.viaApi) {
        for (int i = first; i < first + count; ++i) {
            if (!anyAvailable()) {
                m_deferred << i; // no API up: the next start (or the settle) does it
                ++m_result.deferredApprovals;
                continue;
            }
            approveViaApi(i);
        }
        return true;
    }
    for (int i = first; i < first + count; ++i) {
        const PlannedAction &planned = m_schedule.actions.at(i);
        ProposalStore::ProposalInput input;
        input.targetType = planned.viaPaymentIntent ? TargetType::PaymentIntent : TargetType::Charge;
        input.targetId = planned.viaPaymentIntent ? m_paymentIntentIds.at(planned.charge) : m_chargeIds.at(planned.charge);
        input.businessReference = QStringLiteral("order-%1-%2").arg(m_options.seed).arg(i + 1);
        input.amount = planned.amount;
        input.currency = QStringLiteral("usd");
        input.reason = QStringLiteral("requested_by_customer");
        input.clientReference = QStringLiteral("chaos-%1").arg(i + 1);
        input.provider = QStringLiteral("paysim");
        const auto proposed = m_ledger->proposals().propose(input, QStringLiteral("agent-chaos"));
        if (!proposed.ok() && proposed.error().code() == LedgerError::Code::OverBudget) {
            // The ledger holds a snapshot of the charge (recorded after a refund made outside
            // Countersign): the budget check at the proposal refuses what no longer fits.
            m_refusedAtProposal.insert(i);
            if (!outsideLeftNoRoom(i))
                violation(2, QStringLiteral("#%1 (%2 usd, on a charge that holds it) refused at the proposal: %3")
                                 .arg(i + 1).arg(planned.amount).arg(proposed.error().toString()));
            else
                out(QStringLiteral("  #%1 refused at the proposal: over budget (%2)").arg(i + 1).arg(proposed.error().message()));
            continue;
        }
        if (!proposed.ok()) {
            out(QStringLiteral("propose #%1 failed: %2").arg(i + 1).arg(proposed.error().toString()));
            return false;
        }
        const auto approved = m_ledger->approvals().approve(proposed->record.id, QStringLiteral("approver-chaos"), QStringLiteral("chaos"),
                                                proposed->record.stateVersion);
        if (!approved.ok()) {
            out(QStringLiteral("approve #%1 failed: %2").arg(i + 1).arg(approved.error().toString()));
            return false;
        }
        m_actionIds[i] = approved->id;
        checkProposalAfterOutside(i);
    }
    return true;
}

QUrl ChaosRun::apiUrl(const QString &path)
{
    int index = runningProcess(0) ? 0 : 1;
    if (m_options.postgres) {
        QList<int> up; // running and not SIGSTOPped
        for (int i = 0; i < instanceCount(); ++i) {
            if (available(i))
                up << i;
        }
        index = up.isEmpty() ? 0 : up.at(up.size() > 1 ? static_cast<int>(m_apiRandom.bounded(static_cast<quint32>(up.size()))) : 0);
    } else if (runningProcess(0) && runningProcess(1)) {
        index = static_cast<int>(m_apiRandom.bounded(2)); // proposals and approvals land on either process
    }
    QUrl url = m_serverUrl[index];
    url.setPath(path);
    return url;
}

HttpReply ChaosRun::apiPost(const QString &path, const QJsonObject &body, const QByteArray &key, const QByteArray &token,
                            const QByteArray &ifMatch)
{
    // A client that lost an answer resends the same request with the same key: that is the
    // contract (docs/API.md). Only "nothing was written" answers are retried: no answer at all,
    // 409 idempotency_key_in_flight and 5xx (Retry-After is short; 100 ms is enough here).
    HttpReply reply;
    for (int attempt = 0; attempt < 20; ++attempt) {
        if (!anyAvailable())
            break;
        const QUrl url = apiUrl(path);
        reply = m_http.send("POST", url, QJsonDocument(body).toJson(QJsonDocument::Compact), "application/json",
                            key, token, ifMatch);
        if (m_options.postgres && reply.status >= 500 && reply.status != 503)
            internalError(url, reply);
        const bool inFlight = reply.status == 409
            && reply.json.value(QStringLiteral("code")).toString() == u"idempotency_key_in_flight";
        if (reply.status != 0 && !inFlight && reply.status < 500)
            break;
        sleepMs(100);
    }
    return reply;
}

QJsonObject ChaosRun::proposalBody(int i) const
{
    const PlannedAction &planned = m_schedule.actions.at(i);
    if (planned.contested) {
        // The two agents' refunds: one charge, one order, a reference each.
        return {{QStringLiteral("kind"), QStringLiteral("refund")},
                {QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), m_chargeIds.at(planned.charge)}}},
                {QStringLiteral("amount"), planned.amount},
                {QStringLiteral("currency"), QStringLiteral("usd")},
                {QStringLiteral("reason"), QStringLiteral("requested_by_customer")},
                {QStringLiteral("client_reference"), QStringLiteral("chaos-two-%1-%2").arg(m_options.seed).arg(i + 1)},
                {QStringLiteral("business_reference"), QStringLiteral("order-%1-two-agents").arg(m_options.seed)}};
    }
    QJsonObject target;
    target.insert(planned.viaPaymentIntent ? QStringLiteral("payment_intent") : QStringLiteral("charge"),
                  planned.viaPaymentIntent ? m_paymentIntentIds.at(planned.charge) : m_chargeIds.at(planned.charge));
    return {{QStringLiteral("kind"), QStringLiteral("refund")},
            {QStringLiteral("target"), target},
            {QStringLiteral("amount"), planned.amount},
            {QStringLiteral("currency"), QStringLiteral("usd")},
            {QStringLiteral("reason"), QStringLiteral("requested_by_customer")},
            {QStringLiteral("client_reference"), QStringLiteral("chaos-%1").arg(i + 1)},
            {QStringLiteral("business_reference"), QStringLiteral("order-%1-%2").arg(m_options.seed).arg(i + 1)}};
}

void ChaosRun::approveViaApi(int i)
{
    const QJsonObject proposal = proposalBody(i);
    const QByteArray proposeKey = QStringLiteral("chaos-%1-propose-%2").arg(m_options.seed).arg(i + 1).toLatin1();
    const HttpReply proposed = apiPost(QStringLiteral("/api/v1/actions"), proposal, proposeKey, m_agentToken);
    const QString id = proposed.json.value(QStringLiteral("id")).toString();
    const PlannedAction &planned = m_schedule.actions.at(i);
    if (proposed.status == 422 && proposed.json.value(QStringLiteral("code")).toString() == u"exceeds_refundable") {
        // The budget check at the proposal (issue 14): right for a refund over the charge and for
        // the second of a pair on one charge, a violation for any other.
        if (planned.overRefund || planned.sharedCharge || outsideLeftNoRoom(i)) {
            m_refusedAtProposal.insert(i);
            out(QStringLiteral("  #%1 refused at the proposal: exceeds_refundable (available %2, requested %3)")
                    .arg(i + 1)
                    .arg(proposed.json.value(QStringLiteral("available")).toInteger())
                    .arg(proposed.json.value(QStringLiteral("requested")).toInteger()));
        } else {
            violation(2, QStringLiteral("#%1 (%2 usd, on a charge that holds it) refused at the proposal: %3")
                             .arg(i + 1).arg(planned.amount).arg(excerpt(proposed.body)));
        }
        return;
    }
    if (proposed.status != 201 || id.isEmpty()) {
        violation(0, QStringLiteral("api: proposing #%1 answered %2 %3")
                         .arg(i + 1)
                         .arg(proposed.status)
                         .arg(excerpt(proposed.body + proposed.error.toUtf8())));
        return;
    }
    m_actionIds[i] = id;
    checkProposalAfterOutside(i);
    // Some proposals are resent at once (the agent lost the answer), some again before the settle,
    // after kills and executions: each must replay the first answer, never create an action.
    const quint32 roll = m_apiRandom.bounded(100);
    if (roll < 30)
        proposeAgain(i, "at once");
    else if (roll < 50)
        m_resendLater << i;

    const QJsonObject approval{{QStringLiteral("note"), QStringLiteral("chaos")}};
    const QByteArray approveKey = QStringLiteral("chaos-%1-approve-%2").arg(m_options.seed).arg(i + 1).toLatin1();
    const qint64 version = proposed.json.value(QStringLiteral("state_version")).toInteger();
    const QByteArray ifMatch = '"' + QByteArray::number(version) + '"';
    const QString path = QStringLiteral("/api/v1/actions/%1/approvals").arg(id);
    const HttpReply approved = apiPost(path, approval, approveKey, m_approverToken, ifMatch);
    if (approved.status == 422 && approved.json.value(QStringLiteral("code")).toString() == u"exceeds_refundable"
        && outsideLeftNoRoom(i)) {
        rejectViaApi(i, version, QStringLiteral("over the budget at the approval after a refund made outside Countersign"));
        return;
    }
    if (approved.status != 200) {
        violation(0, QStringLiteral("api: approving #%1 %2 answered %3 %4")
                         .arg(i + 1)
                         .arg(id)
                         .arg(approved.status)
                         .arg(excerpt(approved.body + approved.error.toUtf8())));
        return;
    }
    if (m_apiRandom.bounded(100) < 20) {
        // The approver's console lost the answer: the same request, stale If-Match and all.
        ++m_result.resentApprovals;
        const HttpReply again = apiPost(path, approval, approveKey, m_approverToken, ifMatch);
        if (again.status != 200 || !again.replayed
            || again.json.value(QStringLiteral("approval")) != approved.json.value(QStringLiteral("approval")))
            violation(0, QStringLiteral("api: resent approval of #%1 %2 was not replayed: %3 replayed=%4 %5")
                             .arg(i + 1).arg(id).arg(again.status).arg(again.replayed).arg(excerpt(again.body)));
    }
}

void ChaosRun::proposeAgain(int i, const char *when)
{
    // The same request with the same client key (and the same client_reference).
    const QJsonObject proposal = proposalBody(i);
    const QByteArray key = QStringLiteral("chaos-%1-propose-%2").arg(m_options.seed).arg(i + 1).toLatin1();
    ++m_result.resentProposals;
    const HttpReply again = apiPost(QStringLiteral("/api/v1/actions"), proposal, key, m_agentToken);
    const QString id = again.json.value(QStringLiteral("id")).toString();
    if (again.replayed)
        ++m_result.replayedProposals;
    if ((again.status != 201 && again.status != 200) || id != m_actionIds.at(i))
        violation(5, QStringLiteral("#%1 %2: its proposal resent (%3) with the same Idempotency-Key answered %4 with action %5 %6")
                         .arg(i + 1).arg(m_actionIds.at(i), QString::fromLatin1(when)).arg(again.status).arg(id)
                         .arg(id.isEmpty() ? excerpt(again.body + again.error.toUtf8()) : QString()));
    else if (!again.replayed && m_options.verbose)
        out(QStringLiteral("  note: resent proposal #%1 answered %2 without Idempotent-Replayed").arg(i + 1).arg(again.status));
}

void ChaosRun::flushDeferredApprovals()
{
    const QList<int> deferred = std::exchange(m_deferred, {});
    for (const int i : deferred)
        approveViaApi(i);
}

void ChaosRun::approveExpiredAgain()
{
    if (m_options.viaApi)
        return;
    // Expired: PENDING with its approval_version approved once, and no key now. The approver
    // approves again, as the console asks; the ledger mints a fresh key.
    for (int i = 0; i < m_actionIds.size(); ++i) {
        const QString &id = m_actionIds.at(i);
        if (id.isEmpty())
            continue;
        const auto action = m_ledger->reader().action(id);
        if (!action.ok() || action->state != ActionState::Pending || action->approvalVersion <= 0
            || !action->idempotencyKey.isEmpty())
            continue;
        const auto again = m_ledger->approvals().approve(id, QStringLiteral("approver-chaos"),
                                                         QStringLiteral("chaos: approved again after expiry"),
                                                         action->stateVersion);
        if (again.ok()) {
            ++m_result.reapproved;
            out(QStringLiteral("  #%1 %2: approval v%3 expired unsent; approved again (v%4, key %5)")
                    .arg(i + 1).arg(id).arg(action->approvalVersion).arg(again->approvalVersion).arg(again->idempotencyKey));
        }
    }
}

bool ChaosRun::clockJump(qint64 advanceMs)
{
    // Our side first: for a moment we believe the window is over while paysim still keeps the
    // keys (the safe direction). The children read the file on every clock call.
    const qint64 before = QDateTime::currentMSecsSinceEpoch() + m_clockOffsetMs;
    m_clockOffsetMs += advanceMs;
    if (!writeClockOffset())
        return false;
    m_jumps << Jump{before + advanceMs / 2};
    sleepMs(50);
    const HttpReply moved = m_http.send("POST", simUrl(QStringLiteral("/_sim/clock")),
                                        QJsonDocument(QJsonObject{{QStringLiteral("advance_ms"), advanceMs}}).toJson());
    if (moved.status != 200) {
        out(QStringLiteral("paysim clock refused: %1 %2").arg(moved.status).arg(excerpt(moved.body)));
        return false;
    }
    ++m_result.clockJumps;
    return true;
}

bool ChaosRun::writeClockOffset()
{
    QFile clockFile(m_clockFile + QStringLiteral(".new"));
    if (!clockFile.open(QIODevice::WriteOnly) || clockFile.write(QByteArray::number(m_clockOffsetMs) + '\n') < 0)
        return false;
    clockFile.close();
    QFile::remove(m_clockFile);
    return QFile::rename(m_clockFile + QStringLiteral(".new"), m_clockFile);
}

bool ChaosRun::anyAvailable() const
{
    for (int i = 0; i < instanceCount(); ++i) {
        if (available(i))
            return true;
    }
    return false;
}

bool ChaosRun::setUpDatabase()
{
    // One private cluster per chaos process (started on first use, stopped at exit), a fresh
    // database per run. A run that ended while the database was down leaves it stopped.
    test::PgCluster &pg = cluster();
    if (!pg.isRunning() && (pg.port() == 0 || !pg.startAgain())) {
        out(QStringLiteral("no private PostgreSQL cluster: %1").arg(pg.errorString()));
        return false;
    }
    static int serial = 0;
    m_dbName = QStringLiteral("chaos_%1_%2").arg(m_options.seed).arg(++serial);
    m_dbPath = pg.createDatabase(m_dbName);
    if (m_dbPath.isEmpty()) {
        out(QStringLiteral("cannot create database %1: %2").arg(m_dbName, pg.errorString()));
        return false;
    }
    return true;
}

QString ChaosRun::instanceUri(int index) const
{
    // Its own application_name, so that pg_terminate_backend can aim at one instance.
    return m_dbPath + QStringLiteral("?application_name=chaos-") + executorName(index);
}

void ChaosRun::dropDatabase()
{
    const auto dropped = cluster().psql(QStringLiteral("postgres"),
                                        QStringLiteral("DROP DATABASE IF EXISTS %1 WITH (FORCE);").arg(m_dbName));
    if (!dropped.ok)
        out(QStringLiteral("note: could not drop database %1: %2").arg(m_dbName, dropped.error));
}

QHash<QString, QString> ChaosRun::heldLeases(int index)
{
    // Worker ids are "<instance name>-w<n>@host:pid#serial"; countersignd names itself
    // "countersignd-<pid>".
    QHash<QString, QString> held;
    if (!m_executors[index])
        return held;
    const QString prefix = QStringLiteral("countersignd-%1-").arg(m_executors[index]->processId());
    ActionReader::ListQuery query;
    query.states = {ActionState::Executing};
    query.limit = 200;
    const auto page = m_ledger->reader().list(query);
    if (!page.ok())
        return held;
    for (const ActionReader::Summary &row : page->rows) {
        const auto info = m_ledger->reader().executionInfo(row.record.id);
        if (info.ok() && info->leaseOwner.startsWith(prefix) && info->record.state == ActionState::Executing)
            held.insert(row.record.id, info->leaseOwner);
    }
    return held;
}

void ChaosRun::stopInstance(const Step &step)
{
    int i = step.executor;
    if (step.whenBusy) {
        // Aim at the fencing case: an instance that holds the lease of an action it is executing
        // (the scheduled one if it does, else whichever does first), <= 1 s.
        QElapsedTimer clock;
        clock.start();
        bool found = false;
        while (!found && clock.elapsed() < 1000) {
            for (int k = 0; k < instanceCount() && !found; ++k) {
                const int candidate = (step.executor + k) % instanceCount();
                if (available(candidate) && !heldLeases(candidate).isEmpty()) {
                    i = candidate;
                    found = true;
                }
            }
            if (!found)
                sleepMs(2);
        }
    }
    if (!available(i)) {
        out(QStringLiteral("  (SIGSTOP %1 skipped: not running, or already stopped)").arg(executorName(i)));
        return;
    }
    const auto seq = m_ledger->reader().latestAuditSeq();
    ::kill(static_cast<pid_t>(m_executors[i]->processId()), SIGSTOP);
    m_paused[i] = true;
    // What it held is whatever it held at the SIGSTOP: read after it.
    const QHash<QString, QString> atStop = heldLeases(i);
    const QString instance = executorName(i) + QString::number(m_generation[i]);
    for (InstanceLog &log : m_logs) {
        if (log.instance == instance)
            log.stopped = true;
    }
    m_stops << Stopped{instance, seq.ok() ? seq.value() : 0, atStop, step.holdMs};
    ++m_result.stops;
    if (!atStop.isEmpty())
        ++m_result.stopsHoldingLease;
    QStringList ids = atStop.keys();
    ids.sort();
    out(QStringLiteral("  SIGSTOP %1 for %2 ms, holding the lease of [%3]").arg(instance).arg(step.holdMs).arg(ids.join(QLatin1Char(','))));
    const int generation = m_generation[i];
    QTimer::singleShot(step.holdMs, [this, i, generation] { resumeInstance(i, generation); });
}

void ChaosRun::resumeInstance(int index, int generation)
{
    // Runs from whatever event loop the harness is in: only the signal, nothing that waits.
    if (!m_paused[index] || m_generation[index] != generation || !runningProcess(index))
        return;
    ::kill(static_cast<pid_t>(m_executors[index]->processId()), SIGCONT);
    m_paused[index] = false;
}

bool ChaosRun::waitUntilResumed(int boundMs)
{
    QElapsedTimer clock;
    clock.start();
    auto anyPaused = [this] {
        for (int i = 0; i < instanceCount(); ++i) {
            if (m_paused[i] && runningProcess(i))
                return true;
        }
        return false;
    };
    while (anyPaused() && clock.elapsed() < boundMs)
        sleepMs(20);
    return !anyPaused();
}

void ChaosRun::terminateBackends(const Step &step)
{
    const int i = step.executor;
    if (!runningProcess(i)) {
        out(QStringLiteral("  (pg_terminate_backend of %1 skipped: not running)").arg(executorName(i)));
        return;
    }
    if (step.whenBusy) {
        QElapsedTimer clock;
        clock.start();
        while (countState(ActionState::Executing) == 0 && clock.elapsed() < 400)
            sleepMs(1);
    }
    const int ended = cluster().terminateBackends(m_dbName, QStringLiteral("chaos-") + executorName(i));
    ++m_result.terminations;
    if (ended > 0)
        m_result.backendsTerminated += ended;
    out(QStringLiteral("  pg_terminate_backend: %1 connection(s) of %2%3")
            .arg(ended)
            .arg(executorName(i) + QString::number(m_generation[i]))
            .arg(m_paused[i] ? QStringLiteral(" (stopped)") : QString()));
}

void ChaosRun::internalError(const QUrl &url, const HttpReply &reply)
{
    // --postgres: an instance that cannot reach its database must say 503 (Unavailable), and one
    // that can must not fail; a 500 is neither (the client resends, and the run goes on).
    ++m_result.internalErrors;
    int index = 0;
    for (int i = 0; i < instanceCount(); ++i)
        index = m_serverUrl[i].port() == url.port() ? i : index;
    const QString instance = executorName(index) + QString::number(m_generation[index]);
    if (m_internalErrorReported.contains(instance))
        return;
    m_internalErrorReported.insert(instance);
    violation(6, QStringLiteral("%1 answered POST %2 with %3 (first of this instance; a client resends): %4")
                     .arg(instance, url.path())
                     .arg(reply.status)
                     .arg(excerpt(reply.body)));
}

HttpReply ChaosRun::probe(int index)
{
    QUrl url = m_serverUrl[index];
    url.setPath(QStringLiteral("/api/v1/actions"));
    url.setQuery(QStringLiteral("limit=1"));
    return m_http.send("GET", url, {}, "application/json", {}, m_approverToken);
}

bool ChaosRun::restartDatabase(const Step &step)
{
    test::PgCluster &pg = cluster();
    const bool stopped = step.immediate ? pg.stopImmediate() : pg.stop();
    if (!stopped) {
        out(QStringLiteral("cannot stop the database: %1").arg(pg.errorString()));
        return false;
    }
    ++m_result.dbRestarts;
    QElapsedTimer down;
    down.start();
    // While it is down the API must say 503 (Unavailable), never 500 or an answer from nowhere.
    QStringList said;
    for (int i = 0; i < instanceCount(); ++i) {
        if (!available(i))
            continue;
        const HttpReply reply = probe(i);
        said << QStringLiteral("%1=%2").arg(executorName(i)).arg(reply.status);
        if (reply.status == 503) {
            ++m_result.unavailableAnswers;
        } else {
            violation(6, QStringLiteral("while the database was down, %1 answered GET /api/v1/actions with %2 (expected 503): %3")
                             .arg(executorName(i) + QString::number(m_generation[i]))
                             .arg(reply.status)
                             .arg(excerpt(reply.body + reply.error.toUtf8())));
        }
    }
    sleepMs(static_cast<int>(std::max<qint64>(0, step.holdMs - down.elapsed())));
    if (!pg.startAgain()) {
        out(QStringLiteral("cannot start the database again: %1").arg(pg.errorString()));
        return false;
    }
    const qint64 downMs = down.elapsed();
    // The harness reads through a ledger of its own: a fresh one, so that what it reads after the
    // restart never depends on how that handle survived it (the instances' handles are under test).
    if (!openLedger())
        return false;
    // And every instance answers again, by itself: none is restarted for it.
    QElapsedTimer clock;
    clock.start();
    QStringList recovered;
    for (int i = 0; i < instanceCount(); ++i) {
        if (!available(i))
            continue; // a stopped one is checked by the rest of the run (and the settle)
        HttpReply reply = probe(i);
        while (reply.status != 200 && clock.elapsed() < 15000 && runningProcess(i)) {
            sleepMs(50);
            reply = probe(i);
        }
        if (reply.status == 200) {
            ++m_result.recoveries;
            recovered << QStringLiteral("%1 in %2 ms").arg(executorName(i)).arg(clock.elapsed());
        } else {
            violation(6, QStringLiteral("%1 did not answer 200 within 15 s of the database restart without being restarted "
                                        "(last answer %2: %3)")
                             .arg(executorName(i) + QString::number(m_generation[i]))
                             .arg(reply.status)
                             .arg(excerpt(reply.body + reply.error.toUtf8())));
        }
    }
    out(QStringLiteral("  database down %1 ms (%2); while down: [%3]; answering again: [%4]")
            .arg(downMs)
            .arg(step.immediate ? QStringLiteral("immediate") : QStringLiteral("fast"))
            .arg(said.join(QLatin1Char(' ')), recovered.join(QStringLiteral(", "))));
    return true;
}

void ChaosRun::checkFencing(const QHash<QString, QJsonArray> &refundsByAction, const QHash<QString, int> &postsByKey)
{
    // The ledger's refusals, from the instances' logs: the executor says which action (first, as
    // every line about one action), which worker and why (Qt quotes both).
    static const QRegularExpression refusal(
        QStringLiteral("\"(act_[A-Za-z0-9]+)\" (?:attempt \\d+ could not be recorded by|lease lost by|not sent by) \"([^\"]+)\"([^\n]*)"));
    QHash<QString, QStringList> refusedBy; // action -> worker ids refused
    for (const InstanceLog &log : std::as_const(m_logs)) {
        QFile file(log.path);
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QString text = QString::fromUtf8(file.readAll());
        m_result.lostCommits += static_cast<int>(text.count(QLatin1String("lost the answer to COMMIT")));
        for (auto it = refusal.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            const QString why = m.captured(3);
            const bool lease = why.contains(QLatin1String("no longer holds the lease"));
            const bool finished = why.contains(QLatin1String("is already finished"));
            if (!lease && !finished)
                continue; // e.g. the database was down: not a refusal
            ++(lease ? m_result.leaseRefusals : m_result.finishedRefusals);
            if (log.stopped)
                ++m_result.refusalsAfterStop;
            refusedBy[m.captured(1)] << m.captured(2);
        }
    }
    // Every action a stopped instance held: after another owner took it over, the stopped
    // worker wrote nothing for it until it got a new lease of its own (a claim, or a reconciler
    // round: the ledger grants those only when no one else holds a live lease), and it was
    // refunded at most once.
    for (const Stopped &stop : std::as_const(m_stops)) {
        for (auto it = stop.held.cbegin(); it != stop.held.cend(); ++it) {
            const QString &actionId = it.key();
            const QString &worker = it.value();
            ++m_result.fencedActions;
            const auto audit = m_ledger->reader().audit(actionId);
            const auto action = m_ledger->reader().action(actionId);
            if (!audit.ok() || !action.ok()) {
                violation(0, QStringLiteral("%1 unreadable from the ledger").arg(actionId));
                continue;
            }
            QString takenOverBy;
            QString lateWrite;
            bool reclaimed = false;
            for (const AuditEvent &e : audit.value()) {
                if (e.seq <= stop.auditSeqAtStop || reclaimed)
                    continue;
                if (e.actor == worker && (e.event == u"claimed" || e.event == u"lease_acquired")) {
                    // A fresh lease of its own (a claim, a reconciler round), before or after
                    // anybody else wrote: the ledger grants one only when no one else holds a
                    // live lease, so what the worker writes under it is legitimate. (The
                    // reconciler's look-ups under that lease are written by "reconciler".)
                    reclaimed = true;
                    continue;
                }
                if (e.actor != worker) {
                    if (takenOverBy.isEmpty())
                        takenOverBy = QStringLiteral("%1 %2 (seq %3)").arg(e.actor, e.event).arg(e.seq);
                    continue;
                }
                if (!takenOverBy.isEmpty() && lateWrite.isEmpty())
                    lateWrite = QStringLiteral("%1 at seq %2").arg(e.event).arg(e.seq);
            }
            const int refunds = static_cast<int>(refundsByAction.value(actionId).size());
            const int posts = postsByKey.value(action->idempotencyKey);
            const bool refused = refusedBy.value(actionId).contains(worker);
            if (!lateWrite.isEmpty())
                violation(7, QStringLiteral("%1, stopped past its lease, recorded %2 for %3 after %4 had taken it over")
                                 .arg(worker, lateWrite, actionId, takenOverBy));
            // Invariant 1 counts the refunds of every action; said here again for the fenced ones.
            const int index = static_cast<int>(m_actionIds.indexOf(actionId));
            out(QStringLiteral("  fencing: %1 stopped %2 ms holding #%3 %4: %5; then %6; %7 provider refund(s), %8 POST(s) under its key, %9")
                    .arg(stop.instance)
                    .arg(stop.holdMs)
                    .arg(index + 1)
                    .arg(actionId)
                    .arg(refused ? QStringLiteral("its late write refused")
                                 : QStringLiteral("no late write of it refused in the log"))
                    .arg(takenOverBy.isEmpty() ? QStringLiteral("nobody else wrote it") : QStringLiteral("taken over by ") + takenOverBy)
                    .arg(refunds)
                    .arg(posts)
                    .arg(toWire(action->state)));
        }
    }
}

void ChaosRun::checkAuditRows()
{
    // The harness's own look at the chain, in SQL beside `countersignd audit verify`: seqs 1..N
    // without a gap, the first row on 64 zeros, every row on the hash of the one before, and no
    // two rows on the same predecessor (a fork).
    const auto result = cluster().psql(
        m_dbName,
        QStringLiteral("SELECT count(*), coalesce(min(seq), 0), coalesce(max(seq), 0), count(DISTINCT prev_hash),"
                       " (SELECT count(*) FROM audit a JOIN audit b ON b.seq = a.seq + 1 WHERE b.prev_hash <> a.hash),"
                       " (SELECT count(*) FROM audit WHERE seq = 1 AND prev_hash = repeat('0', 64))"
                       " FROM audit;"));
    const QStringList f = result.output.trimmed().split(QLatin1Char('|'));
    if (!result.ok || f.size() != 6) {
        violation(4, QStringLiteral("the audit table could not be read with psql: %1 %2").arg(result.output, result.error));
        return;
    }
    const qint64 rows = f.at(0).toLongLong();
    const qint64 first = f.at(1).toLongLong();
    const qint64 last = f.at(2).toLongLong();
    const qint64 predecessors = f.at(3).toLongLong();
    const qint64 brokenLinks = f.at(4).toLongLong();
    const qint64 genesis = f.at(5).toLongLong();
    if (rows == 0 || first != 1 || last != rows || predecessors != rows || brokenLinks != 0 || genesis != 1)
        violation(4, QStringLiteral("audit rows (psql): %1 rows, seq %2..%3, %4 distinct prev_hash, %5 broken links, "
                                    "first row on zeros: %6")
                         .arg(rows).arg(first).arg(last).arg(predecessors).arg(brokenLinks).arg(genesis));
    else
        out(QStringLiteral("audit (psql): %1 rows, seq 1..%1 without a gap, each on the hash of the one before, no fork").arg(rows));
}

void ChaosRun::checkNoUnexpectedExit()
{
    // A countersignd that the harness did not kill must still be serving.
    for (int i = 0; i < instanceCount(); ++i) {
        if (m_executors[i] && !runningProcess(i) && !m_exitReported[i]) {
            m_exitReported[i] = true;
            violation(0, QStringLiteral("countersignd %1 exited on its own (%2, exit %3): %4")
                             .arg(executorName(i))
                             .arg(m_executors[i]->exitStatus() == QProcess::CrashExit ? QStringLiteral("crash") : QStringLiteral("normal"))
                             .arg(m_executors[i]->exitCode())
                             .arg(excerpt(m_executorOutput[i])));
        }
    }
}

int ChaosRun::countState(ActionState state)
{
    const auto counts = m_ledger->reader().counts(QString());
    return counts.ok() ? static_cast<int>(counts->value(state)) : 0;
}

bool ChaosRun::settle()
{
    const HttpReply cleared = m_http.send("DELETE", simUrl(QStringLiteral("/_sim/faults")));
    if (cleared.status != 200) {
        out(QStringLiteral("paysim did not clear faults: %1").arg(cleared.status));
        return false;
    }
    // --postgres: every SIGSTOP runs its course (past the lease) before the settle counts.
    if (m_options.postgres && !waitUntilResumed(PostgresLeaseMs + 5000)) {
        out(QStringLiteral("an instance was not resumed (SIGCONT) in time"));
        return false;
    }
    bool anyRunning = false;
    for (int i = 0; i < instanceCount(); ++i)
        anyRunning = anyRunning || runningProcess(i);
    if (!anyRunning && !startExecutor(0))
        return false;
    if (m_options.viaApi) {
        flushDeferredApprovals();
        if (const std::optional<Step> deferred = std::exchange(m_twoAgentsDeferred, std::nullopt))
            twoAgents(*deferred);
        for (const int i : std::exchange(m_resendLater, {}))
            proposeAgain(i, "later");
    }
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < m_options.settleMs) {
        approveExpiredAgain();
        const auto counts = m_ledger->reader().counts(QString());
        if (counts.ok()) {
            const qint64 open = counts->value(ActionState::Pending) + counts->value(ActionState::Executing)
                + counts->value(ActionState::ConfirmationUnknown);
            if (open == 0)
                break;
        }
        sleepMs(50);
    }
    out(QStringLiteral("settle: %1 ms").arg(clock.elapsed()));
    return true;
}

void ChaosRun::sendSelfTestDuplicate()
{
    // The harness's own proof that it can fail: a second refund for an action with a fresh key,
    // sent straight to paysim as a buggy executor would. The checks must report it.
    int chosen = -1;
    for (int i = 0; i < m_actionIds.size() && chosen < 0; ++i) {
        const auto action = m_ledger->reader().action(m_actionIds.at(i));
        if (action.ok() && action->state == ActionState::Completed && !m_schedule.actions.at(i).sharedCharge
            && !m_schedule.actions.at(i).contested && !m_outside.contains(i))
            chosen = i;
    }
    for (int i = 0; i < m_actionIds.size() && chosen < 0; ++i) {
        if (!m_schedule.actions.at(i).overRefund && !m_schedule.actions.at(i).sharedCharge
            && !m_schedule.actions.at(i).contested && !m_outside.contains(i) && !m_actionIds.at(i).isEmpty())
            chosen = i;
    }
    if (chosen < 0)
        return;
    m_selfTestAction = m_actionIds.at(chosen);
    QUrlQuery form;
    form.addQueryItem(QStringLiteral("charge"), m_chargeIds.at(m_schedule.actions.at(chosen).charge));
    form.addQueryItem(QStringLiteral("amount"), QString::number(m_schedule.actions.at(chosen).amount));
    form.addQueryItem(QStringLiteral("metadata[countersign_action_id]"), m_selfTestAction);
    const QByteArray key = QByteArray("chaos-self-test-") + QByteArray::number(m_options.seed);
    const HttpReply reply = m_http.send("POST", simUrl(QStringLiteral("/v1/refunds")),
                                        form.query(QUrl::FullyEncoded).toUtf8(), "application/x-www-form-urlencoded", key);
    out(QStringLiteral("self-test: sent a second refund for #%1 %2 with fresh key %3 -> HTTP %4")
            .arg(chosen + 1)
            .arg(m_selfTestAction, QString::fromLatin1(key))
            .arg(reply.status));
    if (m_options.viaApi) {
        // And what a resent proposal that the API failed to replay would leave: a second action
        // for the same planned refund (under another client reference). Invariant 5 must see it.
        const PlannedAction &planned = m_schedule.actions.at(chosen);
        ProposalStore::ProposalInput input;
        input.targetId = m_chargeIds.at(planned.charge);
        input.businessReference = QStringLiteral("order-%1-%2").arg(m_options.seed).arg(chosen + 1);
        input.amount = planned.amount;
        input.currency = QStringLiteral("usd");
        input.reason = QStringLiteral("requested_by_customer");
        input.clientReference = QStringLiteral("chaos-self-test-%1").arg(chosen + 1);
        input.provider = QStringLiteral("paysim");
        const auto twin = m_ledger->proposals().propose(input, QStringLiteral("agent-chaos"));
        out(QStringLiteral("self-test: proposed a second action for #%1 behind the API's back -> %2")
                .arg(chosen + 1)
                .arg(twin.ok() ? twin->record.id : twin.error().toString()));
    }
}

bool ChaosRun::startRelay()
{
    // paysim learns its webhook URL when it starts, before any countersignd has a port (they
    // need paysim's URL), and instances come and go: so paysim posts to a relay in the harness,
    // which forwards each delivery as received to one running instance (a load balancer that
    // knows which processes are alive, not which are SIGSTOPped) and hands its answer back.
    // Before the first start it answers 503, after a kill with none left the dead instance's
    // "no answer" is 502: paysim delivers again (1 s, 2 s, 4 s, ... 6 attempts in all).
    m_webhookSecretFile = m_dir.filePath(QStringLiteral("webhook-secret"));
    QFile secret(m_webhookSecretFile);
    if (!secret.open(QIODevice::WriteOnly) || secret.write(QByteArray(WebhookSecret) + '\n') < 0)
        return false;
    secret.close();
    m_relay = std::make_unique<demo::WebhookRelay>();
    QString error;
    if (!m_relay->listen(&error)) {
        out(error);
        return false;
    }
    m_relay->setForwarding(true);
    QObject::connect(m_relay.get(), &demo::WebhookRelay::delivered, m_relay.get(),
                     [this](int status, const QByteArray &body) {
                         ++m_result.webhookAnswers[status];
                         // 503: the ledger was busy or unreachable, nothing stored (paysim retries).
                         // Anything else but 200 is countersignd refusing or failing a real event.
                         if (status != 0 && status != 200 && status != 503)
                             m_webhookRefusals << QStringLiteral("%1 %2").arg(status).arg(excerpt(body));
                     });
    ++m_result.webhookRuns;
    return true;
}

void ChaosRun::retargetRelay()
{
    if (!m_relay)
        return;
    // The same instance while it runs (its URL: a restart of the same letter has a new port),
    // else the first one running.
    for (int k = 0; k < instanceCount(); ++k) {
        const int i = m_relayTarget >= 0 ? (m_relayTarget + k) % instanceCount() : k;
        if (runningProcess(i)) {
            m_relayTarget = i;
            m_relay->setTarget(m_serverUrl[i]);
            return;
        }
    }
    // None is running: deliveries go to the last one and get no answer (502: paysim retries).
}

void ChaosRun::waitForWebhooks(int boundMs)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < boundMs) {
        const HttpReply deliveries = m_http.send("GET", simUrl(QStringLiteral("/_sim/webhooks")));
        bool pending = deliveries.status != 200;
        for (const QJsonValue &v : deliveries.json.value(QStringLiteral("data")).toArray())
            pending = pending || v.toObject().value(QStringLiteral("state")).toString() == u"pending";
        if (!pending)
            return;
        sleepMs(100);
    }
}

void ChaosRun::countWebhooks()
{
    const HttpReply deliveries = m_http.send("GET", simUrl(QStringLiteral("/_sim/webhooks")));
    const QJsonArray data = deliveries.json.value(QStringLiteral("data")).toArray();
    for (const QJsonValue &v : data) {
        const QString state = v.toObject().value(QStringLiteral("state")).toString();
        m_result.webhooksDelivered += state == u"delivered" ? 1 : 0;
        m_result.webhooksGaveUp += state == u"failed" ? 1 : 0;
        m_result.webhooksPending += state == u"pending" ? 1 : 0;
    }
    for (const QString &refusal : std::as_const(m_webhookRefusals))
        violation(0, QStringLiteral("countersignd answered a webhook delivery %1").arg(refusal));
    QStringList answers;
    for (auto it = m_result.webhookAnswers.cbegin(); it != m_result.webhookAnswers.cend(); ++it)
        answers << QStringLiteral("%1×%2").arg(it.key() == 0 ? QStringLiteral("no answer") : QString::number(it.key())).arg(it.value());
    out(QStringLiteral("webhooks: paysim sent %1 event(s): delivered %2, given up %3, still retried %4; countersignd answered [%5]")
            .arg(data.size())
            .arg(m_result.webhooksDelivered)
            .arg(m_result.webhooksGaveUp)
            .arg(m_result.webhooksPending)
            .arg(answers.join(QStringLiteral(", "))));
}

bool ChaosRun::simClock(qint64 advanceMs)
{
    // The provider's clock alone: refunds a refund_settles rule left pending settle at paysim when
    // it passes their time; Countersign learns it by its own means (look-ups), later.
    const HttpReply moved = m_http.send("POST", simUrl(QStringLiteral("/_sim/clock")),
                                        QJsonDocument(QJsonObject{{QStringLiteral("advance_ms"), advanceMs}}).toJson());
    if (moved.status != 200) {
        out(QStringLiteral("paysim clock refused: %1 %2").arg(moved.status).arg(excerpt(moved.body)));
        return false;
    }
    ++m_result.simClockSteps;
    m_paysimAheadMs += advanceMs; // clock jumps move both clocks; this moves paysim's alone
    return true;
}

HttpReply ChaosRun::apiGet(const QString &path, const QByteArray &token)
{
    HttpReply reply;
    for (int attempt = 0; attempt < 20 && anyAvailable(); ++attempt) {
        reply = m_http.send("GET", apiUrl(path), {}, "application/json", {}, token);
        if (reply.status != 0 && reply.status < 500)
            break;
        sleepMs(100);
    }
    return reply;
}

bool ChaosRun::lookUpThroughApi(int i)
{
    // A supervisor's "look up now" (POST /actions/{id}/lookups, If-Match the version just read):
    // on a COMPLETED action it moves the settlement. 412: the action moved meanwhile, read again.
    const QString id = m_actionIds.at(i);
    const QString path = QStringLiteral("/api/v1/actions/%1").arg(id);
    for (int tries = 0; tries < 3; ++tries) {
        const HttpReply read = apiGet(path, m_supervisorToken);
        if (read.status != 200)
            break;
        const QByteArray ifMatch = '"' + QByteArray::number(read.json.value(QStringLiteral("state_version")).toInteger()) + '"';
        const QByteArray key = QStringLiteral("chaos-%1-settle-lookup-%2-%3").arg(m_options.seed).arg(i + 1).arg(tries).toLatin1();
        const HttpReply looked = apiPost(path + QStringLiteral("/lookups"), QJsonObject(), key, m_supervisorToken, ifMatch);
        if (looked.status == 200) {
            ++m_result.apiLookups;
            return true;
        }
        if (looked.status != 412) {
            violation(0, QStringLiteral("api: look-up of #%1 %2 answered %3 %4")
                             .arg(i + 1).arg(id).arg(looked.status).arg(excerpt(looked.body + looked.error.toUtf8())));
            return false;
        }
    }
    violation(0, QStringLiteral("api: look-up of #%1 %2 not possible (the action kept moving, or no answer)").arg(i + 1).arg(id));
    return false;
}

bool ChaosRun::convergeSettlements()
{
    // 1. paysim's clock past every settlement it has scheduled (ground truth: settles_at_ms).
    const HttpReply truth = m_http.send("GET", simUrl(QStringLiteral("/_sim/refunds")));
    const HttpReply now = m_http.send("GET", simUrl(QStringLiteral("/_sim/clock")));
    if (truth.status != 200 || now.status != 200) {
        out(QStringLiteral("paysim's ground truth or clock unavailable (%1, %2)").arg(truth.status).arg(now.status));
        return false;
    }
    qint64 last = 0;
    for (const QJsonValue &v : truth.json.value(QStringLiteral("data")).toArray())
        last = std::max(last, v.toObject().value(QStringLiteral("settles_at_ms")).toInteger());
    const qint64 advance = last - now.json.value(QStringLiteral("now_ms")).toInteger() + 1000;
    if (last > 0 && advance > 0) {
        if (!simClock(advance))
            return false;
        --m_result.simClockSteps; // the settle's, counted apart
        ++m_result.settleClockMoves;
    }
    // With webhooks: the events of those settlements (and any delivery still being retried)
    // reach countersignd first, as they would in production; look-ups only for what they did
    // not settle. Bounded: a delivery that failed a few times waits up to 16 s for its next try.
    QElapsedTimer webhookClock;
    webhookClock.start();
    if (m_relay)
        waitForWebhooks(20000);
    const qint64 webhookMs = webhookClock.elapsed();

    // 2. The COMPLETED actions whose refund the ledger has not seen settle.
    QList<int> unsettled;
    for (int i = 0; i < m_actionIds.size(); ++i) {
        if (m_actionIds.at(i).isEmpty())
            continue;
        const auto action = m_ledger->reader().action(m_actionIds.at(i));
        if (!action.ok() || action->state != ActionState::Completed)
            continue;
        const auto settlement = m_ledger->reader().settlement(m_actionIds.at(i));
        if (settlement.ok() && *settlement && (*settlement)->isSettled())
            continue;
        unsettled << i;
    }
    QElapsedTimer clock;
    clock.start();
    if (!m_options.viaApi && !unsettled.isEmpty()) {
        // The executors' reconcilers follow them by scheduled look-ups: the first one minute after
        // completion on the ledger's clock, then every 5 min doubling to 6 h (ExecutionConfig
        // defaults; executor_child takes no flag for them). Every action is final now, so the
        // ledger clocks may jump: 6 h and 2 min makes every check due at once.
        m_clockOffsetMs += 6 * 3600 * 1000LL + 120 * 1000LL;
        if (!writeClockOffset())
            return false;
        QList<int> waiting = unsettled;
        while (!waiting.isEmpty() && clock.elapsed() < 15000) {
            sleepMs(50);
            waiting.removeIf([this](int i) {
                const auto settlement = m_ledger->reader().settlement(m_actionIds.at(i));
                return settlement.ok() && *settlement && (*settlement)->isSettled();
            });
        }
    } else if (m_options.viaApi) {
        // countersignd runs on the system clock: its first scheduled look-up would come a real
        // minute after completion. A supervisor asks instead, through the API, for each.
        for (const int i : std::as_const(unsettled))
            lookUpThroughApi(i);
        // What the API shows of every COMPLETED action's settlement, for the checks.
        for (int i = 0; i < m_actionIds.size(); ++i) {
            if (m_actionIds.at(i).isEmpty())
                continue;
            const HttpReply read = apiGet(QStringLiteral("/api/v1/actions/%1").arg(m_actionIds.at(i)), m_supervisorToken);
            if (read.status == 200 && read.json.value(QStringLiteral("state")).toString() == u"COMPLETED")
                m_apiSettlement.insert(m_actionIds.at(i), read.json.value(QStringLiteral("settlement")).toObject());
        }
    }
    out(QStringLiteral("settlements: paysim's clock %1%5; %2 COMPLETED action(s) unsettled in the ledger, %3 (%4 ms)")
            .arg(m_result.settleClockMoves > 0 ? QStringLiteral("moved %1 s to pass every scheduled settlement").arg(advance / 1000)
                                               : QStringLiteral("not moved (no settlement scheduled)"))
            .arg(unsettled.size())
            .arg(unsettled.isEmpty()      ? QStringLiteral("nothing to follow")
                 : m_options.viaApi       ? QStringLiteral("looked up through the API")
                                          : QStringLiteral("the ledger clocks +6 h 2 min for the reconcilers' scheduled look-ups"))
            .arg(clock.elapsed())
            .arg(m_relay ? QStringLiteral(", its webhooks delivered (%1 ms)").arg(webhookMs) : QString()));
    return true;
}

void ChaosRun::sendSelfTestSettlement()
{
    // The harness's proof that invariant 11 can fail: a COMPLETED action's refund that succeeded
    // is failed at paysim behind Countersign's back, once its settlement has converged — what a
    // follower that stopped looking (or a lost refund.failed webhook) would leave.
    const HttpReply truth = m_http.send("GET", simUrl(QStringLiteral("/_sim/refunds")));
    for (const QJsonValue &v : truth.json.value(QStringLiteral("data")).toArray()) {
        const QJsonObject refund = v.toObject();
        const QString actionId = refund.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("countersign_action_id")).toString();
        if (actionId.isEmpty() || refund.value(QStringLiteral("status")).toString() != u"succeeded")
            continue;
        const auto action = m_ledger->reader().action(actionId);
        if (!action.ok() || action->state != ActionState::Completed)
            continue;
        m_selfTestSettlementRefund = refund.value(QStringLiteral("id")).toString();
        const HttpReply failed = m_http.send(
            "POST", simUrl(QStringLiteral("/_sim/refunds/%1").arg(m_selfTestSettlementRefund)),
            QJsonDocument(QJsonObject{{QStringLiteral("status"), QStringLiteral("failed")},
                                      {QStringLiteral("failure_reason"), QStringLiteral("lost_or_stolen_card")}})
                .toJson());
        out(QStringLiteral("self-test: failed refund %1 of %2 at paysim behind Countersign's back -> HTTP %3")
                .arg(m_selfTestSettlementRefund, actionId)
                .arg(failed.status));
        return;
    }
    out(QStringLiteral("self-test: no COMPLETED action with a succeeded refund to fail"));
}

QString ChaosRun::agentName(int i) const
{
    return m_schedule.actions.at(i).agent == 1 ? QStringLiteral("agent-b-chaos") : QStringLiteral("agent-chaos");
}

bool ChaosRun::outsideLeftNoRoom(int i) const
{
    // Whether a refund made outside Countersign left planned action i no room: paysim's ground
    // truth holds it (read right after it was sent) and with it the action no longer fits.
    const auto it = m_outside.constFind(i);
    if (it == m_outside.cend() || !it->made)
        return false;
    const qint64 captured = m_schedule.chargeAmounts.at(m_schedule.actions.at(i).charge);
    return it->refunded + m_schedule.actions.at(i).amount > captured;
}

bool ChaosRun::ledgerSeesNoRoom(int i)
{
    const PlannedAction &planned = m_schedule.actions.at(i);
    const auto shown = m_ledger->charges().shown(planned.viaPaymentIntent ? TargetType::PaymentIntent : TargetType::Charge,
                                                 planned.viaPaymentIntent ? m_paymentIntentIds.at(planned.charge)
                                                                          : m_chargeIds.at(planned.charge));
    if (!shown.ok() || !shown.value() || shown.value()->snapshot.result != ChargeSnapshot::Result::Found)
        return false;
    const ChargeSnapshot &s = shown.value()->snapshot;
    return s.amountCaptured - s.amountRefunded < planned.amount;
}

void ChaosRun::checkProposalAfterOutside(int i)
{
    // 9. A proposal made after an outside refund took its room, accepted although the ledger's
    // newest FOUND view of the charge (the proposal's own read, or one recorded before) shows it:
    // the budget check at the proposal should have refused it.
    if (m_outside.contains(i) && outsideLeftNoRoom(i) && ledgerSeesNoRoom(i))
        violation(9, QStringLiteral("#%1 %2 accepted at the proposal although the ledger's view of its charge leaves no room for %3 usd")
                         .arg(i + 1).arg(m_actionIds.at(i)).arg(m_schedule.actions.at(i).amount));
}

bool ChaosRun::recordChargeSnapshot(int i, QString *said)
{
    // Without --via-api nothing reads charges for the ledger: the harness does what countersignd's
    // charge look-up does — GET /v1/charges/{id}?expand[]=refunds, recorded as a FOUND snapshot of
    // the action's target (a payment intent names its charge) — so that the claim's budget check
    // has the provider's newer view.
    const PlannedAction &planned = m_schedule.actions.at(i);
    const QString chargeId = m_chargeIds.at(planned.charge);
    const HttpReply read = m_http.send("GET", simUrl(QStringLiteral("/v1/charges/%1?expand[]=refunds").arg(chargeId)));
    if (read.status != 200) {
        *said = QStringLiteral("charge read answered %1 (a fault?): nothing recorded").arg(read.status);
        return false;
    }
    const QJsonObject c = read.json;
    ChargeSnapshot snapshot;
    snapshot.targetType = planned.viaPaymentIntent ? TargetType::PaymentIntent : TargetType::Charge;
    snapshot.targetId = planned.viaPaymentIntent ? m_paymentIntentIds.at(planned.charge) : chargeId;
    snapshot.chargeId = chargeId;
    snapshot.paymentIntentId = c.value(QStringLiteral("payment_intent")).toString();
    snapshot.askedBy = QStringLiteral("supervisor-chaos");
    snapshot.readAt = QDateTime::currentDateTimeUtc().addMSecs(m_clockOffsetMs);
    snapshot.result = ChargeSnapshot::Result::Found;
    snapshot.httpStatus = 200;
    snapshot.amount = c.value(QStringLiteral("amount")).toInteger();
    snapshot.amountCaptured = c.value(QStringLiteral("amount_captured")).toInteger();
    snapshot.amountRefunded = c.value(QStringLiteral("amount_refunded")).toInteger();
    snapshot.currency = c.value(QStringLiteral("currency")).toString();
    snapshot.created = QDateTime::fromSecsSinceEpoch(c.value(QStringLiteral("created")).toInteger(), Qt::UTC);
    const QJsonObject card = c.value(QStringLiteral("payment_method_details")).toObject().value(QStringLiteral("card")).toObject();
    snapshot.paymentMethodBrand = card.value(QStringLiteral("brand")).toString();
    snapshot.paymentMethodLast4 = card.value(QStringLiteral("last4")).toString();
    snapshot.disputed = c.value(QStringLiteral("disputed")).toBool();
    for (const QJsonValue &v : c.value(QStringLiteral("refunds")).toObject().value(QStringLiteral("data")).toArray()) {
        const QJsonObject r = v.toObject();
        ChargeSnapshot::Refund refund;
        refund.id = r.value(QStringLiteral("id")).toString();
        refund.amount = r.value(QStringLiteral("amount")).toInteger();
        refund.status = r.value(QStringLiteral("status")).toString();
        refund.created = QDateTime::fromSecsSinceEpoch(r.value(QStringLiteral("created")).toInteger(), Qt::UTC);
        refund.actionId = r.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("countersign_action_id")).toString();
        snapshot.refunds << refund;
    }
    const auto recorded = m_ledger->charges().record(snapshot);
    if (!recorded.ok()) {
        *said = QStringLiteral("snapshot not recorded: %1").arg(recorded.error().toString());
        return false;
    }
    *said = QStringLiteral("snapshot recorded (captured %1, refunded %2)").arg(snapshot.amountCaptured).arg(snapshot.amountRefunded);
    return true;
}

void ChaosRun::outsideRefund(const Step &step)
{
    // A person in the provider's dashboard refunds the charge: its own API key, its own
    // idempotency key, no Countersign metadata (a note of ours, so the checks can tell it from an
    // action's refund by metadata). Fault rules on POST /v1/refunds meet it like any request.
    const int i = step.first;
    const PlannedAction &planned = m_schedule.actions.at(i);
    auto stateNow = [this, i] {
        if (m_actionIds.at(i).isEmpty())
            return m_refusedAtProposal.contains(i) ? QStringLiteral("refused at the proposal") : QStringLiteral("not proposed yet");
        const auto action = m_ledger->reader().action(m_actionIds.at(i));
        return action.ok() ? toWire(action->state) : QStringLiteral("unreadable");
    };
    if (step.variant == Step::OutsideInFlight) {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 400 && stateNow() == u"PENDING")
            sleepMs(1);
    }
    Outside o;
    o.requested = step.amount;
    o.variant = step.variant;
    o.stateThen = stateNow();
    QUrlQuery form;
    form.addQueryItem(QStringLiteral("charge"), m_chargeIds.at(planned.charge));
    if (step.amount > 0)
        form.addQueryItem(QStringLiteral("amount"), QString::number(step.amount));
    form.addQueryItem(QStringLiteral("reason"), QStringLiteral("requested_by_customer"));
    form.addQueryItem(QStringLiteral("metadata[note]"), QStringLiteral("chaos outside refund %1-%2").arg(m_options.seed).arg(i + 1));
    const QByteArray key = QStringLiteral("chaos-outside-%1-%2").arg(m_options.seed).arg(i + 1).toLatin1();
    HttpReply reply;
    for (int attempt = 0; attempt < 10; ++attempt) {
        reply = m_http.send("POST", simUrl(QStringLiteral("/v1/refunds")), form.query(QUrl::FullyEncoded).toUtf8(),
                            "application/x-www-form-urlencoded", key, "sk_test_dashboard_chaos");
        // Resent with the same key while nothing is known or nothing was done (an
        // idempotency_error fault leaves the key untouched).
        const bool idempotencyFault = reply.status == 400
            && reply.json.value(QStringLiteral("error")).toObject().value(QStringLiteral("type")).toString() == u"idempotency_error";
        if (reply.status != 0 && reply.status < 500 && reply.status != 409 && reply.status != 429 && !idempotencyFault)
            break;
        sleepMs(100);
    }
    o.status = reply.status;
    // Whether it was made is what paysim's ground truth says, not the last answer: an earlier
    // send may have committed with its answer lost, and a resend met a 429 storm.
    const QString note = QStringLiteral("chaos outside refund %1-%2").arg(m_options.seed).arg(i + 1);
    const HttpReply truth = m_http.send("GET", simUrl(QStringLiteral("/_sim/refunds")));
    for (const QJsonValue &v : truth.json.value(QStringLiteral("data")).toArray()) {
        const QJsonObject r = v.toObject();
        if (r.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("note")).toString() == note) {
            o.made = true;
            o.refundId = r.value(QStringLiteral("id")).toString();
            o.refunded = r.value(QStringLiteral("amount")).toInteger();
        }
    }
    if (reply.status != 200) {
        const QJsonObject error = reply.json.value(QStringLiteral("error")).toObject();
        o.error = reply.status == 0 ? QStringLiteral("no answer")
                                    : error.value(QStringLiteral("code")).toString(error.value(QStringLiteral("type")).toString());
    }
    ++m_result.outsideRefunds;
    m_outside.insert(i, o);
    if (step.readCharge) {
        ++m_result.outsideReads;
        if (!m_options.viaApi) {
            recordChargeSnapshot(i, &m_outside[i].read);
        } else if (m_actionIds.at(i).isEmpty()) {
            m_outside[i].read = QStringLiteral("not yet proposed: its proposal reads the charge");
        } else if (anyAvailable()) {
            // The approver's charge look-up (POST /actions/{id}/charge-lookups): countersignd reads
            // the charge through paysim and records the snapshot the claim's budget check uses.
            const QUrl url = apiUrl(QStringLiteral("/api/v1/actions/%1/charge-lookups").arg(m_actionIds.at(i)));
            const QByteArray lookupKey = QStringLiteral("chaos-lookup-%1-%2").arg(m_options.seed).arg(i + 1).toLatin1();
            const HttpReply read = m_http.send("POST", url, "{}", "application/json", lookupKey, m_approverToken);
            m_outside[i].read = QStringLiteral("charge look-up answered %1").arg(read.status);
            if (m_options.postgres && read.status >= 500 && read.status != 503 && read.status != 502)
                internalError(url, read);
        } else {
            m_outside[i].read = QStringLiteral("no countersignd up to read it");
        }
        // Read, no room, and still not claimed: the claim comes after the snapshot, so its budget
        // check must stop it (REQUIRES_REVIEW, nothing sent).
        if (!m_actionIds.at(i).isEmpty() && ledgerSeesNoRoom(i)) {
            const auto action = m_ledger->reader().action(m_actionIds.at(i));
            const auto attempts = m_ledger->reader().attempts(m_actionIds.at(i));
            if (action.ok() && attempts.ok() && action->state == ActionState::Pending && attempts->isEmpty()) {
                m_outside[i].mustNotSend = true;
                m_outside[i].read += QStringLiteral(" (no room; not claimed yet: must never be sent)");
            }
        }
    }
    out(QStringLiteral("  outside refund on #%1's charge %2 (%3, the action %4): %5 -> %6%7")
            .arg(i + 1)
            .arg(m_chargeIds.at(planned.charge), outsideVariantName(step.variant), o.stateThen)
            .arg(step.amount > 0 ? QStringLiteral("%1 usd").arg(step.amount) : QStringLiteral("the rest"))
            .arg((reply.status == 200 ? QStringLiteral("200") : QStringLiteral("%1 %2").arg(reply.status).arg(o.error))
                 + (o.made ? QStringLiteral(", made: %1 (%2 usd)").arg(o.refundId).arg(o.refunded) : QStringLiteral(", not made")))
            .arg(m_outside.value(i).read.isEmpty() ? QString() : QStringLiteral("; ") + m_outside.value(i).read));
}

void ChaosRun::rejectViaApi(int i, qint64 stateVersion, const QString &why)
{
    // An accepted proposal the approval stage finds over the budget is left PENDING by the 422;
    // the approver rejects it (reason other, with the note), so that it ends REJECTED.
    m_rejectedAtApproval.insert(i);
    const QString path = QStringLiteral("/api/v1/actions/%1/rejections").arg(m_actionIds.at(i));
    const QByteArray key = QStringLiteral("chaos-%1-reject-%2").arg(m_options.seed).arg(i + 1).toLatin1();
    const HttpReply rejected = apiPost(path, {{QStringLiteral("reason"), QStringLiteral("other")}, {QStringLiteral("note"), why}},
                                       key, m_approverToken, '"' + QByteArray::number(stateVersion) + '"');
    out(QStringLiteral("  #%1 %2: approval refused (exceeds_refundable), rejected -> %3")
            .arg(i + 1).arg(m_actionIds.at(i)).arg(rejected.status));
    if (rejected.status != 200)
        violation(0, QStringLiteral("api: rejecting #%1 %2 answered %3 %4")
                         .arg(i + 1).arg(m_actionIds.at(i)).arg(rejected.status).arg(excerpt(rejected.body)));
}

void ChaosRun::twoAgents(const Step &step)
{
    if (!anyAvailable()) {
        out(QStringLiteral("  (two agents: no countersignd up; at the settle)"));
        m_twoAgentsDeferred = step;
        return;
    }
    ++m_result.twoAgentSteps;
    const int charge = m_schedule.actions.at(step.first).charge;
    const qint64 captured = m_schedule.chargeAmounts.at(charge);
    const QString chargeId = m_chargeIds.at(charge);
    // Every proposal at once: one QNetworkAccessManager per agent (each opens up to six
    // connections), all requests issued before any answer is read; countersignd decides them on
    // its API worker threads, under the charge's row lock.
    QNetworkAccessManager nam[2];
    struct Sent
    {
        int index;
        QByteArray key;
        QNetworkReply *reply;
    };
    QList<Sent> sent;
    for (int i = step.first; i < step.first + step.count; ++i) {
        const int agent = m_schedule.actions.at(i).agent;
        QNetworkRequest request(apiUrl(QStringLiteral("/api/v1/actions")));
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        request.setRawHeader("Authorization", QByteArray("Bearer ") + (agent == 1 ? m_agentBToken : m_agentToken));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        const QByteArray key = QStringLiteral("chaos-%1-propose-%2").arg(m_options.seed).arg(i + 1).toLatin1();
        request.setRawHeader("Idempotency-Key", key);
        request.setTransferTimeout(10000);
        sent << Sent{i, key, nam[agent].post(request, QJsonDocument(proposalBody(i)).toJson(QJsonDocument::Compact))};
    }
    {
        QEventLoop loop;
        int open = static_cast<int>(sent.size());
        for (const Sent &s : std::as_const(sent))
            QObject::connect(s.reply, &QNetworkReply::finished, &loop, [&open, &loop] {
                if (--open == 0)
                    loop.quit();
            });
        QTimer::singleShot(15000, &loop, &QEventLoop::quit);
        loop.exec();
    }
    qint64 accepted = 0;
    QStringList said;
    QList<std::pair<int, qint64>> toApprove; // accepted: planned action, state_version
    for (const Sent &s : std::as_const(sent)) {
        const int i = s.index;
        const QByteArray token = m_schedule.actions.at(i).agent == 1 ? m_agentBToken : m_agentToken;
        HttpReply r;
        r.status = s.reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = s.reply->isFinished() ? s.reply->readAll() : QByteArray();
        r.json = QJsonDocument::fromJson(r.body).object();
        if (!s.reply->isFinished())
            s.reply->abort();
        s.reply->deleteLater();
        const bool inFlight = r.status == 409 && r.json.value(QStringLiteral("code")).toString() == u"idempotency_key_in_flight";
        if (r.status == 0 || r.status >= 500 || inFlight) // nothing written, or not known: the same request again
            r = apiPost(QStringLiteral("/api/v1/actions"), proposalBody(i), s.key, token);
        ++m_result.contestedProposed;
        const qint64 amount = m_schedule.actions.at(i).amount;
        if (r.status == 201 && !r.json.value(QStringLiteral("id")).toString().isEmpty()) {
            m_actionIds[i] = r.json.value(QStringLiteral("id")).toString();
            accepted += amount;
            ++m_result.contestedAccepted;
            m_contested.insert(i, QStringLiteral("accepted"));
            said << QStringLiteral("#%1 %2 %3 usd: 201").arg(i + 1).arg(agentName(i)).arg(amount);
            toApprove << std::pair{i, r.json.value(QStringLiteral("state_version")).toInteger()};
        } else if (r.status == 422 && r.json.value(QStringLiteral("code")).toString() == u"exceeds_refundable") {
            m_refusedAtProposal.insert(i);
            ++m_result.contestedRefused;
            m_contested.insert(i, QStringLiteral("refused at the proposal (exceeds_refundable, available %1)")
                                      .arg(r.json.value(QStringLiteral("available")).toInteger()));
            said << QStringLiteral("#%1 %2 %3 usd: 422 (available %4)")
                        .arg(i + 1).arg(agentName(i)).arg(amount).arg(r.json.value(QStringLiteral("available")).toInteger());
            // Refused only if it did not fit: what was left when it was decided is less than it.
            if (r.json.value(QStringLiteral("available")).toInteger() >= amount)
                violation(9, QStringLiteral("#%1 (two agents) refused with 422 although %2 usd were available for its %3 usd")
                                 .arg(i + 1).arg(r.json.value(QStringLiteral("available")).toInteger()).arg(amount));
            // Nothing stored for it.
            const auto stored = m_ledger->reader().proposalId(agentName(i), proposalBody(i).value(QStringLiteral("client_reference")).toString());
            if (stored.ok() && !stored.value().isEmpty())
                violation(9, QStringLiteral("#%1 (two agents) refused with 422 but the ledger holds %2 for it").arg(i + 1).arg(stored.value()));
        } else {
            m_contested.insert(i, QStringLiteral("answered %1").arg(r.status));
            violation(0, QStringLiteral("api: proposing #%1 (two agents) answered %2 %3").arg(i + 1).arg(r.status).arg(excerpt(r.body)));
        }
    }
    // Accepted together <= captured - refunded (the charge is theirs alone and nothing was sent
    // yet: refunded is 0) — unless a read of the charge met a fault, which leaves the budget unknown.
    bool readFaulted = false;
    const HttpReply log = m_http.send("GET", simUrl(QStringLiteral("/_sim/requests?limit=400")));
    for (const QJsonValue &v : log.json.value(QStringLiteral("data")).toArray()) {
        const QJsonObject r = v.toObject();
        readFaulted |= r.value(QStringLiteral("path")).toString().startsWith(QStringLiteral("/v1/charges/") + chargeId)
            && !r.value(QStringLiteral("fault")).toString().isEmpty();
    }
    out(QStringLiteral("  two agents on %1 (captured %2 usd), %3 proposals at once: %4; accepted %5 usd%6")
            .arg(chargeId)
            .arg(captured)
            .arg(sent.size())
            .arg(said.join(QStringLiteral(", ")))
            .arg(accepted)
            .arg(readFaulted ? QStringLiteral(" (a read of the charge met a fault: the budget was not known to all)") : QString()));
    m_twoAgentsReadFaulted = readFaulted;
    if (accepted > captured && !readFaulted)
        violation(9, QStringLiteral("two agents on %1: %2 usd accepted, more than the %3 usd it can refund").arg(chargeId).arg(accepted).arg(captured));
    // Approved with a note: two refunds of one charge are possible duplicates (docs/POLICY.md,
    // "Possible duplicates"), and both are intended here. They fit together, so the approval
    // stage's check passes — unless the budget was not known at a proposal.
    for (const auto &[i, version] : std::as_const(toApprove)) {
        const QString path = QStringLiteral("/api/v1/actions/%1/approvals").arg(m_actionIds.at(i));
        const QByteArray approveKey = QStringLiteral("chaos-%1-approve-%2").arg(m_options.seed).arg(i + 1).toLatin1();
        const HttpReply approved =
            apiPost(path, {{QStringLiteral("note"), QStringLiteral("two agents split the customer's refund of this order: both intended")}},
                    approveKey, m_approverToken, '"' + QByteArray::number(version) + '"');
        const bool overBudget =
            approved.status == 422 && approved.json.value(QStringLiteral("code")).toString() == u"exceeds_refundable";
        if (overBudget && readFaulted) {
            rejectViaApi(i, version, QStringLiteral("two agents: over the charge's budget at the approval"));
        } else if (approved.status != 200) {
            violation(overBudget ? 9 : 0, QStringLiteral("api: approving #%1 %2 (two agents, accepted together within the charge) answered %3 %4")
                                               .arg(i + 1).arg(m_actionIds.at(i)).arg(approved.status).arg(excerpt(approved.body)));
        }
    }
}

void ChaosRun::check()
{
    // Ground truth and the request log, from paysim.
    const HttpReply truthReply = m_http.send("GET", simUrl(QStringLiteral("/_sim/refunds")));
    const HttpReply logReply = m_http.send("GET", simUrl(QStringLiteral("/_sim/requests?limit=2000")));
    if (truthReply.status != 200 || logReply.status != 200) {
        violation(0, QStringLiteral("paysim's ground truth or request log unavailable (%1, %2)")
                         .arg(truthReply.status)
                         .arg(logReply.status));
        return;
    }
    QHash<QString, QJsonArray> refundsByAction;
    QHash<QString, QJsonObject> outsideByCharge; // refunds made outside Countersign (OutsideRefund steps)
    const QString outsideNote = QStringLiteral("chaos outside refund %1-").arg(m_options.seed);
    for (const QJsonValue &v : truthReply.json.value(QStringLiteral("data")).toArray()) {
        const QJsonObject refund = v.toObject();
        const QJsonObject metadata = refund.value(QStringLiteral("metadata")).toObject();
        const QString actionId = metadata.value(QStringLiteral("countersign_action_id")).toString();
        if (actionId.isEmpty() && metadata.value(QStringLiteral("note")).toString().startsWith(outsideNote)) {
            // Not an action's refund: told apart by its metadata (no countersign_action_id, our note).
            outsideByCharge.insert(refund.value(QStringLiteral("charge")).toString(), refund);
            continue;
        }
        if (!m_actionIds.contains(actionId) || actionId.isEmpty()) {
            violation(1, QStringLiteral("refund %1 (key %2) names no action of this run (%3)")
                             .arg(refund.value(QStringLiteral("id")).toString(),
                                  refund.value(QStringLiteral("idempotency_key")).toString(), actionId));
            continue;
        }
        refundsByAction[actionId].append(refund);
    }
    // 8. Refunded per charge ≤ captured (issue 14), from paysim's ground truth: every refund that
    // still holds money (failed and canceled ones give it back), whoever made it.
    QHash<QString, qint64> refundedByCharge;
    for (const QJsonValue &v : truthReply.json.value(QStringLiteral("data")).toArray()) {
        const QJsonObject refund = v.toObject();
        const QString status = refund.value(QStringLiteral("status")).toString();
        if (status != u"failed" && status != u"canceled")
            refundedByCharge[refund.value(QStringLiteral("charge")).toString()] += refund.value(QStringLiteral("amount")).toInteger();
    }
    for (int c = 0; c < m_chargeIds.size() && c < m_schedule.chargeAmounts.size(); ++c) {
        const qint64 refunded = refundedByCharge.value(m_chargeIds.at(c));
        if (refunded > m_schedule.chargeAmounts.at(c))
            violation(8, QStringLiteral("charge %1 captured %2 usd but the provider refunded %3 usd of it")
                             .arg(m_chargeIds.at(c)).arg(m_schedule.chargeAmounts.at(c)).arg(refunded));
    }
    QHash<QString, QStringList> faultsByKey; // POST faults applied to requests under a key
    bool lookupFaults = false;
    QSet<QString> postedKeys;
    QHash<QString, int> postsByKey;
    const QJsonArray log = logReply.json.value(QStringLiteral("data")).toArray();
    for (const QJsonValue &v : log) {
        const QJsonObject r = v.toObject();
        // A refund_settles rule is decided in a lane of its own and combines with another fault
        // on the same request: "drop_response_after_commit+refund_settles".
        const QStringList applied = r.value(QStringLiteral("fault")).toString().split(QLatin1Char('+'), Qt::SkipEmptyParts);
        const QString key = r.value(QStringLiteral("idempotency_key")).toString();
        for (const QString &fault : applied)
            ++m_result.faultsFired[fault];
        if (r.value(QStringLiteral("method")).toString() == u"POST"
            && r.value(QStringLiteral("path")).toString() == u"/v1/refunds") {
            if (key.startsWith(QStringLiteral("chaos-outside-")))
                continue; // the outside refunds' own keys (and API key): not the executor's
            postedKeys.insert(key);
            ++postsByKey[key];
            faultsByKey[key] << applied;
        } else if (r.value(QStringLiteral("method")).toString() == u"GET" && !applied.isEmpty()) {
            lookupFaults = true;
        }
    }
    if (log.size() >= 2000)
        out(QStringLiteral("note: paysim's request log is full (2000); fault attribution may miss early requests"));

    QSet<QString> actionKeys;
    out(QStringLiteral("outcome:"));
    for (int i = 0; i < m_actionIds.size(); ++i) {
        const QString &id = m_actionIds.at(i);
        const PlannedAction &planned = m_schedule.actions.at(i);
        // What a refund made outside Countersign did to this action's charge, for its line.
        QString outsideSaid;
        if (m_outside.contains(i)) {
            const Outside &o = m_outside[i];
            const QJsonObject made = outsideByCharge.value(m_chargeIds.at(planned.charge));
            if (!made.isEmpty()) {
                ++m_result.outsideCreated;
                if (made.value(QStringLiteral("amount")).toInteger() + planned.amount > m_schedule.chargeAmounts.at(planned.charge))
                    ++m_result.outsideWithoutRoom;
            }
            outsideSaid = QStringLiteral(" | outside refund %1 %2 (action %3): %4; charge %5 captured %6, refunded %7 in all")
                              .arg(o.requested > 0 ? QStringLiteral("%1 usd").arg(o.requested) : QStringLiteral("the rest"),
                                   outsideVariantName(o.variant), o.stateThen)
                              .arg(made.isEmpty() ? QStringLiteral("not made (paysim: %1 %2)").arg(o.status).arg(o.error)
                                                  : QStringLiteral("made %1 usd").arg(made.value(QStringLiteral("amount")).toInteger()))
                              .arg(m_chargeIds.at(planned.charge))
                              .arg(m_schedule.chargeAmounts.at(planned.charge))
                              .arg(refundedByCharge.value(m_chargeIds.at(planned.charge)));
            if (!o.read.isEmpty())
                outsideSaid += QStringLiteral("; then ") + o.read;
        }
        const QString tag = planned.overRefund ? QStringLiteral(" (over charge)")
            : planned.sharedCharge             ? QStringLiteral(" (shared charge)")
            : planned.contested                ? QStringLiteral(" (two agents: %1)").arg(agentName(i))
                                               : QString();
        if (id.isEmpty() && m_refusedAtProposal.contains(i)) {
            ++m_result.finalStates[QStringLiteral("REFUSED_AT_PROPOSAL")];
            out(QStringLiteral("  #%1 %2 usd%3 refused at the proposal (exceeds_refundable); nothing written%4")
                    .arg(i + 1, 2)
                    .arg(planned.amount, 5)
                    .arg(tag, outsideSaid));
            continue;
        }
        if (id.isEmpty()) {
            violation(0, QStringLiteral("#%1 was never approved").arg(i + 1));
            continue;
        }
        const auto action = m_ledger->reader().action(id);
        const auto attempts = m_ledger->reader().attempts(id);
        if (!action.ok() || !attempts.ok()) {
            violation(0, QStringLiteral("#%1 %2 unreadable from the ledger").arg(i + 1).arg(id));
            continue;
        }
        const QString key = action->idempotencyKey;
        actionKeys.insert(key);
        const QJsonArray truth = refundsByAction.value(id);
        const QStringList faults = faultsByKey.value(key);
        ++m_result.finalStates[toWire(action->state)];

        // 1. At most one provider-side refund per action.
        if (truth.size() > 1)
            violation(1, QStringLiteral("#%1 %2 has %3 provider refunds").arg(i + 1).arg(id).arg(truth.size()));

        // 3. One idempotency key across all attempts, and every refund of the action made with it.
        QSet<QString> keys;
        for (const Attempt &a : attempts.value())
            keys.insert(a.idempotencyKey);
        for (const QJsonValue &r : truth)
            keys.insert(r.toObject().value(QStringLiteral("idempotency_key")).toString());
        if (key.isEmpty() || keys.size() > 1 || (!keys.isEmpty() && !keys.contains(key))) {
            QStringList list = keys.values();
            list.sort();
            violation(3, QStringLiteral("#%1 %2 used keys [%3], approved key %4")
                             .arg(i + 1)
                             .arg(id, list.join(QStringLiteral(", ")), key));
        }
        // 3 (approval expiry, invariant 4): an approval that expired unsent expired before any
        // attempt existed, and its key was never sent — not by an attempt, not at the provider.
        if (const auto approvals = m_ledger->reader().approvals(id); approvals.ok()) {
            for (const Approval &a : approvals.value()) {
                // The approval that was sent was not past its expiry when its first attempt began.
                if (a.idempotencyKey == key && !attempts->isEmpty() && a.expiresAt.isValid()
                    && attempts->first().startedAt >= a.expiresAt)
                    violation(3, QStringLiteral("#%1 %2: approval v%3 sent at %4, past its expiry at %5")
                                     .arg(i + 1).arg(id).arg(a.version)
                                     .arg(toWireTime(attempts->first().startedAt), toWireTime(a.expiresAt)));
                if (!a.expiredAt.isValid())
                    continue;
                ++m_result.approvalsExpired;
                if (keys.contains(a.idempotencyKey))
                    violation(3, QStringLiteral("#%1 %2: approval v%3 expired at %4, yet its key %5 was sent")
                                     .arg(i + 1).arg(id).arg(a.version).arg(toWireTime(a.expiredAt), a.idempotencyKey));
                if (!attempts->isEmpty() && attempts->first().startedAt < a.expiredAt)
                    violation(3, QStringLiteral("#%1 %2: approval v%3 expired at %4, after attempt 1 started at %5")
                                     .arg(i + 1).arg(id).arg(a.version)
                                     .arg(toWireTime(a.expiredAt), toWireTime(attempts->first().startedAt)));
            }
        } else {
            violation(0, QStringLiteral("#%1 %2: approvals unreadable").arg(i + 1).arg(id));
        }
        if (attempts->isEmpty() && !m_rejectedAtApproval.contains(i) && action->reviewReason.indexOf(QLatin1String("over the charge's refundable amount")) < 0)
            violation(0, QStringLiteral("#%1 %2 approved but never attempted").arg(i + 1).arg(id));

        // 2. The final state agrees with the ground truth.
        QString why;
        switch (action->state) {
        case ActionState::Completed: {
            const QJsonObject refund = truth.isEmpty() ? QJsonObject() : truth.first().toObject();
            if (truth.size() != 1)
                violation(2, QStringLiteral("#%1 %2 COMPLETED with %3 provider refunds").arg(i + 1).arg(id).arg(truth.size()));
            else if (refund.value(QStringLiteral("amount")).toInteger() != action->amount
                     || refund.value(QStringLiteral("currency")).toString() != action->currency)
                violation(2, QStringLiteral("#%1 %2 COMPLETED for %3 %4 but the provider refunded %5 %6")
                                 .arg(i + 1)
                                 .arg(id)
                                 .arg(action->amount)
                                 .arg(action->currency)
                                 .arg(refund.value(QStringLiteral("amount")).toInteger())
                                 .arg(refund.value(QStringLiteral("currency")).toString()));
            if (truth.size() == 1)
                why = checkSettlement(i, id, refund);
            break;
        }
        case ActionState::Rejected:
            // A refund the provider holds failed or canceled moved no money: a look-up that finds
            // it proves the action not committed (docs/EXECUTION.md), and it is still its one refund.
            if (truth.size() == 1 && moneyReturned(truth.first().toObject())) {
                ++m_result.rejectedFailedRefund;
                why = QStringLiteral(" (its refund %1 at the provider)").arg(truth.first().toObject().value(QStringLiteral("status")).toString());
            } else if (!truth.isEmpty()) {
                violation(2, QStringLiteral("#%1 %2 REJECTED but the provider refunded it (%3)").arg(i + 1).arg(id).arg(truth.size()));
            }
            break;
        case ActionState::RequiresReview: {
            // Accepted only with a reason the outcome was unknowable in time (docs/CHAOS.md):
            // W the key window passed (a clock jump after its first attempt started),
            // M paysim answered idempotency_error to its key, S paysim saved a 500 under its key
            // (every same-key retry replays it), F the reconciler gave up after its rounds while
            // faults hit its requests or the lookups, A paysim answered charge_already_refunded (the
            // charge was shared, and the design treats that answer as ambiguous).
            const qint64 firstStart = attempts->isEmpty() ? 0 : attempts->first().startedAt.toMSecsSinceEpoch();
            bool w = false;
            for (const Jump &j : std::as_const(m_jumps))
                w |= !attempts->isEmpty() && firstStart < j.boundaryLedgerMs;
            const bool m = faults.contains(QStringLiteral("idempotency_error"));
            const bool s = faults.contains(QStringLiteral("error_500_before_commit"))
                || faults.contains(QStringLiteral("error_500_after_commit"));
            const bool f = action->reviewReason.contains(QStringLiteral("gave up after"))
                && (!faults.isEmpty() || lookupFaults);
            bool a = false;
            for (const Attempt &t : attempts.value())
                a |= t.errorCode == u"charge_already_refunded";
            // B (budget): the claim found the charge no longer holds it (nothing sent), after a
            // refund made outside Countersign on its charge, or on the two agents' charge.
            const bool b = action->reviewReason.contains(QLatin1String("over the charge's refundable amount"))
                && (outsideLeftNoRoom(i) || (planned.contested && m_twoAgentsReadFaulted)) && truth.isEmpty();
            // K (issue 33): the key window passed on paysim's clock, which paysim-only steps ran ahead
            // of the ledger's far enough that it did (first attempt + 24 h - 1 h): nothing was resent.
            const bool k = action->reviewReason.contains(QLatin1String("on the provider's clock")) && !attempts->isEmpty()
                && attempts->first().startedAt.msecsTo(m_ledger->currentTime()) + m_paysimAheadMs >= 23LL * 3600 * 1000;
            QStringList rules;
            if (w) { rules << QStringLiteral("W"); ++m_result.reviewsByRule[0]; }
            if (m) { rules << QStringLiteral("M"); ++m_result.reviewsByRule[1]; }
            if (s) { rules << QStringLiteral("S"); ++m_result.reviewsByRule[2]; }
            if (f) { rules << QStringLiteral("F"); ++m_result.reviewsByRule[3]; }
            if (a) { rules << QStringLiteral("A"); ++m_result.reviewsByRule[4]; }
            if (b) { rules << QStringLiteral("B"); ++m_result.reviewsByRule[5]; }
            if (k) { rules << QStringLiteral("K"); ++m_result.reviewsByRule[6]; }
            if (rules.isEmpty())
                violation(2, QStringLiteral("#%1 %2 REQUIRES_REVIEW without a reason the schedule made it unknowable "
                                            "(provider refunds %3; reason: %4)")
                                 .arg(i + 1)
                                 .arg(id)
                                 .arg(truth.size())
                                 .arg(action->reviewReason));
            why = QStringLiteral(" review[%1]").arg(rules.join(QLatin1Char(',')));
            break;
        }
        default:
            violation(2, QStringLiteral("#%1 %2 still %3 after the settle time").arg(i + 1).arg(id, toWire(action->state)));
            break;
        }
        if (planned.overRefund && action->state == ActionState::Completed)
            violation(2, QStringLiteral("#%1 %2 COMPLETED although the charge is smaller than the refund").arg(i + 1).arg(id));
        // A refund made outside Countersign that left the action no room: REJECTED (the provider
        // refused) or REQUIRES_REVIEW (the claim's budget check, an ambiguous answer), never COMPLETED.
        if (m_outside.contains(i)) {
            const QJsonObject made = outsideByCharge.value(m_chargeIds.at(planned.charge));
            if (m_outside[i].mustNotSend && !attempts->isEmpty())
                violation(9, QStringLiteral("#%1 %2 was sent (%3 attempt(s), %4) although the ledger had read its charge with no room "
                                            "left before it was claimed")
                                 .arg(i + 1).arg(id).arg(attempts->size()).arg(toWire(action->state)));
            // (Unless a refund_settles rule failed or canceled one of the two: that gave its room
            // back, and the other fitted.)
            if (!made.isEmpty() && action->state == ActionState::Completed && !moneyReturned(made)
                && !(truth.size() == 1 && moneyReturned(truth.first().toObject()))
                && made.value(QStringLiteral("amount")).toInteger() + planned.amount > m_schedule.chargeAmounts.at(planned.charge))
                violation(2, QStringLiteral("#%1 %2 COMPLETED although a refund made outside Countersign (%3 usd) left its charge "
                                            "no room for %4 usd")
                                 .arg(i + 1).arg(id).arg(made.value(QStringLiteral("amount")).toInteger()).arg(planned.amount));
        }

        QStringList faultSummary = faults;
        faultSummary.removeDuplicates();
        out(QStringLiteral("  #%1 %2 %3 usd%4 %5 refunds=%6 attempts=%7 keys=%8%9%10")
                .arg(i + 1, 2)
                .arg(id)
                .arg(action->amount, 5)
                .arg(tag)
                .arg(toWire(action->state), -20)
                .arg(truth.size())
                .arg(attempts->size())
                .arg(keys.size())
                .arg(faultSummary.isEmpty() ? QString() : QStringLiteral(" faults=") + faultSummary.join(QLatin1Char(',')))
                .arg(why + (m_rejectedAtApproval.contains(i) ? QStringLiteral(" (rejected: over the budget at the approval)") : QString())
                     + outsideSaid));
        if (m_options.verbose && !action->reviewReason.isEmpty())
            out(QStringLiteral("      reason: %1").arg(action->reviewReason));
    }
    // 3, from the provider's side: no refund request under a key the ledger did not mint.
    for (const QString &k : std::as_const(postedKeys)) {
        if (!actionKeys.contains(k))
            violation(3, QStringLiteral("a refund was requested under key %1, which no approval minted").arg(k));
    }

    // 5 (--via-api). One action per proposal: resent proposals replayed, created nothing.
    if (m_options.viaApi) {
        const auto counts = m_ledger->reader().counts(QString());
        qint64 total = 0;
        if (counts.ok()) {
            for (const qint64 n : counts.value())
                total += n;
        }
        QSet<QString> distinct;
        for (const QString &id : std::as_const(m_actionIds)) {
            if (!id.isEmpty())
                distinct.insert(id);
        }
        const qint64 expected = m_schedule.actions.size() - m_refusedAtProposal.size();
        if (!counts.ok() || total != expected || distinct.size() != expected)
            violation(5, QStringLiteral("the ledger holds %1 actions for %2 distinct proposals (%3 ids answered, %4 refused)")
                             .arg(total).arg(expected).arg(distinct.size()).arg(m_refusedAtProposal.size()));
        else
            out(QStringLiteral("proposals: %1 actions for %1 proposals; %2 proposals resent (%3 answered Idempotent-Replayed), "
                               "%4 approvals resent, %5 approvals deferred to a start")
                    .arg(total).arg(m_result.resentProposals).arg(m_result.replayedProposals)
                    .arg(m_result.resentApprovals).arg(m_result.deferredApprovals));
    }

    // 7 (--postgres). Fencing: what each SIGSTOPped instance held, after SIGCONT.
    if (m_options.postgres)
        checkFencing(refundsByAction, postsByKey);

    // 4. The audit chain verifies, through the real command.
    QProcess verify;
    verify.setProcessChannelMode(QProcess::MergedChannels);
    verify.start(m_options.countersigndBin, {QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), m_dbPath});
    const bool finished = verify.waitForFinished(20000);
    const QString said = QString::fromUtf8(verify.readAll()).trimmed();
    if (!finished || verify.exitStatus() != QProcess::NormalExit || verify.exitCode() != 0)
        violation(4, QStringLiteral("countersignd audit verify: exit %1: %2").arg(verify.exitCode()).arg(said));
    else
        out(QStringLiteral("audit: %1").arg(said));
    if (m_options.postgres)
        checkAuditRows();
}

QString ChaosRun::checkSettlement(int i, const QString &id, const QJsonObject &refund)
{
    // 11. Settlement after COMPLETED (issue 18): once paysim's clock passed every scheduled
    // settlement and the ledger followed them, the settlement the ledger records is the provider's
    // refund and its status, and a review item is open exactly when that refund failed or was
    // canceled (nobody decides them in a run). Through the API, GET /actions/{id} shows the same.
    const QString refundId = refund.value(QStringLiteral("id")).toString();
    const QString status = refund.value(QStringLiteral("status")).toString();
    const bool returned = moneyReturned(refund);
    const auto loaded = m_ledger->reader().settlement(id);
    if (!loaded.ok()) {
        violation(0, QStringLiteral("#%1 %2: settlement unreadable: %3").arg(i + 1).arg(id, loaded.error().toString()));
        return QString();
    }
    if (!loaded.value()) {
        violation(11, QStringLiteral("#%1 %2 COMPLETED without a settlement (the provider's refund %3 is %4)")
                          .arg(i + 1).arg(id, refundId, status));
        return QStringLiteral(" settlement=none");
    }
    const Settlement &s = *loaded.value();
    if (!s.refundId.isEmpty() && s.refundId != refundId)
        violation(11, QStringLiteral("#%1 %2: its settlement follows refund %3, but the provider's refund of the action is %4")
                          .arg(i + 1).arg(id, s.refundId, refundId));
    if (s.status != status)
        violation(11, QStringLiteral("#%1 %2 settlement %3, but the provider's refund %4 is %5")
                          .arg(i + 1).arg(id, s.status, refundId, status));
    if (s.needsReview() != returned)
        violation(11, QStringLiteral("#%1 %2 settlement attention %3, but the provider's refund %4 is %5 (open exactly when failed or canceled)")
                          .arg(i + 1).arg(id, toWire(s.attention), refundId, status));
    if (m_options.viaApi) {
        const auto shown = m_apiSettlement.constFind(id);
        if (shown == m_apiSettlement.cend())
            violation(11, QStringLiteral("#%1 %2: GET /api/v1/actions/%2 showed no settlement").arg(i + 1).arg(id));
        else if (shown->value(QStringLiteral("status")).toString() != s.status
                 || shown->value(QStringLiteral("attention")).toString() != toWire(s.attention))
            violation(11, QStringLiteral("#%1 %2: the API showed settlement %3 (attention %4), the ledger holds %5 (%6)")
                              .arg(i + 1).arg(id, shown->value(QStringLiteral("status")).toString(),
                                              shown->value(QStringLiteral("attention")).toString(), s.status, toWire(s.attention)));
    }
    if (!s.history.isEmpty() && s.history.constFirst().toStatus == u"pending")
        ++m_result.completedPending;
    if (status == u"succeeded")
        ++m_result.settledSucceeded;
    else if (status == u"failed")
        ++m_result.settledFailed;
    else if (status == u"canceled")
        ++m_result.settledCanceled;
    if (s.needsReview())
        ++m_result.reviewItems;
    if (s.isSettled()) {
        for (const SettlementChange &c : s.history) {
            if (c.toStatus == s.status) {
                ++m_result.settledBy[c.source];
                break;
            }
        }
    }
    QStringList path;
    for (const SettlementChange &c : s.history)
        path << c.toStatus + QLatin1Char('/') + c.source;
    return QStringLiteral(" settlement[%1]%2").arg(path.join(QStringLiteral(" -> ")), s.needsReview() ? QStringLiteral(" review open") : QString());
}

RunResult ChaosRun::run()
{
    QElapsedTimer total;
    total.start();
    out(QStringLiteral("chaos seed=%1 actions=%2 steps=%3%4")
            .arg(m_options.seed)
            .arg(m_options.actions)
            .arg(m_options.steps)
            .arg(m_options.postgres
                     ? QStringLiteral(" postgres (instances A/B/C are `countersignd serve` processes on one PostgreSQL database)")
                     : m_options.viaApi
                     ? QStringLiteral(" via-api (executors A/B are `countersignd serve` processes; clock jumps skipped)")
                     : QString())
            + (m_options.viaApi ? (m_webhooks ? QStringLiteral("; webhooks on (paysim -> relay -> countersignd)")
                                              : QStringLiteral("; webhooks off (answers and look-ups only)"))
                                : QString()));
    QStringList plan;
    for (int i = 0; i < m_schedule.actions.size(); ++i) {
        const PlannedAction &a = m_schedule.actions.at(i);
        plan << QStringLiteral("#%1=%2/c%3:%4%5%6")
                    .arg(i + 1)
                    .arg(a.amount)
                    .arg(a.charge + 1)
                    .arg(m_schedule.chargeAmounts.at(a.charge))
                    .arg(a.viaPaymentIntent ? QStringLiteral("(pi)") : QString())
                    .arg(a.overRefund ? QStringLiteral("!") : (a.sharedCharge ? QStringLiteral("=") : (a.contested ? QStringLiteral("~") : QString())));
    }
    out(QStringLiteral("actions (#n=refund/charge:charge amount, (pi) by payment intent, ! over the charge, = charge shared, ~ two agents): ")
        + plan.join(QLatin1Char(' ')));
    out(QStringLiteral("schedule:"));
    for (int i = 0; i < m_schedule.steps.size(); ++i)
        out(QStringLiteral("  %1 %2").arg(i + 1, 2).arg(m_schedule.steps.at(i).describe()));

    if (!setUp()) {
        m_result.verdict = RunResult::Verdict::Broken;
        return m_result;
    }
    for (const Step &step : std::as_const(m_schedule.steps)) {
        sleepMs(step.waitMs);
        int up = 0;
        for (int i = 0; i < instanceCount(); ++i)
            up += runningProcess(i) ? 1 : 0;
        if (up >= 2)
            ++m_result.raceSteps;
        bool ok = true;
        switch (step.kind) {
        case Step::Kind::Approve:
            ok = approve(step.first, step.count);
            break;
        case Step::Kind::Fault: {
            const HttpReply added = m_http.send("POST", simUrl(QStringLiteral("/_sim/faults")), QJsonDocument(step.rule).toJson());
            ok = added.status == 200;
            if (!ok)
                out(QStringLiteral("fault refused: %1 %2").arg(added.status).arg(excerpt(added.body)));
            break;
        }
        case Step::Kind::ClearFaults:
            ok = m_http.send("DELETE", simUrl(QStringLiteral("/_sim/faults"))).status == 200;
            break;
        case Step::Kind::Start:
            ok = startExecutor(step.executor);
            if (ok && m_options.viaApi)
                flushDeferredApprovals();
            break;
        case Step::Kind::Kill:
            killExecutor(step.executor, step.whenBusy);
            break;
        case Step::Kind::ClockJump:
            if (m_options.viaApi) {
                // countersignd runs on the system clock: nothing to move. Said, and counted.
                out(QStringLiteral("  (skipped: clock jump, not possible with --via-api)"));
                ++m_result.skippedClockJumps;
                break;
            }
            ok = clockJump(step.advanceMs);
            break;
        case Step::Kind::Pause:
            break;
        case Step::Kind::Stop:
            stopInstance(step);
            break;
        case Step::Kind::Terminate:
            terminateBackends(step);
            break;
        case Step::Kind::DbRestart:
            ok = restartDatabase(step);
            break;
        case Step::Kind::OutsideRefund:
            outsideRefund(step);
            break;
        case Step::Kind::TwoAgents:
            twoAgents(step);
            break;
        case Step::Kind::SimClock:
        case Step::Kind::ProviderSkew:
            ok = simClock(step.advanceMs);
            break;
        }
        // --postgres: approvals deferred while every instance was down or stopped, as soon as one answers.
        if (ok && m_options.postgres && !m_deferred.isEmpty() && anyAvailable())
            flushDeferredApprovals();
        if (!ok) {
            m_result.verdict = RunResult::Verdict::Broken;
            return m_result;
        }
        if (m_options.viaApi)
            checkNoUnexpectedExit();
        retargetRelay();
    }
    if (!settle() || !convergeSettlements()) {
        m_result.verdict = RunResult::Verdict::Broken;
        return m_result;
    }
    if (m_options.viaApi)
        checkNoUnexpectedExit();
    stopExecutors();
    if (m_relay) {
        // What paysim delivered and countersignd answered; from here on nothing reaches the
        // ledger (the self-tests below change paysim behind its back, and must be seen so).
        countWebhooks();
        m_relay->setForwarding(false);
    }
    if (m_options.selfTestDuplicate)
        sendSelfTestDuplicate();
    if (m_options.selfTestSettlement)
        sendSelfTestSettlement();
    if (m_options.postgres && !openLedger()) { // (a fresh handle for the checks, as after a restart)
        m_result.verdict = RunResult::Verdict::Broken;
        return m_result;
    }
    check();
    m_result.seconds = total.elapsed() / 1000.0;
    m_result.verdict = m_result.violations.isEmpty() ? RunResult::Verdict::Pass : RunResult::Verdict::Fail;
    if (m_options.postgres) {
        if (m_result.verdict == RunResult::Verdict::Pass) {
            dropDatabase();
        } else {
            // The evidence stays: the instances' logs here, the database on the cluster (until the
            // chaos process ends, or for good with COUNTERSIGN_PG_KEEP=1).
            m_dir.setAutoRemove(false);
            out(QStringLiteral("kept: instance logs in %1, database %2 (%3)").arg(m_dir.path(), m_dbName, m_dbPath));
        }
    }
    return m_result;
}

} // namespace

RunResult runChaos(const RunOptions &options)
{
    ChaosRun run(options);
    return run.run();
}

} // namespace cs::chaos
