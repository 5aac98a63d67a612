#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace cs {

// A supervisor's confirmation of what happened at the provider, with the lookup that is the
// evidence (append-only). Moves REQUIRES_REVIEW to COMPLETED (committed) or REJECTED.
struct Reconciliation
{
    enum class Outcome { Committed, NotCommitted };

    QString actionId;
    int seq = 0;
    QString decidedBy;
    Outcome outcome = Outcome::Committed;
    int evidenceLookupSeq = 0; // the ProviderLookup::seq of this action that is the evidence
    QString note;
    QDateTime decidedAt;       // UTC

    QJsonObject toJson() const;
    static std::optional<Reconciliation> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const Reconciliation &, const Reconciliation &) = default;
};

QString toWire(Reconciliation::Outcome outcome); // "committed", "not_committed"
std::optional<Reconciliation::Outcome> reconciliationOutcomeFromWire(QStringView wire);

} // namespace cs
