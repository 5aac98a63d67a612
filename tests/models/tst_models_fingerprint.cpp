#include "models/actionrecord.h"
#include "models/fingerprint.h"

#include <QTest>

#include <algorithm>

using cs::ProviderRequest;

Q_DECLARE_METATYPE(cs::ActionRecord)

Q_DECLARE_METATYPE(cs::ProviderRequest)

namespace {

using Fields = QList<QPair<QString, QString>>;

ProviderRequest request(Fields fields, const QString &method = QStringLiteral("POST"),
                        const QString &path = QStringLiteral("/v1/refunds"))
{
    ProviderRequest r;
    r.method = method;
    r.path = path;
    r.fields = std::move(fields);
    return r;
}

// The refund of the known-answer test, fields in the order ActionRecord::providerRequest() uses.
Fields refundFields()
{
    return {
        { QStringLiteral("charge"), QStringLiteral("ch_3NqX1a2eZvKYlo2C0p8M4b7t") },
        { QStringLiteral("amount"), QStringLiteral("4000") },
        { QStringLiteral("reason"), QStringLiteral("requested_by_customer") },
        { QStringLiteral("metadata[countersign_action_id]"), QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ab") },
        { QStringLiteral("metadata[countersign_currency]"), QStringLiteral("usd") },
        { QStringLiteral("metadata[business_reference]"), QStringLiteral("order 1042") },
    };
}

// KnownFingerprint was computed outside Qt, from the text below (printf's "%%" is one "%"):
//   printf 'POST\n/v1/refunds\namount=4000\ncharge=ch_3NqX1a2eZvKYlo2C0p8M4b7t\nmetadata%%5Bbusi
//   ness_reference%%5D=order%%201042\nmetadata%%5Bcountersign_action_id%%5D=act_k3v9q2m7x4p8r1t6w5y0
//   z2ab\nmetadata%%5Bcountersign_currency%%5D=usd\nreason=requested_by_customer\n' | sha256sum
// (one command line, broken here for width).
const char KnownCanonical[] = "POST\n"
                              "/v1/refunds\n"
                              "amount=4000\n"
                              "charge=ch_3NqX1a2eZvKYlo2C0p8M4b7t\n"
                              "metadata%5Bbusiness_reference%5D=order%201042\n"
                              "metadata%5Bcountersign_action_id%5D=act_k3v9q2m7x4p8r1t6w5y0z2ab\n"
                              "metadata%5Bcountersign_currency%5D=usd\n"
                              "reason=requested_by_customer\n";
const char KnownFingerprint[] = "b54f07323486ba183e80b48069b603ef113eaf3b81f47d61422b6353b9cd294f";

Fields replaced(Fields fields, const QString &name, const QString &value)
{
    for (auto &field : fields) {
        if (field.first == name)
            field.second = value;
    }
    return fields;
}

Fields renamed(Fields fields, const QString &from, const QString &to)
{
    for (auto &field : fields) {
        if (field.first == from)
            field.first = to;
    }
    return fields;
}

Fields added(Fields fields, const QString &name, const QString &value)
{
    fields.append({ name, value });
    return fields;
}

Fields removed(Fields fields, const QString &name)
{
    fields.removeIf([&](const QPair<QString, QString> &field) { return field.first == name; });
    return fields;
}

cs::ActionRecord knownRecord()
{
    cs::ActionRecord record;
    record.id = QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ab");
    record.targetType = cs::TargetType::Charge;
    record.targetId = QStringLiteral("ch_3NqX1a2eZvKYlo2C0p8M4b7t");
    record.businessReference = QStringLiteral("order 1042");
    record.amount = 4000;
    record.currency = QStringLiteral("usd");
    record.reason = QStringLiteral("requested_by_customer");
    record.provider = QStringLiteral("paysim");
    record.requestedBy = QStringLiteral("agent-7");
    record.clientReference = QStringLiteral("refund-order-1042");
    return record;
}

bool isLowerHex64(const QString &text)
{
    return text.size() == 64
        && std::all_of(text.begin(), text.end(), [](QChar c) {
               return (c >= QLatin1Char('0') && c <= QLatin1Char('9'))
                   || (c >= QLatin1Char('a') && c <= QLatin1Char('f'));
           });
}

} // namespace

class TestFingerprint : public QObject
{
    Q_OBJECT

private slots:
    void knownAnswer();
    void stableUnderEveryFieldOrder();
    void duplicateNamesSortedByValue();
    void sensitivity_data();
    void sensitivity();
    void unambiguousEncoding_data();
    void unambiguousEncoding();
    void formBody_data();
    void formBody();
    void field();
    void recordProviderRequest_data();
    void recordProviderRequest();
    void recordFingerprintMatchesKnownAnswer();
    void recordFingerprintIgnoresWhatIsNotSent();
};

void TestFingerprint::knownAnswer()
{
    const ProviderRequest r = request(refundFields());
    QCOMPARE(cs::canonicalRequest(r), QByteArray(KnownCanonical));
    QCOMPARE(cs::requestFingerprint(r), QString::fromLatin1(KnownFingerprint));
    QVERIFY(isLowerHex64(cs::requestFingerprint(r)));
}

void TestFingerprint::stableUnderEveryFieldOrder()
{
    Fields fields = refundFields();
    // Walk every permutation (720) through indices, so that the fields themselves need no order.
    QList<int> order{ 0, 1, 2, 3, 4, 5 };
    int permutations = 0;
    do {
        Fields shuffled;
        for (int i : order)
            shuffled.append(fields.at(i));
        const ProviderRequest r = request(shuffled);
        QCOMPARE(cs::canonicalRequest(r), QByteArray(KnownCanonical));
        QCOMPARE(cs::requestFingerprint(r), QString::fromLatin1(KnownFingerprint));
        ++permutations;
    } while (std::next_permutation(order.begin(), order.end()));
    QCOMPARE(permutations, 720);
}

void TestFingerprint::duplicateNamesSortedByValue()
{
    const auto a = request({ { QStringLiteral("expand[]"), QStringLiteral("charge") },
                             { QStringLiteral("expand[]"), QStringLiteral("balance") } });
    const auto b = request({ { QStringLiteral("expand[]"), QStringLiteral("balance") },
                             { QStringLiteral("expand[]"), QStringLiteral("charge") } });
    QCOMPARE(cs::requestFingerprint(a), cs::requestFingerprint(b));
    QCOMPARE(cs::canonicalRequest(a),
             QByteArray("POST\n/v1/refunds\nexpand%5B%5D=balance\nexpand%5B%5D=charge\n"));
    // A repeated field is not the same request as a single one.
    const auto single = request({ { QStringLiteral("expand[]"), QStringLiteral("charge") } });
    QVERIFY(cs::requestFingerprint(a) != cs::requestFingerprint(single));
}

void TestFingerprint::sensitivity_data()
{
    QTest::addColumn<ProviderRequest>("changed");
    const Fields base = refundFields();
    const QString meta = QStringLiteral("metadata[countersign_currency]");

    QTest::newRow("amount 4000 -> 4500") << request(replaced(base, QStringLiteral("amount"), QStringLiteral("4500")));
    QTest::newRow("amount 4000 -> 04000 (text, not number)") << request(replaced(base, QStringLiteral("amount"), QStringLiteral("04000")));
    QTest::newRow("currency metadata usd -> eur") << request(replaced(base, meta, QStringLiteral("eur")));
    QTest::newRow("currency metadata usd -> USD") << request(replaced(base, meta, QStringLiteral("USD")));
    QTest::newRow("charge id changed") << request(replaced(base, QStringLiteral("charge"), QStringLiteral("ch_3NqX1a2eZvKYlo2C0p8M4b7u")));
    QTest::newRow("charge -> payment_intent") << request(renamed(base, QStringLiteral("charge"), QStringLiteral("payment_intent")));
    QTest::newRow("reason changed") << request(replaced(base, QStringLiteral("reason"), QStringLiteral("duplicate")));
    QTest::newRow("reason removed") << request(removed(base, QStringLiteral("reason")));
    QTest::newRow("reason emptied") << request(replaced(base, QStringLiteral("reason"), QString()));
    QTest::newRow("metadata value changed") << request(replaced(base, QStringLiteral("metadata[business_reference]"), QStringLiteral("order 1043")));
    QTest::newRow("metadata value trailing space") << request(replaced(base, QStringLiteral("metadata[business_reference]"), QStringLiteral("order 1042 ")));
    QTest::newRow("metadata added") << request(added(base, QStringLiteral("metadata[note]"), QStringLiteral("x")));
    QTest::newRow("metadata added with empty value") << request(added(base, QStringLiteral("metadata[note]"), QString()));
    QTest::newRow("metadata key renamed") << request(renamed(base, QStringLiteral("metadata[business_reference]"), QStringLiteral("metadata[order_id]")));
    QTest::newRow("action id changed") << request(replaced(base, QStringLiteral("metadata[countersign_action_id]"), QStringLiteral("act_k3v9q2m7x4p8r1t6w5y0z2ac")));
    QTest::newRow("field duplicated") << request(added(base, QStringLiteral("amount"), QStringLiteral("4000")));
    QTest::newRow("method POST -> GET") << request(base, QStringLiteral("GET"));
    QTest::newRow("method POST -> post") << request(base, QStringLiteral("post"));
    QTest::newRow("path /v1/refunds -> /v1/refunds/") << request(base, QStringLiteral("POST"), QStringLiteral("/v1/refunds/"));
    QTest::newRow("path -> /v1/charges") << request(base, QStringLiteral("POST"), QStringLiteral("/v1/charges"));
}

void TestFingerprint::sensitivity()
{
    QFETCH(ProviderRequest, changed);
    const ProviderRequest original = request(refundFields());
    QVERIFY(!(changed == original));
    QVERIFY(cs::canonicalRequest(changed) != cs::canonicalRequest(original));
    const QString fingerprint = cs::requestFingerprint(changed);
    QVERIFY(isLowerHex64(fingerprint));
    QVERIFY2(fingerprint != QString::fromLatin1(KnownFingerprint), cs::canonicalRequest(changed).constData());
}

void TestFingerprint::unambiguousEncoding_data()
{
    QTest::addColumn<ProviderRequest>("left");
    QTest::addColumn<ProviderRequest>("right");

    const auto f = [](const char *name, const QString &value) {
        return QPair<QString, QString>(QString::fromLatin1(name), value);
    };
    QTest::newRow("a='b&c' vs a='b' + c=''")
        << request({ f("a", QStringLiteral("b&c")) })
        << request({ f("a", QStringLiteral("b")), f("c", QString()) });
    QTest::newRow("a='b&c=d' vs a='b' + c='d'")
        << request({ f("a", QStringLiteral("b&c=d")) })
        << request({ f("a", QStringLiteral("b")), f("c", QStringLiteral("d")) });
    QTest::newRow("name 'a=b' value 'c' vs name 'a' value 'b=c'")
        << request({ f("a=b", QStringLiteral("c")) })
        << request({ f("a", QStringLiteral("b=c")) });
    QTest::newRow("newline in value vs two fields")
        << request({ f("a", QStringLiteral("b\nc=d")) })
        << request({ f("a", QStringLiteral("b")), f("c", QStringLiteral("d")) });
    QTest::newRow("space vs plus")
        << request({ f("a", QStringLiteral("b c")) })
        << request({ f("a", QStringLiteral("b+c")) });
    QTest::newRow("literal %20 vs space")
        << request({ f("a", QStringLiteral("b%20c")) })
        << request({ f("a", QStringLiteral("b c")) });
    QTest::newRow("e-acute composed vs decomposed")
        << request({ f("a", QStringLiteral("caf\u00e9")) })
        << request({ f("a", QStringLiteral("cafe\u0301")) });
    QTest::newRow("unicode vs its percent-encoding as text")
        << request({ f("a", QStringLiteral("\u20ac")) })
        << request({ f("a", QStringLiteral("%E2%82%AC")) });
    QTest::newRow("empty value vs absent field")
        << request({ f("a", QStringLiteral("1")), f("b", QString()) })
        << request({ f("a", QStringLiteral("1")) });
    QTest::newRow("bracketed vs plain name")
        << request({ f("metadata[a]", QStringLiteral("1")) })
        << request({ f("metadataa", QStringLiteral("1")) });
}

void TestFingerprint::unambiguousEncoding()
{
    QFETCH(ProviderRequest, left);
    QFETCH(ProviderRequest, right);
    QVERIFY(cs::canonicalRequest(left) != cs::canonicalRequest(right));
    QVERIFY(cs::requestFingerprint(left) != cs::requestFingerprint(right));
    QVERIFY(left.formBody() != right.formBody());
}

void TestFingerprint::formBody_data()
{
    QTest::addColumn<ProviderRequest>("r");
    QTest::addColumn<QByteArray>("body");

    const auto f = [](const QString &name, const QString &value) { return QPair<QString, QString>(name, value); };
    QTest::newRow("no fields") << request({}) << QByteArray();
    QTest::newRow("one field") << request({ f(QStringLiteral("amount"), QStringLiteral("4000")) })
                               << QByteArray("amount=4000");
    QTest::newRow("order kept as given")
        << request({ f(QStringLiteral("b"), QStringLiteral("2")), f(QStringLiteral("a"), QStringLiteral("1")) })
        << QByteArray("b=2&a=1");
    QTest::newRow("brackets encoded")
        << request({ f(QStringLiteral("metadata[order_id]"), QStringLiteral("o_1")) })
        << QByteArray("metadata%5Border_id%5D=o_1");
    QTest::newRow("separators and plus encoded")
        << request({ f(QStringLiteral("a"), QStringLiteral("x&y=z+w")) })
        << QByteArray("a=x%26y%3Dz%2Bw");
    QTest::newRow("space as %20") << request({ f(QStringLiteral("a"), QStringLiteral("order 1042")) })
                                  << QByteArray("a=order%201042");
    QTest::newRow("unreserved kept")
        << request({ f(QStringLiteral("a"), QStringLiteral("AZaz09-._~")) })
        << QByteArray("a=AZaz09-._~");
    QTest::newRow("reserved encoded")
        << request({ f(QStringLiteral("a"), QStringLiteral("/?#:@!$'()*,;%")) })
        << QByteArray("a=%2F%3F%23%3A%40%21%24%27%28%29%2A%2C%3B%25");
    QTest::newRow("unicode as UTF-8")
        << request({ f(QStringLiteral("a"), QStringLiteral("caf\u00e9 \u20ac")) })
        << QByteArray("a=caf%C3%A9%20%E2%82%AC");
    QTest::newRow("empty value") << request({ f(QStringLiteral("a"), QString()), f(QStringLiteral("b"), QStringLiteral("1")) })
                                 << QByteArray("a=&b=1");
}

void TestFingerprint::formBody()
{
    QFETCH(ProviderRequest, r);
    QFETCH(QByteArray, body);
    QCOMPARE(r.formBody(), body);
}

void TestFingerprint::field()
{
    const ProviderRequest r = request({ { QStringLiteral("amount"), QStringLiteral("4000") },
                                        { QStringLiteral("a"), QStringLiteral("first") },
                                        { QStringLiteral("a"), QStringLiteral("second") } });
    QCOMPARE(r.field(QStringLiteral("amount")), QStringLiteral("4000"));
    QCOMPARE(r.field(QStringLiteral("a")), QStringLiteral("first"));
    QVERIFY(r.field(QStringLiteral("missing")).isEmpty());
    QVERIFY(r.field(QStringLiteral("Amount")).isEmpty()); // names are case-sensitive
}

void TestFingerprint::recordProviderRequest_data()
{
    QTest::addColumn<cs::ActionRecord>("record");
    QTest::addColumn<ProviderRequest>("expected");

    const cs::ActionRecord base = knownRecord();
    QTest::newRow("charge, reason and business reference") << base << request(refundFields());

    cs::ActionRecord intent = base;
    intent.targetType = cs::TargetType::PaymentIntent;
    intent.targetId = QStringLiteral("pi_3NqX1a2eZvKYlo2C1abcdef");
    QTest::newRow("payment intent")
        << intent
        << request(replaced(renamed(refundFields(), QStringLiteral("charge"), QStringLiteral("payment_intent")),
                            QStringLiteral("payment_intent"), QStringLiteral("pi_3NqX1a2eZvKYlo2C1abcdef")));

    cs::ActionRecord bare = base;
    bare.reason.clear();
    bare.businessReference.clear();
    QTest::newRow("no reason, no business reference: fields omitted")
        << bare
        << request(removed(removed(refundFields(), QStringLiteral("reason")), QStringLiteral("metadata[business_reference]")));

    cs::ActionRecord big = base;
    big.amount = cs::Money::MaxMinorUnits;
    big.currency = QStringLiteral("jpy");
    QTest::newRow("amount is a plain integer, currency as stored")
        << big
        << request(replaced(replaced(refundFields(), QStringLiteral("amount"), QStringLiteral("1000000000000")),
                            QStringLiteral("metadata[countersign_currency]"), QStringLiteral("jpy")));
}

void TestFingerprint::recordProviderRequest()
{
    QFETCH(cs::ActionRecord, record);
    QFETCH(ProviderRequest, expected);
    const ProviderRequest actual = record.providerRequest();
    QCOMPARE(actual.method, QStringLiteral("POST"));
    QCOMPARE(actual.path, QStringLiteral("/v1/refunds"));
    QCOMPARE(actual.fields, expected.fields); // same fields in the documented order
    QCOMPARE(cs::requestFingerprint(actual), cs::requestFingerprint(expected));
}

void TestFingerprint::recordFingerprintMatchesKnownAnswer()
{
    QCOMPARE(cs::requestFingerprint(knownRecord().providerRequest()), QString::fromLatin1(KnownFingerprint));
}

// Only what is sent counts: state, keys and bookkeeping must not move the fingerprint, or an
// approval would stop matching its action as soon as the action changed state.
void TestFingerprint::recordFingerprintIgnoresWhatIsNotSent()
{
    cs::ActionRecord record = knownRecord();
    record.state = cs::ActionState::Executing;
    record.stateVersion = 9;
    record.idempotencyKey = QStringLiteral("key_1");
    record.approvalVersion = 2;
    record.requestFingerprint = QStringLiteral("stale");
    record.reviewReason = QStringLiteral("x");
    record.requestedBy = QStringLiteral("someone-else");
    record.provider = QStringLiteral("stripe");
    record.createdAt = QDateTime::currentDateTimeUtc();
    QCOMPARE(cs::requestFingerprint(record.providerRequest()), QString::fromLatin1(KnownFingerprint));

    record.amount = 4500;
    QVERIFY(cs::requestFingerprint(record.providerRequest()) != QString::fromLatin1(KnownFingerprint));
}

QTEST_GUILESS_MAIN(TestFingerprint)
#include "tst_models_fingerprint.moc"
