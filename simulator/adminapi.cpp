#include "simulator/adminapi.h"

#include "simulator/faultengine.h"
#include "simulator/idempotencystore.h"
#include "simulator/paymentstore.h"
#include "simulator/paysimserver.h"
#include "simulator/refundsettler.h"
#include "simulator/requestlog.h"
#include "simulator/simclock.h"
#include "simulator/webhooksender.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>

namespace cs::paysim {

namespace {

HttpResponse error(int status, const QString &message)
{
    return HttpResponse::plainError(status, message);
}

HttpResponse ok(const QJsonObject &body)
{
    return HttpResponse::json(200, body);
}

QJsonObject clockJson(const SimClock &clock)
{
    return QJsonObject{{QStringLiteral("now_ms"), clock.nowMs()},
                       {QStringLiteral("now"), clock.nowSeconds()},
                       {QStringLiteral("offset_ms"), clock.offsetMs()}};
}

QJsonArray rulesJson(const FaultEngine &engine)
{
    QJsonArray rules;
    for (const FaultRule &r : engine.rules())
        rules.append(r.toJson());
    return rules;
}

// Stripe's dispute reasons (docs.stripe.com/api/disputes/object, `reason`).
const QStringList &disputeReasons()
{
    static const QStringList reasons{
        QStringLiteral("bank_cannot_process"), QStringLiteral("check_returned"), QStringLiteral("credit_not_processed"),
        QStringLiteral("customer_initiated"), QStringLiteral("debit_not_authorized"), QStringLiteral("duplicate"),
        QStringLiteral("fraudulent"), QStringLiteral("general"), QStringLiteral("incorrect_account_details"),
        QStringLiteral("insufficient_funds"), QStringLiteral("product_not_received"),
        QStringLiteral("product_unacceptable"), QStringLiteral("subscription_canceled"), QStringLiteral("unrecognized")};
    return reasons;
}

constexpr qint64 MaxSeedAgeSeconds = 10LL * 366 * 86400; // ten years

// The optional look of seeded charges: age_seconds, source, card {brand, last4}, disputed.
// Returns the error text, or empty.
QString parseSeed(const QJsonObject &body, ChargeSeed *seed)
{
    const QJsonValue age = body.value(QStringLiteral("age_seconds"));
    if (!age.isUndefined()) {
        if (!age.isDouble() || age.toDouble() != static_cast<double>(age.toInteger()) || age.toInteger() < 0
            || age.toInteger() > MaxSeedAgeSeconds)
            return QStringLiteral("'age_seconds' must be an integer from 0 to %1.").arg(MaxSeedAgeSeconds);
        seed->ageSeconds = age.toInteger();
    }
    const QJsonValue source = body.value(QStringLiteral("source"));
    if (!source.isUndefined()) {
        static const QStringList tokens{QStringLiteral("tok_visa"), QStringLiteral("tok_mastercard"),
                                        QStringLiteral("tok_amex")};
        if (!tokens.contains(source.toString()))
            return QStringLiteral("'source' must be one of tok_visa, tok_mastercard, tok_amex.");
        seed->source = source.toString();
    }
    const QJsonValue card = body.value(QStringLiteral("card"));
    if (!card.isUndefined()) {
        if (!card.isObject())
            return QStringLiteral("'card' must be an object {\"brand\": …, \"last4\": …}.");
        const QJsonValue brand = card.toObject().value(QStringLiteral("brand"));
        const QJsonValue last4 = card.toObject().value(QStringLiteral("last4"));
        if (!brand.isUndefined()) {
            const QString b = brand.toString();
            bool word = brand.isString() && !b.isEmpty() && b.size() <= 20;
            for (QChar c : b)
                word = word && ((c >= u'a' && c <= u'z') || c == u'_');
            if (!word)
                return QStringLiteral("'card.brand' must be 1 to 20 lowercase letters (visa, mastercard, amex, …).");
            seed->cardBrand = b;
        }
        if (!last4.isUndefined()) {
            const QString l = last4.toString();
            bool digits = last4.isString() && l.size() == 4;
            for (QChar c : l)
                digits = digits && c >= u'0' && c <= u'9';
            if (!digits)
                return QStringLiteral("'card.last4' must be a string of 4 digits.");
            seed->cardLast4 = l;
        }
    }
    const QJsonValue disputed = body.value(QStringLiteral("disputed"));
    if (!disputed.isUndefined()) {
        if (!disputed.isBool())
            return QStringLiteral("'disputed' must be true or false.");
        seed->disputed = disputed.toBool();
    }
    return {};
}

} // namespace

AdminApi::AdminApi(PaysimServer &server, QObject *parent)
    : QObject(parent)
    , m_server(server)
{
}

void AdminApi::handle(const std::shared_ptr<HttpExchange> &exchange)
{
    const HttpRequest &request = exchange->request();
    if (!request.peer.isLoopback()) {
        exchange->respond(error(403, QStringLiteral("The /_sim admin API answers loopback clients only.")));
        return;
    }
    QJsonObject body;
    if (!request.body.trimmed().isEmpty()) {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
        if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
            exchange->respond(error(400, QStringLiteral("The body must be a JSON object (%1).").arg(parseError.errorString())));
            return;
        }
        body = doc.object();
    }
    exchange->respond(dispatch(request, body));
}

