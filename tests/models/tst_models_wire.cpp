#include "models/discrepancy.h"
#include "models/actionrecord.h"
#include "models/actionsummary.h"
#include "models/approval.h"
#include "models/attempt.h"
#include "models/auditevent.h"
#include "models/providerlookup.h"
#include "models/reconciliation.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <algorithm>

using namespace cs;

Q_DECLARE_METATYPE(cs::ActionRecord)
Q_DECLARE_METATYPE(cs::Approval)
Q_DECLARE_METATYPE(cs::Attempt)
Q_DECLARE_METATYPE(cs::ProviderLookup)
Q_DECLARE_METATYPE(cs::Reconciliation)
Q_DECLARE_METATYPE(cs::AuditEvent)

// QCOMPARE prints these on failure (found by argument-dependent lookup).
namespace cs {
template <typename T>
char *wireText(const T &value)
{
    return qstrdup(QJsonDocument(value.toJson()).toJson(QJsonDocument::Compact).constData());
}
char *toString(const ActionRecord &v) { return wireText(v); }
char *toString(const Approval &v) { return wireText(v); }
char *toString(const Attempt &v) { return wireText(v); }
char *toString(const ProviderLookup &v) { return wireText(v); }
char *toString(const Reconciliation &v) { return wireText(v); }
char *toString(const AuditEvent &v) { return wireText(v); }
} // namespace cs

namespace {

const QString ZeroHash = QString(64, QLatin1Char('0'));

QDateTime utc(const char *iso)
{
    const QDateTime time = QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs);
    Q_ASSERT(time.isValid() && time.timeSpec() == Qt::UTC);
    return time;
}

QByteArray compact(const QJsonObject &json)
{
    return QJsonDocument(json).toJson(QJsonDocument::Compact);
}

QJsonObject with(QJsonObject json, const char *key, const QJsonValue &value)
{
    json.insert(QLatin1String(key), value);
    return json;
}

QJsonObject without(QJsonObject json, const char *key)
{
    json.remove(QLatin1String(key));
    return json;
}

QJsonObject withTarget(QJsonObject json, const char *key, const QJsonValue &value)
{
    QJsonObject target = json.value(QLatin1String("target")).toObject();
    if (value.isUndefined())
        target.remove(QLatin1String(key));
    else
        target.insert(QLatin1String(key), value);
    json.insert(QLatin1String("target"), target);
    return json;
}

ActionRecord fullRecord()
{
    ActionRecord r;
    r.id = QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ab");
    r.kind = QStringLiteral("refund");
    r.targetType = TargetType::Charge;
    r.targetId = QStringLiteral("ch_3NqX1a2eZvKYlo2C0p8M4b7t");
    r.businessReference = QStringLiteral("order 1042");
    r.amount = 4000;
    r.currency = QStringLiteral("usd");
    r.reason = QStringLiteral("requested_by_customer");
    r.provider = QStringLiteral("paysim");
    r.providerAccount = QStringLiteral("acct_demo");
    r.requestedBy = QStringLiteral("agent-7");
    r.clientReference = QStringLiteral("refund-order-1042");
    r.parentId = QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa");
    r.requestFingerprint = QStringLiteral("b54f07323486ba183e80b48069b603ef113eaf3b81f47d61422b6353b9cd294f");
    r.idempotencyKey = QStringLiteral("csk_01");
    r.approvalVersion = 1;
    r.state = ActionState::Executing;
    r.stateVersion = 4;
    r.reviewReason = QString();
    r.createdAt = utc("2026-11-29T22:38:35.123Z");
    r.updatedAt = utc("2026-11-29T22:39:01.007Z");
    return r;
}

ActionRecord minimalRecord()
{
    ActionRecord r;
    r.id = QStringLiteral("act_minimal");
    r.targetId = QStringLiteral("ch_1");
    r.amount = 1;
    r.currency = QStringLiteral("eur");
    return r;
}

Approval fullApproval()
{
    Approval a;
    a.actionId = QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ab");
    a.version = 2;
    a.decidedBy = QStringLiteral("alice");
    a.decision = Approval::Decision::Approved;
    a.note = QStringLiteral("matches the order");
    a.idempotencyKey = QStringLiteral("csk_01");
    a.approvedFingerprint = QStringLiteral("b54f07323486ba183e80b48069b603ef113eaf3b81f47d61422b6353b9cd294f");
    a.decidedAt = utc("2026-11-29T22:38:40.250Z");
    return a;
}

Attempt fullAttempt()
{
    Attempt a;
    a.actionId = QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ab");
    a.seq = 1;
    a.idempotencyKey = QStringLiteral("csk_01");
    a.requestFingerprint = QStringLiteral("b54f07323486ba183e80b48069b603ef113eaf3b81f47d61422b6353b9cd294f");
    a.executor = QStringLiteral("worker-2@host:4242");
    a.startedAt = utc("2026-11-29T22:38:41.001Z");
    a.finishedAt = utc("2026-11-29T22:38:51.002Z");
    a.outcome = Attempt::Outcome::Unknown;
    a.httpStatus = 0;
    a.errorCode = QString();
    a.providerRequestId = QString();
    a.providerObjectId = QString();
    a.replayed = false;
    a.errorExcerpt = QStringLiteral("timeout after 10000 ms");
    return a;
}

ProviderLookup fullLookup()
{
    ProviderLookup l;
    l.actionId = QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ab");
    l.seq = 3;
    l.method = ProviderLookup::Method::ListByMetadata;
    l.askedBy = QStringLiteral("reconciler");
    l.at = utc("2026-11-29T22:40:00.500Z");
    l.result = ProviderLookup::Result::Found;
    l.providerObjectId = QStringLiteral("re_1");
    l.status = QStringLiteral("succeeded");
    l.amount = 4000;
    l.currency = QStringLiteral("usd");
    l.httpStatus = 200;
    l.excerpt = QStringLiteral("{\"id\":\"re_1\",\"status\":\"succeeded\"}");
    return l;
}

Reconciliation fullReconciliation()
{
    Reconciliation r;
    r.actionId = QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ab");
    r.seq = 1;
    r.decidedBy = QStringLiteral("sam");
    r.outcome = Reconciliation::Outcome::Committed;
    r.evidenceLookupSeq = 3;
    r.note = QStringLiteral("re_1 succeeded for 40.00 USD");
    r.decidedAt = utc("2026-11-29T22:41:00.000Z");
    return r;
}

// The event of the chain-hash known answer (see chainHashKnownAnswer).
AuditEvent knownEvent()
{
    AuditEvent e;
    e.seq = 42;
    e.actionId = QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ab");
    e.at = utc("2026-11-29T22:38:35.123Z");
    e.actor = QStringLiteral("alice");
    e.event = QStringLiteral("state_changed");
    e.reason = QStringLiteral("supervisor confirmed with lookup 3 \u2014 \u00e9vidence");
    e.before = QJsonObject{ { QStringLiteral("state"), QStringLiteral("REQUIRES_REVIEW") },
                            { QStringLiteral("state_version"), 7 } };
    e.after = QJsonObject{ { QStringLiteral("state"), QStringLiteral("COMPLETED") },
                           { QStringLiteral("state_version"), 8 },
                           { QStringLiteral("evidence"),
                             QJsonObject{ { QStringLiteral("seq"), 3 },
                                          { QStringLiteral("object"), QStringLiteral("re_1") },
                                          { QStringLiteral("amount"), 4000 } } } };
    e.prevHash = ZeroHash;
    e.hash = e.chainHash(e.prevHash);
    return e;
}

