#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace cs {

// What the provider holds that contradicts a final action (issue 33): two refunds or more carrying
// one action's id, or a refund whose amount, currency or charge is not a COMPLETED action's, or
// any refund for an action that is REJECTED. Found by whatever evidence showed it — a webhook, a
// look-up, a scheduled settlement check — and never silent: the action keeps its state (the six
// states stay six) and carries this attention item until a supervisor closes it with a note
// (after dealing with the customer and the provider; nothing is sent or undone by Countersign).
// An open action that meets the same evidence goes to REQUIRES_REVIEW instead.
struct Discrepancy
{
    enum class Kind {
        DuplicateRefund,     // two refunds or more carry the action's id
        ContradictingRefund, // one refund, but not the action's money, charge or outcome
    };
    enum class Attention {
        Open,   // a supervisor must look
        Closed, // looked at, with a note
    };

    QString actionId;
    Kind kind = Kind::DuplicateRefund;
    QStringList refundIds;   // every refund at the provider carrying the action's id, as first seen
    QString detail;          // the evidence rule's sentence
    QString evidence;        // where it was first seen: "lookup 4 (event evt_…)"
    QString foundBy;         // webhook, reconciler, settlement, a supervisor's name
    QDateTime openedAt;      // UTC
    QDateTime lastSeenAt;    // UTC, the latest evidence that showed it
    int sightings = 1;       // how many pieces of evidence showed it
    Attention attention = Attention::Open;
    QString resolvedBy;
    QDateTime resolvedAt;
    QString resolutionNote;

    bool isOpen() const { return attention == Attention::Open; }
    // "The provider holds 2 refunds for this action", for people.
    QString headline() const;

    QJsonObject toJson() const;
    static std::optional<Discrepancy> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const Discrepancy &, const Discrepancy &) = default;
};

QString toWire(Discrepancy::Kind kind);           // "duplicate_refund", "contradicting_refund"
std::optional<Discrepancy::Kind> discrepancyKindFromWire(QStringView wire);
QString toWire(Discrepancy::Attention attention); // "open", "closed"
std::optional<Discrepancy::Attention> discrepancyAttentionFromWire(QStringView wire);

} // namespace cs