HttpResponse AdminApi::dispatch(const HttpRequest &request, const QJsonObject &body)
{
    const QString method = QString::fromLatin1(request.method);
    const QStringList parts = request.path().split(u'/', Qt::SkipEmptyParts); // "_sim", resource, [id]
    const QString resource = parts.value(1);
    const bool get = method == QLatin1String("GET");
    const bool post = method == QLatin1String("POST");

    if ((resource.isEmpty() || resource == QLatin1String("info")) && get) {
        return ok(QJsonObject{{QStringLiteral("name"), QStringLiteral("paysim")},
                              {QStringLiteral("version"), QCoreApplication::applicationVersion()},
                              {QStringLiteral("base_url"), m_server.baseUrl().toString()},
                              {QStringLiteral("seed"), QString::number(m_server.config().seed)},
                              {QStringLiteral("key_window_hours"), m_server.config().keyWindowHours},
                              {QStringLiteral("persistent"), !m_server.config().dbPath.isEmpty()},
                              {QStringLiteral("webhooks"), m_server.webhooks().isEnabled()},
                              {QStringLiteral("charges"), m_server.store().charges().size()},
                              {QStringLiteral("refunds"), m_server.store().refunds().size()},
                              {QStringLiteral("events"), m_server.store().events().size()},
                              {QStringLiteral("clock"), clockJson(m_server.clock())}});
    }
    if (resource == QLatin1String("faults"))
        return faults(method, parts, body);
    if (resource == QLatin1String("clock") && parts.size() == 2)
        return clock(method, body);
    if (resource == QLatin1String("charges") && parts.size() == 2)
        return charges(method, body);
    if (resource == QLatin1String("charges") && parts.size() == 4 && parts[3] == QLatin1String("dispute") && post)
        return dispute(parts[2], body);
    if (resource == QLatin1String("refunds"))
        return refunds(method, parts, body);
    if (resource == QLatin1String("reset") && parts.size() == 2 && post) {
        m_server.reset();
        return ok(QJsonObject{{QStringLiteral("reset"), true}});
    }
    if (resource == QLatin1String("requests") && parts.size() == 2 && get) {
        const int limit = QUrlQuery(QString::fromLatin1(request.query())).queryItemValue(QStringLiteral("limit")).toInt();
        return ok(QJsonObject{{QStringLiteral("data"), m_server.requestLog().toJson(limit)}});
    }
    if (resource == QLatin1String("webhooks") && parts.size() == 2 && get)
        return ok(QJsonObject{{QStringLiteral("data"), m_server.webhooks().deliveries()}});
    if (resource == QLatin1String("idempotency") && parts.size() == 2 && get) {
        IdempotencyStore &store = m_server.idempotency();
        store.prune(m_server.clock().nowMs());
        QJsonArray data;
        for (const IdempotencyRecord &r : store.records()) {
            data.append(QJsonObject{{QStringLiteral("key"), r.key},
                                    {QStringLiteral("api_key"), QString(r.apiKey.left(12) + QStringLiteral("…"))},
                                    {QStringLiteral("method"), r.method},
                                    {QStringLiteral("path"), r.path},
                                    {QStringLiteral("params"), r.params},
                                    {QStringLiteral("in_flight"), r.inFlight},
                                    {QStringLiteral("status"), r.status},
                                    {QStringLiteral("request_id"), r.requestId},
                                    {QStringLiteral("created_ms"), r.createdMs},
                                    {QStringLiteral("expires_ms"), r.createdMs + store.windowMs()}});
        }
        return ok(QJsonObject{{QStringLiteral("data"), data}});
    }
    return error(404, QStringLiteral("No such admin route: %1 %2").arg(method, request.path()));
}