// Parses json as the named type; error may be null.
bool parses(const QString &type, const QJsonObject &json, QString *error)
{
    if (type == QLatin1String("action"))
        return ActionRecord::fromJson(json, error).has_value();
    if (type == QLatin1String("approval"))
        return Approval::fromJson(json, error).has_value();
    if (type == QLatin1String("attempt"))
        return Attempt::fromJson(json, error).has_value();
    if (type == QLatin1String("lookup"))
        return ProviderLookup::fromJson(json, error).has_value();
    if (type == QLatin1String("reconciliation"))
        return Reconciliation::fromJson(json, error).has_value();
    if (type == QLatin1String("audit"))
        return AuditEvent::fromJson(json, error).has_value();
    qFatal("unknown type in test data");
}

template <typename T>
void checkRoundTrip(const T &value)
{
    const QJsonObject json = value.toJson();
    QString error;
    const std::optional<T> back = T::fromJson(json, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(*back, value);

    // Through JSON text as well: what travels over HTTP and sits in the database.
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(compact(json), &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    const std::optional<T> fromText = T::fromJson(document.object(), &error);
    QVERIFY2(fromText, qPrintable(error));
    QCOMPARE(*fromText, value);
    QCOMPARE(compact(fromText->toJson()), compact(json));
}

} // namespace

class TestWire : public QObject
{
    Q_OBJECT

private slots:
    void wireTime_data();
    void wireTime();
    void timeFromWire_data();
    void timeFromWire();

    void actionRecordRoundTrip_data();
    void actionRecordRoundTrip();
    void approvalRoundTrip_data();
    void approvalRoundTrip();
    void attemptRoundTrip_data();
    void attemptRoundTrip();
    void lookupRoundTrip_data();
    void lookupRoundTrip();
    void reconciliationRoundTrip_data();
    void reconciliationRoundTrip();
    void auditEventRoundTrip_data();
    void auditEventRoundTrip();

    void goldenWireText_data();
    void goldenWireText();
    void enumWireNames();

    void rejected_data();
    void rejected();
    void actionRecordLenientWhereDocumented();

    void proposalPayload();
    void agentReasonsAreNeverSent();

    void chainHashKnownAnswer();
    void chainHashSensitivity_data();
    void chainHashSensitivity();
    void chainDetectsAnEdit();

    void stateCountsQueued();
};

// ---- timestamps ------------------------------------------------------------------------------

void TestWire::wireTime_data()
{
    QTest::addColumn<QDateTime>("time");
    QTest::addColumn<QString>("wire");

    QTest::newRow("UTC with milliseconds") << utc("2026-11-29T22:38:35.123Z") << QStringLiteral("2026-11-29T22:38:35.123Z");
    QTest::newRow("zero milliseconds still written") << utc("2026-11-29T22:38:35.000Z") << QStringLiteral("2026-11-29T22:38:35.000Z");
    QTest::newRow("one millisecond") << utc("2026-01-01T00:00:00.001Z") << QStringLiteral("2026-01-01T00:00:00.001Z");
    QTest::newRow("offset converted to UTC")
        << QDateTime(QDate(2026, 11, 30), QTime(4, 8, 35, 123), Qt::OffsetFromUTC, 5 * 3600 + 1800)
        << QStringLiteral("2026-11-29T22:38:35.123Z");
    QTest::newRow("from milliseconds since epoch")
        << QDateTime::fromMSecsSinceEpoch(1'795'991'915'123, Qt::UTC) << QStringLiteral("2026-11-29T22:38:35.123Z");
    QTest::newRow("null is empty") << QDateTime() << QString();
}

void TestWire::wireTime()
{
    QFETCH(QDateTime, time);
    QFETCH(QString, wire);
    QCOMPARE(toWireTime(time), wire);
    if (time.isValid()) {
        const QDateTime back = cs::timeFromWire(wire);
        QCOMPARE(back, time);
        QCOMPARE(back.toMSecsSinceEpoch(), time.toMSecsSinceEpoch());
        QCOMPARE(back.timeSpec(), Qt::UTC);
    }
}

void TestWire::timeFromWire_data()
{
    QTest::addColumn<QString>("wire");
    QTest::addColumn<QDateTime>("time"); // null = refused

    QTest::newRow("canonical") << QStringLiteral("2026-11-29T22:38:35.123Z") << utc("2026-11-29T22:38:35.123Z");
    QTest::newRow("without milliseconds") << QStringLiteral("2026-11-29T22:38:35Z") << utc("2026-11-29T22:38:35.000Z");
    QTest::newRow("with an offset") << QStringLiteral("2026-11-29T23:38:35.123+01:00") << utc("2026-11-29T22:38:35.123Z");
    QTest::newRow("no zone: refused, would be local time") << QStringLiteral("2026-11-29T22:38:35.123") << QDateTime();
    QTest::newRow("date only refused") << QStringLiteral("2026-11-29") << QDateTime();
    QTest::newRow("garbage refused") << QStringLiteral("yesterday") << QDateTime();
    QTest::newRow("invalid day refused") << QStringLiteral("2026-02-30T00:00:00.000Z") << QDateTime();
    QTest::newRow("empty") << QString() << QDateTime();
}

void TestWire::timeFromWire()
{
    QFETCH(QString, wire);
    QFETCH(QDateTime, time);
    const QDateTime parsed = cs::timeFromWire(wire);
    QCOMPARE(parsed.isValid(), time.isValid());
    if (time.isValid()) {
        QCOMPARE(parsed, time);
        QCOMPARE(parsed.timeSpec(), Qt::UTC);
    }
}

// ---- round trips -----------------------------------------------------------------------------

void TestWire::actionRecordRoundTrip_data()
{
    QTest::addColumn<ActionRecord>("record");

    QTest::newRow("every field set, ms timestamps") << fullRecord();
    QTest::newRow("only required fields, empty strings, null timestamps") << minimalRecord();

    ActionRecord r = fullRecord();
    r.targetType = TargetType::PaymentIntent;
    r.targetId = QStringLiteral("pi_3NqX1a2eZvKYlo2C1abcdef");
    QTest::newRow("payment intent target") << r;

    const ActionState states[] = { ActionState::Pending, ActionState::Executing, ActionState::ConfirmationUnknown,
                                   ActionState::Completed, ActionState::Rejected, ActionState::RequiresReview };
    for (ActionState state : states) {
        r = fullRecord();
        r.state = state;
        r.reviewReason = state == ActionState::RequiresReview ? QStringLiteral("idempotency_error from provider") : QString();
        QTest::addRow("state %s", qPrintable(toWire(state))) << r;
    }

    r = fullRecord();
    r.amount = 0;
    QTest::newRow("amount 0") << r;
    r.amount = Money::MaxMinorUnits;
    r.currency = QStringLiteral("jpy");
    QTest::newRow("amount 10^12") << r;

    r = fullRecord();
    r.stateVersion = (qint64(1) << 53) - 1;
    r.approvalVersion = std::numeric_limits<int>::max();
    QTest::newRow("largest exact versions") << r;

    r = fullRecord();
    r.businessReference = QStringLiteral("ordre \u00e9t\u00e9 \"#1\" \\ / \n\t\u20ac \U0001F600");
    r.reason = QString();
    r.reviewReason = QStringLiteral("line 1\nline 2");
    QTest::newRow("unicode, quotes, escapes and newlines in free text") << r;

    r = fullRecord();
    r.createdAt = QDateTime(QDate(2026, 11, 30), QTime(4, 8, 35, 7), Qt::OffsetFromUTC, 5 * 3600 + 1800);
    r.updatedAt = QDateTime();
    QTest::newRow("offset timestamp keeps its instant; one null") << r;

    r = fullRecord();
    r.kind = QStringLiteral("refund_adjustment");
    QTest::newRow("another kind") << r;

    r = fullRecord();
    r.justification = QStringLiteral("Carrier confirms the parcel was lost.\n\t\u20ac 40 of \u20ac 99 \U0001F600");
    r.contextUrl = QStringLiteral("https://support.example.com/tickets/4821?tab=1#n3");
    r.facts = {{QStringLiteral("customer_said"), QStringLiteral("\"never arrived\"")},
               {QStringLiteral("order_total"), QStringLiteral("USD 99.00")}};
    QTest::newRow("the agent's reasons") << r;
}

void TestWire::actionRecordRoundTrip()
{
    QFETCH(ActionRecord, record);
    checkRoundTrip(record);
}

void TestWire::approvalRoundTrip_data()
{
    QTest::addColumn<Approval>("approval");
    QTest::newRow("approved, key and fingerprint") << fullApproval();
    Approval a = fullApproval();
    a.decision = Approval::Decision::Rejected;
    a.idempotencyKey.clear();
    a.approvedFingerprint.clear();
    a.note = QStringLiteral("wrong customer \u2014 see ticket");
    QTest::newRow("rejected, no key") << a;
    a = fullApproval();
    a.decidedAt = QDateTime();
    a.note.clear();
    QTest::newRow("null decided_at, empty note") << a;
    // Dual control (docs/POLICY.md): the quorum's signers, the rule and the policy version.
    a = fullApproval();
    a.policyVersion = 3;
    a.ruleId = QStringLiteral("usd-large");
    a.signers = {{QStringLiteral("ana"), utc("2026-11-29T22:38:39.001Z")}, {QStringLiteral("alice"), a.decidedAt}};
    QTest::newRow("a quorum's approval, its signers") << a;
}

void TestWire::approvalRoundTrip()
{
    QFETCH(Approval, approval);
    checkRoundTrip(approval);
}

void TestWire::attemptRoundTrip_data()
{
    QTest::addColumn<Attempt>("attempt");
    const Attempt::Outcome outcomes[] = { Attempt::Outcome::Open, Attempt::Outcome::Succeeded,
                                          Attempt::Outcome::Rejected, Attempt::Outcome::Unknown,
                                          Attempt::Outcome::RateLimited, Attempt::Outcome::KeyInUse,
                                          Attempt::Outcome::IdempotencyMismatch };
    for (Attempt::Outcome outcome : outcomes) {
        Attempt a = fullAttempt();
        a.outcome = outcome;
        QTest::addRow("outcome %s", qPrintable(toWire(outcome))) << a;
    }
    Attempt a = fullAttempt();
    a.outcome = Attempt::Outcome::Open;
    a.finishedAt = QDateTime();
    a.errorExcerpt.clear();
    QTest::newRow("open: null finished_at") << a;

    a = fullAttempt();
    a.outcome = Attempt::Outcome::Succeeded;
    a.httpStatus = 200;
    a.providerRequestId = QStringLiteral("req_abc");
    a.providerObjectId = QStringLiteral("re_1");
    a.replayed = true;
    a.errorExcerpt.clear();
    QTest::newRow("replayed success") << a;

    a = fullAttempt();
    a.outcome = Attempt::Outcome::IdempotencyMismatch;
    a.httpStatus = 400;
    a.errorCode = QStringLiteral("idempotency_error");
    a.errorExcerpt = QString(500, QLatin1Char('x'));
    QTest::newRow("500-character excerpt") << a;

    a = Attempt();
    a.actionId = QStringLiteral("act_x");
    QTest::newRow("defaults with null timestamps") << a;
}

void TestWire::attemptRoundTrip()
{
    QFETCH(Attempt, attempt);
    checkRoundTrip(attempt);
}

void TestWire::lookupRoundTrip_data()
{
    QTest::addColumn<ProviderLookup>("lookup");
    const ProviderLookup::Method methods[] = { ProviderLookup::Method::ListByMetadata,
                                               ProviderLookup::Method::RetrieveRefund,
                                               ProviderLookup::Method::Events, ProviderLookup::Method::Webhook };
    for (ProviderLookup::Method method : methods) {
        ProviderLookup l = fullLookup();
        l.method = method;
        QTest::addRow("method %s", qPrintable(toWire(method))) << l;
    }
    ProviderLookup l = fullLookup();
    l.result = ProviderLookup::Result::NotFound;
    l.providerObjectId.clear();
    l.status.clear();
    l.amount = 0;
    l.currency.clear();
    l.excerpt = QStringLiteral("{\"data\":[]}");
    QTest::newRow("NOT_FOUND, empty evidence") << l;

    l = fullLookup();
    l.result = ProviderLookup::Result::Error;
    l.httpStatus = 503;
    l.at = QDateTime();
    QTest::newRow("ERROR, null at") << l;

    l = fullLookup();
    l.currency = QStringLiteral("USD");
    l.status = QStringLiteral("requires_action");
    QTest::newRow("evidence kept verbatim (upper-case currency)") << l;
}

void TestWire::lookupRoundTrip()
{
    QFETCH(ProviderLookup, lookup);
    checkRoundTrip(lookup);
}

void TestWire::reconciliationRoundTrip_data()
{
    QTest::addColumn<Reconciliation>("reconciliation");
    QTest::newRow("committed") << fullReconciliation();
    Reconciliation r = fullReconciliation();
    r.outcome = Reconciliation::Outcome::NotCommitted;
    r.note.clear();
    r.decidedAt = QDateTime();
    QTest::newRow("not committed, empty note, null time") << r;
}

void TestWire::reconciliationRoundTrip()
{
    QFETCH(Reconciliation, reconciliation);
    checkRoundTrip(reconciliation);
}

void TestWire::auditEventRoundTrip_data()
{
    QTest::addColumn<AuditEvent>("event");
    QTest::newRow("nested before/after, hashes") << knownEvent();
    AuditEvent e = knownEvent();
    e.before = QJsonObject();
    e.after = QJsonObject();
    e.actionId.clear();
    e.reason.clear();
    QTest::newRow("empty objects, no action") << e;
    e = knownEvent();
    e.at = QDateTime();
    e.hash.clear();
    e.prevHash.clear();
    QTest::newRow("null at, empty hashes") << e;
    e = knownEvent();
    e.after.insert(QStringLiteral("list"), QJsonArray{ 1, QStringLiteral("two"), QJsonObject{ { QStringLiteral("b"), true } } });
    e.after.insert(QStringLiteral("nothing"), QJsonValue::Null);
    QTest::newRow("arrays, booleans and null inside after") << e;
}

void TestWire::auditEventRoundTrip()
{
    QFETCH(AuditEvent, event);
    checkRoundTrip(event);
}

// ---- the exact wire text, which the API and the database depend on ---------------------------

void TestWire::goldenWireText_data()
{
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<QByteArray>("text");

    QTest::newRow("action record") << fullRecord().toJson() << QByteArray(
        R"({"amount":4000,"approval_version":1,"business_reference":"order 1042",)"
        R"("client_reference":"refund-order-1042","context_url":"","created_at":"2026-11-29T22:38:35.123Z",)"
        R"("currency":"usd","facts":{},"id":"act_k3v9q2m7x4p8r1t6w5y0z2ab","idempotency_key":"csk_01",)"
        R"("justification":"","kind":"refund","parent_id":"act_aaaaaaaaaaaaaaaaaaaaaaaa","provider":"paysim",)"
        R"("provider_account":"acct_demo","reason":"requested_by_customer",)"
        R"("request_fingerprint":"b54f07323486ba183e80b48069b603ef113eaf3b81f47d61422b6353b9cd294f",)"
        R"("requested_by":"agent-7","review_reason":"","state":"EXECUTING","state_version":4,)"
        R"("target":{"charge":"ch_3NqX1a2eZvKYlo2C0p8M4b7t"},)"
        R"("updated_at":"2026-11-29T22:39:01.007Z"})");

    QTest::newRow("minimal action record") << minimalRecord().toJson() << QByteArray(
        R"({"amount":1,"approval_version":0,"business_reference":"","client_reference":"","context_url":"",)"
        R"("created_at":null,"currency":"eur","facts":{},"id":"act_minimal","idempotency_key":"",)"
        R"("justification":"","kind":"refund",)"
        R"("parent_id":"","provider":"","provider_account":"","reason":"","request_fingerprint":"",)"
        R"("requested_by":"","review_reason":"","state":"PENDING","state_version":1,)"
        R"("target":{"charge":"ch_1"},"updated_at":null})");

    QTest::newRow("approval") << fullApproval().toJson() << QByteArray(
        R"({"action_id":"act_k3v9q2m7x4p8r1t6w5y0z2ab",)"
        R"("approved_fingerprint":"b54f07323486ba183e80b48069b603ef113eaf3b81f47d61422b6353b9cd294f",)"
        R"("decided_at":"2026-11-29T22:38:40.250Z","decided_by":"alice","decision":"approved",)"
        R"("expired_at":null,"expires_at":null,)"
        R"("idempotency_key":"csk_01","note":"matches the order","policy_version":0,"reason":"","rule_id":"",)"
        R"("signers":[],"version":2})");

    QTest::newRow("attempt") << fullAttempt().toJson() << QByteArray(
        R"({"action_id":"act_k3v9q2m7x4p8r1t6w5y0z2ab","error_code":"",)"
        R"("error_excerpt":"timeout after 10000 ms","executor":"worker-2@host:4242",)"
        R"("finished_at":"2026-11-29T22:38:51.002Z","http_status":0,"idempotency_key":"csk_01",)"
        R"("outcome":"unknown","provider_object_id":"","provider_request_id":"","replayed":false,)"
        R"("request_fingerprint":"b54f07323486ba183e80b48069b603ef113eaf3b81f47d61422b6353b9cd294f",)"
        R"("seq":1,"started_at":"2026-11-29T22:38:41.001Z"})");

    QTest::newRow("provider lookup") << fullLookup().toJson() << QByteArray(
        R"({"action_id":"act_k3v9q2m7x4p8r1t6w5y0z2ab","amount":4000,"asked_by":"reconciler",)"
        R"("at":"2026-11-29T22:40:00.500Z","currency":"usd",)"
        R"("excerpt":"{\"id\":\"re_1\",\"status\":\"succeeded\"}","http_status":200,)"
        R"("method":"list_by_metadata","provider_object_id":"re_1","result":"FOUND","seq":3,)"
        R"("status":"succeeded"})");

    QTest::newRow("reconciliation") << fullReconciliation().toJson() << QByteArray(
        R"({"action_id":"act_k3v9q2m7x4p8r1t6w5y0z2ab","decided_at":"2026-11-29T22:41:00.000Z",)"
        R"("decided_by":"sam","evidence_lookup_seq":3,"note":"re_1 succeeded for 40.00 USD",)"
        R"("outcome":"committed","seq":1})");

    // ActionSummary (GET /actions rows, related actions): the one writer, server and console
    // alike. No parent_id, whether the record has one or not: openapi.yaml's ActionSummary has none.
    ActionSummary followUp;
    followUp.record = fullRecord();
    followUp.attemptCount = 2;
    followUp.lastEventAt = fullRecord().updatedAt;
    QVERIFY(!followUp.record.parentId.isEmpty());
    QTest::newRow("action summary of a follow-up: parent_id not written") << followUp.toJson() << QByteArray(
        R"({"amount":4000,"attempt_count":2,"business_reference":"order 1042",)"
        R"("created_at":"2026-11-29T22:38:35.123Z","currency":"usd","discrepancy":false,"id":"act_k3v9q2m7x4p8r1t6w5y0z2ab",)"
        R"("last_event_at":"2026-11-29T22:39:01.007Z","possible_duplicate":false,"possible_duplicates":0,"queued":false,)"
        R"("requested_by":"agent-7","review_reason":"","settlement_review":false,"settlement_status":null,)"
        R"("state":"EXECUTING","state_version":4,"target":{"charge":"ch_3NqX1a2eZvKYlo2C0p8M4b7t"},)"
        R"("updated_at":"2026-11-29T22:39:01.007Z"})");
    ActionSummary original = followUp;
    original.record.parentId.clear();
    QTest::newRow("action summary of an original action: the same members") << original.toJson()
                                                                             << compact(followUp.toJson());

    // Issue 33: what the provider holds that contradicts a final action.
    Discrepancy d;
    d.actionId = fullRecord().id;
    d.kind = Discrepancy::Kind::DuplicateRefund;
    d.refundIds = {QStringLiteral("re_1"), QStringLiteral("re_2")};
    d.detail = QStringLiteral("the provider holds 2 refunds for this action (re_2, re_1): contradictory evidence");
    d.evidence = QStringLiteral("lookup 4 (event evt_9)");
    d.foundBy = QStringLiteral("webhook");
    d.openedAt = fullRecord().updatedAt;
    d.lastSeenAt = fullRecord().updatedAt;
    d.sightings = 2;
    QTest::newRow("discrepancy, open") << d.toJson() << QByteArray(
        R"j({"action_id":"act_k3v9q2m7x4p8r1t6w5y0z2ab","attention":"open",)j"
        R"j("detail":"the provider holds 2 refunds for this action (re_2, re_1): contradictory evidence",)j"
        R"j("evidence":"lookup 4 (event evt_9)","found_by":"webhook","kind":"duplicate_refund",)j"
        R"j("last_seen_at":"2026-11-29T22:39:01.007Z","opened_at":"2026-11-29T22:39:01.007Z",)j"
        R"j("refund_ids":["re_1","re_2"],"resolution_note":null,"resolved_at":null,"resolved_by":null,"sightings":2})j");
    QVERIFY(Discrepancy::fromJson(d.toJson()) == d);
    Discrepancy closed = d;
    closed.attention = Discrepancy::Attention::Closed;
    closed.resolvedBy = QStringLiteral("sue");
    closed.resolvedAt = fullRecord().updatedAt;
    closed.resolutionNote = QStringLiteral("kept as goodwill");
    QVERIFY(Discrepancy::fromJson(closed.toJson()) == closed);

    AuditEvent e = knownEvent();
    e.reason = QStringLiteral("ok");
    e.hash = QStringLiteral("h");
    QTest::newRow("audit event") << e.toJson() << QByteArray(
        R"({"action_id":"act_k3v9q2m7x4p8r1t6w5y0z2ab","actor":"alice",)"
        R"("after":{"evidence":{"amount":4000,"object":"re_1","seq":3},"state":"COMPLETED","state_version":8},)"
        R"("at":"2026-11-29T22:38:35.123Z","before":{"state":"REQUIRES_REVIEW","state_version":7},)"
        R"("event":"state_changed","hash":"h",)"
        R"("prev_hash":"0000000000000000000000000000000000000000000000000000000000000000",)"
        R"("reason":"ok","seq":42})");
}

void TestWire::goldenWireText()
{
    QFETCH(QJsonObject, json);
    QFETCH(QByteArray, text);
    QCOMPARE(compact(json), text);
}

void TestWire::enumWireNames()
{
    QCOMPARE(toWire(TargetType::Charge), QStringLiteral("charge"));
    QCOMPARE(toWire(TargetType::PaymentIntent), QStringLiteral("payment_intent"));
    QCOMPARE(targetTypeFromWire(u"payment_intent"), std::optional(TargetType::PaymentIntent));
    QVERIFY(!targetTypeFromWire(u"Charge"));

    QCOMPARE(toWire(Approval::Decision::Approved), QStringLiteral("approved"));
    QCOMPARE(toWire(Approval::Decision::Rejected), QStringLiteral("rejected"));
    QCOMPARE(decisionFromWire(u"rejected"), std::optional(Approval::Decision::Rejected));
    QVERIFY(!decisionFromWire(u"APPROVED"));

    const std::pair<Attempt::Outcome, const char *> outcomes[] = {
        { Attempt::Outcome::Open, "open" },
        { Attempt::Outcome::Succeeded, "succeeded" },
        { Attempt::Outcome::Rejected, "rejected" },
        { Attempt::Outcome::Unknown, "unknown" },
        { Attempt::Outcome::RateLimited, "rate_limited" },
        { Attempt::Outcome::KeyInUse, "key_in_use" },
        { Attempt::Outcome::IdempotencyMismatch, "idempotency_mismatch" },
    };
    for (const auto &[outcome, wire] : outcomes) {
        QCOMPARE(toWire(outcome), QString::fromLatin1(wire));
        QCOMPARE(attemptOutcomeFromWire(QString::fromLatin1(wire)), std::optional(outcome));
    }
    QVERIFY(!attemptOutcomeFromWire(u"failed"));

    const std::pair<ProviderLookup::Method, const char *> methods[] = {
        { ProviderLookup::Method::ListByMetadata, "list_by_metadata" },
        { ProviderLookup::Method::RetrieveRefund, "retrieve_refund" },
        { ProviderLookup::Method::Events, "events" },
        { ProviderLookup::Method::Webhook, "webhook" },
    };
    for (const auto &[method, wire] : methods) {
        QCOMPARE(toWire(method), QString::fromLatin1(wire));
        QCOMPARE(lookupMethodFromWire(QString::fromLatin1(wire)), std::optional(method));
    }
    QVERIFY(!lookupMethodFromWire(u"poll"));

    const std::pair<ProviderLookup::Result, const char *> results[] = {
        { ProviderLookup::Result::Found, "FOUND" },
        { ProviderLookup::Result::NotFound, "NOT_FOUND" },
        { ProviderLookup::Result::Error, "ERROR" },
    };
    for (const auto &[result, wire] : results) {
        QCOMPARE(toWire(result), QString::fromLatin1(wire));
        QCOMPARE(lookupResultFromWire(QString::fromLatin1(wire)), std::optional(result));
    }
    QVERIFY(!lookupResultFromWire(u"found"));

    QCOMPARE(toWire(Reconciliation::Outcome::Committed), QStringLiteral("committed"));
    QCOMPARE(toWire(Reconciliation::Outcome::NotCommitted), QStringLiteral("not_committed"));
    QCOMPARE(reconciliationOutcomeFromWire(u"not_committed"), std::optional(Reconciliation::Outcome::NotCommitted));
    QVERIFY(!reconciliationOutcomeFromWire(u"uncommitted"));
}

// ---- what fromJson refuses -------------------------------------------------------------------

void TestWire::rejected_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<QString>("field"); // the error must start with "<field>: "

    const QString action = QStringLiteral("action");
    const QJsonObject record = fullRecord().toJson();
    const QJsonValue undefined(QJsonValue::Undefined);
    QTest::newRow("action: missing id") << action << without(record, "id") << QStringLiteral("id");
    QTest::newRow("action: null id") << action << with(record, "id", QJsonValue::Null) << QStringLiteral("id");
    QTest::newRow("action: empty id") << action << with(record, "id", QString()) << QStringLiteral("id");
    QTest::newRow("action: id is a number") << action << with(record, "id", 7) << QStringLiteral("id");
    QTest::newRow("action: missing kind") << action << without(record, "kind") << QStringLiteral("kind");
    QTest::newRow("action: missing target") << action << without(record, "target") << QStringLiteral("target");
    QTest::newRow("action: target is a string") << action << with(record, "target", QStringLiteral("ch_1")) << QStringLiteral("target");
    QTest::newRow("action: unknown target type") << action << with(record, "target", QJsonObject{ { QStringLiteral("card"), QStringLiteral("card_1") } }) << QStringLiteral("target");
    QTest::newRow("action: empty target") << action << with(record, "target", QJsonObject()) << QStringLiteral("target");
    QTest::newRow("action: two targets") << action << withTarget(record, "payment_intent", QStringLiteral("pi_1")) << QStringLiteral("target");
    QTest::newRow("action: empty charge id") << action << withTarget(record, "charge", QString()) << QStringLiteral("target.charge");
    QTest::newRow("action: charge id is a number") << action << withTarget(record, "charge", 12) << QStringLiteral("target.charge");
    QTest::newRow("action: missing amount") << action << without(record, "amount") << QStringLiteral("amount");
    QTest::newRow("action: null amount") << action << with(record, "amount", QJsonValue::Null) << QStringLiteral("amount");
    QTest::newRow("action: amount as string") << action << with(record, "amount", QStringLiteral("4000")) << QStringLiteral("amount");
    QTest::newRow("action: amount 1.5") << action << with(record, "amount", 1.5) << QStringLiteral("amount");
    QTest::newRow("action: amount 4000.0001") << action << with(record, "amount", 4000.0001) << QStringLiteral("amount");
    QTest::newRow("action: negative amount") << action << with(record, "amount", -1) << QStringLiteral("amount");
    QTest::newRow("action: amount 10^12 + 1") << action << with(record, "amount", QJsonValue(Money::MaxMinorUnits + 1)) << QStringLiteral("amount");
    QTest::newRow("action: amount 1e300") << action << with(record, "amount", 1e300) << QStringLiteral("amount");
    QTest::newRow("action: amount true") << action << with(record, "amount", true) << QStringLiteral("amount");
    QTest::newRow("action: missing currency") << action << without(record, "currency") << QStringLiteral("currency");
    QTest::newRow("action: unknown currency") << action << with(record, "currency", QStringLiteral("xxx")) << QStringLiteral("currency");
    QTest::newRow("action: currency too long") << action << with(record, "currency", QStringLiteral("usdd")) << QStringLiteral("currency");
    QTest::newRow("action: currency is a number") << action << with(record, "currency", 840) << QStringLiteral("currency");
    QTest::newRow("action: missing state") << action << without(record, "state") << QStringLiteral("state");
    QTest::newRow("action: unknown state") << action << with(record, "state", QStringLiteral("DONE")) << QStringLiteral("state");
    QTest::newRow("action: lower-case state") << action << with(record, "state", QStringLiteral("pending")) << QStringLiteral("state");
    QTest::newRow("action: reason is a number") << action << with(record, "reason", 42) << QStringLiteral("reason");
    QTest::newRow("action: business_reference is an array") << action << with(record, "business_reference", QJsonArray{ 1 }) << QStringLiteral("business_reference");
    QTest::newRow("action: approval_version as string") << action << with(record, "approval_version", QStringLiteral("1")) << QStringLiteral("approval_version");
    QTest::newRow("action: negative approval_version") << action << with(record, "approval_version", -1) << QStringLiteral("approval_version");
    QTest::newRow("action: state_version 1.5") << action << with(record, "state_version", 1.5) << QStringLiteral("state_version");
    QTest::newRow("action: created_at garbage") << action << with(record, "created_at", QStringLiteral("yesterday")) << QStringLiteral("created_at");
    QTest::newRow("action: created_at without zone") << action << with(record, "created_at", QStringLiteral("2026-11-29T22:38:35.123")) << QStringLiteral("created_at");
    QTest::newRow("action: updated_at as a number") << action << with(record, "updated_at", 1795991915123.0) << QStringLiteral("updated_at");

    const QString approval = QStringLiteral("approval");
    const QJsonObject a = fullApproval().toJson();
    QTest::newRow("approval: missing action_id") << approval << without(a, "action_id") << QStringLiteral("action_id");
    QTest::newRow("approval: version as string") << approval << with(a, "version", QStringLiteral("2")) << QStringLiteral("version");
    QTest::newRow("approval: missing decided_by") << approval << without(a, "decided_by") << QStringLiteral("decided_by");
    QTest::newRow("approval: unknown decision") << approval << with(a, "decision", QStringLiteral("maybe")) << QStringLiteral("decision");
    QTest::newRow("approval: decision as bool") << approval << with(a, "decision", true) << QStringLiteral("decision");
    QTest::newRow("approval: decided_at as number") << approval << with(a, "decided_at", 5) << QStringLiteral("decided_at");
    QTest::newRow("approval: note as object") << approval << with(a, "note", QJsonObject()) << QStringLiteral("note");

    const QString attempt = QStringLiteral("attempt");
    const QJsonObject t = fullAttempt().toJson();
    QTest::newRow("attempt: missing seq") << attempt << without(t, "seq") << QStringLiteral("seq");
    QTest::newRow("attempt: negative seq") << attempt << with(t, "seq", -1) << QStringLiteral("seq");
    QTest::newRow("attempt: seq beyond int") << attempt << with(t, "seq", QJsonValue(qint64(1) << 40)) << QStringLiteral("seq");
    QTest::newRow("attempt: unknown outcome") << attempt << with(t, "outcome", QStringLiteral("failed")) << QStringLiteral("outcome");
    QTest::newRow("attempt: replayed as string") << attempt << with(t, "replayed", QStringLiteral("true")) << QStringLiteral("replayed");
    QTest::newRow("attempt: http_status 1000") << attempt << with(t, "http_status", 1000) << QStringLiteral("http_status");
    QTest::newRow("attempt: started_at garbage") << attempt << with(t, "started_at", QStringLiteral("now")) << QStringLiteral("started_at");
    QTest::newRow("attempt: empty action_id") << attempt << with(t, "action_id", QString()) << QStringLiteral("action_id");

    const QString lookup = QStringLiteral("lookup");
    const QJsonObject l = fullLookup().toJson();
    QTest::newRow("lookup: unknown method") << lookup << with(l, "method", QStringLiteral("poll")) << QStringLiteral("method");
    QTest::newRow("lookup: lower-case result") << lookup << with(l, "result", QStringLiteral("found")) << QStringLiteral("result");
    QTest::newRow("lookup: missing result") << lookup << without(l, "result") << QStringLiteral("result");
    QTest::newRow("lookup: negative amount") << lookup << with(l, "amount", -5) << QStringLiteral("amount");
    QTest::newRow("lookup: amount 2.5") << lookup << with(l, "amount", 2.5) << QStringLiteral("amount");
    QTest::newRow("lookup: amount as string") << lookup << with(l, "amount", QStringLiteral("4000")) << QStringLiteral("amount");

    const QString reconciliation = QStringLiteral("reconciliation");
    const QJsonObject r = fullReconciliation().toJson();
    QTest::newRow("reconciliation: unknown outcome") << reconciliation << with(r, "outcome", QStringLiteral("maybe_committed")) << QStringLiteral("outcome");
    QTest::newRow("reconciliation: missing evidence") << reconciliation << without(r, "evidence_lookup_seq") << QStringLiteral("evidence_lookup_seq");
    QTest::newRow("reconciliation: evidence as string") << reconciliation << with(r, "evidence_lookup_seq", QStringLiteral("3")) << QStringLiteral("evidence_lookup_seq");
    QTest::newRow("reconciliation: missing decided_by") << reconciliation << without(r, "decided_by") << QStringLiteral("decided_by");

    const QString audit = QStringLiteral("audit");
    const QJsonObject e = knownEvent().toJson();
    QTest::newRow("audit: missing seq") << audit << without(e, "seq") << QStringLiteral("seq");
    QTest::newRow("audit: seq 1.5") << audit << with(e, "seq", 1.5) << QStringLiteral("seq");
    QTest::newRow("audit: missing event") << audit << without(e, "event") << QStringLiteral("event");
    QTest::newRow("audit: before is an array") << audit << with(e, "before", QJsonArray()) << QStringLiteral("before");
    QTest::newRow("audit: after is a string") << audit << with(e, "after", QStringLiteral("{}")) << QStringLiteral("after");
    QTest::newRow("audit: hash is a number") << audit << with(e, "hash", 0) << QStringLiteral("hash");
}

