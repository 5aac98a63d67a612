#include "server/api/decisionparser.h"

#include "server/api/bodyreader.h"

#include "models/approval.h"
#include "models/money.h"

#include <limits>

namespace cs {

namespace {

BodyReader::StringRule noteRule(bool required)
{
    BodyReader::StringRule rule;
    rule.text = BodyReader::Text::MultiLine;
    rule.required = required;
    rule.minLength = required ? 1 : 0;
    rule.maxLength = 2000;
    rule.nonBlank = required;
    return rule;
}

} // namespace

std::optional<DecisionParser::ApprovalRequest> DecisionParser::approval(const QJsonObject &body,
                                                                        QList<FieldError> *errors)
{
    const qsizetype before = errors->size();
    BodyReader in(body, errors);
    in.refuseUnknown({QStringLiteral("note")});
    ApprovalRequest out;
    if (const auto note = in.string(QStringLiteral("note"), noteRule(false)))
        out.note = *note;
    if (errors->size() != before)
        return std::nullopt;
    return out;
}

std::optional<DecisionParser::RejectionRequest> DecisionParser::rejection(const QJsonObject &body,
                                                                          QList<FieldError> *errors)
{
    const qsizetype before = errors->size();
    BodyReader in(body, errors);
    in.refuseUnknown({QStringLiteral("reason"), QStringLiteral("note")});
    RejectionRequest out;
    BodyReader::StringRule reason;
    reason.required = true;
    reason.oneOf = Approval::rejectionReasons();
    if (const auto value = in.string(QStringLiteral("reason"), reason))
        out.reason = *value;
    const bool other = out.reason == u"other";
    if (const auto note = in.string(QStringLiteral("note"), noteRule(other)))
        out.note = *note; // for "other", a missing or blank note is refused by the rule
    if (errors->size() != before)
        return std::nullopt;
    return out;
}

bool DecisionParser::lookup(const QJsonObject &body, QList<FieldError> *errors)
{
    const qsizetype before = errors->size();
    BodyReader in(body, errors);
    in.refuseUnknown({});
    return errors->size() == before;
}

std::optional<DecisionParser::ReconciliationRequest> DecisionParser::reconciliation(const QJsonObject &body,
                                                                                    QList<FieldError> *errors)
{
    const qsizetype before = errors->size();
    BodyReader in(body, errors);
    in.refuseUnknown({QStringLiteral("outcome"), QStringLiteral("evidence_lookup_seq"), QStringLiteral("note")});
    ReconciliationRequest out;
    BodyReader::StringRule outcome;
    outcome.required = true;
    outcome.oneOf = {QStringLiteral("committed"), QStringLiteral("not_committed")};
    if (const auto value = in.string(QStringLiteral("outcome"), outcome))
        out.outcome = reconciliationOutcomeFromWire(*value).value_or(Reconciliation::Outcome::Committed);
    if (in.present(QStringLiteral("evidence_lookup_seq")) && !in.isNull(QStringLiteral("evidence_lookup_seq"))) {
        if (const auto seq = in.integer(QStringLiteral("evidence_lookup_seq"), 1, std::numeric_limits<int>::max(), true))
            out.evidenceLookupSeq = int(*seq);
    }
    if (const auto note = in.string(QStringLiteral("note"), noteRule(true)))
        out.note = *note;
    if (errors->size() != before)
        return std::nullopt;
    return out;
}

std::optional<DecisionParser::FollowUpRequest> DecisionParser::followUp(const QJsonObject &body,
                                                                        QList<FieldError> *errors)
{
    const qsizetype before = errors->size();
    BodyReader in(body, errors);
    in.refuseUnknown({QStringLiteral("desired_total_amount"), QStringLiteral("note"), QStringLiteral("client_reference")});
    FollowUpRequest out;
    if (const auto amount = in.integer(QStringLiteral("desired_total_amount"), 1, Money::MaxMinorUnits, true))
        out.desiredTotalAmount = *amount;
    if (const auto note = in.string(QStringLiteral("note"), noteRule(true)))
        out.note = *note;
    BodyReader::StringRule reference;
    reference.minLength = 1;
    reference.maxLength = 255;
    reference.nonBlank = true;
    if (const auto value = in.string(QStringLiteral("client_reference"), reference))
        out.clientReference = *value;
    if (errors->size() != before)
        return std::nullopt;
    return out;
}

std::optional<QString> DecisionParser::settlementClose(const QJsonObject &body, QList<FieldError> *errors)
{
    const qsizetype before = errors->size();
    BodyReader in(body, errors);
    in.refuseUnknown({QStringLiteral("note")});
    const auto note = in.string(QStringLiteral("note"), noteRule(true));
    if (errors->size() != before || !note)
        return std::nullopt;
    return *note;
}

} // namespace cs
