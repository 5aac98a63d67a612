#include "models/reconciliation.h"
#include "models/jsonfieldreader.h"
#include "models/wirenames.h"

#include "models/actionrecord.h" // toWireTime, timeFromWire

#include <QJsonValue>

#include <limits>

namespace cs {

using namespace wire; // FieldReader, timeToJson, finish, Name, nameOf, valueOf

namespace {

constexpr Name<Reconciliation::Outcome> OutcomeNames[] = {
    { Reconciliation::Outcome::Committed, QLatin1String("committed") },
    { Reconciliation::Outcome::NotCommitted, QLatin1String("not_committed") },
};

} // namespace

QString toWire(Reconciliation::Outcome outcome)
{
    return nameOf(OutcomeNames, outcome);
}

std::optional<Reconciliation::Outcome> reconciliationOutcomeFromWire(QStringView wire)
{
    return valueOf(OutcomeNames, wire);
}

QJsonObject Reconciliation::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("action_id"), actionId);
    json.insert(QLatin1String("seq"), seq);
    json.insert(QLatin1String("decided_by"), decidedBy);
    json.insert(QLatin1String("outcome"), toWire(outcome));
    json.insert(QLatin1String("evidence_lookup_seq"), evidenceLookupSeq);
    json.insert(QLatin1String("note"), note);
    json.insert(QLatin1String("decided_at"), timeToJson(decidedAt));
    return json;
}

// Required: action_id, seq, decided_by, outcome, evidence_lookup_seq. note and decided_at may be
// absent or null.
std::optional<Reconciliation> Reconciliation::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    Reconciliation r;
    r.actionId = in.string(QLatin1String("action_id"), Need::Required, true);
    r.seq = int(in.integer(QLatin1String("seq"), 0, std::numeric_limits<int>::max()));
    r.decidedBy = in.string(QLatin1String("decided_by"), Need::Required, true);
    r.outcome = in.enumeration(QLatin1String("outcome"), reconciliationOutcomeFromWire, Outcome::Committed);
    r.evidenceLookupSeq = int(in.integer(QLatin1String("evidence_lookup_seq"), 0, std::numeric_limits<int>::max()));
    r.note = in.string(QLatin1String("note"));
    r.decidedAt = in.time(QLatin1String("decided_at"));
    return finish(in, std::move(r), error);
}

} // namespace cs