void TestWire::rejected()
{
    QFETCH(QString, type);
    QFETCH(QJsonObject, json);
    QFETCH(QString, field);

    QString error;
    QVERIFY2(!parses(type, json, &error), "fromJson accepted it");
    const QString prefix = field + QLatin1String(": ");
    QVERIFY2(error.startsWith(prefix), qPrintable(error));
    QVERIFY2(error.size() > prefix.size() + 5, qPrintable(error)); // says what is wrong
    QVERIFY2(!parses(type, json, nullptr), "refused only when asked for the error");
}

void TestWire::actionRecordLenientWhereDocumented()
{
    // Only id, kind, target, amount, currency and state are required; the rest default.
    QJsonObject json{ { QStringLiteral("id"), QStringLiteral("act_1") },
                      { QStringLiteral("kind"), QStringLiteral("refund") },
                      { QStringLiteral("target"), QJsonObject{ { QStringLiteral("payment_intent"), QStringLiteral("pi_1") } } },
                      { QStringLiteral("amount"), 4000 },
                      { QStringLiteral("currency"), QStringLiteral("USD") },
                      { QStringLiteral("state"), QStringLiteral("REQUIRES_REVIEW") },
                      { QStringLiteral("reason"), QJsonValue::Null },
                      { QStringLiteral("created_at"), QJsonValue::Null },
                      { QStringLiteral("some_future_key"), QStringLiteral("ignored") } };
    QString error;
    std::optional<ActionRecord> r = ActionRecord::fromJson(json, &error);
    QVERIFY2(r, qPrintable(error));
    QCOMPARE(r->targetType, TargetType::PaymentIntent);
    QCOMPARE(r->targetId, QStringLiteral("pi_1"));
    QCOMPARE(r->currency, QStringLiteral("usd")); // stored lowercase
    QCOMPARE(r->state, ActionState::RequiresReview);
    QCOMPARE(r->stateVersion, qint64(1));
    QCOMPARE(r->approvalVersion, 0);
    QVERIFY(r->reason.isEmpty());
    QVERIFY(r->provider.isEmpty());
    QVERIFY(!r->createdAt.isValid());
    QVERIFY(!r->updatedAt.isValid());
    QCOMPARE(r->money(), Money::fromMinorUnits(4000, u"usd"));

    // A whole number written as a double is still an integer.
    json.insert(QStringLiteral("amount"), 4000.0);
    r = ActionRecord::fromJson(json, &error);
    QVERIFY2(r, qPrintable(error));
    QCOMPARE(r->amount, qint64(4000));

    // The largest amount survives JSON text exactly.
    json.insert(QStringLiteral("amount"), QJsonValue(Money::MaxMinorUnits));
    r = ActionRecord::fromJson(QJsonDocument::fromJson(compact(json)).object(), &error);
    QVERIFY2(r, qPrintable(error));
    QCOMPARE(r->amount, Money::MaxMinorUnits);
}

