#include "demo/agenttraffic.h"

#include "demo/async.h"
#include "demo/demostack.h"

#include <QJsonDocument>
#include <QLoggingCategory>

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

Q_DECLARE_LOGGING_CATEGORY(lcDemo)

namespace cs::demo {

// What an agent writes when it proposes: one kind of customer story. %1 in reference,
// justification and contextUrl is the order (business reference), %2 the ticket, return or case
// number.
struct AgentStory {
    const char *agent;
    int weight;            // out of the stories' sum
    const char *title;     // for the log line
    const char *reason;    // the provider's refund reason
    int percentMin;        // the refund, as a share of the order, drawn in [min, max]
    int percentMax;
    bool subscription;     // priced as a subscription, not a shop order
    bool disputed;         // the card holder disputes the charge
    int ageDaysMin;        // how old the charge is
    int ageDaysMax;
    const char *reference;
    const char *justification;
    const char *contextUrl;
    const char *factKey;
    const char *factValue;
    const char *customerSaid;
};

namespace {

constexpr qint64 ShopPrices[] = {1299, 1999, 2450, 2999, 3499, 4500, 5900, 7499, 8900, 9999, 12900, 14950, 19900, 24999};
constexpr qint64 SubscriptionPrices[] = {999, 1499, 2900, 4900, 9900};
constexpr const char *Sources[] = {"tok_visa", "tok_visa", "tok_mastercard", "tok_amex"};

const AgentStory Stories[] = {
    {"refund-bot", 22, "parcel lost in transit", "requested_by_customer", 100, 100, false, false, 8, 30, "%1-refund",
     "Carrier tracking has shown the parcel of %1 as lost in transit for six days; the customer asked for a refund "
     "instead of a replacement.",
     "https://support.example.com/tickets/%2", "carrier_status", "lost in transit", "It never arrived, and I needed it for a birthday."},
    {"refund-bot", 18, "an item arrived damaged", "requested_by_customer", 20, 45, false, false, 3, 20, "%1-damaged",
     "The customer sent photos of one item of %1 arriving broken; the policy refunds a damaged item without a return.",
     "https://support.example.com/tickets/%2", "items_affected", "1 of 3", "The lamp shade came cracked in two places."},
    {"refund-bot", 10, "late delivery", "requested_by_customer", 10, 15, false, false, 10, 25, "%1-late",
     "%1 was delivered nine days after the promised date; the goodwill policy allows up to 15% of the order back.",
     "https://support.example.com/tickets/%2", "delivered_late_by", "9 days", "It arrived a week after the party."},
    {"returns-bot", 16, "return received", "requested_by_customer", 100, 100, false, false, 12, 35, "rma-%2-refund",
     "The warehouse scanned return RMA-%2 for %1 in unused condition within the 30-day window.",
     "https://returns.example.com/rma/%2", "condition", "unused, original packaging", "Wrong size, sending it back."},
    {"returns-bot", 12, "partial return", "requested_by_customer", 40, 60, false, false, 12, 35, "rma-%2-partial",
     "Return RMA-%2 holds 1 of the 2 items of %1, unused; the returned item is refunded, the other one kept.",
     "https://returns.example.com/rma/%2", "items_returned", "1 of 2", "Keeping the blue one, returning the grey one."},
    {"subscriptions-bot", 10, "charged twice", "duplicate", 100, 100, true, false, 0, 2, "case-%2-duplicate",
     "The renewal of %1 was charged twice on the same day; this is the second charge.",
     "https://billing.example.com/cases/%2", "first_charge", "same amount, same day", "I was billed twice this month."},
    {"subscriptions-bot", 8, "cancelled in the trial", "requested_by_customer", 100, 100, true, false, 1, 3, "case-%2-trial",
     "The customer cancelled %1 on day 3 of the 14-day trial; the first charge is refunded in full.",
     "https://billing.example.com/cases/%2", "cancelled_on_day", "3 of 14", "I cancelled during the trial."},
    {"subscriptions-bot", 4, "the card holder disputes it", "fraudulent", 100, 100, true, true, 2, 20, "case-%2-fraud",
     "The card holder says they did not make the purchase of %1; their bank has opened a dispute.",
     "https://billing.example.com/cases/%2", "bank_dispute", "opened", "I don't recognise this charge."},
};

QString text(const char *latin1)
{
    return QString::fromLatin1(latin1);
}

// pattern with %1 and %2 replaced, either of them possibly absent (QString::arg warns then).
QString fill(const char *pattern, const QString &business, const QString &ticket)
{
    return text(pattern).replace(QLatin1String("%1"), business).replace(QLatin1String("%2"), ticket);
}

QJsonObject faultRule(const QString &fault, const QString &method, const QString &path, int times)
{
    return QJsonObject{{QStringLiteral("method"), method}, {QStringLiteral("path"), path}, {QStringLiteral("nth"), 1},
                       {QStringLiteral("times"), times}, {QStringLiteral("fault"), fault}};
}

} // namespace

AgentTraffic::AgentTraffic(DemoStack *stack, Options options, QObject *parent)
    : QObject(parent)
    , m_stack(stack)
    , m_options(options)
    , m_random(QRandomGenerator(std::array<quint32, 2>{quint32(options.seed), quint32(options.seed >> 32)}.data(), 2))
{
    // Orders and tickets are numbered from the seed on, so that the references look like a shop's.
    m_nextOrder = draw(10000, 89999);
    m_nextTicket = draw(4000, 9999);
}

AgentTraffic::~AgentTraffic() = default;

int AgentTraffic::draw(int low, int high)
{
    return m_random.bounded(low, std::max(low, high) + 1);
}

bool AgentTraffic::start(int atOnce)
{
    if (m_running)
        return true;
    const Options &o = m_options;
    if (o.minIntervalMs < 0 || o.maxIntervalMs < o.minIntervalMs || o.pendingLimit < 1 || o.lostAnswerPercent < 0
        || o.changedPercent < 0 || o.outagePercent < 0 || o.outagePercent > 100 || o.lostAnswerPercent + o.changedPercent > 100
        || o.outageMinMs <= 0 || o.outageMaxMs < o.outageMinMs || o.resendAfterMs < 0) {
        m_error = QStringLiteral("agent traffic: invalid options (intervals, percents, pending limit or outage durations)");
        return false;
    }
    if (!m_stack || !m_stack->backendUrl().isValid() || !m_stack->paysimUrl().isValid()) {
        m_error = QStringLiteral("agent traffic: the demo stack is not running");
        return false;
    }
    m_agents = m_stack->usersFor(QStringLiteral("agent"));
    for (const char *role : {"auditor", "supervisor", "admin"}) {
        m_auditor = m_stack->userFor(text(role));
        if (!m_auditor.isEmpty())
            break;
    }
    if (m_agents.isEmpty() || m_auditor.isEmpty()) {
        m_error = QStringLiteral("agent traffic: the demo stack has no agent, or no user who may read the whole queue");
        return false;
    }
    m_error.clear();
    m_paysim.setBaseUrl(m_stack->paysimUrl());
    m_running = true;
    m_queueFull = false;
    m_burst = std::max(0, atOnce);
    emit runningChanged(true);
    if (!m_busy)
        scheduleNext(m_burst > 0 ? 0 : draw(o.minIntervalMs, o.maxIntervalMs));
    return true;
}

void AgentTraffic::stop(std::function<void()> stopped)
{
    const bool wasRunning = m_running;
    m_running = false;
    m_burst = 0;
    ++m_timer; // the pending tick's timer does nothing now
    m_stopping = true;
    if (stopped)
        m_stopCallbacks.append(std::move(stopped));
    if (wasRunning)
        emit runningChanged(false);
    endOutage();
    finishStopIfIdle();
}

void AgentTraffic::scheduleNext(int delayMs)
{
    const int generation = ++m_timer;
    m_http.after(delayMs, [this, generation] {
        if (generation == m_timer && m_running && !m_busy)
            runTick();
    });
}

void AgentTraffic::runTick()
{
    m_busy = true;
    m_opening = m_burst > 0;
    if (m_burst > 0)
        --m_burst;
    tick().then([this](bool) {
        m_busy = false;
        if (m_running)
            scheduleNext(m_burst > 0 ? 0 : draw(m_options.minIntervalMs, m_options.maxIntervalMs));
        finishStopIfIdle();
    });
}

void AgentTraffic::finishStopIfIdle()
{
    if (!m_stopping || isBusy())
        return;
    m_stopping = false;
    const QList<std::function<void()>> callbacks = std::exchange(m_stopCallbacks, {});
    emit stopped();
    for (const auto &callback : callbacks)
        callback();
}

void AgentTraffic::report(Kind kind, const QString &line, const QString &actionId)
{
    qCInfo(lcDemo).noquote() << "agent traffic:" << line;
    emit happened(kind, line, actionId);
}

void AgentTraffic::error(const QString &line)
{
    ++m_errors;
    qCWarning(lcDemo).noquote() << "agent traffic:" << line;
    emit happened(Kind::Error, line, QString());
}

// ---- one step of the pace ------------------------------------------------------------------------

Async<bool> AgentTraffic::tick()
{
    const int pending = co_await pendingCount();
    if (!m_running)
        co_return false;
    if (pending < 0) {
        error(QStringLiteral("the backend did not answer the queue's counts"));
        co_return false;
    }
    if (pending >= m_options.pendingLimit) {
        if (!m_queueFull) {
            m_queueFull = true;
            report(Kind::QueueFull, QStringLiteral("%1 actions are PENDING: the agents wait until some are decided").arg(pending));
            emit queueFull(pending);
        }
        m_burst = 0;
        co_return true;
    }
    m_queueFull = false;
    // Both rolls are drawn every time, so that a seed gives the same sequence of kinds.
    const int outageRoll = draw(1, 100);
    const int roll = draw(1, 100);
    if (m_opening) // the first proposals at once are plain ones: a queue of work waiting for approval
        co_return co_await proposePlain(false);
    if (outageRoll <= m_options.outagePercent && m_outageRules.isEmpty() && m_outageDeletes == 0) {
        const bool began = co_await beginOutage();
        if (!began || !m_running)
            co_return false;
    }
    if (roll <= m_options.lostAnswerPercent)
        co_return co_await proposePlain(true);
    if (roll <= m_options.lostAnswerPercent + m_options.changedPercent && !m_changeable.isEmpty())
        co_return co_await resubmitChanged();
    co_return co_await proposePlain(false);
}

Async<int> AgentTraffic::pendingCount()
{
    const QString path = QStringLiteral("/actions?state=PENDING&limit=1");
    const HttpReply r = co_await api(m_auditor, Verb::Get, path);
    if (r.status != 200)
        co_return -1;
    co_return r.json().value(QLatin1String("counts")).toObject().value(QLatin1String("PENDING")).toInt();
}

Async<bool> AgentTraffic::proposePlain(bool loseTheAnswer)
{
    const Order order = makeOrder();
    QJsonObject chargeRequest{{QStringLiteral("amounts"), QJsonArray{order.total}},
                              {QStringLiteral("currency"), order.currency},
                              {QStringLiteral("age_seconds"), draw(order.story->ageDaysMin * 86400, order.story->ageDaysMax * 86400 + 86399)},
                              {QStringLiteral("source"), text(Sources[draw(0, int(std::size(Sources)) - 1)])}};
    if (order.story->disputed)
        chargeRequest.insert(QStringLiteral("disputed"), true);
    const HttpReply charged = co_await admin([this, &chargeRequest](PaysimAdminClient::Done done) {
        m_paysim.createChargesFrom(chargeRequest, std::move(done));
    });
    const QString charge = PaysimAdminClient::dataOf(charged).at(0).toObject().value(QLatin1String("id")).toString();
    if (charge.isEmpty()) {
        error(QStringLiteral("paysim created no charge: %1").arg(PaysimAdminClient::errorOf(charged)));
        co_return false;
    }
    if (!m_running)
        co_return false;

    QJsonObject body = proposalBody(order);
    body.insert(QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), charge}});
    const QString reference = body.value(QLatin1String("client_reference")).toString();
    const QString business = body.value(QLatin1String("business_reference")).toString();
    const QString path = QStringLiteral("/actions");
    const HttpReply first = co_await api(order.agent, Verb::Post, path, body);
    const QString firstId = first.json().value(QLatin1String("id")).toString();
    if (first.status != 201 || firstId.isEmpty()) {
        error(QStringLiteral("%1's proposal %2 was refused: HTTP %3 %4")
                  .arg(order.agent, reference)
                  .arg(first.status)
                  .arg(QString::fromUtf8(first.body.left(300))));
        co_return false;
    }
    Proposal made{Kind::Proposed, order.agent, reference, firstId, first.status, QString(), order.amount, order.currency};
    m_changeable.append(Sent{order.agent, body, firstId, order.total});
    if (m_changeable.size() > 50) // an agent revisits recent tickets only
        m_changeable.removeFirst();

    if (loseTheAnswer) {
        // The answer reached the agent's host but never its model (a timeout, a crash): the agent
        // waits, then proposes again under the same reference, as it must.
        co_await pause(m_options.resendAfterMs);
        if (m_running) {
            const HttpReply again = co_await api(order.agent, Verb::Post, path, body);
            const QString againId = again.json().value(QLatin1String("id")).toString();
            made = Proposal{Kind::Resent, order.agent, reference, againId, again.status, firstId, order.amount, order.currency};
            m_proposals.append(made);
            if (again.status != 200 || againId != firstId) {
                error(QStringLiteral("%1 proposed %2 again after a lost answer: HTTP %3 %4 (expected 200 and %5)")
                          .arg(order.agent, reference)
                          .arg(again.status)
                          .arg(againId, firstId));
                co_return false;
            }
            report(Kind::Resent,
                   QStringLiteral("%1 lost the answer to %2 (%3 for %4) and proposed again: the same action %5, HTTP 200, nothing new recorded")
                       .arg(order.agent, reference, money(order.amount, order.currency), business, againId),
                   againId);
            co_return true;
        }
    }
    m_proposals.append(made);
    report(Kind::Proposed,
           QStringLiteral("%1 proposes %2 for %3 (%4) \u2192 %5 PENDING")
               .arg(order.agent, money(order.amount, order.currency), business, text(order.story->title), firstId),
           firstId);
    co_return true;
}

