#pragma once

#include <QCoreApplication>
#include <QString>

namespace cs {

struct ActionDetail;
struct LookupEntry;
struct ProviderLookup;

// A sentence for people, and the raw text it stands for (the server's reason, the provider's
// answer) for a "Details" disclosure. The sentence holds no provider JSON; details may be empty.
struct Explanation
{
    QString sentence;
    QString details;
    friend bool operator==(const Explanation &, const Explanation &) = default;
};

// What the provider's answers and the server's stops mean, in words, built from the structured
// record (attempts, look-ups, conflicts, approvals, the charge) rather than from the server's
// reason text, which is kept for the details. The provider is named as the API gives it
// (ActionRecord::provider, "paysim"), "The provider" when empty. Pure; translated in the context
// cs::ReviewExplanation.
class ReviewExplanation
{
    Q_DECLARE_TR_FUNCTIONS(cs::ReviewExplanation)

public:
    // Why a REQUIRES_REVIEW action waits for a person: "paysim was unavailable (HTTP 503) — 12
    // look-ups failed between 2026-11-29 13:18:22 and 13:19:40." The first of these that the record
    // shows: a key refused as used for another request; credentials refused; contradicting or
    // undecided refunds at the provider; a changed resubmission; "already refunded" with no refund
    // of this action; failed look-ups (the newest look-up failed); no refund shown; a stop before
    // anything was sent (over the charge's budget, changed since approval); else a plain stop.
    static Explanation forAction(const ActionDetail &detail);

    // What one look-up found: "Found: paysim holds a refund of 40.00 USD, succeeded.", "Not found:
    // paysim holds no refund for this action.", "paysim did not answer (HTTP 503)."; the details
    // are the look-up's line (LookupTableModel::describe) and the provider's answer.
    static Explanation forLookup(const ProviderLookup &lookup, const QString &provider);

    // Failed look-ups of one kind (an entry of orderLookups that does not decide): "paysim was
    // unavailable (HTTP 503) — 12 look-ups failed between … and ….", "… — a look-up failed at …".
    static QString failedLookups(const LookupEntry &failures, const QString &provider);

    // The provider's name, or "The provider" (it starts the sentences it is in).
    static QString providerName(const QString &provider);
};

} // namespace cs
