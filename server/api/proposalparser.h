#pragma once

#include "server/api/problem.h"
#include "server/ledger/proposalstore.h"

#include <QJsonObject>
#include <QList>

#include <optional>

namespace cs {

// Validates a `Proposal` body (resources/openapi.yaml) and turns it into the ledger's input:
// kind "refund"; target exactly one of charge ("ch_…") / payment_intent ("pi_…"); amount a JSON
// integer 1..10^12; currency a known ISO-4217 code in any case (stored lowercase); reason empty
// or a Stripe refund reason; client_reference 1..255 and not blank; business_reference ≤ 255;
// the agent's reasons, never sent to the provider: justification ≤ 2,000 (Text::MultiLine),
// context_url an absolute https:// URL with a host and no user info ≤ 2,048, facts an object of
// ≤ 10 strings ≤ 200 under keys [a-z0-9_]{1,40} (a member's error is "facts.<key>");
// no other member (an agent cannot choose the provider); every other text BodyReader::Text::SingleLine
// (no control or format character). Every problem is listed in *errors.
// The provider and account are the backend's, filled in by the caller.
class ProposalParser
{
public:
    static std::optional<ProposalStore::ProposalInput> parse(const QJsonObject &body, QList<FieldError> *errors);

    // Shared with the follow-up parser: a reason the provider accepts.
    static const QStringList &refundReasons();
};

} // namespace cs
