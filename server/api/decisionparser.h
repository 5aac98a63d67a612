#pragma once

#include "server/api/problem.h"

#include "models/reconciliation.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

// Strict validation of the bodies of the decision endpoints (resources/openapi.yaml:
// ApprovalRequest, RejectionRequest, LookupRequest, ReconciliationRequest, FollowUpRequest).
// Each returns nothing and appends every problem to *errors when the body is invalid. Notes and
// reasons are BodyReader::Text::MultiLine (\n and \t allowed), a client_reference SingleLine.
class DecisionParser
{
public:
    struct ApprovalRequest
    {
        QString note;
    };
    // reason: one of Approval::rejectionReasons(), required (422 naming "reason" when absent);
    // note: free text, required (not blank) when the reason is "other".
    struct RejectionRequest
    {
        QString reason;
        QString note;
    };
    struct ReconciliationRequest
    {
        Reconciliation::Outcome outcome = Reconciliation::Outcome::Committed;
        std::optional<int> evidenceLookupSeq; // missing or null: 422 no_evidence, not validation_failed
        QString note;
    };
    struct FollowUpRequest
    {
        qint64 desiredTotalAmount = 0;
        QString note;
        QString clientReference; // empty: the backend's default
    };

    static std::optional<ApprovalRequest> approval(const QJsonObject &body, QList<FieldError> *errors);
    static std::optional<RejectionRequest> rejection(const QJsonObject &body, QList<FieldError> *errors);
    static bool lookup(const QJsonObject &body, QList<FieldError> *errors); // must be {}
    static std::optional<ReconciliationRequest> reconciliation(const QJsonObject &body, QList<FieldError> *errors);
    static std::optional<FollowUpRequest> followUp(const QJsonObject &body, QList<FieldError> *errors);
    // SettlementCloseRequest: {note} — required, not blank, at most 2,000 characters.
    static std::optional<QString> settlementClose(const QJsonObject &body, QList<FieldError> *errors);
};

} // namespace cs
