// The endpoint table (server/api/apiroutes.h): which request reaches which endpoint with which
// {id}, the 404 / 405 answers with Allow, that the table is exactly resources/openapi.yaml's
// `paths:`, and the preconditions and access each row declares (one row per endpoint).
#include "server/api/apiroutes.h"

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace cs;

using Body = RequestPreconditions::Body;
using Op = ActionPolicy::Operation;

Q_DECLARE_METATYPE(cs::RequestPreconditions::Body)
Q_DECLARE_METATYPE(cs::ApiRoutes::Access)
Q_DECLARE_METATYPE(cs::ActionPolicy::Operation)

class TestApiRoutes : public QObject
{
    Q_OBJECT

private slots:
    void matched_data();
    void matched();
    void unrouted_data();
    void unrouted();
    void rows_data();
    void rows();
    void tableIsTheContract();
};

namespace {

const ApiRoutes::Endpoint *row(const QByteArray &method, const QString &path)
{
    for (const ApiRoutes::Endpoint &endpoint : ApiRoutes::endpoints()) {
        if (endpoint.method == method && endpoint.path == path)
            return &endpoint;
    }
    return nullptr;
}

} // namespace

void TestApiRoutes::matched_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("actionId");

    const QString id = QStringLiteral("act_4n2kq7zx3m5p6r7s2t3v4w5y");
    QTest::newRow("health") << QByteArray("GET") << QStringLiteral("/api/v1/health") << QStringLiteral("/health") << QString();
    QTest::newRow("live") << QByteArray("GET") << QStringLiteral("/api/v1/health/live") << QStringLiteral("/health/live") << QString();
    QTest::newRow("ready") << QByteArray("GET") << QStringLiteral("/api/v1/health/ready") << QStringLiteral("/health/ready")
                           << QString();
    QTest::newRow("me") << QByteArray("GET") << QStringLiteral("/api/v1/me") << QStringLiteral("/me") << QString();
    QTest::newRow("list") << QByteArray("GET") << QStringLiteral("/api/v1/actions") << QStringLiteral("/actions") << QString();
    QTest::newRow("propose") << QByteArray("POST") << QStringLiteral("/api/v1/actions") << QStringLiteral("/actions") << QString();
    QTest::newRow("detail") << QByteArray("GET") << QStringLiteral("/api/v1/actions/") + id << QStringLiteral("/actions/{id}") << id;
    QTest::newRow("any non-empty id") << QByteArray("GET") << QStringLiteral("/api/v1/actions/x") << QStringLiteral("/actions/{id}")
                                      << QStringLiteral("x");
    QTest::newRow("approve") << QByteArray("POST") << QStringLiteral("/api/v1/actions/%1/approvals").arg(id)
                             << QStringLiteral("/actions/{id}/approvals") << id;
    QTest::newRow("reject") << QByteArray("POST") << QStringLiteral("/api/v1/actions/%1/rejections").arg(id)
                            << QStringLiteral("/actions/{id}/rejections") << id;
    QTest::newRow("look up") << QByteArray("POST") << QStringLiteral("/api/v1/actions/%1/lookups").arg(id)
                             << QStringLiteral("/actions/{id}/lookups") << id;
    QTest::newRow("reconcile") << QByteArray("POST") << QStringLiteral("/api/v1/actions/%1/reconciliations").arg(id)
                               << QStringLiteral("/actions/{id}/reconciliations") << id;
    QTest::newRow("follow up") << QByteArray("POST") << QStringLiteral("/api/v1/actions/%1/follow-ups").arg(id)
                               << QStringLiteral("/actions/{id}/follow-ups") << id;
    QTest::newRow("an id named like a sub-resource") << QByteArray("GET") << QStringLiteral("/api/v1/actions/approvals")
                                                     << QStringLiteral("/actions/{id}") << QStringLiteral("approvals");
    QTest::newRow("a charge") << QByteArray("GET") << QStringLiteral("/api/v1/charges/ch_3Pq8Xk2e") << QStringLiteral("/charges/{id}")
                              << QStringLiteral("ch_3Pq8Xk2e");
    QTest::newRow("a charge's look-up") << QByteArray("POST") << QStringLiteral("/api/v1/charges/pi_3Pq8Xk2e/lookups")
                                        << QStringLiteral("/charges/{id}/lookups") << QStringLiteral("pi_3Pq8Xk2e");
    QTest::newRow("events") << QByteArray("GET") << QStringLiteral("/api/v1/events") << QStringLiteral("/events") << QString();
    QTest::newRow("webhook") << QByteArray("POST") << QStringLiteral("/api/v1/webhooks/provider")
                             << QStringLiteral("/webhooks/provider") << QString();
}