// ---- proposal payload ------------------------------------------------------------------------

// Issue 19: the agent's reasons are for the approver; the provider request and its fingerprint
// are the same with and without them, and proposalPayload() does not carry them either.
void TestWire::agentReasonsAreNeverSent()
{
    ActionRecord with = fullRecord();
    with.justification = QStringLiteral("lost in transit");
    with.contextUrl = QStringLiteral("https://support.example.com/tickets/4821");
    with.facts = {{QStringLiteral("order_total"), QStringLiteral("USD 99.00")}};
    const ActionRecord without = fullRecord();
    QVERIFY(with.hasReasons());
    QVERIFY(!without.hasReasons());
    QCOMPARE(with.providerRequest().formBody(), without.providerRequest().formBody());
    QCOMPARE(requestFingerprint(with.providerRequest()), requestFingerprint(without.providerRequest()));
    QCOMPARE(with.proposalPayload(), without.proposalPayload());
    QCOMPARE(compact(with.reasonsPayload()),
             QByteArray(R"({"context_url":"https://support.example.com/tickets/4821","facts":{"order_total":"USD 99.00"},)"
                        R"("justification":"lost in transit"})"));
    QCOMPARE(without.reasonsPayload(), QJsonObject()); // absent when empty
    const QJsonObject json = with.toJson();
    QCOMPARE(json.value(QStringLiteral("facts")).toObject().value(QStringLiteral("order_total")).toString(),
             QStringLiteral("USD 99.00"));
    QCOMPARE(without.toJson().value(QStringLiteral("facts")).toObject(), QJsonObject());
    QCOMPARE(without.toJson().value(QStringLiteral("justification")).toString(), QString());
}