HttpResponse AdminApi::faults(const QString &method, const QStringList &parts, const QJsonObject &body)
{
    FaultEngine &engine = m_server.faults();
    if (parts.size() == 2 && method == QLatin1String("GET"))
        return ok(QJsonObject{{QStringLiteral("rules"), rulesJson(engine)}});
    if (parts.size() == 2 && method == QLatin1String("DELETE")) {
        const qsizetype n = engine.rules().size();
        engine.clear();
        return ok(QJsonObject{{QStringLiteral("deleted"), n}, {QStringLiteral("rules"), QJsonArray()}});
    }
    if (parts.size() == 3 && method == QLatin1String("DELETE")) {
        if (!engine.remove(parts[2]))
            return error(404, QStringLiteral("No such fault rule: %1").arg(parts[2]));
        return ok(QJsonObject{{QStringLiteral("deleted"), 1}, {QStringLiteral("rules"), rulesJson(engine)}});
    }
    if (parts.size() == 2 && method == QLatin1String("POST")) {
        // {"rules": [...]} or a single rule object.
        QJsonArray input;
        if (body.contains(QStringLiteral("rules"))) {
            if (!body.value(QStringLiteral("rules")).isArray())
                return error(400, QStringLiteral("'rules' must be an array of rule objects."));
            input = body.value(QStringLiteral("rules")).toArray();
        } else {
            input.append(body);
        }
        QList<FaultRule> parsed;
        for (qsizetype i = 0; i < input.size(); ++i) {
            if (!input[i].isObject())
                return error(400, QStringLiteral("rules[%1] must be an object.").arg(i));
            const auto rule = FaultRule::fromJson(input[i].toObject());
            if (const auto *message = std::get_if<QString>(&rule))
                return error(400, QStringLiteral("rules[%1]: %2").arg(i).arg(*message));
            parsed.append(std::get<FaultRule>(rule));
        }
        // All or nothing: rules are appended only when every one of them is valid.
        QJsonArray added;
        for (const FaultRule &rule : std::as_const(parsed))
            added.append(engine.add(rule).id);
        return ok(QJsonObject{{QStringLiteral("added"), added}, {QStringLiteral("rules"), rulesJson(engine)}});
    }
    return error(405, QStringLiteral("Use GET, POST or DELETE on /_sim/faults, DELETE on /_sim/faults/{id}."));
}

HttpResponse AdminApi::clock(const QString &method, const QJsonObject &body)
{
    if (method == QLatin1String("POST")) {
        const QJsonValue advance = body.value(QStringLiteral("advance_ms"));
        if (!advance.isDouble() || advance.toDouble() < 0 || advance.toDouble() != static_cast<double>(advance.toInteger()))
            return error(400, QStringLiteral("'advance_ms' must be a non-negative integer (the clock never goes back)."));
        m_server.advanceClock(advance.toInteger());
    } else if (method != QLatin1String("GET")) {
        return error(405, QStringLiteral("Use GET or POST on /_sim/clock."));
    }
    return ok(clockJson(m_server.clock()));
}