void TestApiRoutes::matched()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QString, pattern);
    QFETCH(QString, actionId);

    const auto matched = ApiRoutes::match(method, path);
    QVERIFY(std::holds_alternative<ApiRoutes::Match>(matched));
    const ApiRoutes::Match &match = std::get<ApiRoutes::Match>(matched);
    QCOMPARE(match.endpoint, row(method, pattern));
    QCOMPARE(match.actionId, actionId);
}

void TestApiRoutes::unrouted_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("allow");

    QTest::newRow("another prefix") << QByteArray("GET") << QStringLiteral("/api/v2/health") << 404 << QByteArray();
    QTest::newRow("the prefix without a slash") << QByteArray("GET") << QStringLiteral("/api/v1health") << 404 << QByteArray();
    QTest::newRow("the prefix alone") << QByteArray("GET") << QStringLiteral("/api/v1/") << 404 << QByteArray();
    QTest::newRow("root") << QByteArray("GET") << QStringLiteral("/") << 404 << QByteArray();
    QTest::newRow("unknown endpoint") << QByteArray("GET") << QStringLiteral("/api/v1/users") << 404 << QByteArray();
    QTest::newRow("a trailing slash") << QByteArray("GET") << QStringLiteral("/api/v1/me/") << 404 << QByteArray();
    QTest::newRow("an empty id") << QByteArray("GET") << QStringLiteral("/api/v1/actions/") << 404 << QByteArray();
    QTest::newRow("an empty id before a sub-resource") << QByteArray("POST") << QStringLiteral("/api/v1/actions//approvals")
                                                       << 404 << QByteArray();
    QTest::newRow("an unknown sub-resource") << QByteArray("POST") << QStringLiteral("/api/v1/actions/act_x/refunds") << 404
                                             << QByteArray();
    QTest::newRow("too deep") << QByteArray("GET") << QStringLiteral("/api/v1/actions/act_x/approvals/1") << 404 << QByteArray();
    QTest::newRow("case matters") << QByteArray("GET") << QStringLiteral("/api/v1/Health") << 404 << QByteArray();
    QTest::newRow("another webhook") << QByteArray("POST") << QStringLiteral("/api/v1/webhooks/stripe") << 404 << QByteArray();
    QTest::newRow("DELETE an action") << QByteArray("DELETE") << QStringLiteral("/api/v1/actions/act_x") << 405 << QByteArray("GET");
    QTest::newRow("PUT the list: both methods, in table order") << QByteArray("PUT") << QStringLiteral("/api/v1/actions") << 405
                                                                << QByteArray("GET, POST");
    QTest::newRow("GET an approval") << QByteArray("GET") << QStringLiteral("/api/v1/actions/act_x/approvals") << 405
                                     << QByteArray("POST");
    QTest::newRow("POST a charge") << QByteArray("POST") << QStringLiteral("/api/v1/charges/ch_x") << 405 << QByteArray("GET");
    QTest::newRow("GET a charge's look-ups") << QByteArray("GET") << QStringLiteral("/api/v1/charges/ch_x/lookups") << 405
                                             << QByteArray("POST");
    QTest::newRow("the charges without an id") << QByteArray("GET") << QStringLiteral("/api/v1/charges") << 404 << QByteArray();
    QTest::newRow("POST health") << QByteArray("POST") << QStringLiteral("/api/v1/health") << 405 << QByteArray("GET");
    QTest::newRow("POST events") << QByteArray("POST") << QStringLiteral("/api/v1/events") << 405 << QByteArray("GET");
    QTest::newRow("GET the webhook") << QByteArray("GET") << QStringLiteral("/api/v1/webhooks/provider") << 405 << QByteArray("POST");
    QTest::newRow("a lowercase method") << QByteArray("get") << QStringLiteral("/api/v1/me") << 405 << QByteArray("GET");
}