void TestWire::proposalPayload()
{
    QCOMPARE(compact(fullRecord().proposalPayload()),
             QByteArray(R"({"amount":4000,"business_reference":"order 1042","currency":"usd","kind":"refund",)"
                        R"("reason":"requested_by_customer","target":{"charge":"ch_3NqX1a2eZvKYlo2C0p8M4b7t"}})"));

    ActionRecord r = minimalRecord();
    r.targetType = TargetType::PaymentIntent;
    r.targetId = QStringLiteral("pi_9");
    QCOMPARE(compact(r.proposalPayload()),
             QByteArray(R"({"amount":1,"business_reference":"","currency":"eur","kind":"refund",)"
                        R"("reason":"","target":{"payment_intent":"pi_9"}})"));

    // Ids, keys, state and bookkeeping are not part of what the agent proposed...
    ActionRecord other = fullRecord();
    other.id = QStringLiteral("act_other");
    other.idempotencyKey = QStringLiteral("csk_99");
    other.state = ActionState::RequiresReview;
    other.stateVersion = 99;
    other.requestedBy = QStringLiteral("agent-8");
    other.clientReference = QStringLiteral("other");
    other.createdAt = QDateTime();
    QCOMPARE(other.proposalPayload(), fullRecord().proposalPayload());

    // ...but every proposed field is.
    other = fullRecord();
    other.amount = 4500;
    QVERIFY(other.proposalPayload() != fullRecord().proposalPayload());
    other = fullRecord();
    other.reason = QStringLiteral("duplicate");
    QVERIFY(other.proposalPayload() != fullRecord().proposalPayload());
    other = fullRecord();
    other.businessReference = QStringLiteral("order 1043");
    QVERIFY(other.proposalPayload() != fullRecord().proposalPayload());
    other = fullRecord();
    other.targetType = TargetType::PaymentIntent;
    QVERIFY(other.proposalPayload() != fullRecord().proposalPayload());
    other = fullRecord();
    other.currency = QStringLiteral("eur");
    QVERIFY(other.proposalPayload() != fullRecord().proposalPayload());
}

