#include "scenariorunner.h"

#include "demohttp.h"
#include "demostack.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTcpSocket>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QMap>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QUrlQuery>

#include <functional>

Q_DECLARE_LOGGING_CATEGORY(lcDemo)

namespace cs::demo {

namespace {

using Kind = ScenarioRunner::NarrationKind;

QString money(qint64 minor)
{
    return QStringLiteral("$%1.%2").arg(minor / 100).arg(minor % 100, 2, 10, QLatin1Char('0'));
}

QString str(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

qint64 num(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toInteger();
}

QJsonArray arr(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toArray();
}

QJsonObject rule(const QString &fault, int nth, int times, const QJsonObject &extra = QJsonObject())
{
    QJsonObject r{{QStringLiteral("method"), QStringLiteral("POST")},
                  {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                  {QStringLiteral("nth"), nth},
                  {QStringLiteral("times"), times},
                  {QStringLiteral("fault"), fault}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        r.insert(it.key(), it.value());
    return r;
}

const QStringList Final{QStringLiteral("COMPLETED"), QStringLiteral("REJECTED"), QStringLiteral("REQUIRES_REVIEW")};

} // namespace

struct ScenarioRunner::Private {
    ScenarioRunner *q = nullptr;
    QPointer<DemoStack> stack;
    DemoHttp http;
    Mode mode = Mode::Continuous;
    int stepDelayMs = 1200;
    bool running = false;
    bool cancelled = false;
    bool waiting = false;
    bool inStep = false;
    int scenarioId = 0;
    QList<std::function<bool()>> steps;
    qsizetype index = 0;
    QString failReason;
    bool verdictPass = false;
    QString verdictText;
    std::function<void()> cleanup;
    QMap<QString, QString> v; // the scenario's variables (charge, action ids, …)
    int runCounter = 0;

    QString agent, approver, approver2, supervisor;

    void say(Kind kind, const QString &text) { emit q->narration(text, kind); }

    bool fail(const QString &reason)
    {
        failReason = reason;
        return false;
    }

    HttpReply api(const QString &user, const QByteArray &verb, const QString &path, const QJsonObject &body = QJsonObject(),
                  qint64 ifMatch = -1)
    {
        const QUrl url(stack->backendUrl().toString() + QStringLiteral("/api/v1") + path);
        QList<QPair<QByteArray, QByteArray>> headers{
            {"Authorization", "Bearer " + stack->tokens().value(user).toUtf8()}};
        QByteArray payload;
        if (verb != "GET") {
            headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
            payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
        }
        if (ifMatch >= 0)
            headers.append(qMakePair(QByteArray("If-Match"), QByteArray('"' + QByteArray::number(ifMatch) + '"')));
        return http.request(verb, url, headers, payload);
    }

    HttpReply sim(const QByteArray &verb, const QString &path, const QJsonObject &body = QJsonObject())
    {
        QList<QPair<QByteArray, QByteArray>> headers;
        QByteArray payload;
        if (verb == "POST") {
            headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
            payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
        }
        return http.request(verb, QUrl(stack->paysimUrl().toString() + path), headers, payload);
    }

    // What an agent without Countersign does: straight at the provider, no idempotency key. A raw
    // socket, one request per connection, so that nothing below the agent resends on its behalf.
    HttpReply naiveRefund(const QString &charge, qint64 amount)
    {
        QUrlQuery form;
        form.addQueryItem(QStringLiteral("charge"), charge);
        form.addQueryItem(QStringLiteral("amount"), QString::number(amount));
        const QByteArray body = form.toString(QUrl::FullyEncoded).toUtf8();
        const QUrl base = stack->paysimUrl();
        QByteArray request = "POST /v1/refunds HTTP/1.1\r\nHost: " + base.host().toUtf8() + ':'
                             + QByteArray::number(base.port()) + "\r\nAuthorization: Bearer " + stack->providerKey().toUtf8()
                             + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                             + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
        QTcpSocket socket;
        QByteArray received;
        QEventLoop loop;
        QObject::connect(&socket, &QTcpSocket::connected, &loop, [&] { socket.write(request); });
        QObject::connect(&socket, &QTcpSocket::readyRead, &loop, [&] { received += socket.readAll(); });
        QObject::connect(&socket, &QTcpSocket::disconnected, &loop, &QEventLoop::quit);
        QObject::connect(&socket, &QTcpSocket::errorOccurred, &loop, &QEventLoop::quit);
        QTimer::singleShot(5000, &loop, &QEventLoop::quit);
        socket.connectToHost(base.host(), quint16(base.port()));
        loop.exec();
        received += socket.readAll();
        HttpReply reply;
        const qsizetype headEnd = received.indexOf("\r\n\r\n");
        if (received.startsWith("HTTP/1.") && headEnd > 0) {
            reply.status = received.mid(9, 3).toInt();
            reply.body = received.mid(headEnd + 4);
        } else {
            reply.error = QStringLiteral("connection closed without an answer");
        }
        return reply;
    }

    bool setFaults(const QJsonArray &rules)
    {
        if (sim("DELETE", QStringLiteral("/_sim/faults")).status != 200)
            return fail(QStringLiteral("paysim did not clear its fault rules"));
        if (rules.isEmpty())
            return true;
        const HttpReply r = sim("POST", QStringLiteral("/_sim/faults"), QJsonObject{{QStringLiteral("rules"), rules}});
        if (r.status != 200)
            return fail(QStringLiteral("paysim refused the fault rules: ") + QString::fromUtf8(r.body));
        for (const QJsonValue &value : rules) {
            const QJsonObject o = value.toObject();
            say(Kind::Step, QStringLiteral("Fault injected at paysim: %1 on POST /v1/refunds (request #%2, %3)")
                                .arg(str(o, "fault"))
                                .arg(num(o, "nth"))
                                .arg(num(o, "times") == 0 ? QStringLiteral("every time from then on")
                                                          : QStringLiteral("%1 time(s)").arg(num(o, "times"))));
        }
        return true;
    }

    QString newCharge(qint64 amount)
    {
        const HttpReply r = sim("POST", QStringLiteral("/_sim/charges"),
                                QJsonObject{{QStringLiteral("amounts"), QJsonArray{amount}}});
        const QJsonArray data = arr(r.json(), "data");
        const QString id = data.isEmpty() ? QString() : str(data.at(0).toObject(), "id");
        if (id.isEmpty())
            fail(QStringLiteral("paysim created no charge: ") + QString::fromUtf8(r.body));
        return id;
    }

    QJsonArray groundTruth()
    {
        return arr(sim("GET", QStringLiteral("/_sim/refunds")).json(), "data");
    }

    QJsonArray refundsWhere(const std::function<bool(const QJsonObject &)> &match)
    {
        QJsonArray out;
        for (const QJsonValue &value : groundTruth()) {
            if (match(value.toObject()))
                out.append(value);
        }
        return out;
    }

    QJsonArray refundsForAction(const QString &actionId)
    {
        return refundsWhere([&](const QJsonObject &r) {
            return r.value(QLatin1String("metadata")).toObject().value(QLatin1String("countersign_action_id")).toString() == actionId;
        });
    }

    QJsonArray refundsForCharge(const QString &charge)
    {
        return refundsWhere([&](const QJsonObject &r) { return str(r, "charge") == charge; });
    }

    QJsonObject action(const QString &id) { return api(supervisor, "GET", QStringLiteral("/actions/") + id).json(); }

    HttpReply propose(const QString &charge, qint64 amount, const QString &reference)
    {
        const QJsonObject proposal{
            {QStringLiteral("kind"), QStringLiteral("refund")},
            {QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), charge}}},
            {QStringLiteral("amount"), QJsonValue(amount)},
            {QStringLiteral("currency"), QStringLiteral("usd")},
            {QStringLiteral("reason"), QStringLiteral("requested_by_customer")},
            {QStringLiteral("client_reference"), reference},
            {QStringLiteral("business_reference"), reference},
        };
        return api(agent, "POST", QStringLiteral("/actions"), proposal);
    }