void TestApiRoutes::unrouted()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(int, status);
    QFETCH(QByteArray, allow);

    const auto matched = ApiRoutes::match(method, path);
    QVERIFY(std::holds_alternative<Problem>(matched));
    const ApiResponse response = std::get<Problem>(matched).toResponse(path);
    QCOMPARE(response.status, status);
    QCOMPARE(response.problemCode, status == 404 ? QStringLiteral("not_found") : QStringLiteral("method_not_allowed"));
    QCOMPARE(response.header("Allow"), allow);
    const QString detail = QJsonDocument::fromJson(response.body).object().value(QLatin1String("detail")).toString();
    QCOMPARE(detail, status == 404 ? QStringLiteral("no route %1").arg(path)
                                   : QStringLiteral("%1 does not allow %2").arg(path, QString::fromLatin1(method)));
}

void TestApiRoutes::rows_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<ApiRoutes::Access>("access");
    QTest::addColumn<Op>("operation");
    QTest::addColumn<Body>("body");
    QTest::addColumn<bool>("ifMatch");
    QTest::addColumn<bool>("idempotencyKey");

    using A = ApiRoutes::Access;
    const QByteArray get("GET");
    const QByteArray post("POST");
    QTest::newRow("health: public") << get << QStringLiteral("/health") << A::Public << Op::Me << Body::None << false << false;
    QTest::newRow("liveness: public") << get << QStringLiteral("/health/live") << A::Public << Op::Me << Body::None << false << false;
    QTest::newRow("readiness: public") << get << QStringLiteral("/health/ready") << A::Public << Op::Me << Body::None << false
                                       << false;
    QTest::newRow("me") << get << QStringLiteral("/me") << A::Token << Op::Me << Body::None << false << false;
    QTest::newRow("list") << get << QStringLiteral("/actions") << A::Token << Op::ListActions << Body::None << false << false;
    QTest::newRow("propose: no If-Match") << post << QStringLiteral("/actions") << A::Token << Op::Propose << Body::Json << false << true;
    QTest::newRow("detail") << get << QStringLiteral("/actions/{id}") << A::Token << Op::GetAction << Body::None << false << false;
    QTest::newRow("approve") << post << QStringLiteral("/actions/{id}/approvals") << A::Token << Op::Approve << Body::Json << true << true;
    QTest::newRow("reject") << post << QStringLiteral("/actions/{id}/rejections") << A::Token << Op::Reject << Body::Json << true << true;
    QTest::newRow("look up: body optional") << post << QStringLiteral("/actions/{id}/lookups") << A::Token << Op::Lookup
                                            << Body::OptionalJson << true << true;
    QTest::newRow("reconcile") << post << QStringLiteral("/actions/{id}/reconciliations") << A::Token << Op::Reconcile << Body::Json
                               << true << true;
    QTest::newRow("follow up") << post << QStringLiteral("/actions/{id}/follow-ups") << A::Token << Op::FollowUp << Body::Json
                               << true << true;
    QTest::newRow("charge view: not for agents") << get << QStringLiteral("/charges/{id}") << A::Token << Op::ReadCharge << Body::None
                                                 << false << false;
    QTest::newRow("charge look-up: no If-Match, body optional")
        << post << QStringLiteral("/charges/{id}/lookups") << A::Token << Op::ChargeLookup << Body::OptionalJson << false << true;
    QTest::newRow("events") << get << QStringLiteral("/events") << A::Token << Op::Events << Body::None << false << false;
    QTest::newRow("execution: every role") << get << QStringLiteral("/execution") << A::Token << Op::ReadExecution << Body::None
                                           << false << false;
    QTest::newRow("pause: no If-Match") << post << QStringLiteral("/execution/pauses") << A::Token << Op::PauseExecution
                                        << Body::Json << false << true;
    QTest::newRow("resume: body optional") << post << QStringLiteral("/execution/pauses/{id}/resume") << A::Token
                                           << Op::PauseExecution << Body::OptionalJson << false << true;
    QTest::newRow("webhook: public, raw body") << post << QStringLiteral("/webhooks/provider") << A::Public << Op::Me << Body::Raw
                                               << false << false;
}

