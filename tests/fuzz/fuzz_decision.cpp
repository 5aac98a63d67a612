// libFuzzer target: the bodies of the decision endpoints (approve, reject, lookup, reconcile,
// follow-up), through RequestPreconditions and DecisionParser. The first byte chooses the
// endpoint; the rest is the body. Properties: accepted ⇔ no field errors; every error names its
// field; an accepted request meets the contract (resources/openapi.yaml); parsing is
// deterministic; accepted text survives UTF-8 (see fuzzcheck.h).

#include "server/api/decisionparser.h"
#include "tests/fuzz/apibody.h"
#include "tests/fuzz/fuzzcheck.h"

#include "models/approval.h"
#include "models/money.h"

using namespace cs;

namespace {

void checkText(const QString &text, qsizetype maxLength, bool required)
{
    FUZZ_CHECK(text.size() <= maxLength);
    if (required)
        FUZZ_CHECK(!text.trimmed().isEmpty());
    if (fuzz::requireValidUnicode())
        FUZZ_CHECK(fuzz::survivesUtf8(text));
}

// Runs one parser twice and checks what every parser promises; the accepted value, if any.
template <typename Parse>
auto parseChecked(Parse parse, const QJsonObject &body)
{
    QList<FieldError> errors;
    const auto value = parse(body, &errors);
    FUZZ_CHECK(bool(value) == errors.isEmpty());
    fuzz::checkFieldErrors(body, errors);
    QList<FieldError> again;
    const auto second = parse(body, &again);
    FUZZ_CHECK(bool(second) == bool(value) && again.size() == errors.size());
    return value;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const int endpoint = data[0] % 5;
    const std::optional<QJsonObject> body = fuzz::apiJsonBody(fuzz::bytes(data + 1, size - 1));
    if (!body)
        return 0;
    switch (endpoint) {
    case 0:
        if (const auto a = parseChecked(&DecisionParser::approval, *body))
            checkText(a->note, 2000, false);
        break;
    case 1:
        if (const auto r = parseChecked(&DecisionParser::rejection, *body)) {
            // The reason is one of the list; the note free text, not blank for "other".
            FUZZ_CHECK(Approval::rejectionReasons().contains(r->reason));
            checkText(r->note, 2000, r->reason == u"other");
        }
        break;
    case 2: {
        const bool ok = parseChecked(
            [](const QJsonObject &json, QList<FieldError> *errors) { return DecisionParser::lookup(json, errors); },
            *body);
        FUZZ_CHECK(ok == body->isEmpty());
        break;
    }
    case 3:
        if (const auto r = parseChecked(&DecisionParser::reconciliation, *body)) {
            const QString outcome = body->value(QStringLiteral("outcome")).toString();
            FUZZ_CHECK((outcome == QLatin1String("committed")) == (r->outcome == Reconciliation::Outcome::Committed));
            FUZZ_CHECK(outcome == QLatin1String("committed") || outcome == QLatin1String("not_committed"));
            FUZZ_CHECK(!r->evidenceLookupSeq || *r->evidenceLookupSeq >= 1);
            checkText(r->note, 2000, true);
        }
        break;
    case 4:
        if (const auto f = parseChecked(&DecisionParser::followUp, *body)) {
            FUZZ_CHECK(f->desiredTotalAmount >= 1 && f->desiredTotalAmount <= Money::MaxMinorUnits);
            checkText(f->note, 2000, true);
            FUZZ_CHECK(f->clientReference.size() <= 255);
            if (body->contains(QStringLiteral("client_reference")))
                checkText(f->clientReference, 255, true);
        }
        break;
    }
    return 0;
}
