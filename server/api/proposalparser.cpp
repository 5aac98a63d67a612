#include "server/api/proposalparser.h"

#include "server/api/bodyreader.h"

#include "models/money.h"

#include <QRegularExpression>
#include <QUrl>

namespace cs {

namespace {

// justification, context_url and facts (the agent's reasons; never sent to the provider).
void parseReasons(BodyReader &in, QList<FieldError> *errors,
                  ProposalStore::ProposalInput *input)
{
    BodyReader::StringRule justification;
    justification.text = BodyReader::Text::MultiLine;
    justification.maxLength = 2000;
    if (const auto value = in.string(QStringLiteral("justification"), justification))
        input->justification = *value;

    BodyReader::StringRule url;
    url.maxLength = 2048;
    if (const auto value = in.string(QStringLiteral("context_url"), url); value && !value->isEmpty()) {
        const QUrl parsed(*value, QUrl::StrictMode);
        if (!parsed.isValid() || parsed.scheme() != u"https" || parsed.host().isEmpty())
            in.fail(QStringLiteral("context_url"),
                    QStringLiteral("must be an absolute https:// URL with a host, such as"
                                   " \"https://support.example.com/tickets/4821\""));
        else if (!parsed.userInfo().isEmpty())
            in.fail(QStringLiteral("context_url"), QStringLiteral("must not contain a user name or password"));
        else
            input->contextUrl = *value;
    }

    const auto facts = in.object(QStringLiteral("facts"), false);
    if (!facts)
        return;
    if (facts->size() > 10) {
        in.fail(QStringLiteral("facts"), QStringLiteral("must have at most 10 members, not %1").arg(facts->size()));
        return;
    }
    static const QRegularExpression key(QStringLiteral("\\A[a-z0-9_]{1,40}\\z"));
    BodyReader f(*facts, errors, QStringLiteral("facts"));
    BodyReader::StringRule value;
    value.maxLength = 200;
    for (auto it = facts->constBegin(); it != facts->constEnd(); ++it) {
        if (!key.match(it.key()).hasMatch()) {
            f.fail(it.key(), QStringLiteral("is not a valid key: 1 to 40 characters of a-z, 0-9 and _"));
            continue;
        }
        if (const auto text = f.string(it.key(), value))
            input->facts.insert(it.key(), *text);
    }
}

} // namespace

const QStringList &ProposalParser::refundReasons()
{
    static const QStringList reasons = {QString(), QStringLiteral("duplicate"), QStringLiteral("fraudulent"),
                                        QStringLiteral("requested_by_customer")};
    return reasons;
}

std::optional<ProposalStore::ProposalInput> ProposalParser::parse(const QJsonObject &body, QList<FieldError> *errors)
{
    const qsizetype before = errors->size();
    BodyReader in(body, errors);
    in.refuseUnknown({QStringLiteral("kind"), QStringLiteral("target"), QStringLiteral("amount"),
                      QStringLiteral("currency"), QStringLiteral("reason"), QStringLiteral("client_reference"),
                      QStringLiteral("business_reference"), QStringLiteral("justification"),
                      QStringLiteral("context_url"), QStringLiteral("facts")});

    ProposalStore::ProposalInput input;
    BodyReader::StringRule kind;
    kind.required = true;
    kind.oneOf = {QStringLiteral("refund")};
    if (const auto value = in.string(QStringLiteral("kind"), kind))
        input.kind = *value;

    if (const auto target = in.object(QStringLiteral("target"), true)) {
        BodyReader t(*target, errors, QStringLiteral("target"));
        t.refuseUnknown({QStringLiteral("charge"), QStringLiteral("payment_intent")});
        const bool hasCharge = target->contains(QStringLiteral("charge"));
        const bool hasIntent = target->contains(QStringLiteral("payment_intent"));
        if (hasCharge == hasIntent) {
            errors->append(FieldError{QStringLiteral("target"),
                                      QStringLiteral("must have exactly one of \"charge\" or \"payment_intent\"")});
        } else {
            BodyReader::StringRule id;
            id.required = true;
            id.minLength = 1;
            id.maxLength = 253;
            const QString member = hasCharge ? QStringLiteral("charge") : QStringLiteral("payment_intent");
            id.pattern = hasCharge ? QStringLiteral("ch_[A-Za-z0-9_]{1,250}") : QStringLiteral("pi_[A-Za-z0-9_]{1,250}");
            id.patternDescription = hasCharge ? QStringLiteral("must be a charge id such as \"ch_3Pq8Xk2eZvKYlo2C\"")
                                              : QStringLiteral("must be a payment intent id such as \"pi_3Pq8Xk2eZvKYlo2C\"");
            if (const auto value = t.string(member, id)) {
                input.targetType = hasCharge ? TargetType::Charge : TargetType::PaymentIntent;
                input.targetId = *value;
            }
        }
    }

    if (const auto amount = in.integer(QStringLiteral("amount"), 1, Money::MaxMinorUnits, true))
        input.amount = *amount;

    BodyReader::StringRule currency;
    currency.required = true;
    currency.minLength = 3;
    currency.maxLength = 3;
    currency.pattern = QStringLiteral("[A-Za-z]{3}");
    currency.patternDescription = QStringLiteral("must be a three-letter ISO-4217 code such as \"usd\"");
    if (const auto value = in.string(QStringLiteral("currency"), currency)) {
        if (!Money::isKnownCurrency(*value))
            in.fail(QStringLiteral("currency"), QStringLiteral("\"%1\" is not a known ISO-4217 currency").arg(*value));
        else
            input.currency = value->toLower();
    }

    BodyReader::StringRule reason;
    reason.maxLength = 64;
    reason.oneOf = refundReasons();
    if (const auto value = in.string(QStringLiteral("reason"), reason))
        input.reason = *value;

    BodyReader::StringRule clientReference;
    clientReference.required = true;
    clientReference.minLength = 1;
    clientReference.maxLength = 255;
    clientReference.nonBlank = true;
    if (const auto value = in.string(QStringLiteral("client_reference"), clientReference))
        input.clientReference = *value;

    BodyReader::StringRule businessReference;
    businessReference.maxLength = 255;
    if (const auto value = in.string(QStringLiteral("business_reference"), businessReference))
        input.businessReference = *value;

    parseReasons(in, errors, &input);

    if (errors->size() != before)
        return std::nullopt;
    return input;
}

} // namespace cs
