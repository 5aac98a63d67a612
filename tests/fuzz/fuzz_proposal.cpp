// libFuzzer target: POST /api/v1/actions bodies, through RequestPreconditions (415/400) and
// ProposalParser. Properties: accepted ⇔ no field errors; every error names its field; an accepted
// proposal meets the contract (resources/openapi.yaml, Proposal); parsing is deterministic; and
// what is accepted is readable again: the action it becomes survives the wire (toJson → bytes →
// fromJson) with the same provider request and fingerprint.

#include "server/api/proposalparser.h"
#include "tests/fuzz/apibody.h"
#include "tests/fuzz/fuzzcheck.h"

#include "models/actionrecord.h"
#include "models/fingerprint.h"
#include "models/money.h"

#include <QDateTime>
#include <QRegularExpression>

using namespace cs;

namespace {

bool sameInput(const ProposalStore::ProposalInput &a, const ProposalStore::ProposalInput &b)
{
    return a.kind == b.kind && a.targetType == b.targetType && a.targetId == b.targetId
        && a.businessReference == b.businessReference && a.amount == b.amount && a.currency == b.currency
        && a.reason == b.reason && a.clientReference == b.clientReference;
}

void checkContract(const ProposalStore::ProposalInput &in)
{
    static const QRegularExpression charge(QStringLiteral("\\Ach_[A-Za-z0-9_]{1,250}\\z"));
    static const QRegularExpression intent(QStringLiteral("\\Api_[A-Za-z0-9_]{1,250}\\z"));
    FUZZ_CHECK(in.kind == QLatin1String("refund"));
    FUZZ_CHECK((in.targetType == TargetType::Charge ? charge : intent).match(in.targetId).hasMatch());
    FUZZ_CHECK(in.amount >= 1 && in.amount <= Money::MaxMinorUnits);
    FUZZ_CHECK(in.currency.size() == 3 && in.currency == in.currency.toLower() && Money::isKnownCurrency(in.currency));
    FUZZ_CHECK(ProposalParser::refundReasons().contains(in.reason));
    FUZZ_CHECK(!in.clientReference.trimmed().isEmpty() && in.clientReference.size() <= 255);
    FUZZ_CHECK(in.businessReference.size() <= 255);
}

void checkReadableAgain(const ProposalStore::ProposalInput &in)
{
    const bool validText = fuzz::survivesUtf8(in.clientReference) && fuzz::survivesUtf8(in.businessReference);
    if (fuzz::requireValidUnicode())
        FUZZ_CHECK(validText);
    if (!validText)
        return; // the known finding; see fuzzcheck.h

    ActionRecord record;
    record.id = QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa");
    record.kind = in.kind;
    record.targetType = in.targetType;
    record.targetId = in.targetId;
    record.businessReference = in.businessReference;
    record.amount = in.amount;
    record.currency = in.currency;
    record.reason = in.reason;
    record.provider = QStringLiteral("paysim");
    record.requestedBy = QStringLiteral("agent");
    record.clientReference = in.clientReference;
    record.requestFingerprint = requestFingerprint(record.providerRequest());
    record.createdAt = QDateTime::fromMSecsSinceEpoch(1'790'000'000'000, Qt::UTC);
    record.updatedAt = record.createdAt;

    const QJsonDocument wire = QJsonDocument::fromJson(fuzz::compact(record.toJson()));
    FUZZ_CHECK(wire.isObject());
    QString error;
    const std::optional<ActionRecord> back = ActionRecord::fromJson(wire.object(), &error);
    FUZZ_CHECK(back.has_value());
    FUZZ_CHECK(*back == record);
    FUZZ_CHECK(back->proposalPayload() == record.proposalPayload());
    FUZZ_CHECK(requestFingerprint(back->providerRequest()) == record.requestFingerprint);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::optional<QJsonObject> body = fuzz::apiJsonBody(fuzz::bytes(data, size));
    if (!body)
        return 0;
    QList<FieldError> errors;
    const auto input = ProposalParser::parse(*body, &errors);
    FUZZ_CHECK(input.has_value() == errors.isEmpty());
    fuzz::checkFieldErrors(*body, errors);

    QList<FieldError> again;
    const auto second = ProposalParser::parse(*body, &again);
    FUZZ_CHECK(second.has_value() == input.has_value() && again.size() == errors.size());
    if (!input)
        return 0;
    FUZZ_CHECK(sameInput(*input, *second));
    checkContract(*input);
    checkReadableAgain(*input);
    return 0;
}
