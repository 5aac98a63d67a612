// libFuzzer target: the JSON wire format of the models the console reads (models/*: fromJson,
// toJson). The first byte chooses the type; the rest is the JSON text. Property: any accepted
// input round-trips: fromJson(x) = a ⇒ fromJson(toJson(a)) = a and toJson of that is the same
// object, also through the bytes a server writes; a refusal says why; the output is bounded by
// the input. ActionDetail has no writer: each of its parts must round-trip as its own type. An
// ActionSummary round-trips from the row it writes (asTheRowSaysIt).

#include "tests/fuzz/fuzzcheck.h"

#include "models/actionchange.h"
#include "models/actiondetail.h"
#include "models/actionpage.h"
#include "models/actionrecord.h"
#include "models/actionsummary.h"
#include "models/approval.h"
#include "models/attempt.h"
#include "models/auditevent.h"
#include "models/providerlookup.h"
#include "models/reconciliation.h"

#include <QJsonArray>

#include <type_traits>

using namespace cs;

namespace {

qsizetype g_inputSize = 0;

bool textSurvives(const QJsonValue &value)
{
    if (value.isString())
        return fuzz::survivesUtf8(value.toString());
    if (value.isArray()) {
        for (const QJsonValue &item : value.toArray()) {
            if (!textSurvives(item))
                return false;
        }
    }
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (!fuzz::survivesUtf8(it.key()) || !textSurvives(it.value()))
                return false;
        }
    }
    return true;
}

template <typename T>
bool same(const T &a, const T &b)
{
    if constexpr (std::is_same_v<T, ActionPage>)
        return a.toJson() == b.toJson(); // no operator== (a page is compared by what it says)
    else
        return a == b;
}

template <typename T>
void roundTrip(const T &value)
{
    const QJsonObject out = value.toJson();
    QString error;
    const std::optional<T> back = T::fromJson(out, &error);
    FUZZ_CHECK(back.has_value()); // accepted, then unreadable: the writer broke its own contract
    FUZZ_CHECK(same(*back, value));
    FUZZ_CHECK(back->toJson() == out);

    const QByteArray text = fuzz::compact(out);
    FUZZ_CHECK(text.size() <= 4 * g_inputSize + 8192);
    if (!textSurvives(out))
        return; // a lone surrogate cannot survive the bytes (fuzzcheck.h)
    const QJsonDocument wire = QJsonDocument::fromJson(text);
    FUZZ_CHECK(wire.isObject());
    const std::optional<T> fromWire = T::fromJson(wire.object(), &error);
    FUZZ_CHECK(fromWire.has_value());
    FUZZ_CHECK(same(*fromWire, value));
}

// ActionSummary::fromJson also keeps members a list row does not carry (provider, kind,
// client_reference, ...: it reads a whole ActionRecord), and its writer drops them, by design: a
// summary read from a row is compared by the row it writes, and from then on must round-trip.
ActionSummary asTheRowSaysIt(const ActionSummary &summary)
{
    QString error;
    const std::optional<ActionSummary> row = ActionSummary::fromJson(summary.toJson(), &error);
    FUZZ_CHECK(row.has_value());
    FUZZ_CHECK(row->toJson() == summary.toJson());
    return *row;
}

template <typename T>
void roundTripRead(const T &value)
{
    if constexpr (std::is_same_v<T, ActionSummary>)
        roundTrip(asTheRowSaysIt(value));
    else
        roundTrip(value);
}

template <typename T>
void readAndRoundTrip(const QJsonObject &json)
{
    QString error;
    const std::optional<T> value = T::fromJson(json, &error);
    if (!value) {
        FUZZ_CHECK(!error.isEmpty());
        return;
    }
    roundTripRead(*value);
}

template <typename T>
void roundTripAll(const QList<T> &items)
{
    for (const T &item : items)
        roundTripRead(item);
}

void readDetail(const QJsonObject &json)
{
    QString error;
    const std::optional<ActionDetail> detail = ActionDetail::fromJson(json, &error);
    if (!detail) {
        FUZZ_CHECK(!error.isEmpty());
        return;
    }
    roundTrip(detail->record);
    roundTripAll(detail->attempts);
    roundTripAll(detail->lookups);
    roundTripAll(detail->approvals);
    roundTripAll(detail->reconciliations);
    roundTripAll(detail->audit);
    roundTripAll(detail->followUps);
    if (detail->parent)
        roundTripRead(*detail->parent);
    FUZZ_CHECK(ActionDetail::describeChanges(*detail, *detail).isEmpty());
    (void)detail->committedAmount();
    (void)detail->summary();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    g_inputSize = qsizetype(size);
    const QJsonDocument document = QJsonDocument::fromJson(fuzz::bytes(data + 1, size - 1));
    if (!document.isObject())
        return 0;
    const QJsonObject json = document.object();
    switch (data[0] % 11) {
    case 0: readAndRoundTrip<ActionRecord>(json); break;
    case 1: readAndRoundTrip<ActionSummary>(json); break;
    case 2: readAndRoundTrip<StateCounts>(json); break;
    case 3: readAndRoundTrip<ActionPage>(json); break;
    case 4: readAndRoundTrip<ActionChange>(json); break;
    case 5: readAndRoundTrip<Approval>(json); break;
    case 6: readAndRoundTrip<Attempt>(json); break;
    case 7: readAndRoundTrip<AuditEvent>(json); break;
    case 8: readAndRoundTrip<ProviderLookup>(json); break;
    case 9: readAndRoundTrip<Reconciliation>(json); break;
    case 10: readDetail(json); break;
    }
    return 0;
}