Async<bool> AgentTraffic::resubmitChanged()
{
    const Sent sent = m_changeable.takeAt(draw(0, int(m_changeable.size()) - 1));
    // Only a proposal still waiting for approval: what a person decided meanwhile is left alone.
    const QString detailPath = QStringLiteral("/actions/") + sent.actionId;
    const HttpReply detail = co_await api(m_auditor, Verb::Get, detailPath);
    if (!m_running)
        co_return false;
    if (detail.json().value(QLatin1String("state")).toString() != QLatin1String("PENDING")
        || !detail.json().value(QLatin1String("approvals")).toArray().isEmpty())
        co_return co_await proposePlain(false);

    const qint64 was = sent.body.value(QLatin1String("amount")).toInteger();
    // The agent re-reasons the amount: the shipping fee on top of a partial refund, or a restocking
    // fee off a full one.
    const qint64 changed = was < sent.total ? std::min(sent.total, was + draw(3, 8) * 100 - 5) : was - std::max<qint64>(1, was / 10);
    QJsonObject body = sent.body;
    body.insert(QStringLiteral("amount"), changed);
    const QString reference = body.value(QLatin1String("client_reference")).toString();
    const QString currency = body.value(QLatin1String("currency")).toString();
    const QString path = QStringLiteral("/actions");
    const HttpReply r = co_await api(sent.agent, Verb::Post, path, body);
    const QJsonObject problem = r.json();
    const QString named = problem.value(QLatin1String("action_id")).toString();
    m_proposals.append(Proposal{Kind::Changed, sent.agent, reference, named, r.status, QString(), changed, currency});
    if (r.status != 409 || problem.value(QLatin1String("code")).toString() != QLatin1String("payload_mismatch") || named != sent.actionId) {
        error(QStringLiteral("%1's changed resubmission of %2 was answered HTTP %3 %4 (expected 409 payload_mismatch for %5)")
                  .arg(sent.agent, reference)
                  .arg(r.status)
                  .arg(QString::fromUtf8(r.body.left(300)), sent.actionId));
        co_return false;
    }
    report(Kind::Changed,
           QStringLiteral("%1 resubmits %2 with %3 instead of %4 under the same reference \u2192 HTTP 409 payload_mismatch: %5 "
                          "goes to REQUIRES_REVIEW")
               .arg(sent.agent, reference, money(changed, currency), money(was, currency), named),
           named);
    co_return true;
}