    // The agent proposes; returns the action id (empty on failure).
    QString proposeOk(const QString &charge, qint64 amount, const QString &reference)
    {
        const HttpReply r = propose(charge, amount, reference);
        const QString id = str(r.json(), "id");
        if (r.status != 201 || id.isEmpty()) {
            fail(QStringLiteral("the proposal was refused: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
            return QString();
        }
        say(Kind::Step, QStringLiteral("Agent %1 proposes a refund of %2 on %3 (reference %4) → %5 PENDING")
                            .arg(agent, money(amount), charge, reference, id));
        emit q->actionFocused(id);
        return id;
    }

    bool approve(const QString &id, const QString &who)
    {
        const QJsonObject current = action(id);
        const HttpReply r = api(who, "POST", QStringLiteral("/actions/%1/approvals").arg(id),
                                QJsonObject{{QStringLiteral("note"), QStringLiteral("demo: checked the order")}},
                                num(current, "state_version"));
        if (r.status != 200)
            return fail(QStringLiteral("approval of %1 failed: HTTP %2 %3").arg(id).arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
        const QJsonObject approval = r.json().value(QLatin1String("approval")).toObject();
        say(Kind::Step, QStringLiteral("Approver %1 approves %2 (four-eyes: not the proposer); Countersign mints key %3")
                            .arg(who, id, str(approval, "idempotency_key")));
        return true;
    }

    // Polls GET /actions/{id} until its state is one of `states` (bounded).
    bool waitForState(const QString &id, const QStringList &states, int timeoutMs, QJsonObject *out = nullptr, int pollMs = 100)
    {
        QElapsedTimer timer;
        timer.start();
        QJsonObject last;
        while (!cancelled) {
            last = action(id);
            if (states.contains(str(last, "state"))) {
                if (out)
                    *out = last;
                return true;
            }
            if (timer.elapsed() > timeoutMs)
                break;
            DemoHttp::pause(pollMs);
        }
        if (out)
            *out = last;
        return fail(QStringLiteral("%1 did not reach %2 within %3 s (it is %4)")
                        .arg(id, states.join(QLatin1Char('/')))
                        .arg(timeoutMs / 1000)
                        .arg(str(last, "state")));
    }

    bool waitUntil(const std::function<bool()> &condition, int timeoutMs, const QString &what)
    {
        QElapsedTimer timer;
        timer.start();
        while (!cancelled) {
            if (condition())
                return true;
            if (timer.elapsed() > timeoutMs)
                break;
            DemoHttp::pause(50);
        }
        return fail(QStringLiteral("timed out waiting for ") + what);
    }

    void narrateAttempts(const QJsonObject &detail)
    {
        for (const QJsonValue &value : arr(detail, "attempts")) {
            const QJsonObject a = value.toObject();
            const QString outcome = str(a, "outcome");
            say(outcome == QLatin1String("unknown") ? Kind::Problem : Kind::Observation,
                QStringLiteral("Attempt %1 with key %2: %3 (HTTP %4%5%6)")
                    .arg(num(a, "seq"))
                    .arg(str(a, "idempotency_key"), outcome)
                    .arg(num(a, "http_status"))
                    .arg(str(a, "error_code").isEmpty() ? QString() : QStringLiteral(", ") + str(a, "error_code"))
                    .arg(a.value(QLatin1String("replayed")).toBool() ? QStringLiteral(", replayed by the provider") : QString()));
        }
        for (const QJsonValue &value : arr(detail, "lookups")) {
            const QJsonObject l = value.toObject();
            say(Kind::Observation, QStringLiteral("Lookup %1 by %2 (%3): %4 %5")
                                       .arg(num(l, "seq"))
                                       .arg(str(l, "asked_by"), str(l, "method"), str(l, "result"), str(l, "provider_object_id")));
        }
    }

    QStringList attemptKeys(const QJsonObject &detail)
    {
        QStringList keys;
        for (const QJsonValue &value : arr(detail, "attempts")) {
            const QString key = str(value.toObject(), "idempotency_key");
            if (!keys.contains(key))
                keys.append(key);
        }
        return keys;
    }

    QString providerObject(const QJsonObject &detail)
    {
        QString id;
        for (const char *list : {"attempts", "lookups"}) {
            for (const QJsonValue &value : arr(detail, list)) {
                const QString object = str(value.toObject(), "provider_object_id");
                if (!object.isEmpty())
                    id = object;
            }
        }
        return id;
    }

    // A supervisor's "look up now"; returns the lookup's seq (0 on failure) and its result.
    int lookup(const QString &id, QString *result)
    {
        const QJsonObject current = action(id);
        const HttpReply r = api(supervisor, "POST", QStringLiteral("/actions/%1/lookups").arg(id), QJsonObject(),
                                num(current, "state_version"));
        if (r.status != 200) {
            fail(QStringLiteral("lookup failed: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
            return 0;
        }
        const QJsonObject l = r.json().value(QLatin1String("lookup")).toObject();
        *result = str(l, "result");
        say(Kind::Observation, QStringLiteral("Supervisor %1 looks up %2 at the provider: %3 %4 %5")
                                   .arg(supervisor, id, *result, str(l, "provider_object_id"),
                                        l.contains(QLatin1String("amount")) && num(l, "amount") > 0 ? money(num(l, "amount")) : QString()));
        return int(num(l, "seq"));
    }

    bool reconcile(const QString &id, const QString &outcome, int evidenceSeq, const QString &note)
    {
        const QJsonObject current = action(id);
        const HttpReply r = api(supervisor, "POST", QStringLiteral("/actions/%1/reconciliations").arg(id),
                                QJsonObject{{QStringLiteral("outcome"), outcome},
                                            {QStringLiteral("evidence_lookup_seq"), evidenceSeq},
                                            {QStringLiteral("note"), note}},
                                num(current, "state_version"));
        if (r.status != 200)
            return fail(QStringLiteral("reconciliation failed: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
        const QJsonObject after = r.json().value(QLatin1String("action")).toObject();
        say(Kind::Cure, QStringLiteral("Supervisor %1 reconciles %2 as %3 with lookup %4 as evidence → %5")
                            .arg(supervisor, id, outcome)
                            .arg(evidenceSeq)
                            .arg(str(after, "state")));
        return true;
    }

    // "VERDICT PASS: ledger COMPLETED re_… 8900 usd; provider holds 1 refund for the action"
    void verdict(bool pass, const QString &text)
    {
        verdictPass = pass;
        verdictText = (pass ? QStringLiteral("VERDICT PASS: ") : QStringLiteral("VERDICT FAIL: ")) + text;
    }

    QString ledgerVsProvider(const QString &id, const QJsonObject &detail, const QJsonArray &refunds)
    {
        qint64 total = 0;
        for (const QJsonValue &value : refunds)
            total += num(value.toObject(), "amount");
        QString object = providerObject(detail);
        return QStringLiteral("ledger %1 %2 %3 %4 %5; provider holds %6 refund(s) for the action%7")
            .arg(id, str(detail, "state"), object.isEmpty() ? QStringLiteral("-") : object)
            .arg(num(detail, "amount"))
            .arg(str(detail, "currency"))
            .arg(refunds.size())
            .arg(refunds.isEmpty() ? QString() : QStringLiteral(" (%1 usd)").arg(total));
    }

    // Checks one action against ground truth: the expected state and number of refunds of its amount.
    bool check(const QString &id, const QString &expectedState, int expectedRefunds, QString *line)
    {
        const QJsonObject detail = action(id);
        const QJsonArray refunds = refundsForAction(id);
        bool ok = str(detail, "state") == expectedState && refunds.size() == expectedRefunds;
        for (const QJsonValue &value : refunds)
            ok = ok && num(value.toObject(), "amount") == num(detail, "amount");
        if (expectedRefunds == 1 && !refunds.isEmpty())
            ok = ok && str(refunds.first().toObject(), "id") == providerObject(detail);
        *line = ledgerVsProvider(id, detail, refunds);
        return ok;
    }

    QString reference(const QString &what)
    {
        return QStringLiteral("demo-%1-%2-%3").arg(scenarioId).arg(what).arg(++runCounter) + v.value(QStringLiteral("charge")).right(6);
    }

    void build(int id);
    void buildRetry();
    void buildChangedAmount();
    void buildKeyReused();
    void buildTwoWorkers();
    void buildCrash();
    void buildOutage();
    void buildKeyWindow();

    void runNext();
    void finish(bool asExpected, const QString &line);
};

// ---- 1 ---------------------------------------------------------------------------------------
void ScenarioRunner::Private::buildRetry()
{
    steps << [this] {
        say(Kind::Step, QStringLiteral("First, what a naive agent does without Countersign: it calls the provider directly."));
        v[QStringLiteral("naiveCharge")] = newCharge(30000);
        if (v.value(QStringLiteral("naiveCharge")).isEmpty())
            return false;
        return setFaults({rule(QStringLiteral("drop_response_after_commit"), 1, 1)});
    };
    steps << [this] {
        const QString charge = v.value(QStringLiteral("naiveCharge"));
        const HttpReply first = naiveRefund(charge, 8900);
        say(Kind::Problem, QStringLiteral("Naive agent POSTs /v1/refunds %1 on %2 without an idempotency key: %3")
                               .arg(money(8900), charge,
                                    first.status == 0 ? QStringLiteral("no answer (%1) — it assumes it failed").arg(first.error)
                                                      : QStringLiteral("HTTP %1").arg(first.status)));
        const HttpReply second = naiveRefund(charge, 8900);
        say(Kind::Problem, QStringLiteral("After its timeout it simply retries: HTTP %1 %2")
                               .arg(second.status)
                               .arg(str(second.json(), "id")));
        return true;
    };
    steps << [this] {
        const QJsonArray refunds = refundsForCharge(v.value(QStringLiteral("naiveCharge")));
        say(Kind::Problem, QStringLiteral("Provider ground truth (/_sim/refunds): %1 refund(s) of %2 on %3 — the customer was refunded twice.")
                               .arg(refunds.size())
                               .arg(money(8900), v.value(QStringLiteral("naiveCharge"))));
        if (refunds.size() < 2)
            return fail(QStringLiteral("the naive run should have refunded twice, the provider holds %1").arg(refunds.size()));
        return true;
    };
    steps << [this] {
        say(Kind::Step, QStringLiteral("Now the same through Countersign, with the same fault: the response to the refund is lost."));
        v[QStringLiteral("charge")] = newCharge(20000);
        if (v.value(QStringLiteral("charge")).isEmpty() || !setFaults({rule(QStringLiteral("drop_response_after_commit"), 1, 1)}))
            return false;
        v[QStringLiteral("action")] = proposeOk(v.value(QStringLiteral("charge")), 8900, reference(QStringLiteral("order")));
        return !v.value(QStringLiteral("action")).isEmpty();
    };
    steps << [this] {
        if (!approve(v.value(QStringLiteral("action")), approver))
            return false;
        say(Kind::Step, QStringLiteral("The executor inside countersignd sends it once, with that key."));
        return true;
    };
    steps << [this] {
        QJsonObject detail;
        if (!waitForState(v.value(QStringLiteral("action")), Final, 20000, &detail))
            return false;
        narrateAttempts(detail);
        say(Kind::Cure, QStringLiteral("Countersign recorded CONFIRMATION_UNKNOWN, not failure; the reconciler looked the refund up "
                                       "by its action id instead of resending blindly → %1.")
                            .arg(str(detail, "state")));
        return true;
    };
    steps << [this] {
        QString line;
        const QString id = v.value(QStringLiteral("action"));
        bool ok = check(id, QStringLiteral("COMPLETED"), 1, &line);
        const QJsonArray attempts = arr(action(id), "attempts");
        ok = ok && !attempts.isEmpty() && str(attempts.first().toObject(), "outcome") == QLatin1String("unknown");
        verdict(ok, line);
        return true;
    };
}

// ---- 2 ---------------------------------------------------------------------------------------
void ScenarioRunner::Private::buildChangedAmount()
{
    steps << [this] {
        v[QStringLiteral("charge")] = newCharge(10000);
        if (v.value(QStringLiteral("charge")).isEmpty())
            return false;
        // The $40 commits but its answer is lost; the provider then stays unreachable for sends and
        // lookups, so that the outcome stays unknown while the agent comes back.
        const QJsonObject lookups{{QStringLiteral("method"), QStringLiteral("GET")}, {QStringLiteral("path"), QStringLiteral("/v1/refunds*")}};
        if (!setFaults({rule(QStringLiteral("drop_response_after_commit"), 1, 1), rule(QStringLiteral("outage_503"), 2, 0),
                        rule(QStringLiteral("outage_503"), 1, 0, lookups)}))
            return false;
        v[QStringLiteral("ref")] = reference(QStringLiteral("order"));
        v[QStringLiteral("action")] = proposeOk(v.value(QStringLiteral("charge")), 4000, v.value(QStringLiteral("ref")));
        return !v.value(QStringLiteral("action")).isEmpty() && approve(v.value(QStringLiteral("action")), approver);
    };
    steps << [this] {
        if (!waitForState(v.value(QStringLiteral("action")), {QStringLiteral("CONFIRMATION_UNKNOWN")}, 10000, nullptr, 30))
            return false;
        say(Kind::Problem, QStringLiteral("%1 was sent; the connection was lost before the answer (CONFIRMATION_UNKNOWN). The agent "
                                          "restarts, re-reasons the amount to %2 and resubmits under the same reference.")
                               .arg(money(4000), money(4500)));
        const HttpReply r = propose(v.value(QStringLiteral("charge")), 4500, v.value(QStringLiteral("ref")));
        say(r.status == 409 ? Kind::Cure : Kind::Problem,
            QStringLiteral("POST /actions with %1 under %2 → HTTP %3 %4")
                .arg(money(4500), v.value(QStringLiteral("ref")))
                .arg(r.status)
                .arg(str(r.json(), "code").isEmpty() ? str(r.json(), "error") : str(r.json(), "code")));
        if (r.status != 409)
            return fail(QStringLiteral("a changed resubmission must be refused with 409, got %1").arg(r.status));
        return true;
    };
    steps << [this] {
        QJsonObject detail;
        if (!waitForState(v.value(QStringLiteral("action")), Final, 15000, &detail))
            return false;
        say(str(detail, "state") == QLatin1String("REQUIRES_REVIEW") ? Kind::Cure : Kind::Observation,
            QStringLiteral("%1 is %2: %3").arg(v.value(QStringLiteral("action")), str(detail, "state"), str(detail, "review_reason")));
        for (const QJsonValue &value : arr(detail, "conflicts")) {
            const QJsonObject c = value.toObject();
            const QJsonObject stored = c.value(QLatin1String("stored_payload")).toObject();
            const QJsonObject conflicting = c.value(QLatin1String("conflicting_payload")).toObject();
            say(Kind::Observation, QStringLiteral("Diff kept as evidence (conflict %1 by %2): amount %3 → %4; nothing new was sent, no new key.")
                                       .arg(num(c, "seq"))
                                       .arg(str(c, "submitted_by"), money(num(stored, "amount")), money(num(conflicting, "amount"))));
        }
        narrateAttempts(detail);
        return true;
    };
    steps << [this] {
        const QString id = v.value(QStringLiteral("action"));
        if (str(action(id), "state") != QLatin1String("REQUIRES_REVIEW"))
            return true; // nothing to reconcile
        if (!setFaults({}))
            return false;
        say(Kind::Step, QStringLiteral("The provider is reachable again; the supervisor reviews."));
        QString result;
        const int seq = lookup(id, &result);
        if (seq == 0)
            return false;
        if (result != QLatin1String("FOUND"))
            return fail(QStringLiteral("the lookup should find the committed $40.00, it says ") + result);
        return reconcile(id, QStringLiteral("committed"), seq, QStringLiteral("the provider holds the $40.00 refund"));
    };
    steps << [this] {
        const QString id = v.value(QStringLiteral("action"));
        const QJsonObject parent = action(id);
        const HttpReply r = api(supervisor, "POST", QStringLiteral("/actions/%1/follow-ups").arg(id),
                                QJsonObject{{QStringLiteral("desired_total_amount"), 4500},
                                            {QStringLiteral("note"), QStringLiteral("customer is owed $45.00 in total")}},
                                num(parent, "state_version"));
        const QString followUp = str(r.json(), "id");
        if (r.status != 201 || followUp.isEmpty())
            return fail(QStringLiteral("follow-up refused: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
        v[QStringLiteral("followUp")] = followUp;
        say(Kind::Cure, QStringLiteral("Supervisor %1 proposes a follow-up for the difference: %2 → %3 %4, which needs its own approval and key.")
                            .arg(supervisor, followUp, money(num(r.json(), "amount")), str(r.json(), "state")));
        emit q->actionFocused(followUp);
        return approve(followUp, approver);
    };
    steps << [this] {
        QJsonObject detail;
        if (!waitForState(v.value(QStringLiteral("followUp")), Final, 20000, &detail))
            return false;
        narrateAttempts(detail);
        QString parentLine, followLine;
        const bool parentOk = check(v.value(QStringLiteral("action")), QStringLiteral("COMPLETED"), 1, &parentLine);
        const bool followOk = check(v.value(QStringLiteral("followUp")), QStringLiteral("COMPLETED"), 1, &followLine);
        const QString parentKey = str(action(v.value(QStringLiteral("action"))), "idempotency_key");
        const bool keysDiffer = parentKey != str(detail, "idempotency_key") && !parentKey.isEmpty();
        const bool reviewed = !arr(action(v.value(QStringLiteral("action"))), "reconciliations").isEmpty();
        verdict(parentOk && followOk && keysDiffer && reviewed && num(detail, "amount") == 500,
                parentLine + QStringLiteral(" | follow-up: ") + followLine + (keysDiffer ? QStringLiteral(" | separate keys") : QStringLiteral(" | SAME KEY")));
        return true;
    };
}

// ---- 3 ---------------------------------------------------------------------------------------
void ScenarioRunner::Private::buildKeyReused()
{
    steps << [this] {
        v[QStringLiteral("charge")] = newCharge(5000);
        if (v.value(QStringLiteral("charge")).isEmpty() || !setFaults({rule(QStringLiteral("idempotency_error"), 1, 1)}))
            return false;
        v[QStringLiteral("action")] = proposeOk(v.value(QStringLiteral("charge")), 2500, reference(QStringLiteral("order")));
        return !v.value(QStringLiteral("action")).isEmpty() && approve(v.value(QStringLiteral("action")), approver);
    };
    steps << [this] {
        QJsonObject detail;
        if (!waitForState(v.value(QStringLiteral("action")), Final, 15000, &detail))
            return false;
        narrateAttempts(detail);
        say(Kind::Cure, QStringLiteral("The provider says the key was reused with other parameters: execution stops at %1 (%2). "
                                       "Countersign does not mint a new key — that is exactly how a double refund happens.")
                            .arg(str(detail, "state"), str(detail, "review_reason")));
        // Give the executor and reconciler time to misbehave, then show they did not.
        DemoHttp::pause(1500);
        const QJsonObject later = action(v.value(QStringLiteral("action")));
        say(Kind::Observation, QStringLiteral("1.5 s later: %1 attempt(s), %2 key(s); provider holds %3 refund(s) for the action.")
                                   .arg(arr(later, "attempts").size())
                                   .arg(attemptKeys(later).size())
                                   .arg(refundsForAction(v.value(QStringLiteral("action"))).size()));
        return true;
    };
    steps << [this] {
        const QString id = v.value(QStringLiteral("action"));
        if (str(action(id), "state") != QLatin1String("REQUIRES_REVIEW"))
            return true;
        QString result;
        const int seq = lookup(id, &result);
        if (seq == 0)
            return false;
        if (result != QLatin1String("NOT_FOUND"))
            return fail(QStringLiteral("the lookup should find nothing, it says ") + result);
        return reconcile(id, QStringLiteral("not_committed"), seq, QStringLiteral("the provider created nothing under this key"));
    };
    steps << [this] {
        const QString id = v.value(QStringLiteral("action"));
        QString line;
        bool ok = check(id, QStringLiteral("REJECTED"), 0, &line);
        const QJsonObject detail = action(id);
        ok = ok && arr(detail, "attempts").size() == 1 && attemptKeys(detail).size() == 1
             && str(arr(detail, "attempts").first().toObject(), "outcome") == QLatin1String("idempotency_mismatch");
        verdict(ok, line + QStringLiteral("; %1 attempt(s), no new key").arg(arr(detail, "attempts").size()));
        return true;
    };
}

// ---- 4 ---------------------------------------------------------------------------------------
void ScenarioRunner::Private::buildTwoWorkers()
{
    cleanup = [this] {
        if (stack)
            stack->stopSecondBackend();
    };
    steps << [this] {
        if (!setFaults({}))
            return false;
        if (!stack->startSecondBackend())
            return fail(QStringLiteral("the second countersignd did not start: ") + stack->errorString());
        say(Kind::Step, QStringLiteral("A second countersignd with its own executor (2 workers) runs on the same ledger file (%1): "
                                       "four workers in two processes compete for every approved action.")
                            .arg(stack->secondBackendUrl().toString()));
        return true;
    };
    steps << [this] {
        QStringList ids;
        for (int i = 1; i <= 6; ++i) {
            v[QStringLiteral("charge")] = newCharge(10000);
            const QString id = proposeOk(v.value(QStringLiteral("charge")), 1000 * i, reference(QStringLiteral("order")));
            if (id.isEmpty())
                return false;
            ids << id;
        }
        for (const QString &id : std::as_const(ids)) {
            if (!approve(id, approver))
                return false;
        }
        v[QStringLiteral("actions")] = ids.join(QLatin1Char(','));
        return true;
    };
    steps << [this] {
        QStringList lines;
        bool ok = true;
        QSet<QString> executors;
        for (const QString &id : v.value(QStringLiteral("actions")).split(QLatin1Char(','))) {
            QJsonObject detail;
            if (!waitForState(id, Final, 20000, &detail))
                return false;
            for (const QJsonValue &value : arr(detail, "attempts"))
                executors.insert(str(value.toObject(), "executor"));
            QString line;
            ok = check(id, QStringLiteral("COMPLETED"), 1, &line) && arr(detail, "attempts").size() == 1 && ok;
            say(Kind::Observation, line + QStringLiteral(" — %1 attempt(s)").arg(arr(detail, "attempts").size()));
            lines << line;
        }
        say(Kind::Cure, QStringLiteral("Executors that sent: %1. The claim is one transaction: one winner per action.")
                            .arg(QStringList(executors.begin(), executors.end()).join(QStringLiteral(", "))));
        verdict(ok, QStringLiteral("%1 actions, each ledger COMPLETED with exactly one provider refund (%2)")
                        .arg(lines.size())
                        .arg(ok ? QStringLiteral("as expected") : lines.join(QStringLiteral(" | "))));
        return true;
    };
}

// ---- 5 ---------------------------------------------------------------------------------------
void ScenarioRunner::Private::buildCrash()
{
    steps << [this] {
        v[QStringLiteral("charge")] = newCharge(10000);
        if (v.value(QStringLiteral("charge")).isEmpty()
            || !setFaults({rule(QStringLiteral("delay_after_commit"), 1, 1, {{QStringLiteral("delay_ms"), 1500}})}))
            return false;
        v[QStringLiteral("action")] = proposeOk(v.value(QStringLiteral("charge")), 7500, reference(QStringLiteral("order")));
        return !v.value(QStringLiteral("action")).isEmpty() && approve(v.value(QStringLiteral("action")), approver);
    };
    steps << [this] {
        const QString id = v.value(QStringLiteral("action"));
        if (!waitForState(id, {QStringLiteral("EXECUTING")}, 10000, nullptr, 30))
            return false;
        if (!waitUntil([&] { return !refundsForAction(id).isEmpty(); }, 5000, QStringLiteral("the provider to commit")))
            return false;
        say(Kind::Step, QStringLiteral("The provider has committed the refund; its answer is still on the way. Now the backend dies."));
        if (!stack->killBackend())
            return fail(QStringLiteral("could not kill the backend"));
        say(Kind::Problem, QStringLiteral("countersignd killed with SIGKILL mid-flight: no drain, the attempt row is left open."));
        return true;
    };
    steps << [this] {
        if (!stack->restartBackend())
            return fail(QStringLiteral("the backend did not restart: ") + stack->errorString());
        say(Kind::Step, QStringLiteral("countersignd restarted on the same ledger file (%1).").arg(stack->backendUrl().toString()));
        return true;
    };
    steps << [this] {
        QJsonObject detail;
        if (!waitForState(v.value(QStringLiteral("action")), Final, 30000, &detail))
            return false;
        narrateAttempts(detail);
        say(Kind::Cure, QStringLiteral("Recovery did not assume failure: the expired lease became CONFIRMATION_UNKNOWN, the reconciler "
                                       "looked the refund up → %1.")
                            .arg(str(detail, "state")));
        QString line;
        bool ok = check(v.value(QStringLiteral("action")), QStringLiteral("COMPLETED"), 1, &line);
        const QJsonArray attempts = arr(detail, "attempts");
        ok = ok && !attempts.isEmpty() && str(attempts.first().toObject(), "outcome") == QLatin1String("unknown");
        verdict(ok, line);
        return true;
    };
}

// ---- 6 ---------------------------------------------------------------------------------------
void ScenarioRunner::Private::buildOutage()
{
    steps << [this] {
        v[QStringLiteral("charge")] = newCharge(10000);
        if (v.value(QStringLiteral("charge")).isEmpty()
            || !setFaults({rule(QStringLiteral("rate_limit_429"), 1, 2), rule(QStringLiteral("outage_503"), 3, 2)}))
            return false;
        v[QStringLiteral("action")] = proposeOk(v.value(QStringLiteral("charge")), 6600, reference(QStringLiteral("order")));
        return !v.value(QStringLiteral("action")).isEmpty() && approve(v.value(QStringLiteral("action")), approver);
    };
    steps << [this] {
        QJsonObject detail;
        if (!waitForState(v.value(QStringLiteral("action")), Final, 40000, &detail))
            return false;
        narrateAttempts(detail);
        const QStringList keys = attemptKeys(detail);
        say(Kind::Cure, QStringLiteral("%1 attempts, backing off between them, all with %2 key(s): %3")
                            .arg(arr(detail, "attempts").size())
                            .arg(keys.size())
                            .arg(keys.join(QStringLiteral(", "))));
        QString line;
        bool ok = check(v.value(QStringLiteral("action")), QStringLiteral("COMPLETED"), 1, &line);
        const QJsonArray refunds = refundsForAction(v.value(QStringLiteral("action")));
        ok = ok && keys.size() == 1 && arr(detail, "attempts").size() >= 3
             && (refunds.isEmpty() || str(refunds.first().toObject(), "idempotency_key") == keys.value(0));
        verdict(ok, line + QStringLiteral("; %1 attempts under %2 key").arg(arr(detail, "attempts").size()).arg(keys.size()));
        return true;
    };
}

// ---- 7 ---------------------------------------------------------------------------------------
void ScenarioRunner::Private::buildKeyWindow()
{
    cleanup = [this] {
        if (stack && !stack->extraServeArguments().isEmpty()) {
            stack->setExtraServeArguments({});
            sim("DELETE", QStringLiteral("/_sim/faults"));
            stack->restartBackend();
        }
    };
    steps << [this] {
        if (!setFaults({}))
            return false;
        stack->setExtraServeArguments({QStringLiteral("--key-window-hours"), QStringLiteral("0.0005"),
                                       QStringLiteral("--key-window-margin-minutes"), QStringLiteral("0")});
        if (!stack->restartBackend())
            return fail(QStringLiteral("the backend did not restart: ") + stack->errorString());
        say(Kind::Step, QStringLiteral("For the demo the provider's key window is shortened to 1.8 s (normally 24 h) in countersignd."));
        return true;
    };
    steps << [this] {
        v[QStringLiteral("charge")] = newCharge(10000);
        if (v.value(QStringLiteral("charge")).isEmpty()
            || !setFaults({rule(QStringLiteral("reset_connection"), 1, 1), rule(QStringLiteral("outage_503"), 2, 0)}))
            return false;
        v[QStringLiteral("action")] = proposeOk(v.value(QStringLiteral("charge")), 5500, reference(QStringLiteral("order")));
        return !v.value(QStringLiteral("action")).isEmpty() && approve(v.value(QStringLiteral("action")), approver);
    };
    steps << [this] {
        QJsonObject detail;
        if (!waitForState(v.value(QStringLiteral("action")), Final, 40000, &detail))
            return false;
        narrateAttempts(detail);
        say(Kind::Cure, QStringLiteral("The key window has passed: %1 (%2). The reconciler does not retry blindly — outside the "
                                       "window the provider may have forgotten the key, and a resend could refund twice.")
                            .arg(str(detail, "state"), str(detail, "review_reason")));
        const HttpReply clock = sim("POST", QStringLiteral("/_sim/clock"), QJsonObject{{QStringLiteral("advance_ms"), qint64(25) * 3600 * 1000}});
        say(Kind::Observation, QStringLiteral("paysim's clock moved 25 h forward (HTTP %1): the provider has pruned the key.").arg(clock.status));
        return setFaults({});
    };
    steps << [this] {
        const QString id = v.value(QStringLiteral("action"));
        if (str(action(id), "state") != QLatin1String("REQUIRES_REVIEW"))
            return true;
        QString result;
        const int seq = lookup(id, &result);
        if (seq == 0)
            return false;
        if (result != QLatin1String("NOT_FOUND"))
            return fail(QStringLiteral("the lookup should find nothing, it says ") + result);
        return reconcile(id, QStringLiteral("not_committed"), seq,
                         QStringLiteral("no refund at the provider after the key window; a new approval is needed to pay"));
    };
    steps << [this] {
        const QString id = v.value(QStringLiteral("action"));
        QString line;
        const QJsonObject detail = action(id);
        bool ok = check(id, QStringLiteral("REJECTED"), 0, &line) && attemptKeys(detail).size() == 1;
        const QDateTime windowEnds = QDateTime::fromString(str(detail, "key_window_ends_at"), Qt::ISODateWithMs);
        int late = 0;
        for (const QJsonValue &value : arr(detail, "attempts")) {
            const QDateTime started = QDateTime::fromString(str(value.toObject(), "started_at"), Qt::ISODateWithMs);
            if (windowEnds.isValid() && started.isValid() && started > windowEnds)
                ++late;
        }
        ok = ok && late == 0;
        verdict(ok, line + QStringLiteral("; %1 attempt(s) under one key, %2 after the key window (ends %3)")
                               .arg(arr(detail, "attempts").size())
                               .arg(late)
                               .arg(str(detail, "key_window_ends_at")));
        return true;
    };
}

void ScenarioRunner::Private::build(int id)
{
    steps.clear();
    cleanup = nullptr;
    v.clear();
    switch (id) {
    case 1: buildRetry(); break;
    case 2: buildChangedAmount(); break;
    case 3: buildKeyReused(); break;
    case 4: buildTwoWorkers(); break;
    case 5: buildCrash(); break;
    case 6: buildOutage(); break;
    case 7: buildKeyWindow(); break;
    default: break;
    }
}

void ScenarioRunner::Private::runNext()
{
    if (!running || inStep || waiting)
        return;
    if (cancelled) {
        finish(false, QStringLiteral("VERDICT FAIL: cancelled"));
        return;
    }
    if (index >= steps.size()) {
        finish(verdictPass, verdictText.isEmpty() ? QStringLiteral("VERDICT FAIL: no verdict") : verdictText);
        return;
    }
    inStep = true;
    const bool ok = steps.at(index++)();
    inStep = false;
    if (!running)
        return;
    if (cancelled) {
        finish(false, QStringLiteral("VERDICT FAIL: cancelled"));
        return;
    }
    if (!ok) {
        finish(false, QStringLiteral("VERDICT FAIL: ") + failReason);
        return;
    }
    if (index >= steps.size()) {
        finish(verdictPass, verdictText.isEmpty() ? QStringLiteral("VERDICT FAIL: no verdict") : verdictText);
        return;
    }
    if (mode == Mode::StepByStep) {
        waiting = true;
        emit q->waitingForNext();
    } else {
        QTimer::singleShot(stepDelayMs, q, [this] { runNext(); });
    }
}

void ScenarioRunner::Private::finish(bool asExpected, const QString &line)
{
    if (!running)
        return;
    if (cleanup) {
        auto c = std::move(cleanup);
        cleanup = nullptr;
        c();
    }
    // Leave no scenario fault behind (a failed or cancelled run may stop mid-way).
    if (stack && stack->paysimUrl().isValid())
        sim("DELETE", QStringLiteral("/_sim/faults"));
    running = false;
    waiting = false;
    qCInfo(lcDemo) << "scenario" << scenarioId << line;
    emit q->narration(line, Kind::Verdict);
    emit q->finished(asExpected, line);
}

QList<ScenarioInfo> ScenarioRunner::catalogue()
{
    return {
        {1, QStringLiteral("retry-refunded-twice"), QStringLiteral("The retry that refunded twice"),
         QStringLiteral("The provider commits an $89 refund but the response is lost. A naive agent retries and refunds twice; "
                        "Countersign records CONFIRMATION_UNKNOWN, looks it up, and completes with one refund.")},
        {2, QStringLiteral("same-key-changed-amount"), QStringLiteral("Same key, changed amount"),
         QStringLiteral("$40 is in flight when the agent resumes with $45 under the same reference: 409, REQUIRES_REVIEW with "
                        "the diff; the supervisor reconciles the $40 and proposes a $5 follow-up with its own approval and key.")},
        {3, QStringLiteral("key-reused"), QStringLiteral("Provider says the key was reused"),
         QStringLiteral("The provider answers idempotency_error: execution stops in REQUIRES_REVIEW, no new key is minted.")},
        {4, QStringLiteral("two-workers"), QStringLiteral("Two workers, one refund"),
         QStringLiteral("Two countersignd processes with two workers each execute from one ledger: every action is sent once.")},
        {5, QStringLiteral("crash-mid-flight"), QStringLiteral("Crash mid-flight"),
         QStringLiteral("The backend is killed after sending; after a restart the action is honestly unknown, then reconciled "
                        "to COMPLETED with one refund.")},
        {6, QStringLiteral("outage-rate-limit"), QStringLiteral("Provider outage and rate limiting"),
         QStringLiteral("429s and 503s: backoff and retries with the same key; one refund.")},
        {7, QStringLiteral("key-window-expired"), QStringLiteral("Key window expired"),
         QStringLiteral("The outcome stays unknown past the provider's key window: no blind retry; lookup and human review.")},
    };
}

ScenarioRunner::ScenarioRunner(DemoStack *stack, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    d->stack = stack;
}

ScenarioRunner::~ScenarioRunner()
{
    d->cancelled = true;
    d->running = false;
}

bool ScenarioRunner::isRunning() const
{
    return d->running;
}

void ScenarioRunner::setStepDelayMs(int msecs)
{
    d->stepDelayMs = qMax(0, msecs);
}

int ScenarioRunner::stepDelayMs() const
{
    return d->stepDelayMs;
}

void ScenarioRunner::start(int scenarioId, Mode mode)
{
    if (d->running)
        return;
    d->scenarioId = scenarioId;
    d->mode = mode;
    d->cancelled = false;
    d->waiting = false;
    d->index = 0;
    d->failReason.clear();
    d->verdictPass = false;
    d->verdictText.clear();
    d->running = true;
    if (!d->stack || !d->stack->backendUrl().isValid()) {
        d->finish(false, QStringLiteral("VERDICT FAIL: the demo stack is not running"));
        return;
    }
    d->agent = d->stack->userFor(QStringLiteral("agent"));
    d->approver = d->stack->userFor(QStringLiteral("approver"));
    d->approver2 = d->stack->usersFor(QStringLiteral("approver")).value(1, d->approver);
    d->supervisor = d->stack->userFor(QStringLiteral("supervisor"));
    d->build(scenarioId);
    if (d->steps.isEmpty()) {
        d->finish(false, QStringLiteral("VERDICT FAIL: no scenario %1").arg(scenarioId));
        return;
    }
    for (const ScenarioInfo &info : catalogue()) {
        if (info.id == scenarioId)
            emit narration(QStringLiteral("Scenario %1 — %2: %3").arg(info.id).arg(info.title, info.summary), NarrationKind::Step);
    }
    QTimer::singleShot(0, this, [this] { d->runNext(); });
}

void ScenarioRunner::next()
{
    if (!d->running || !d->waiting)
        return;
    d->waiting = false;
    QTimer::singleShot(0, this, [this] { d->runNext(); });
}

void ScenarioRunner::cancel()
{
    if (!d->running)
        return;
    d->cancelled = true;
    if (!d->inStep) {
        d->waiting = false;
        d->finish(false, QStringLiteral("VERDICT FAIL: cancelled"));
    }
}

} // namespace cs::demo
