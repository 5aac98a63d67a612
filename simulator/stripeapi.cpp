#include "simulator/stripeapi.h"

#include "simulator/faultengine.h"
#include "simulator/formdecoder.h"
#include "simulator/idempotencystore.h"
#include "simulator/idminter.h"
#include "simulator/listpagination.h"
#include "simulator/paymentstore.h"
#include "simulator/paysimlog.h"
#include "simulator/requestlog.h"
#include "simulator/simclock.h"
#include "simulator/simdatabase.h"
#include "simulator/stripeevent.h"

#include <QJsonArray>
#include <QStringList>
#include <QTimer>

#include <algorithm>
#include <variant>

namespace cs::paysim {

namespace {

const QString Post = QStringLiteral("POST");
const QString Get = QStringLiteral("GET");

std::optional<ApiError> checkAllowed(const QJsonObject &params, const QStringList &allowed)
{
    for (auto it = params.constBegin(); it != params.constEnd(); ++it) {
        if (it.key() != QLatin1String("expand") && !allowed.contains(it.key()))
            return ApiError::unknownParameter(it.key());
    }
    return std::nullopt;
}

// Absent or "" -> nullopt (Stripe treats an empty string as "unset").
std::variant<std::optional<qint64>, ApiError> integerParam(const QJsonObject &params, const QString &name)
{
    const QJsonValue v = params.value(name);
    if (v.isUndefined() || (v.isString() && v.toString().isEmpty()))
        return std::optional<qint64>();
    if (!v.isString())
        return ApiError::invalidInteger(name, QStringLiteral("(not a number)"));
    const QString s = v.toString();
    bool digits = s.size() <= 12;
    for (QChar c : s)
        digits = digits && c >= u'0' && c <= u'9';
    const qint64 n = digits ? s.toLongLong() : 0;
    if (!digits || n < 1)
        return ApiError::invalidInteger(name, s);
    return std::optional<qint64>(n);
}

std::variant<QString, ApiError> stringParam(const QJsonObject &params, const QString &name)
{
    const QJsonValue v = params.value(name);
    if (v.isUndefined())
        return QString();
    if (!v.isString())
        return ApiError::invalidRequest(QStringLiteral("Invalid string: %1 must be a string.").arg(name),
                                        QStringLiteral("parameter_invalid_string"), name);
    return v.toString();
}

// Stripe's metadata limits: 50 keys, key up to 40 characters, value up to 500.
std::optional<ApiError> metadataParam(const QJsonObject &params, QJsonObject *metadata, bool *clearAll)
{
    *clearAll = false;
    const QJsonValue v = params.value(QStringLiteral("metadata"));
    if (v.isUndefined())
        return std::nullopt;
    if (v.isString() && v.toString().isEmpty()) {
        *clearAll = true;
        return std::nullopt;
    }
    if (!v.isObject())
        return ApiError::invalidRequest(QStringLiteral("Invalid object: metadata must be a set of key-value pairs "
                                                       "(metadata[key]=value)."),
                                        QStringLiteral("parameter_invalid_object"), QStringLiteral("metadata"));
    const QJsonObject o = v.toObject();
    if (o.size() > 50)
        return ApiError::invalidRequest(QStringLiteral("Metadata can have at most 50 keys."), {}, QStringLiteral("metadata"));
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (!it.value().isString())
            return ApiError::invalidRequest(QStringLiteral("Metadata values must be strings (metadata[%1]).").arg(it.key()),
                                            {}, QStringLiteral("metadata"));
        if (it.key().size() > 40)
            return ApiError::invalidRequest(QStringLiteral("Metadata keys can be at most 40 characters long."), {},
                                            QStringLiteral("metadata"));
        if (it.value().toString().size() > 500)
            return ApiError::invalidRequest(QStringLiteral("Metadata values can be at most 500 characters long."), {},
                                            QStringLiteral("metadata"));
    }
    *metadata = o;
    return std::nullopt;
}

// expand[]: an array of properties the endpoint can expand; Stripe refuses any other with 400.
std::optional<ApiError> expandParam(const QJsonObject &params, const QStringList &expandable)
{
    const QJsonValue v = params.value(QStringLiteral("expand"));
    if (v.isUndefined())
        return std::nullopt;
    if (!v.isArray())
        return ApiError::invalidRequest(QStringLiteral("Invalid array: expand must be an array (expand[]=…)."),
                                        QStringLiteral("parameter_invalid_array"), QStringLiteral("expand"));
    for (const QJsonValue &item : v.toArray()) {
        if (!expandable.contains(item.toString()))
            return ApiError::invalidRequest(
                QStringLiteral("This property cannot be expanded (%1).").arg(item.toString()), {},
                QStringLiteral("expand"));
    }
    return std::nullopt;
}

bool expands(const QJsonObject &params, const QString &property)
{
    return params.value(QStringLiteral("expand")).toArray().contains(property);
}

// How many refunds an expanded charge.refunds holds: Stripe's "the 10 most recent refunds are
// always available by default on the charge object" (GET /v1/charges/{charge}/refunds, API
// reference); the rest are read from /v1/refunds?charge=… with starting_after.
constexpr qsizetype ExpandedRefundsPage = 10;

const QStringList &knownTokens()
{
    static const QStringList tokens{QStringLiteral("tok_visa"), QStringLiteral("tok_mastercard"),
                                    QStringLiteral("tok_amex"), QStringLiteral("tok_chargeDeclined")};
    return tokens;
}

const QStringList &refundReasons()
{
    static const QStringList reasons{QStringLiteral("duplicate"), QStringLiteral("fraudulent"),
                                     QStringLiteral("requested_by_customer")};
    return reasons;
}

// On creation an empty metadata value means "no such key".
QJsonObject withoutEmptyValues(QJsonObject metadata)
{
    for (auto it = metadata.begin(); it != metadata.end();) {
        if (it.value().toString().isEmpty())
            it = metadata.erase(it);
        else
            ++it;
    }
    return metadata;
}

QString maskKey(const QString &key)
{
    if (key.size() <= 12)
        return QStringLiteral("****");
    return key.left(8) + QStringLiteral("****") + key.right(4);
}

} // namespace