void TestApiRoutes::rows()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(ApiRoutes::Access, access);
    QFETCH(Op, operation);
    QFETCH(Body, body);
    QFETCH(bool, ifMatch);
    QFETCH(bool, idempotencyKey);

    const ApiRoutes::Endpoint *endpoint = row(method, path);
    QVERIFY(endpoint);
    QCOMPARE(endpoint->access, access);
    if (access == ApiRoutes::Access::Token)
        QCOMPARE(endpoint->operation, operation);
    QCOMPARE(endpoint->needs.body, body);
    QCOMPARE(endpoint->needs.ifMatch, ifMatch);
    QCOMPARE(endpoint->needs.idempotencyKey, idempotencyKey);
    QVERIFY(endpoint->handler);
}

// Every (method, path) of the table is one of openapi.yaml's operations and the other way round,
// so the table cannot offer what the contract does not describe, nor miss what it does. A path with
// its own `servers:` lives outside /api/v1 and is mounted on ApiServer by another room (/mcp, by
// HttpTransport; /metrics, by ApiServer itself); those are set aside and named, so a new one is a
// decision, not an accident.
void TestApiRoutes::tableIsTheContract()
{
    QFile file(QStringLiteral(COUNTERSIGN_OPENAPI));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    const QStringList lines = QString::fromUtf8(file.readAll()).split(u'\n');
    static const QRegularExpression pathLine(QStringLiteral("^  (/[^:]*):\\s*$"));
    static const QRegularExpression methodLine(QStringLiteral("^    (get|post|put|patch|delete):"));
    QSet<QString> contract;
    QSet<QString> mounted;
    QString path;
    bool inPaths = false;
    for (const QString &line : lines) {
        if (!line.startsWith(u' ') && !line.isEmpty()) {
            inPaths = line.startsWith(QLatin1String("paths:"));
            continue;
        }
        if (!inPaths)
            continue;
        if (const auto m = pathLine.match(line); m.hasMatch())
            path = m.captured(1);
        else if (line == QLatin1String("    servers:"))
            mounted.insert(path);
        else if (const auto m2 = methodLine.match(line); m2.hasMatch())
            contract.insert(m2.captured(1).toUpper() + u' ' + path);
    }
    QCOMPARE(mounted, (QSet<QString>{QStringLiteral("/mcp"), QStringLiteral("/metrics")}));
    for (auto it = contract.begin(); it != contract.end();) {
        if (mounted.contains(it->section(u' ', 1)))
            it = contract.erase(it);
        else
            ++it;
    }
    QSet<QString> table;
    for (const ApiRoutes::Endpoint &endpoint : ApiRoutes::endpoints())
        table.insert(QString::fromLatin1(endpoint.method) + u' ' + endpoint.path);
    QCOMPARE(table.size(), ApiRoutes::endpoints().size()); // no row twice
    QCOMPARE(table, contract);
}

QTEST_GUILESS_MAIN(TestApiRoutes)
#include "tst_apiroutes.moc"