// ---- paysim's outage -----------------------------------------------------------------------------

Async<bool> AgentTraffic::beginOutage()
{
    // In list order: the next refund sent commits but its answer is lost; every other send, and
    // every look-up, is refused with 503 until the window ends.
    const QJsonArray rules{faultRule(QStringLiteral("drop_response_after_commit"), QStringLiteral("POST"), QStringLiteral("/v1/refunds"), 1),
                           faultRule(QStringLiteral("outage_503"), QStringLiteral("POST"), QStringLiteral("/v1/refunds"), 0),
                           faultRule(QStringLiteral("outage_503"), QStringLiteral("GET"), QStringLiteral("/v1/refunds*"), 0)};
    const HttpReply r = co_await admin([this, &rules](PaysimAdminClient::Done done) { m_paysim.addFaults(rules, std::move(done)); });
    if (r.status != 200) {
        error(QStringLiteral("paysim refused the outage's fault rules: %1").arg(PaysimAdminClient::errorOf(r)));
        co_return false;
    }
    for (const QJsonValue &id : r.json().value(QLatin1String("added")).toArray())
        m_outageRules.append(id.toVariant().toString());
    if (!m_running) { // stopped while the rules were on their way
        endOutage();
        co_return false;
    }
    const int duration = draw(m_options.outageMinMs, m_options.outageMaxMs);
    const int generation = ++m_outage;
    ++m_outages;
    m_http.after(duration, [this, generation] {
        if (generation == m_outage)
            endOutage();
    });
    report(Kind::OutageBegan,
           QStringLiteral("paysim is down for %1 s: the next refund sent commits but its answer is lost, then sends and look-ups "
                          "get 503; what is approved now may end in CONFIRMATION_UNKNOWN")
               .arg((duration + 999) / 1000));
    emit outageStarted(duration);
    co_return true;
}