StripeApi::StripeApi(SimClock &clock, IdMinter &ids, IdempotencyStore &idempotency, PaymentStore &store,
                     FaultEngine &faults, RequestLog &log, SimDatabase *db, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_ids(ids)
    , m_idempotency(idempotency)
    , m_store(store)
    , m_faults(faults)
    , m_log(log)
    , m_db(db)
{
}

HttpResponse StripeApi::errorResponse(const ApiError &error)
{
    return HttpResponse::json(error.status, error.toJson());
}

// One page of a list endpoint, newest first; its paging parameters were checked before dispatch.
HttpResponse StripeApi::listPage(const Call &call, const QList<QJsonObject> &items, const QString &url,
                                 const QString &objectName)
{
    const auto query = std::get<ListPagination::Query>(ListPagination::parse(call.params));
    const auto page = ListPagination::page(items, query, url, objectName);
    if (const auto *e = std::get_if<ApiError>(&page))
        return errorResponse(*e);
    return HttpResponse::json(200, std::get<QJsonObject>(page));
}

void StripeApi::handle(const std::shared_ptr<HttpExchange> &exchange)
{
    auto call = std::make_shared<Call>();
    call->elapsed.start();
    call->exchange = exchange;
    const HttpRequest &request = exchange->request();
    call->requestId = m_ids.mint(QStringLiteral("req_"), 14);
    call->method = QString::fromLatin1(request.method);
    call->path = request.path();
    call->stripeVersion = QString::fromLatin1(request.header("Stripe-Version"));
    if (call->method == Post)
        call->idempotencyKey = QString::fromUtf8(request.header("Idempotency-Key"));

    const FaultEngine::Decision decision = m_faults.decide(call->method, call->path);
    call->fault = decision.fault;
    call->settlement = decision.settlement;
    if (call->has(FaultRule::Kind::ClockAdvance)) {
        m_clock.advance(call->fault->advanceMs);
        if (m_db)
            m_db->setMeta(QStringLiteral("clock_offset_ms"), QString::number(m_clock.offsetMs()));
        emit stateChanged(); // refunds due by the new time settle before this request runs
    }

    RequestLog::Entry entry;
    entry.requestId = call->requestId;
    entry.atMs = m_clock.nowMs();
    entry.method = call->method;
    entry.path = call->path;
    entry.idempotencyKey = call->idempotencyKey.left(255);
    QStringList applied;
    QStringList ruleIds;
    for (const auto *rule : {&call->fault, &call->settlement}) {
        if (*rule) {
            applied << FaultRule::kindName((*rule)->kind);
            ruleIds << (*rule)->id;
        }
    }
    if (!applied.isEmpty()) {
        entry.fault = applied.join(u'+');
        entry.ruleId = ruleIds.join(u'+');
        qCDebug(lcPaysim) << call->requestId << call->method << call->path << "fault" << entry.fault;
    }
    m_log.add(entry);

    if (call->has(FaultRule::Kind::Outage503))
        return answerError(call, ApiError::outage());
    if (call->has(FaultRule::Kind::ResetConnection) && !call->fault->afterCommit) {
        exchange->reset();
        m_log.finish(call->requestId, 0, QStringLiteral("reset"), call->elapsed.elapsed());
        return;
    }
    if (auto error = authenticate(*call))
        return answerError(call, *error);
    if (call->has(FaultRule::Kind::RateLimit429))
        return answerError(call, ApiError::rateLimited());
    if (auto error = route(*call))
        return answerError(call, *error);
    if (auto error = decodeParams(*call))
        return answerError(call, *error);

    if (call->has(FaultRule::Kind::IdempotencyError))
        return answerError(call, ApiError::idempotencyParams(call->idempotencyKey));
    if (!call->idempotencyKey.isEmpty()) {
        if (call->idempotencyKey.size() > 255) {
            return answerError(call, ApiError::invalidRequest(
                                         QStringLiteral("Idempotency keys can be at most 255 characters long; this one "
                                                        "has %1.")
                                             .arg(call->idempotencyKey.size())));
        }
        m_idempotency.prune(m_clock.nowMs());
        if (const IdempotencyRecord *record = m_idempotency.find(call->apiKey, call->idempotencyKey)) {
            if (record->inFlight)
                return answerError(call, ApiError::idempotencyKeyInUse(call->idempotencyKey));
            if (record->method != call->method || record->path != call->path)
                return answerError(call, ApiError::idempotencyEndpoint(call->idempotencyKey, record->path, call->path));
            if (record->params != call->params)
                return answerError(call, ApiError::idempotencyParams(call->idempotencyKey));
            return replay(call, record->status, record->body, record->requestId);
        }
    }
    if (auto error = validate(*call))
        return answerError(call, *error);
    proceed(call);
}

std::optional<ApiError> StripeApi::authenticate(Call &call) const
{
    const QByteArray authorization = call.exchange->request().header("Authorization");
    if (authorization.isEmpty()) {
        return ApiError::unauthorized(QStringLiteral(
            "You did not provide an API key. You need to provide your API key in the Authorization header, using "
            "Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')."));
    }
    QString key;
    if (authorization.startsWith("Bearer ")) {
        key = QString::fromUtf8(authorization.mid(7)).trimmed();
    } else if (authorization.startsWith("Basic ")) {
        // curl -u sk_test_…: sends the key as the Basic user name.
        const QByteArray decoded = QByteArray::fromBase64(authorization.mid(6).trimmed());
        key = QString::fromUtf8(decoded.left(decoded.indexOf(':') < 0 ? decoded.size() : decoded.indexOf(':')));
    } else {
        return ApiError::unauthorized(QStringLiteral(
            "Invalid Authorization header: use Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')."));
    }
    if (!key.startsWith(QLatin1String("sk_test_")) || key.size() <= 8 || key.contains(u' ')) {
        return ApiError::unauthorized(QStringLiteral("Invalid API Key provided: %1 (paysim accepts any sk_test_ key).")
                                          .arg(maskKey(key)));
    }
    call.apiKey = key;
    return std::nullopt;
}

std::optional<ApiError> StripeApi::route(Call &call) const
{
    const QStringList parts = call.path.split(u'/');
    // "", "v1", collection, [id]
    auto unrecognized = [&] {
        ApiError e = ApiError::invalidRequest(
            QStringLiteral("Unrecognized request URL (%1: %2). paysim implements /v1/charges, /v1/refunds and "
                           "/v1/events.")
                .arg(call.method, call.path));
        e.status = 404;
        return e;
    };
    if (parts.size() < 3 || parts.size() > 4 || !parts[0].isEmpty() || parts[1] != QLatin1String("v1"))
        return unrecognized();
    const QString collection = parts[2];
    const bool hasId = parts.size() == 4;
    if (hasId && parts[3].isEmpty())
        return unrecognized();
    call.resourceId = hasId ? parts[3] : QString();
    if (collection == QLatin1String("charges")) {
        if (!hasId && call.method == Post)
            call.route = Route::CreateCharge;
        else if (!hasId && call.method == Get)
            call.route = Route::ListCharges;
        else if (hasId && call.method == Get)
            call.route = Route::RetrieveCharge;
        else
            return unrecognized();
    } else if (collection == QLatin1String("refunds")) {
        if (!hasId && call.method == Post)
            call.route = Route::CreateRefund;
        else if (!hasId && call.method == Get)
            call.route = Route::ListRefunds;
        else if (hasId && call.method == Get)
            call.route = Route::RetrieveRefund;
        else if (hasId && call.method == Post)
            call.route = Route::UpdateRefund;
        else
            return unrecognized();
    } else if (collection == QLatin1String("payment_intents")) {
        if (hasId && call.method == Get)
            call.route = Route::RetrievePaymentIntent;
        else
            return unrecognized();
    } else if (collection == QLatin1String("events")) {
        if (!hasId && call.method == Get)
            call.route = Route::ListEvents;
        else if (hasId && call.method == Get)
            call.route = Route::RetrieveEvent;
        else
            return unrecognized();
    } else {
        return unrecognized();
    }
    return std::nullopt;
}

std::optional<ApiError> StripeApi::decodeParams(Call &call) const
{
    const HttpRequest &request = call.exchange->request();
    QByteArray raw;
    if (call.method == Post) {
        raw = request.body;
        const QByteArray contentType = request.header("Content-Type").toLower();
        if (!raw.isEmpty() && !contentType.startsWith("application/x-www-form-urlencoded")) {
            return ApiError::invalidRequest(
                QStringLiteral("Invalid request: the body must be application/x-www-form-urlencoded (got '%1').")
                    .arg(QString::fromLatin1(contentType)));
        }
    } else {
        raw = request.query();
    }
    QString error;
    const auto params = FormDecoder::decode(raw, &error);
    if (!params)
        return ApiError::invalidRequest(QStringLiteral("Invalid request: could not parse the form-encoded parameters: %1.").arg(error));
    call.params = *params;
    return std::nullopt;
}

std::optional<ApiError> StripeApi::validate(const Call &call) const
{
    const QJsonObject &p = call.params;
    QJsonObject metadata;
    bool clearAll = false;
    switch (call.route) {
    case Route::CreateCharge: {
        if (auto e = checkAllowed(p, {QStringLiteral("amount"), QStringLiteral("currency"), QStringLiteral("source"),
                                      QStringLiteral("description"), QStringLiteral("metadata")}))
            return e;
        const auto amount = integerParam(p, QStringLiteral("amount"));
        if (std::holds_alternative<ApiError>(amount))
            return std::get<ApiError>(amount);
        if (!std::get<std::optional<qint64>>(amount))
            return ApiError::missingParameter(QStringLiteral("amount"));
        for (const QString &name : {QStringLiteral("currency"), QStringLiteral("source"), QStringLiteral("description")}) {
            const auto s = stringParam(p, name);
            if (std::holds_alternative<ApiError>(s))
                return std::get<ApiError>(s);
            if (name != QLatin1String("description") && std::get<QString>(s).isEmpty())
                return ApiError::missingParameter(name);
        }
        const QString currency = p.value(QStringLiteral("currency")).toString();
        bool letters = currency.size() == 3;
        for (QChar c : currency)
            letters = letters && c.isLetter() && c.unicode() < 128;
        if (!letters)
            return ApiError::invalidRequest(QStringLiteral("Invalid currency: %1. Use a three-letter ISO code.").arg(currency),
                                            QStringLiteral("parameter_invalid_string"), QStringLiteral("currency"));
        return metadataParam(p, &metadata, &clearAll);
    }
    case Route::CreateRefund: {
        if (auto e = checkAllowed(p, {QStringLiteral("charge"), QStringLiteral("payment_intent"), QStringLiteral("amount"),
                                      QStringLiteral("reason"), QStringLiteral("metadata"),
                                      QStringLiteral("instructions_email")}))
            return e;
        for (const QString &name : {QStringLiteral("charge"), QStringLiteral("payment_intent"), QStringLiteral("reason"),
                                    QStringLiteral("instructions_email")}) {
            const auto s = stringParam(p, name);
            if (std::holds_alternative<ApiError>(s))
                return std::get<ApiError>(s);
        }
        if (p.value(QStringLiteral("charge")).toString().isEmpty()
            && p.value(QStringLiteral("payment_intent")).toString().isEmpty()) {
            return ApiError::invalidRequest(QStringLiteral("One of the following params should be provided for this "
                                                           "request: payment_intent or charge."),
                                            QStringLiteral("parameter_missing"));
        }
        const auto amount = integerParam(p, QStringLiteral("amount"));
        if (std::holds_alternative<ApiError>(amount))
            return std::get<ApiError>(amount);
        const QString reason = p.value(QStringLiteral("reason")).toString();
        if (!reason.isEmpty() && !refundReasons().contains(reason))
            return ApiError::invalidRequest(QStringLiteral("Invalid reason: must be one of duplicate, fraudulent, or "
                                                           "requested_by_customer"),
                                            {}, QStringLiteral("reason"));
        return metadataParam(p, &metadata, &clearAll);
    }
    case Route::UpdateRefund:
        if (auto e = checkAllowed(p, {QStringLiteral("metadata")}))
            return e;
        return metadataParam(p, &metadata, &clearAll);
    case Route::ListRefunds:
    case Route::ListCharges:
    case Route::ListEvents: {
        QStringList allowed{QStringLiteral("limit"), QStringLiteral("starting_after"), QStringLiteral("ending_before")};
        if (call.route == Route::ListRefunds)
            allowed << QStringLiteral("charge") << QStringLiteral("payment_intent");
        else if (call.route == Route::ListCharges)
            allowed << QStringLiteral("payment_intent");
        else
            allowed << QStringLiteral("type") << QStringLiteral("types");
        if (auto e = checkAllowed(p, allowed))
            return e;
        const auto query = ListPagination::parse(p);
        if (std::holds_alternative<ApiError>(query))
            return std::get<ApiError>(query);
        for (const QString &name : {QStringLiteral("charge"), QStringLiteral("payment_intent"), QStringLiteral("type")}) {
            const auto s = stringParam(p, name);
            if (std::holds_alternative<ApiError>(s))
                return std::get<ApiError>(s);
        }
        const QJsonValue types = p.value(QStringLiteral("types"));
        if (!types.isUndefined() && !types.isArray())
            return ApiError::invalidRequest(QStringLiteral("Invalid array: types"), QStringLiteral("parameter_invalid_array"),
                                            QStringLiteral("types"));
        return std::nullopt;
    }
    case Route::RetrieveCharge:
        if (auto e = checkAllowed(p, {}))
            return e;
        return expandParam(p, {QStringLiteral("refunds")});
    case Route::RetrievePaymentIntent:
        if (auto e = checkAllowed(p, {}))
            return e;
        return expandParam(p, {QStringLiteral("latest_charge")});
    case Route::RetrieveRefund:
    case Route::RetrieveEvent:
        return checkAllowed(p, {});
    }
    return std::nullopt;
}

void StripeApi::proceed(const CallPtr &call)
{
    if (!call->idempotencyKey.isEmpty()) {
        IdempotencyRecord record;
        record.apiKey = call->apiKey;
        record.key = call->idempotencyKey;
        record.method = call->method;
        record.path = call->path;
        record.params = call->params;
        record.createdMs = m_clock.nowMs();
        m_idempotency.begin(record);
    }
    const bool keyed = !call->idempotencyKey.isEmpty();
    if (call->has(FaultRule::Kind::ForcedError)) {
        const FaultRule &rule = *call->fault;
        ApiError e;
        e.status = rule.status;
        e.type = rule.errorType;
        e.code = rule.errorCode;
        e.message = rule.errorMessage;
        e.param = rule.errorParam;
        e.declineCode = rule.declineCode;
        HttpResponse response = errorResponse(e);
        if (keyed) {
            if (rule.save)
                m_idempotency.complete(call->apiKey, call->idempotencyKey, response.status, response.body, call->requestId);
            else
                m_idempotency.release(call->apiKey, call->idempotencyKey);
        }
        decorate(*call, response);
        send(call, response, QStringLiteral("answered"));
        return;
    }
    if (call->has(FaultRule::Kind::Error500BeforeCommit)) {
        // Stripe saves a 500 once execution has begun: replays return it until the key expires.
        HttpResponse response = errorResponse(ApiError::internal());
        if (keyed)
            m_idempotency.complete(call->apiKey, call->idempotencyKey, response.status, response.body, call->requestId);
        decorate(*call, response);
        send(call, response, QStringLiteral("answered"));
        return;
    }
    if (call->has(FaultRule::Kind::DelayBeforeCommit)) {
        QTimer::singleShot(std::chrono::milliseconds(call->fault->delayMs), this, [this, call] { execute(call); });
        return;
    }
    execute(call);
}

void StripeApi::execute(const CallPtr &call)
{
    SimDatabase::Transaction transaction(m_db);
    HttpResponse response = run(*call);
    if (call->has(FaultRule::Kind::Error500AfterCommit))
        response = errorResponse(ApiError::internal());
    if (!call->idempotencyKey.isEmpty())
        m_idempotency.complete(call->apiKey, call->idempotencyKey, response.status, response.body, call->requestId);
    if (m_db)
        m_db->setMeta(QStringLiteral("id_counter"), QString::number(m_ids.counter()));
    transaction.commit();
    deliver(call, response, false);
    emit stateChanged();
}

void StripeApi::replay(const CallPtr &call, int status, const QByteArray &body, const QString &originalRequestId)
{
    HttpResponse response;
    response.status = status;
    response.body = body;
    response.setHeader(QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json"));
    response.setHeader(QByteArrayLiteral("Idempotent-Replayed"), QByteArrayLiteral("true"));
    response.setHeader(QByteArrayLiteral("Original-Request"), originalRequestId.toLatin1());
    deliver(call, response, true);
}

void StripeApi::deliver(const CallPtr &call, HttpResponse response, bool replayed)
{
    decorate(*call, response);
    const QString outcome = replayed ? QStringLiteral("replayed") : QStringLiteral("answered");
    if (call->has(FaultRule::Kind::DropResponseAfterCommit)) {
        call->exchange->dropWithoutAnswer();
        m_log.finish(call->requestId, 0, QStringLiteral("dropped"), call->elapsed.elapsed());
        return;
    }
    if (call->has(FaultRule::Kind::ResetConnection) && call->fault->afterCommit) {
        call->exchange->reset();
        m_log.finish(call->requestId, 0, QStringLiteral("reset"), call->elapsed.elapsed());
        return;
    }
    const bool delay = call->has(FaultRule::Kind::DelayAfterCommit) || (replayed && call->has(FaultRule::Kind::DelayBeforeCommit));
    if (delay) {
        QTimer::singleShot(std::chrono::milliseconds(call->fault->delayMs), this,
                           [this, call, response, outcome] { send(call, response, outcome); });
        return;
    }
    send(call, response, outcome);
}

void StripeApi::answerError(const CallPtr &call, const ApiError &error)
{
    HttpResponse response = errorResponse(error);
    if (error.status == 401)
        response.setHeader(QByteArrayLiteral("WWW-Authenticate"), QByteArrayLiteral("Bearer realm=\"Stripe\""));
    decorate(*call, response);
    send(call, response, QStringLiteral("answered"));
}

void StripeApi::decorate(const Call &call, HttpResponse &response) const
{
    response.setHeader(QByteArrayLiteral("Request-Id"), call.requestId.toLatin1());
    response.setHeader(QByteArrayLiteral("Stripe-Version"),
                       call.stripeVersion.isEmpty() ? QByteArray(StripeEvent::ApiVersion) : call.stripeVersion.toLatin1());
    if (!call.idempotencyKey.isEmpty() && call.idempotencyKey.size() <= 255)
        response.setHeader(QByteArrayLiteral("Idempotency-Key"), call.idempotencyKey.toUtf8());
    response.setHeader(QByteArrayLiteral("Cache-Control"), QByteArrayLiteral("no-cache, no-store"));
}

void StripeApi::send(const CallPtr &call, HttpResponse response, const QString &outcome)
{
    const bool connected = call->exchange->isConnected();
    call->exchange->respond(response);
    m_log.finish(call->requestId, response.status, connected ? outcome : QStringLiteral("client_gone"),
                 call->elapsed.elapsed());
}

HttpResponse StripeApi::run(const Call &call)
{
    const qint64 now = m_clock.nowMs();
    switch (call.route) {
    case Route::CreateCharge:
        return createCharge(call);
    case Route::CreateRefund:
        return createRefund(call);
    case Route::UpdateRefund:
        return updateRefund(call);
    case Route::ListRefunds:
        return listRefunds(call);
    case Route::ListCharges:
        return listCharges(call);
    case Route::ListEvents:
        return listEvents(call);
    case Route::RetrieveCharge:
        return retrieveCharge(call);
    case Route::RetrievePaymentIntent:
        return retrievePaymentIntent(call);
    case Route::RetrieveRefund: {
        const Refund *r = m_store.refund(call.resourceId);
        if (!r || !m_store.isVisible(*r, now))
            return errorResponse(ApiError::resourceMissing(QStringLiteral("refund"), call.resourceId, QStringLiteral("id")));
        return HttpResponse::json(200, r->toApiJson());
    }
    case Route::RetrieveEvent: {
        for (const StripeEvent &e : m_store.events()) {
            if (e.id == call.resourceId && m_store.isVisible(e, now))
                return HttpResponse::json(200, e.toApiJson());
        }
        return errorResponse(ApiError::resourceMissing(QStringLiteral("event"), call.resourceId, QStringLiteral("id")));
    }
    }
    return errorResponse(ApiError::internal());
}

// Stripe's list object for an expanded sub-list (docs.stripe.com/api/pagination): object "list",
// data, has_more, url. Refunds hidden by a lookup_lag fault are hidden here too.
QJsonObject StripeApi::chargeRefunds(const Charge &charge) const
{
    const qint64 now = m_clock.nowMs();
    QJsonArray data;
    bool hasMore = false;
    const auto &refunds = m_store.refunds();
    for (auto it = refunds.crbegin(); it != refunds.crend(); ++it) {
        if (it->charge != charge.id || !m_store.isVisible(*it, now))
            continue;
        if (data.size() == ExpandedRefundsPage) {
            hasMore = true;
            break;
        }
        data.append(it->toApiJson());
    }
    return QJsonObject{{QStringLiteral("object"), QStringLiteral("list")},
                       {QStringLiteral("data"), data},
                       {QStringLiteral("has_more"), hasMore},
                       {QStringLiteral("url"), QStringLiteral("/v1/charges/%1/refunds").arg(charge.id)}};
}

HttpResponse StripeApi::retrieveCharge(const Call &call)
{
    const Charge *c = m_store.charge(call.resourceId);
    if (!c)
        return errorResponse(ApiError::resourceMissing(QStringLiteral("charge"), call.resourceId, QStringLiteral("id")));
    QJsonObject json = c->toApiJson();
    if (expands(call.params, QStringLiteral("refunds")))
        json.insert(QStringLiteral("refunds"), chargeRefunds(*c));
    return HttpResponse::json(200, json);
}

// Every paysim charge was made through its own PaymentIntent (pi_ minted with the charge).
HttpResponse StripeApi::retrievePaymentIntent(const Call &call)
{
    const Charge *c = m_store.chargeByPaymentIntent(call.resourceId);
    if (!c)
        return errorResponse(ApiError::resourceMissing(QStringLiteral("payment_intent"), call.resourceId,
                                                       QStringLiteral("intent")));
    QJsonObject json = c->toPaymentIntentJson();
    if (expands(call.params, QStringLiteral("latest_charge")))
        json.insert(QStringLiteral("latest_charge"), c->toApiJson());
    return HttpResponse::json(200, json);
}

HttpResponse StripeApi::createCharge(const Call &call)
{
    const QJsonObject &p = call.params;
    const QString source = p.value(QStringLiteral("source")).toString();
    if (!knownTokens().contains(source)) {
        return errorResponse(ApiError::invalidRequest(QStringLiteral("No such token: '%1'. paysim knows tok_visa, "
                                                                     "tok_mastercard, tok_amex and tok_chargeDeclined.")
                                                          .arg(source),
                                                      QStringLiteral("resource_missing"), QStringLiteral("source")));
    }
    if (source == QLatin1String("tok_chargeDeclined")) {
        ApiError e;
        e.status = 402;
        e.type = QStringLiteral("card_error");
        e.code = QStringLiteral("card_declined");
        e.declineCode = QStringLiteral("generic_decline");
        e.message = QStringLiteral("Your card was declined.");
        return errorResponse(e);
    }
    QJsonObject metadata;
    bool clearAll = false;
    metadataParam(p, &metadata, &clearAll);
    const Charge c = m_store.createCharge(p.value(QStringLiteral("amount")).toString().toLongLong(),
                                          p.value(QStringLiteral("currency")).toString().toLower(), source,
                                          p.value(QStringLiteral("description")).toString(),
                                          withoutEmptyValues(metadata), call.requestId,
                                          call.idempotencyKey);
    return HttpResponse::json(200, c.toApiJson());
}

HttpResponse StripeApi::createRefund(const Call &call)
{
    const QJsonObject &p = call.params;
    PaymentStore::RefundCommand command;
    command.charge = p.value(QStringLiteral("charge")).toString();
    command.paymentIntent = p.value(QStringLiteral("payment_intent")).toString();
    const auto amount = integerParam(p, QStringLiteral("amount"));
    if (const auto *a = std::get_if<std::optional<qint64>>(&amount))
        command.amount = *a;
    command.reason = p.value(QStringLiteral("reason")).toString();
    bool clearAll = false;
    metadataParam(p, &command.metadata, &clearAll);
    command.metadata = withoutEmptyValues(command.metadata);
    command.idempotencyKey = call.idempotencyKey;
    command.requestId = call.requestId;
    if (call.has(FaultRule::Kind::LookupLag))
        command.hideForMs = call.fault->delayMs;
    if (call.settlement)
        command.settlement = PaymentStore::RefundCommand::Settlement{call.settlement->afterSeconds * 1000,
                                                                    call.settlement->settleTo,
                                                                    call.settlement->failureReason};
    const auto result = m_store.createRefund(command);
    if (const auto *e = std::get_if<ApiError>(&result))
        return errorResponse(*e);
    return HttpResponse::json(200, std::get<Refund>(result).toApiJson());
}

HttpResponse StripeApi::updateRefund(const Call &call)
{
    QJsonObject metadata;
    bool clearAll = false;
    metadataParam(call.params, &metadata, &clearAll);
    const auto result = m_store.updateRefundMetadata(call.resourceId, metadata, clearAll, call.requestId, call.idempotencyKey);
    if (const auto *e = std::get_if<ApiError>(&result))
        return errorResponse(*e);
    return HttpResponse::json(200, std::get<Refund>(result).toApiJson());
}

HttpResponse StripeApi::listRefunds(const Call &call)
{
    const qint64 now = m_clock.nowMs();
    const QString charge = call.params.value(QStringLiteral("charge")).toString();
    const QString paymentIntent = call.params.value(QStringLiteral("payment_intent")).toString();
    QList<QJsonObject> items;
    const auto &refunds = m_store.refunds();
    for (auto it = refunds.crbegin(); it != refunds.crend(); ++it) {
        if (!m_store.isVisible(*it, now))
            continue;
        if (!charge.isEmpty() && it->charge != charge)
            continue;
        if (!paymentIntent.isEmpty() && it->paymentIntent != paymentIntent)
            continue;
        items.append(it->toApiJson());
    }
    return listPage(call, items, QStringLiteral("/v1/refunds"), QStringLiteral("refund"));
}

HttpResponse StripeApi::listCharges(const Call &call)
{
    const QString paymentIntent = call.params.value(QStringLiteral("payment_intent")).toString();
    QList<QJsonObject> items;
    const auto &charges = m_store.charges();
    for (auto it = charges.crbegin(); it != charges.crend(); ++it) {
        if (!paymentIntent.isEmpty() && it->paymentIntent != paymentIntent)
            continue;
        items.append(it->toApiJson());
    }
    return listPage(call, items, QStringLiteral("/v1/charges"), QStringLiteral("charge"));
}

HttpResponse StripeApi::listEvents(const Call &call)
{
    const qint64 now = m_clock.nowMs();
    QStringList types;
    const QString type = call.params.value(QStringLiteral("type")).toString();
    if (!type.isEmpty())
        types << type;
    for (const QJsonValue &t : call.params.value(QStringLiteral("types")).toArray())
        types << t.toString();
    auto typeMatches = [&](const QString &eventType) {
        if (types.isEmpty())
            return true;
        return std::any_of(types.cbegin(), types.cend(), [&](const QString &t) {
            // Stripe's type filter accepts a trailing wildcard: "charge.*".
            return t.endsWith(u'*') ? eventType.startsWith(t.chopped(1)) : eventType == t;
        });
    };
    QList<QJsonObject> items;
    const auto &events = m_store.events();
    for (auto it = events.crbegin(); it != events.crend(); ++it) {
        if (m_store.isVisible(*it, now) && typeMatches(it->type))
            items.append(it->toApiJson());
    }
    return listPage(call, items, QStringLiteral("/v1/events"), QStringLiteral("event"));
}

} // namespace cs::paysim