HttpResponse AdminApi::charges(const QString &method, const QJsonObject &body)
{
    if (method == QLatin1String("GET")) {
        QJsonArray data;
        for (const Charge &c : m_server.store().charges())
            data.append(c.toApiJson());
        return ok(QJsonObject{{QStringLiteral("data"), data}});
    }
    if (method != QLatin1String("POST"))
        return error(405, QStringLiteral("Use GET or POST on /_sim/charges."));
    const QString currency = body.value(QStringLiteral("currency")).toString(QStringLiteral("usd")).toLower();
    if (currency.size() != 3)
        return error(400, QStringLiteral("'currency' must be a three-letter ISO code."));
    ChargeSeed seed;
    if (const QString problem = parseSeed(body, &seed); !problem.isEmpty())
        return error(400, problem);
    QList<Charge> created;
    if (body.contains(QStringLiteral("amounts"))) {
        QList<qint64> amounts;
        for (const QJsonValue &v : body.value(QStringLiteral("amounts")).toArray()) {
            if (!v.isDouble() || v.toInteger() < 1 || v.toDouble() != static_cast<double>(v.toInteger()))
                return error(400, QStringLiteral("'amounts' must be positive integers (minor units)."));
            amounts.append(v.toInteger());
        }
        if (amounts.isEmpty() || amounts.size() > 1000)
            return error(400, QStringLiteral("'amounts' must hold 1 to 1000 amounts."));
        created = m_server.seedCharges(amounts, currency, seed);
    } else {
        const QJsonValue count = body.value(QStringLiteral("count"));
        const QJsonValue amount = body.value(QStringLiteral("amount"));
        if (!count.isDouble() || count.toInt() < 1 || count.toInt() > 1000)
            return error(400, QStringLiteral("Give {\"count\": 1..1000} (optionally \"amount\") or {\"amounts\": [...]}."));
        if (!amount.isUndefined()) {
            if (!amount.isDouble() || amount.toInteger() < 1)
                return error(400, QStringLiteral("'amount' must be a positive integer (minor units)."));
            created = m_server.seedCharges(QList<qint64>(count.toInt(), amount.toInteger()), currency, seed);
        } else {
            created = m_server.seedCharges(count.toInt(), currency, seed);
        }
    }
    QJsonArray data;
    for (const Charge &c : std::as_const(created))
        data.append(c.toApiJson());
    return ok(QJsonObject{{QStringLiteral("data"), data}});
}

HttpResponse AdminApi::dispute(const QString &chargeId, const QJsonObject &body)
{
    const QString reason = body.value(QStringLiteral("reason")).toString(QStringLiteral("general"));
    if (!disputeReasons().contains(reason))
        return error(400, QStringLiteral("'reason' must be one of %1.").arg(disputeReasons().join(QLatin1String(", "))));
    const auto result = m_server.store().disputeCharge(chargeId, reason, {});
    if (const auto *e = std::get_if<ApiError>(&result))
        return HttpResponse::json(e->status, e->toJson());
    return ok(std::get<Charge>(result).toApiJson());
}

HttpResponse AdminApi::refunds(const QString &method, const QStringList &parts, const QJsonObject &body)
{
    if (parts.size() == 2 && method == QLatin1String("GET")) {
        QJsonArray data;
        for (const Refund &r : m_server.store().refunds())
            data.append(r.toOracleJson());
        return ok(QJsonObject{{QStringLiteral("data"), data}});
    }
    if (parts.size() == 3 && method == QLatin1String("POST")) {
        const QString status = body.value(QStringLiteral("status")).toString();
        const QJsonValue reason = body.value(QStringLiteral("failure_reason"));
        if (!reason.isUndefined() && !reason.isString())
            return error(400, QStringLiteral("'failure_reason' must be a string."));
        const auto result = m_server.store().setRefundStatus(parts[2], status, {}, reason.toString());
        m_server.settler().reschedule();
        if (const auto *e = std::get_if<ApiError>(&result))
            return HttpResponse::json(e->status, e->toJson());
        return ok(std::get<Refund>(result).toOracleJson());
    }
    return error(405, QStringLiteral("Use GET on /_sim/refunds or POST on /_sim/refunds/{id}."));
}

} // namespace cs::paysim
