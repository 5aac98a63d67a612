#pragma once

// Shared by the API suites: countersignd and paysim as real subprocesses on 127.0.0.1 with
// ephemeral ports (their URL is the first line they print), an HTTP client that keeps the Qt event
// loop running while it waits, and a probe that opens the same ledger to count what was written
// and to play the executor's part where a test needs an action in a later state. The ledger is at
// cs::test::ledgerLocation(): a SQLite file, or a PostgreSQL database under the _postgres tests.

#include "server/ledger/ledger.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPair>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>

using Headers = QList<QPair<QByteArray, QByteArray>>;

struct ApiReply
{
    int status = 0;
    QByteArray body;
    QJsonObject json;
    Headers headers;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;

    QByteArray header(const QByteArray &name) const;
    QString code() const { return json.value(QStringLiteral("code")).toString(); }
    qint64 stateVersion() const;          // of an Action body, or of the `action` member
    QByteArray ifMatch() const { return header("ETag"); }
};

// A child process that prints its URL as its first line; stopped with SIGTERM.
class ServiceProcess
{
public:
    ~ServiceProcess();
    bool start(const QString &program, const QStringList &arguments, QString *error);
    bool stop(int timeoutMs = 10000); // SIGTERM, wait; true if it exited normally with code 0
    QUrl url() const { return m_url; }
    QProcess &process() { return m_process; }
    QByteArray standardError();

private:
    QProcess m_process;
    QUrl m_url;
    QByteArray m_stderr;
};

// One countersignd (and optionally one paysim) on a fresh ledger with a fixed set of users:
// agent-7 and agent-8 (agent), ana and bob (approver), sam (supervisor), aud (auditor),
// root (admin).
class ApiHarness
{
public:
    struct Options
    {
        bool withPaysim = false;
        QStringList extraServeArguments;
        QStringList paysimArguments;
    };

    ApiHarness();
    ~ApiHarness();
    bool start(const Options &options, QString *error);
    bool start(QString *error) { return start(Options(), error); }
    void stop();

    QString token(const QString &user) const { return m_tokens.value(user); }
    QUrl api() const;             // http://127.0.0.1:PORT/api/v1
    QUrl paysimUrl() const { return m_paysim.url(); }
    ServiceProcess &paysim() { return m_paysim; }
    QString dbPath() const { return m_dbPath; } // the --db location: a file or a postgresql:// URI
    ServiceProcess &countersignd() { return m_countersignd; }
    // The test process's own handle on the same ledger (reads; executor stand-in).
    cs::Ledger &ledger() { return *m_ledger; }

    // Runs `countersignd user add` and returns the token (the last word it printed).
    QString addUser(const QString &name, const QString &role, QString *error);

    // paysim's own routes (withPaysim), for the tests' set-up and checks: a JSON request to PATH
    // (its /_sim admin API, docs/PAYSIM.md); no body when `body` is empty.
    ApiReply sim(const QByteArray &verb, const QString &path, const QJsonObject &body = {});
    // One charge of `amount` cents through POST /_sim/charges (`look` adds paysim's seeding
    // options: age_seconds, disputed, card, ...); its id, empty if paysim made none.
    QString seedCharge(qint64 amount, QJsonObject look = {});
    // A refund made straight at paysim, as the provider's dashboard (no metadata) or an executor
    // (its own form body) would: POST /v1/refunds with `form` under `idempotencyKey`.
    ApiReply refundAtPaysim(const QByteArray &form, const QByteArray &idempotencyKey,
                            const QByteArray &secretKey = "sk_test_countersign_api");

    static QString countersigndBinary();
    static QString paysimBinary();

private:
    QTemporaryDir m_dir;
    QString m_dbPath;
    ServiceProcess m_paysim;
    ServiceProcess m_countersignd;
    QHash<QString, QString> m_tokens;
    std::unique_ptr<cs::Ledger> m_ledger;
    QNetworkAccessManager m_simNetwork;
};

// HTTP client for the API. Every call waits (event loop running) up to timeoutMs.
class ApiClient
{
public:
    explicit ApiClient(const QUrl &api);

    ApiReply get(const QString &pathAndQuery, const QString &token, const Headers &headers = {});
    ApiReply post(const QString &path, const QString &token, const QJsonObject &body, const Headers &headers = {});
    ApiReply postRaw(const QString &path, const QString &token, const QByteArray &body, const Headers &headers);
    ApiReply send(const QByteArray &verb, const QString &pathAndQuery, const QString &token, const QByteArray &body,
                  const Headers &headers);
    QNetworkReply *sendAsync(const QByteArray &verb, const QString &pathAndQuery, const QString &token,
                             const QByteArray &body, const Headers &headers);
    static ApiReply collect(QNetworkReply *reply, int timeoutMs = 15000);

    QNetworkAccessManager &network() { return m_network; }
    QUrl url(const QString &pathAndQuery) const;

    // Conveniences.
    static QJsonObject proposal(const QString &clientReference, qint64 amount = 4000,
                                const QString &charge = QStringLiteral("ch_3Pq8Xk2eZvKYlo2C1b4a9dEf"));
    ApiReply propose(const QString &token, const QJsonObject &proposal);
    ApiReply approve(const QString &token, const QString &id, const QByteArray &etag, const QByteArray &key = {});

private:
    QUrl m_api;
    QNetworkAccessManager m_network;
};

// What the ledger holds, to prove "nothing written": actions, audit rows, approvals, lookups...
struct LedgerCounts
{
    qint64 actions = 0;
    qint64 auditRows = 0;
    qint64 lastAuditSeq = 0;
    bool operator==(const LedgerCounts &other) const = default;
};
LedgerCounts ledgerCounts(cs::Ledger &ledger);
char *toString(const LedgerCounts &counts);

// Plays the executor's part on an approved action: claims it and finishes the attempt with the
// given outcome and trigger (Unknown + OutcomeUnknown -> CONFIRMATION_UNKNOWN, ...).
bool driveAttempt(cs::Ledger &ledger, const QString &actionId, cs::Attempt::Outcome outcome,
                  std::optional<cs::Trigger> trigger, QString *error, const QString &providerObjectId = {});
