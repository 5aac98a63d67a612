// The console's API client against a real countersignd (and paysim) on loopback: every call,
// problem+json errors, deadlines, lost responses resent with the same Idempotency-Key and
// If-Match, 412, offline and back, and the queue model paging through the real backend.

#include "client/apiclient.h"
#include "client/apipagesource.h"
#include "models/actiondetail.h"
#include "models/actionpage.h"
#include "models/actionqueuemodel.h"
#include "models/executionpause.h"
#include "tests/client/backendprocess.h"
#include "tests/client/faultproxy.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

class TestApiClient : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QStringList m_charges;
    int m_nextCharge = 0;
    int m_nextRef = 0;

    std::unique_ptr<ApiClient> client(const QString &user, const QUrl &url = QUrl())
    {
        auto c = std::make_unique<ApiClient>();
        c->setBaseUrl(url.isValid() ? url : m_backend.url());
        c->setToken(m_backend.token(user));
        c->setDeadline(5s);
        c->setResendPolicy(100ms, 400ms);
        c->setProbeInterval(100ms, 300ms);
        return c;
    }

    static ApiResponse wait(ApiCall *call, int timeoutMs = 15000)
    {
        QSignalSpy finished(call, &ApiCall::finished);
        if (!finished.isValid() || !finished.wait(timeoutMs))
            qFatal("call %s did not finish", qPrintable(call->path()));
        return call->response();
    }

    // A fresh PENDING action on a fresh charge.
    QJsonObject proposeOne(qint64 amount = 4000)
    {
        const QString charge = m_charges.at(m_nextCharge++ % m_charges.size());
        return m_backend.propose(charge, amount, QStringLiteral("ref-%1").arg(++m_nextRef));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_backend.start(20), qPrintable(m_backend.error()));
        m_charges = m_backend.charges();
        QVERIFY(m_charges.size() >= 20);
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    void health()
    {
        auto c = client(QStringLiteral("ana"));
        const ApiResponse r = wait(c->health());
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.object().value(QLatin1String("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(c->connectionState(), ApiClient::ConnectionState::Online);
    }

    void me_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("role");
        QTest::newRow("agent") << QStringLiteral("agent7") << QStringLiteral("agent");
        QTest::newRow("approver") << QStringLiteral("ana") << QStringLiteral("approver");
        QTest::newRow("supervisor") << QStringLiteral("sue") << QStringLiteral("supervisor");
        QTest::newRow("auditor") << QStringLiteral("audrey") << QStringLiteral("auditor");
        QTest::newRow("admin") << QStringLiteral("root") << QStringLiteral("admin");
    }

    void me()
    {
        QFETCH(QString, user);
        QFETCH(QString, role);
        auto c = client(user);
        const ApiResponse r = wait(c->me());
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.object().value(QLatin1String("user")).toString(), user);
        QCOMPARE(r.object().value(QLatin1String("role")).toString(), role);
    }

    void wrongTokenIsUnauthenticated()
    {
        auto c = client(QStringLiteral("ana"));
        c->setToken(QStringLiteral("cst_not_a_token"));
        QSignalSpy unauthorized(c.get(), &ApiClient::unauthorized);
        QVERIFY(unauthorized.isValid());
        const ApiResponse r = wait(c->me());
        QCOMPARE(r.httpStatus, 401);
        QCOMPARE(r.error.kind, ApiError::Kind::Http);
        QCOMPARE(r.error.code, QStringLiteral("unauthenticated"));
        QCOMPARE(unauthorized.count(), 1);
        QCOMPARE(c->connectionState(), ApiClient::ConnectionState::Online); // it answered
    }

    void listActionsPagesWithCursorAndCounts()
    {
        const QString tag = QStringLiteral("paging-%1").arg(++m_nextRef);
        for (int i = 0; i < 7; ++i)
            m_backend.propose(m_charges.at(m_nextCharge++ % m_charges.size()), 1000 + i, tag + QLatin1Char('-') + QString::number(i), tag);
        auto c = client(QStringLiteral("ana"));
        ActionQuery query = ActionQuery::queue();
        query.search = tag;
        QString cursor;
        QList<int> sizes;
        QStringList ids;
        do {
            const ApiResponse r = wait(c->listActions(query, cursor, 3));
            QVERIFY2(r.ok(), qPrintable(r.error.userText()));
            QString error;
            const std::optional<ActionPage> page = ActionPage::fromJson(r.object(), &error);
            QVERIFY2(page, qPrintable(error));
            sizes << int(page->rows.size());
            for (const ActionSummary &row : page->rows)
                ids << row.id();
            QVERIFY(page->counts.count(ActionState::Pending) >= 7);
            cursor = page->nextCursor;
        } while (!cursor.isEmpty());
        QCOMPARE(sizes, (QList<int>{ 3, 3, 1 }));
        QCOMPARE(QSet<QString>(ids.begin(), ids.end()).size(), 7);

        // The same rows sorted by the backend, smallest amount first, across pages.
        query.sort = ActionQuery::SortKey::Amount;
        query.descending = false;
        QList<qint64> amounts;
        do {
            const ApiResponse r = wait(c->listActions(query, cursor, 3));
            QVERIFY2(r.ok(), qPrintable(r.error.userText()));
            const std::optional<ActionPage> page = ActionPage::fromJson(r.object());
            QVERIFY(page);
            for (const ActionSummary &row : page->rows)
                amounts << row.record.amount;
            cursor = page->nextCursor;
        } while (!cursor.isEmpty());
        QCOMPARE(amounts, (QList<qint64>{ 1000, 1001, 1002, 1003, 1004, 1005, 1006 }));
    }

    // awaiting=decision goes on the wire with the query (ActionQuery::awaitingParameter), the
    // backend accepts it, and counts.queued is read back (StateCounts::queued).
    void listActionsAwaitingDecision()
    {
        const QString tag = QStringLiteral("awaiting-%1").arg(++m_nextRef);
        m_backend.propose(m_charges.at(m_nextCharge++ % m_charges.size()), 1000, tag + QStringLiteral("-a"), tag);
        auto c = client(QStringLiteral("ana"));
        QStringList urls;
        connect(c->networkAccessManager(), &QNetworkAccessManager::finished, this,
                [&urls](QNetworkReply *reply) { urls << reply->url().toString(); });
        ActionQuery query = ActionQuery::queue();
        query.search = tag;
        query.awaitingDecision = true;
        const ApiResponse r = wait(c->listActions(query, QString(), 10));
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QVERIFY(!urls.isEmpty());
        QVERIFY2(urls.last().contains(QLatin1String("awaiting=decision")), qPrintable(urls.last()));
        QString error;
        const std::optional<ActionPage> page = ActionPage::fromJson(r.object(), &error);
        QVERIFY2(page, qPrintable(error));
        QCOMPARE(page->rows.size(), 1); // PENDING, not approved: it awaits a decision
        QCOMPARE(page->counts.queued(),
                 r.object().value(QLatin1String("counts")).toObject().value(QLatin1String("queued")).toInteger(-1));
        query.awaitingDecision = false;
        QVERIFY(wait(c->listActions(query, QString(), 10)).ok());
        QVERIFY2(!urls.last().contains(QLatin1String("awaiting=")), qPrintable(urls.last()));
    }

    void actionDetail()
    {
        const QJsonObject proposed = proposeOne(4200);
        auto c = client(QStringLiteral("ana"));
        const ApiResponse r = wait(c->action(proposed.value(QLatin1String("id")).toString()));
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.etag, 1);
        QString error;
        const std::optional<ActionDetail> detail = ActionDetail::fromJson(r.object(), &error);
        QVERIFY2(detail, qPrintable(error));
        QCOMPARE(detail->record.amount, 4200);
        QCOMPARE(detail->record.state, ActionState::Pending);
        QVERIFY(detail->permissions.approve.allowed);
        QVERIFY(!detail->permissions.reconcile.allowed);
        QVERIFY(!detail->permissions.reconcile.reason.isEmpty());
        QCOMPARE(detail->audit.size(), 1);
    }

    void approveMintsKeyAndVersion()
    {
        const QString id = proposeOne().value(QLatin1String("id")).toString();
        auto c = client(QStringLiteral("ana"));
        ApiCall *call = c->approve(id, 1, QStringLiteral("matches the ticket"));
        const QString key = call->idempotencyKey();
        QVERIFY(!key.isEmpty());
        const ApiResponse r = wait(call);
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.httpStatus, 200);
        QCOMPARE(r.etag, 2);
        QVERIFY(!r.replayed);
        const QJsonObject approval = r.object().value(QLatin1String("approval")).toObject();
        QCOMPARE(approval.value(QLatin1String("version")).toInt(), 1);
        QVERIFY(!approval.value(QLatin1String("idempotency_key")).toString().isEmpty());
        QCOMPARE(r.object().value(QLatin1String("action")).toObject().value(QLatin1String("state")).toString(), QStringLiteral("PENDING"));
        QCOMPARE(call->sendCount(), 1);
    }

    void sameKeySameRequestIsReplayed()
    {
        const QString id = proposeOne().value(QLatin1String("id")).toString();
        auto c = client(QStringLiteral("ana"));
        const QString key = ApiClient::mintIdempotencyKey();
        const ApiResponse first = wait(c->approve(id, 1, QStringLiteral("once"), key));
        QVERIFY2(first.ok(), qPrintable(first.error.userText()));
        const ApiResponse again = wait(c->approve(id, 1, QStringLiteral("once"), key));
        QVERIFY2(again.ok(), qPrintable(again.error.userText()));
        QVERIFY(again.replayed);
        QCOMPARE(again.object(), first.object());
        const QJsonObject action = m_backend.action(id);
        QCOMPARE(action.value(QLatin1String("approvals")).toArray().size(), 1);
    }

    void errors_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("operation");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("stale If-Match is 412") << QStringLiteral("ana") << QStringLiteral("approve-stale") << 412 << QStringLiteral("stale_state_version");
        QTest::newRow("a supervisor may not approve") << QStringLiteral("sue") << QStringLiteral("approve") << 403 << QStringLiteral("forbidden");
        QTest::newRow("an auditor may not look up") << QStringLiteral("audrey") << QStringLiteral("lookup") << 403 << QStringLiteral("forbidden");
        QTest::newRow("reconcile needs REQUIRES_REVIEW") << QStringLiteral("sue") << QStringLiteral("reconcile") << 409 << QStringLiteral("illegal_state");
        QTest::newRow("follow-up while the outcome is unknown") << QStringLiteral("sue") << QStringLiteral("follow_up") << 409 << QStringLiteral("outcome_unknown");
        QTest::newRow("a blank rejection reason") << QStringLiteral("ana") << QStringLiteral("reject-blank") << 422 << QStringLiteral("validation_failed");
        QTest::newRow("four eyes: the proposer cannot approve") << QStringLiteral("root") << QStringLiteral("approve-own") << 403 << QStringLiteral("four_eyes");
    }

    void errors()
    {
        QFETCH(QString, user);
        QFETCH(QString, operation);
        QFETCH(int, status);
        QFETCH(QString, code);
        QString id = proposeOne().value(QLatin1String("id")).toString();
        auto c = client(user);
        ApiCall *call = nullptr;
        if (operation == QLatin1String("approve-stale"))
            call = c->approve(id, 7, QString());
        else if (operation == QLatin1String("approve"))
            call = c->approve(id, 1, QStringLiteral("ok"));
        else if (operation == QLatin1String("lookup"))
            call = c->lookUp(id, 1);
        else if (operation == QLatin1String("reconcile"))
            call = c->reconcile(id, 1, true, 1, QStringLiteral("note"));
        else if (operation == QLatin1String("follow_up"))
            call = c->followUp(id, 1, 5000, QStringLiteral("note"));
        else if (operation == QLatin1String("reject-blank"))
            call = c->reject(id, 1, QStringLiteral("   "), QString());
        else if (operation == QLatin1String("approve-own")) {
            const QJsonObject own = m_backend.propose(m_charges.at(m_nextCharge++ % m_charges.size()), 100,
                                                      QStringLiteral("own-%1").arg(++m_nextRef), QString(), QStringLiteral("root"));
            call = c->approve(own.value(QLatin1String("id")).toString(), 1, QStringLiteral("ok"));
        }
        QVERIFY(call);
        const ApiResponse r = wait(call);
        QCOMPARE(r.httpStatus, status);
        QCOMPARE(r.error.kind, ApiError::Kind::Http);
        QCOMPARE(r.error.code, code);
        QVERIFY(!r.error.userText().isEmpty());
        QCOMPARE(call->sendCount(), 1); // definitive answers are never resent
        if (status == 412) {
            QCOMPARE(r.error.currentStateVersion(), 1);
            QCOMPARE(r.error.currentState(), QStringLiteral("PENDING"));
        }
    }

    void rejectAndLookUp()
    {
        const QString id = proposeOne().value(QLatin1String("id")).toString();
        auto approver = client(QStringLiteral("ana"));
        const ApiResponse rejected = wait(approver->reject(id, 1, QStringLiteral("duplicate"), QStringLiteral("duplicate ticket")));
        QVERIFY2(rejected.ok(), qPrintable(rejected.error.userText()));
        QCOMPARE(rejected.object().value(QLatin1String("action")).toObject().value(QLatin1String("state")).toString(), QStringLiteral("REJECTED"));

        auto supervisor = client(QStringLiteral("sue"));
        const ApiResponse lookup = wait(supervisor->lookUp(id, rejected.etag));
        QVERIFY2(lookup.ok(), qPrintable(lookup.error.userText()));
        QCOMPARE(lookup.object().value(QLatin1String("lookup")).toObject().value(QLatin1String("result")).toString(), QStringLiteral("NOT_FOUND"));
        QCOMPARE(lookup.object().value(QLatin1String("lookup")).toObject().value(QLatin1String("asked_by")).toString(), QStringLiteral("sue"));
    }

    // The approver's "read the charge now": the snapshot, the budget beside this action, warnings.
    void readCharge()
    {
        const QString id = proposeOne(4000).value(QLatin1String("id")).toString();
        auto approver = client(QStringLiteral("ana"));
        const ApiResponse read = wait(approver->readCharge(id));
        QVERIFY2(read.ok(), qPrintable(read.error.userText()));
        QCOMPARE(read.httpStatus, 201);
        QCOMPARE(read.object().value(QLatin1String("snapshot")).toObject().value(QLatin1String("result")).toString(),
                 QStringLiteral("FOUND"));
        QCOMPARE(read.object().value(QLatin1String("snapshot")).toObject().value(QLatin1String("asked_by")).toString(),
                 QStringLiteral("ana"));
        QCOMPARE(read.object().value(QLatin1String("budget")).toObject().value(QLatin1String("requested")).toInteger(), 4000);
        QVERIFY(read.object().value(QLatin1String("warnings")).isArray());

        auto agent = client(QStringLiteral("agent7"));
        const ApiResponse refused = wait(agent->readCharge(id));
        QCOMPARE(refused.httpStatus, 403);
        QCOMPARE(refused.error.code, QStringLiteral("forbidden"));
    }

    // The stop switch's calls (scoped to an agent that proposes nothing here, so that the rest of
    // this suite keeps executing): read, pause, the refusals, resume.
    void pauseAndResumeExecution()
    {
        auto supervisor = client(QStringLiteral("sue"));
        const QString agent = QStringLiteral("agent-paused-%1").arg(++m_nextRef);
        ApiResponse r = wait(supervisor->executionState());
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.object().value(QLatin1String("paused")).toBool(), false);

        ApiCall *call = supervisor->pauseExecution(ExecutionPause::Scope::Agent, agent, QStringLiteral("agent misbehaves"));
        QVERIFY(!call->idempotencyKey().isEmpty());
        r = wait(call);
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.httpStatus, 201);
        QString error;
        const std::optional<ExecutionPause> pause = ExecutionPause::fromJson(r.object(), &error);
        QVERIFY2(pause, qPrintable(error));
        QCOMPARE(pause->scope, ExecutionPause::Scope::Agent);
        QCOMPARE(pause->agent, agent);
        QCOMPARE(pause->pausedBy, QStringLiteral("sue"));
        QVERIFY(pause->inForce());

        auto approver = client(QStringLiteral("ana"));
        r = wait(approver->executionState());
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.object().value(QLatin1String("paused")).toBool(), true);
        QCOMPARE(r.object().value(QLatin1String("summary")).toString(), pause->describe());
        QCOMPARE(r.object().value(QLatin1String("pauses")).toArray().size(), 1);

        r = wait(supervisor->pauseExecution(ExecutionPause::Scope::Agent, agent, QStringLiteral("again")));
        QCOMPARE(r.httpStatus, 409);
        QCOMPARE(r.error.code, QStringLiteral("already_paused"));
        r = wait(supervisor->pauseExecution(ExecutionPause::Scope::Account, QString(), QStringLiteral("no account")));
        QCOMPARE(r.httpStatus, 422);
        QCOMPARE(r.error.code, QStringLiteral("validation_failed"));
        QCOMPARE(r.error.fieldErrors().value(0).first, QStringLiteral("account"));
        r = wait(approver->pauseExecution(ExecutionPause::Scope::All, QString(), QStringLiteral("not mine to pause")));
        QCOMPARE(r.httpStatus, 403);
        QCOMPARE(r.error.code, QStringLiteral("forbidden"));

        r = wait(supervisor->resumeExecution(pause->id, QStringLiteral("fixed")));
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.httpStatus, 200);
        const std::optional<ExecutionPause> resumed = ExecutionPause::fromJson(r.object(), &error);
        QVERIFY2(resumed, qPrintable(error));
        QVERIFY(!resumed->inForce());
        QCOMPARE(resumed->resumedBy, QStringLiteral("sue"));
        QCOMPARE(resumed->resumeNote, QStringLiteral("fixed"));
        r = wait(supervisor->resumeExecution(pause->id, QString()));
        QCOMPARE(r.httpStatus, 409);
        QCOMPARE(r.error.code, QStringLiteral("already_resumed"));
        r = wait(approver->executionState());
        QCOMPARE(r.object().value(QLatin1String("paused")).toBool(), false);
    }

    // A pause and a resume whose answers are lost: each is resent with its first key and
    // answered by the backend's replay of the first answer — one pause, one resume, never the
    // 409 a blind resend would get.
    void lostPauseAndResumeAnswersAreReplayed()
    {
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        auto c = client(QStringLiteral("root"), proxy.url());
        const QString account = QStringLiteral("acct_lost_%1").arg(++m_nextRef);
        proxy.dropNextPostResponse(2);
        ApiCall *call = c->pauseExecution(ExecutionPause::Scope::Account, account, QStringLiteral("answer lost"));
        const QString key = call->idempotencyKey();
        ApiResponse r = wait(call);
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.httpStatus, 201);
        QVERIFY(r.replayed);
        QCOMPARE(proxy.droppedResponses(), 2);
        QCOMPARE(proxy.postKeys(), QStringList(3, key));
        const QString id = r.object().value(QLatin1String("id")).toString();
        QVERIFY(!id.isEmpty());
        const QJsonArray pauses = m_backend.get(QStringLiteral("ana"), QStringLiteral("/execution"))
                                      .body.value(QLatin1String("pauses")).toArray();
        QCOMPARE(pauses.size(), 1);
        QCOMPARE(pauses.first().toObject().value(QLatin1String("id")).toString(), id);

        proxy.dropNextPostResponse(1);
        call = c->resumeExecution(id, QStringLiteral("back"));
        const QString resumeKey = call->idempotencyKey();
        r = wait(call);
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(r.httpStatus, 200);
        QVERIFY(r.replayed);
        QCOMPARE(proxy.postKeys().mid(3), QStringList(2, resumeKey));
        QCOMPARE(m_backend.get(QStringLiteral("ana"), QStringLiteral("/execution")).body.value(QLatin1String("paused")).toBool(),
                 false);
    }

    void reconcileWithEvidenceAndFollowUp()
    {
        // A changed resubmission puts the action in REQUIRES_REVIEW; the refund the first
        // request "already" made is found by a lookup; the supervisor reconciles it as
        // committed and proposes a follow-up for the remainder.
        const QString charge = m_charges.at(m_nextCharge++ % m_charges.size());
        const QString ref = QStringLiteral("recon-%1").arg(++m_nextRef);
        const QString id = m_backend.propose(charge, 4000, ref).value(QLatin1String("id")).toString();
        QCOMPARE(m_backend.resubmitChanged(charge, 4500, ref).status, 409);
        QVERIFY(m_backend.plantProviderRefund(charge, 4000, id));
        auto c = client(QStringLiteral("sue"));
        ApiResponse r = wait(c->action(id));
        QCOMPARE(r.object().value(QLatin1String("state")).toString(), QStringLiteral("REQUIRES_REVIEW"));
        const qint64 version = r.etag;

        const ApiResponse noEvidence = wait(c->reconcile(id, version, true, 0, QStringLiteral("trust me")));
        QCOMPARE(noEvidence.httpStatus, 422);
        QCOMPARE(noEvidence.error.code, QStringLiteral("no_evidence"));

        const ApiResponse lookup = wait(c->lookUp(id, version));
        QVERIFY2(lookup.ok(), qPrintable(lookup.error.userText()));
        const QJsonObject found = lookup.object().value(QLatin1String("lookup")).toObject();
        QCOMPARE(found.value(QLatin1String("result")).toString(), QStringLiteral("FOUND"));
        const ApiResponse reconciled = wait(c->reconcile(id, lookup.etag, true, found.value(QLatin1String("seq")).toInt(),
                                                         QStringLiteral("re_ found succeeded for 40.00")));
        QVERIFY2(reconciled.ok(), qPrintable(reconciled.error.userText()));
        QCOMPARE(reconciled.object().value(QLatin1String("action")).toObject().value(QLatin1String("state")).toString(), QStringLiteral("COMPLETED"));

        const ApiResponse followUp = wait(c->followUp(id, reconciled.etag, 4500, QStringLiteral("owed 45.00 in total")));
        QVERIFY2(followUp.ok(), qPrintable(followUp.error.userText()));
        QCOMPARE(followUp.httpStatus, 201);
        QCOMPARE(followUp.object().value(QLatin1String("amount")).toInteger(), 500);
        QCOMPARE(followUp.object().value(QLatin1String("parent_id")).toString(), id);
    }

    // The backend acts, the answer is lost on the wire — several times: every copy of the
    // request carries the same key and If-Match, the first answer comes back replayed, and the
    // backend holds one approval. (Qt's HTTP layer itself resends a POST once when a kept-alive
    // connection closes before any answer; the key makes that safe too, and the proxy counts it.)
    void lostResponseIsResentWithTheSameKey()
    {
        const QString id = proposeOne().value(QLatin1String("id")).toString();
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        auto c = client(QStringLiteral("ana"), proxy.url());
        proxy.dropNextPostResponse(4);
        ApiCall *call = c->approve(id, 1, QStringLiteral("lost four times"));
        QSignalSpy resending(call, &ApiCall::resending);
        QVERIFY(resending.isValid());
        const QString key = call->idempotencyKey();
        const ApiResponse r = wait(call);
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(proxy.droppedResponses(), 4);
        QCOMPARE(proxy.postsSeen(), 5);
        QVERIFY(call->sendCount() >= 2);
        QCOMPARE(resending.count(), call->sendCount() - 1);
        QCOMPARE(proxy.postKeys(), QStringList(5, key));
        QCOMPARE(proxy.postIfMatches(), QStringList(5, QStringLiteral("\"1\"")));
        QVERIFY(r.replayed);
        QCOMPARE(r.object().value(QLatin1String("approval")).toObject().value(QLatin1String("version")).toInt(), 1);
        const QJsonObject action = m_backend.action(id);
        QCOMPARE(action.value(QLatin1String("approvals")).toArray().size(), 1);
        QCOMPARE(action.value(QLatin1String("approval_version")).toInt(), 1);
    }

    // The answer comes after the client's deadline: a timeout, a resend, a replay.
    void deadlinePassesThenReplay()
    {
        const QString id = proposeOne().value(QLatin1String("id")).toString();
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        auto c = client(QStringLiteral("ana"), proxy.url());
        c->setDeadline(700ms);
        proxy.holdNextPostResponse();
        ApiCall *call = c->reject(id, 1, QStringLiteral("other"), QStringLiteral("slow backend"));
        QSignalSpy resending(call, &ApiCall::resending);
        QVERIFY(resending.isValid());
        const ApiResponse r = wait(call);
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QCOMPARE(resending.count(), 1);
        QCOMPARE(resending.first().at(1).value<ApiError>().kind, ApiError::Kind::Timeout);
        QVERIFY(r.replayed);
        QCOMPARE(m_backend.action(id).value(QLatin1String("approvals")).toArray().size(), 1);
    }

    void readsTimeOutWithoutResending()
    {
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        proxy.setBlackhole(true);
        auto c = client(QStringLiteral("ana"), proxy.url());
        c->setDeadline(400ms);
        ApiCall *call = c->me();
        const ApiResponse r = wait(call);
        QCOMPARE(r.error.kind, ApiError::Kind::Timeout); // 6.4 reports OperationCanceledError: mapped
        QCOMPARE(call->sendCount(), 1);
        QCOMPARE(c->connectionState(), ApiClient::ConnectionState::Offline);
    }

    // The backend goes away; a decision is made meanwhile; it comes back: the decision is
    // delivered once, with its key, and the client is online again.
    void offlineAndBack()
    {
        const QString id = proposeOne().value(QLatin1String("id")).toString();
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        auto c = client(QStringLiteral("ana"), proxy.url());
        QSignalSpy states(c.get(), &ApiClient::connectionStateChanged);
        QVERIFY(states.isValid());
        QVERIFY(wait(c->me()).ok());

        proxy.goDown();
        const ApiResponse offline = wait(c->me());
        QCOMPARE(offline.error.kind, ApiError::Kind::Transport);
        QCOMPARE(c->connectionState(), ApiClient::ConnectionState::Offline);

        ApiCall *call = c->approve(id, 1, QStringLiteral("made while offline"));
        QSignalSpy resending(call, &ApiCall::resending);
        QVERIFY(resending.isValid());
        QTRY_VERIFY_WITH_TIMEOUT(resending.count() >= 2, 5000);
        QVERIFY(!call->isFinished());

        QVERIFY(proxy.comeBack());
        const ApiResponse r = wait(call);
        QVERIFY2(r.ok(), qPrintable(r.error.userText()));
        QTRY_COMPARE(c->connectionState(), ApiClient::ConnectionState::Online);
        QCOMPARE(states.last().at(0).value<ApiClient::ConnectionState>(), ApiClient::ConnectionState::Online);
        QCOMPARE(m_backend.action(id).value(QLatin1String("approvals")).toArray().size(), 1);
    }

    void abandonStopsResending()
    {
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        proxy.goDown();
        auto c = client(QStringLiteral("ana"), proxy.url());
        ApiCall *call = c->approve(QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa"), 1, QString());
        QSignalSpy resending(call, &ApiCall::resending);
        QVERIFY(resending.isValid());
        QVERIFY(resending.wait(3000));
        call->abandon();
        QVERIFY(call->isFinished());
        QCOMPARE(call->response().error.kind, ApiError::Kind::Cancelled);
    }

    void resendLimitEndsWithTheTransportError()
    {
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        proxy.goDown();
        auto c = client(QStringLiteral("ana"), proxy.url());
        c->setResendPolicy(50ms, 100ms, 3);
        ApiCall *call = c->approve(QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa"), 1, QString());
        const ApiResponse r = wait(call);
        QCOMPARE(r.error.kind, ApiError::Kind::Transport);
        QCOMPARE(call->sendCount(), 3);
    }

    // The queue model paging through the real backend (ApiPageSource), under the model tester.
    void queueModelPagesThroughTheBackend()
    {
        const QString tag = QStringLiteral("model-%1").arg(++m_nextRef);
        for (int i = 0; i < 5; ++i)
            m_backend.propose(m_charges.at(m_nextCharge++ % m_charges.size()), 700 + i, tag + QLatin1Char('-') + QString::number(i), tag);
        auto c = client(QStringLiteral("ana"));
        ApiPageSource source(c.get());
        ActionQueueModel model(&source);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPageSize(2);
        ActionQuery query = ActionQuery::queue();
        query.search = tag;
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        model.setQuery(query);
        QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading() && !model.canFetchMore(QModelIndex()), 10000);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(loaded.count(), 3); // 2 + 2 + 1
        QCOMPARE(model.index(0, ActionQueueModel::AmountColumn).data().toString(), QStringLiteral("7.04 USD"));
        QVERIFY(model.counts().count(ActionState::Pending) >= 5);
    }
};

QTEST_GUILESS_MAIN(TestApiClient)
#include "tst_apiclient.moc"