// ---- audit hash chain ------------------------------------------------------------------------

// Computed outside Qt with Python:
//   prev = "0" * 64
//   data = prev + "\n" + json.dumps(event_without_hash_with_prev_hash_prev, sort_keys=True,
//                                   separators=(",", ":"), ensure_ascii=False)
//   hashlib.sha256(data.encode()).hexdigest()
// where the event is knownEvent() as JSON.
void TestWire::chainHashKnownAnswer()
{
    const AuditEvent e = knownEvent();
    QCOMPARE(e.chainHash(ZeroHash),
             QStringLiteral("c9984a182d68d506f774097ff4a9d9ba4c3495b2957b17e715fe4cfd9bc99197"));
}

void TestWire::chainHashSensitivity_data()
{
    QTest::addColumn<AuditEvent>("event");
    QTest::addColumn<QString>("prevHash");
    QTest::addColumn<bool>("sameHash");

    const AuditEvent base = knownEvent();
    const auto row = [&](const char *name, AuditEvent changed, bool same = false, const QString &prev = ZeroHash) {
        QTest::newRow(name) << changed << prev << same;
    };
    AuditEvent e = base;
    e.seq = 43;
    row("seq", e);
    e = base;
    e.actionId = QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ac");
    row("action id", e);
    e = base;
    e.actionId.clear();
    row("action id emptied", e);
    e = base;
    e.at = e.at.addMSecs(1);
    row("at + 1 ms", e);
    e = base;
    e.at = QDateTime();
    row("at null", e);
    e = base;
    e.actor = QStringLiteral("mallory");
    row("actor", e);
    e = base;
    e.event = QStringLiteral("reconciled");
    row("event", e);
    e = base;
    e.reason += QLatin1Char(' ');
    row("reason + trailing space", e);
    e = base;
    e.before.insert(QStringLiteral("state_version"), 6);
    row("before value", e);
    e = base;
    e.before.insert(QStringLiteral("note"), QString());
    row("before key added", e);
    e = base;
    e.after = QJsonObject();
    row("after emptied", e);
    {
        e = base;
        QJsonObject evidence = e.after.value(QStringLiteral("evidence")).toObject();
        evidence.insert(QStringLiteral("amount"), 4001);
        e.after.insert(QStringLiteral("evidence"), evidence);
        row("nested value inside after", e);
    }
    e = base;
    e.after.insert(QStringLiteral("state_version"), QStringLiteral("8"));
    row("number -> string", e);
    {
        // Same content moved between before and after is a different event.
        e = base;
        std::swap(e.before, e.after);
        row("before and after swapped", e);
    }
    row("prevHash argument changed", base, false, QString(63, QLatin1Char('0')) + QLatin1Char('1'));
    row("prevHash argument empty", base, false, QString());

    e = base;
    e.hash = QStringLiteral("anything");
    row("hash member is not hashed", e, true);
    e = base;
    e.prevHash = QString(64, QLatin1Char('f'));
    row("the argument, not the prevHash member, is hashed", e, true);
    {
        // Keys inserted in another order: nested objects are canonical too.
        e = base;
        QJsonObject after;
        after.insert(QStringLiteral("evidence"),
                     QJsonObject{ { QStringLiteral("amount"), 4000 }, { QStringLiteral("seq"), 3 },
                                  { QStringLiteral("object"), QStringLiteral("re_1") } });
        after.insert(QStringLiteral("state_version"), 8);
        after.insert(QStringLiteral("state"), QStringLiteral("COMPLETED"));
        e.after = after;
        row("insertion order does not matter", e, true);
    }
    {
        e = base;
        e.at = base.at.toOffsetFromUtc(3600);
        row("same instant in another zone", e, true);
    }
}