void AgentTraffic::endOutage()
{
    if (m_outageRules.isEmpty())
        return;
    ++m_outage;
    const QStringList ids = std::exchange(m_outageRules, {});
    m_outageDeletes += int(ids.size());
    for (const QString &id : ids) {
        m_paysim.deleteFault(id, [this](const HttpReply &) {
            // A rule someone else deleted meanwhile (the fault panel's Clear) answers 404: gone either way.
            if (--m_outageDeletes > 0)
                return;
            report(Kind::OutageEnded, QStringLiteral("paysim answers again"));
            emit outageStopped();
            finishStopIfIdle();
        });
    }
}

// ---- HTTP ----------------------------------------------------------------------------------------

Async<HttpReply> AgentTraffic::api(QString user, Verb verb, QString path, QJsonObject body)
{
    if (!m_stack)
        co_return HttpReply();
    const QByteArray method = verb == Verb::Get ? QByteArray("GET") : QByteArray("POST");
    const QUrl url(m_stack->backendUrl().toString() + QStringLiteral("/api/v1") + path);
    DemoHttp::Headers headers{{"Authorization", "Bearer " + m_stack->tokens().value(user).toUtf8()}};
    QByteArray payload;
    if (verb != Verb::Get) {
        headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
        payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
    }
    co_return co_await awaitCallback<HttpReply>([&](std::function<void(HttpReply)> resume) {
        m_http.request(method, url, headers, payload, [resume = std::move(resume)](const HttpReply &r) { resume(r); });
    });
}

