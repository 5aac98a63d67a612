// API latency per endpoint against a real countersignd (and paysim for look-ups), on loopback:
// N sequential requests per endpoint from one client (keep-alive), p50 / p95 / max in ms. Then a
// second countersignd under a dual-control policy: the list of 50 PENDING actions each signed
// once ("1 of 2": ApprovalStore::awaitingQuorums), against the same list without a policy.
// Not run by ctest; figures in docs/PERFORMANCE.md.
//
//   bench_api [N]      (default 200)
#include "tests/api/apitestsupport.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <algorithm>
#include <functional>

namespace {

struct Figures
{
    QString endpoint;
    int n = 0;
    double p50 = 0, p95 = 0, max = 0;
    int errors = 0;
};

Figures measure(const QString &endpoint, int n, const std::function<int(int)> &request, int expected)
{
    QList<double> ms;
    Figures f;
    f.endpoint = endpoint;
    for (int i = 0; i < n; ++i) {
        QElapsedTimer clock;
        clock.start();
        const int status = request(i);
        ms << clock.nsecsElapsed() / 1e6;
        if (status != expected)
            ++f.errors;
    }
    std::sort(ms.begin(), ms.end());
    f.n = n;
    f.p50 = ms.at(ms.size() / 2);
    f.p95 = ms.at(std::min<qsizetype>(ms.size() - 1, qsizetype(ms.size() * 0.95)));
    f.max = ms.constLast();
    return f;
}

// A proposal on a charge and an order of its own (no possible duplicates among them).
QJsonObject distinctProposal(const QString &reference, qint64 amount)
{
    QJsonObject proposal = ApiClient::proposal(reference, amount, QStringLiteral("ch_") + QString(reference).remove(u'-'));
    proposal.insert(QStringLiteral("business_reference"), QString(QStringLiteral("order-") + reference));
    return proposal;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const int n = argc > 1 ? std::max(10, QString::fromLatin1(argv[1]).toInt()) : 200;
    QTextStream out(stdout);
    ApiHarness harness;
    ApiHarness::Options options;
    options.withPaysim = true;
    options.extraServeArguments = {QStringLiteral("--no-executor")};
    QString error;
    if (!harness.start(options, &error)) {
        QTextStream(stderr) << "bench_api: " << error << Qt::endl;
        return 1;
    }
    ApiClient client(harness.api());
    const QString agent = harness.token(QStringLiteral("agent-7"));
    const QString ana = harness.token(QStringLiteral("ana"));
    const QString sam = harness.token(QStringLiteral("sam"));

    // Fixture: 2n PENDING actions (half to approve, half to reject) plus what the list shows.
    QStringList ids;
    QList<Figures> all;
    all << measure(QStringLiteral("POST /actions (201)"), 2 * n, [&](int i) {
        const ApiReply r = client.propose(agent, distinctProposal(QStringLiteral("bench-%1").arg(i), 1000 + i));
        ids << r.json.value(QStringLiteral("id")).toString();
        return r.status;
    }, 201);
    all << measure(QStringLiteral("POST /actions identical (200)"), n, [&](int i) {
        return client.propose(agent, distinctProposal(QStringLiteral("bench-%1").arg(i), 1000 + i)).status;
    }, 200);
    all << measure(QStringLiteral("POST /actions invalid (422)"), n, [&](int) {
        return client.post(QStringLiteral("/actions"), agent, {{QStringLiteral("amount"), QStringLiteral("x")}}).status;
    }, 422);
    all << measure(QStringLiteral("GET /health"), n, [&](int) { return client.get(QStringLiteral("/health"), QString()).status; }, 200);
    all << measure(QStringLiteral("GET /me"), n, [&](int) { return client.get(QStringLiteral("/me"), ana).status; }, 200);
    all << measure(QStringLiteral("GET /actions?limit=50"), n, [&](int) {
        return client.get(QStringLiteral("/actions?limit=50"), ana).status;
    }, 200);
    all << measure(QStringLiteral("GET /actions?state=queue&q=bench-1"), n, [&](int) {
        return client.get(QStringLiteral("/actions?state=queue&q=bench-1&limit=50"), ana).status;
    }, 200);
    all << measure(QStringLiteral("GET /actions/{id}"), n, [&](int i) {
        return client.get(QStringLiteral("/actions/") + ids.at(i), ana).status;
    }, 200);
    all << measure(QStringLiteral("POST /actions/{id}/approvals"), n, [&](int i) {
        return client.approve(ana, ids.at(i), "\"1\"", QByteArray("bench-approve-") + QByteArray::number(i)).status;
    }, 200);
    all << measure(QStringLiteral("POST approvals replayed (Idempotency-Key)"), n, [&](int i) {
        return client.approve(ana, ids.at(i), "\"1\"", QByteArray("bench-approve-") + QByteArray::number(i)).status;
    }, 200);
    all << measure(QStringLiteral("POST approvals stale (412)"), n, [&](int i) {
        return client.approve(ana, ids.at(i), "\"1\"").status;
    }, 412);
    all << measure(QStringLiteral("POST /actions/{id}/rejections"), n, [&](int i) {
        return client.post(QStringLiteral("/actions/%1/rejections").arg(ids.at(n + i)), ana,
                           {{QStringLiteral("reason"), QStringLiteral("other")}, {QStringLiteral("note"), QStringLiteral("bench")}}, {{"If-Match", "\"1\""}}).status;
    }, 200);
    all << measure(QStringLiteral("POST /actions/{id}/lookups (paysim)"), n, [&](int i) {
        return client.post(QStringLiteral("/actions/%1/lookups").arg(ids.at(n + i)), sam, {}, {{"If-Match", "\"2\""}}).status;
    }, 200);
    // Possible duplicates computed when read (docs/POLICY.md): 50 refunds of one charge and one
    // order, each a possible duplicate of the 49 others, are the newest 50 rows.
    for (int i = 0; i < 50; ++i)
        client.propose(agent, ApiClient::proposal(QStringLiteral("shared-%1").arg(i), 100 + i, QStringLiteral("ch_shared")));
    all << measure(QStringLiteral("GET /actions?limit=50, 50 on one charge"), n, [&](int) {
        const ApiReply r = client.get(QStringLiteral("/actions?limit=50"), ana);
        const QJsonArray rows = r.json.value(QStringLiteral("data")).toArray();
        return rows.size() == 50 && rows.first().toObject().value(QStringLiteral("possible_duplicates")).toInt() == 49 ? r.status : 0;
    }, 200);
    // GET /metrics reads the ledger on the HTTP server's thread (MetricsEndpoint: counts by state,
    // the oldest waiting actions, the audit tail, and since issue 18 the settlement gauges), on
    // the ledger the rows above left; compared with GET /me (a token lookup) below.
    QUrl root = harness.api();
    root.setPath(QString());
    ApiClient rootClient(root);
    const QString aud = harness.token(QStringLiteral("aud"));
    all << measure(QStringLiteral("GET /metrics (on the HTTP thread)"), n, [&](int) {
        const ApiReply r = rootClient.get(QStringLiteral("/metrics"), aud);
        return r.body.contains("countersign_settlement_reviews_open") ? r.status : 0;
    }, 200);
    all << measure(QStringLiteral("GET /events (to first byte)"), std::min(n, 50), [&](int) {
        QNetworkReply *reply = client.sendAsync("GET", QStringLiteral("/events"), ana, {}, {});
        QElapsedTimer wait;
        wait.start();
        while (reply->bytesAvailable() == 0 && wait.elapsed() < 5000)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->abort();
        reply->deleteLater();
        return status;
    }, 200);

    out << "countersignd API latency, " << n << " sequential requests per endpoint, one keep-alive client,"
        << " loopback, SQLite ledger (WAL, synchronous=FULL)\n";
    out << QStringLiteral("%1 %2 %3 %4 %5 %6\n").arg(QStringLiteral("endpoint"), -44).arg(QStringLiteral("n"), 5)
               .arg(QStringLiteral("p50 ms"), 8).arg(QStringLiteral("p95 ms"), 8).arg(QStringLiteral("max ms"), 8).arg(QStringLiteral("errors"), 7);
    int errors = 0;
    for (const Figures &f : all) {
        out << QStringLiteral("%1 %2 %3 %4 %5 %6\n").arg(f.endpoint, -44).arg(f.n, 5).arg(f.p50, 8, 'f', 2)
                   .arg(f.p95, 8, 'f', 2).arg(f.max, 8, 'f', 2).arg(f.errors, 7);
        errors += f.errors;
    }
    const auto p50Of = [&all](const QString &endpoint) {
        for (const Figures &f : std::as_const(all)) {
            if (f.endpoint == endpoint)
                return f.p50;
        }
        return 0.0;
    };
    out << QStringLiteral("GET /metrics vs GET /me (p50): %1x\n")
               .arg(p50Of(QStringLiteral("GET /metrics (on the HTTP thread)")) / std::max(0.001, p50Of(QStringLiteral("GET /me"))), 0, 'f', 2);
    out.flush();
    harness.stop();

    // Dual control in the list: every usd refund needs two approvers; 50 PENDING, each signed once.
    QTemporaryDir dir;
    const QString policyPath = dir.filePath(QStringLiteral("policy.json"));
    {
        QFile policy(policyPath);
        if (!policy.open(QIODevice::WriteOnly)
            || policy.write(R"({"rules": [{"id": "dual", "match": {"currency": "usd"}, "require_approvals": 2}]})") < 0) {
            QTextStream(stderr) << "bench_api: cannot write the policy" << Qt::endl;
            return 1;
        }
    }
    ApiHarness dual;
    ApiHarness::Options dualOptions;
    dualOptions.extraServeArguments = {QStringLiteral("--no-executor"), QStringLiteral("--policy"), policyPath};
    if (!dual.start(dualOptions, &error)) {
        QTextStream(stderr) << "bench_api: " << error << Qt::endl;
        return 1;
    }
    ApiClient dualClient(dual.api());
    int setupErrors = 0;
    for (int i = 0; i < 50; ++i) {
        const ApiReply proposed =
            dualClient.propose(dual.token(QStringLiteral("agent-7")), distinctProposal(QStringLiteral("dual-%1").arg(i), 1000 + i));
        const ApiReply signed1 = dualClient.approve(dual.token(QStringLiteral("ana")), proposed.json.value(QStringLiteral("id")).toString(),
                                                    proposed.ifMatch());
        setupErrors += proposed.status == 201 && signed1.status == 202 ? 0 : 1;
    }
    const Figures quorum = measure(QStringLiteral("GET /actions?limit=50, 50 rows \"1 of 2\""), n, [&](int) {
        const ApiReply r = dualClient.get(QStringLiteral("/actions?limit=50"), dual.token(QStringLiteral("bob")));
        const QJsonArray rows = r.json.value(QStringLiteral("data")).toArray();
        const bool marked = rows.size() == 50 && rows.first().toObject().value(QStringLiteral("approvals_required")).toInt() == 2;
        return marked ? r.status : 0;
    }, 200);
    dual.stop();
    // The baseline: GET /actions?limit=50 above (50 PENDING rows on charges of their own, no
    // policy), in the same run.
    const Figures plain = *std::find_if(all.cbegin(), all.cend(), [](const Figures &f) {
        return f.endpoint == u"GET /actions?limit=50";
    });
    out << QStringLiteral("%1 %2 %3 %4 %5 %6\n").arg(quorum.endpoint, -44).arg(quorum.n, 5).arg(quorum.p50, 8, 'f', 2)
               .arg(quorum.p95, 8, 'f', 2).arg(quorum.max, 8, 'f', 2).arg(quorum.errors + setupErrors, 7);
    out << QStringLiteral("dual control's list vs the list without a policy (p50): %1x\n")
               .arg(plain.p50 > 0 ? quorum.p50 / plain.p50 : 0.0, 0, 'f', 2);
    errors += quorum.errors + setupErrors;
    return errors == 0 ? 0 : 1;
}