void TestWire::chainHashSensitivity()
{
    QFETCH(AuditEvent, event);
    QFETCH(QString, prevHash);
    QFETCH(bool, sameHash);

    const QString baseHash = knownEvent().chainHash(ZeroHash);
    const QString hash = event.chainHash(prevHash);
    QCOMPARE(hash.size(), 64);
    QCOMPARE(hash, hash.toLower());
    QCOMPARE(hash == baseHash, sameHash);
}

// The verify command's job in miniature: recompute each row's hash from the previous row's.
void TestWire::chainDetectsAnEdit()
{
    QList<AuditEvent> chain;
    QString prev = ZeroHash;
    for (int i = 1; i <= 4; ++i) {
        AuditEvent e;
        e.seq = i;
        e.actionId = QStringLiteral("act_1");
        e.at = utc("2026-11-29T22:00:00.000Z").addMSecs(i);
        e.actor = QStringLiteral("executor");
        e.event = QStringLiteral("state_changed");
        e.after = QJsonObject{ { QStringLiteral("state_version"), i } };
        e.prevHash = prev;
        e.hash = e.chainHash(prev);
        prev = e.hash;
        chain.append(e);
    }
    const auto firstBrokenRow = [](const QList<AuditEvent> &rows) {
        QString expectedPrev = ZeroHash;
        for (const AuditEvent &e : rows) {
            if (e.prevHash != expectedPrev || e.chainHash(e.prevHash) != e.hash)
                return e.seq;
            expectedPrev = e.hash;
        }
        return qint64(0);
    };
    QCOMPARE(firstBrokenRow(chain), qint64(0));

    QList<AuditEvent> edited = chain;
    edited[1].reason = QStringLiteral("quietly edited");
    QCOMPARE(firstBrokenRow(edited), qint64(2));

    // Re-hashing the edited row does not help: the next row no longer links to it.
    edited[1].hash = edited[1].chainHash(edited[1].prevHash);
    QCOMPARE(firstBrokenRow(edited), qint64(3));

    // And the chain survives the wire.
    QList<AuditEvent> transported;
    for (const AuditEvent &e : chain)
        transported.append(*AuditEvent::fromJson(QJsonDocument::fromJson(compact(e.toJson())).object()));
    QCOMPARE(firstBrokenRow(transported), qint64(0));
}

// counts.queued (PENDING approved, waiting for the executor) travels beside the six states; a
// server that does not send it reads as 0.
void TestWire::stateCountsQueued()
{
    StateCounts counts;
    counts.setCount(ActionState::Pending, 5);
    counts.setQueued(2);
    QCOMPARE(counts.toJson().value(QLatin1String("queued")).toInteger(), 2);
    checkRoundTrip(counts);
    QJsonObject older = counts.toJson();
    older.remove(QLatin1String("queued"));
    const std::optional<StateCounts> read = StateCounts::fromJson(older);
    QVERIFY(read);
    QCOMPARE(read->queued(), 0);
    QCOMPARE(read->count(ActionState::Pending), 5);
    older.insert(QLatin1String("queued"), -1);
    QVERIFY(!StateCounts::fromJson(older));
}

QTEST_GUILESS_MAIN(TestWire)
#include "tst_models_wire.moc"