Async<HttpReply> AgentTraffic::admin(std::function<void(PaysimAdminClient::Done)> call)
{
    co_return co_await awaitCallback<HttpReply>([&call](std::function<void(HttpReply)> resume) {
        call([resume = std::move(resume)](const HttpReply &r) { resume(r); });
    });
}

CallbackAwaiter<bool> AgentTraffic::pause(int msecs)
{
    return awaitCallback<bool>([this, msecs](std::function<void(bool)> resume) {
        m_http.after(msecs, [resume = std::move(resume)] { resume(true); });
    });
}

// ---- what the agents write -----------------------------------------------------------------------

AgentTraffic::Order AgentTraffic::makeOrder()
{
    // The stories of the agents this stack has; all of them under its first agent otherwise.
    QList<const AgentStory *> stories;
    int weights = 0;
    for (const AgentStory &story : Stories) {
        if (m_agents.contains(text(story.agent))) {
            stories.append(&story);
            weights += story.weight;
        }
    }
    if (stories.isEmpty()) {
        for (const AgentStory &story : Stories) {
            stories.append(&story);
            weights += story.weight;
        }
    }
    Order order;
    int roll = draw(1, weights);
    for (const AgentStory *story : std::as_const(stories)) {
        order.story = story;
        roll -= story->weight;
        if (roll <= 0)
            break;
    }
    order.agent = m_agents.contains(text(order.story->agent)) ? text(order.story->agent) : m_agents.constFirst();
    const int currencyRoll = draw(1, 10);
    order.currency = currencyRoll <= 7 ? QStringLiteral("usd") : currencyRoll <= 9 ? QStringLiteral("eur") : QStringLiteral("gbp");
    order.total = order.story->subscription ? SubscriptionPrices[draw(0, int(std::size(SubscriptionPrices)) - 1)]
                                            : ShopPrices[draw(0, int(std::size(ShopPrices)) - 1)];
    const int percent = draw(order.story->percentMin, order.story->percentMax);
    // A share of an order reads like a price: x.49 or x.99, never less than 0.99.
    order.amount = percent >= 100 ? order.total : std::max<qint64>(99, order.total * percent / 100 / 50 * 50 - 1);
    order.number = m_nextOrder;
    m_nextOrder += draw(1, 9);
    order.ticket = m_nextTicket;
    m_nextTicket += draw(1, 5);
    return order;
}

QJsonObject AgentTraffic::proposalBody(const Order &order)
{
    const QString business = QStringLiteral("order-%1").arg(order.number);
    const QString ticket = QString::number(order.ticket);
    const QString total = QStringLiteral("%1 %2.%3")
                              .arg(order.currency.toUpper())
                              .arg(order.total / 100)
                              .arg(order.total % 100, 2, 10, QLatin1Char('0'));
    return QJsonObject{{QStringLiteral("kind"), QStringLiteral("refund")},
                       {QStringLiteral("amount"), order.amount},
                       {QStringLiteral("currency"), order.currency},
                       {QStringLiteral("reason"), text(order.story->reason)},
                       {QStringLiteral("client_reference"), fill(order.story->reference, business, ticket)},
                       {QStringLiteral("business_reference"), business},
                       {QStringLiteral("justification"), fill(order.story->justification, business, ticket)},
                       {QStringLiteral("context_url"), fill(order.story->contextUrl, business, ticket)},
                       {QStringLiteral("facts"), QJsonObject{{QStringLiteral("customer_said"), text(order.story->customerSaid)},
                                                             {text(order.story->factKey), text(order.story->factValue)},
                                                             {QStringLiteral("order_total"), total}}}};
}

QString AgentTraffic::money(qint64 minor, const QString &currency)
{
    const QString amount = QStringLiteral("%1.%2").arg(minor / 100).arg(minor % 100, 2, 10, QLatin1Char('0'));
    if (currency == QLatin1String("usd"))
        return QStringLiteral("$") + amount;
    if (currency == QLatin1String("eur"))
        return QStringLiteral("\u20ac") + amount;
    if (currency == QLatin1String("gbp"))
        return QStringLiteral("\u00a3") + amount;
    return amount + QLatin1Char(' ') + currency.toUpper();
}

} // namespace cs::demo
