#pragma once

#include "server/api/apiresponse.h"
#include "server/api/role.h"

#include "server/ledger/chargestore.h"
#include "server/ledger/evidencestore.h"

#include "models/actionrecord.h" // TargetType

#include <QJsonObject>
#include <QString>

#include <optional>
#include <variant>

namespace cs {

class ActionReader;
class ActionService;
class ApprovalStore;
class ProviderClient;

// The charge view's endpoints (issue 17; docs/API.md "The charge view"): everything Countersign
// knows about one charge or payment intent — the newest recorded read of the provider's view, the
// charge's refund budget (ChargeStore, the proposal stage: what a new proposal may still ask
// for) and every action on it — and a fresh read of it at the provider, recorded as evidence.
// The role check is the route table's (ActionPolicy: agents may not read a charge, since its
// view lists every requester's actions); the rest is here.
//
// A charge Countersign knows nothing about (no action on it, never read) is 404: the view is not a
// way to read arbitrary charges at the provider. get() and prepareLookup() run on the HTTP server's
// thread; runLookup() on a worker thread (thread-safe; blocks up to the provider's timeout).
class ChargeService
{
public:
    // At most this many actions are listed (the newest); `actions_truncated` says when older
    // ones were left out.
    static constexpr int kMaxActions = 500;

    // The charge or payment intent named by the path.
    struct Target
    {
        TargetType type = TargetType::Charge;
        QString id;
    };

    // `approvals` (may be null) gives PENDING rows under dual control their "1 of 2".
    // `evidence` (may be null) lists the refund events of the charge that matched no action.
    ChargeService(ActionService *actions, const ActionReader *reader, const ApprovalStore *approvals, ChargeStore *charges,
                  ProviderClient *provider, const EvidenceStore *evidence = nullptr)
        : m_actions(actions), m_reader(reader), m_approvals(approvals), m_charges(charges), m_provider(provider),
          m_evidence(evidence)
    {
    }

    // GET /charges/{id}: 200 with the view; 400 invalid_parameter for an id that is neither ch_…
    // nor pi_…; 404 when Countersign has no action on it and never read it.
    ApiResponse get(const QString &id, const QString &instance) const;

    // POST /charges/{id}/lookups in two steps: the checks here (the body is {} or none; 400, 404;
    // 503 without a provider that reads charges), then the read, its recording (asked_by the
    // caller, a charge_read audit row) and the view with this read as `snapshot` (201). 502
    // provider_unavailable when the provider did not answer: the ERROR read is recorded and
    // returned in the problem's `snapshot`.
    std::variant<ApiResponse, Target> prepareLookup(const QString &id, const QJsonObject &body,
                                                    const QString &instance) const;
    ApiResponse runLookup(const User &user, const Target &target, const QString &instance);

    // ch_… is a charge, pi_… a payment intent (as in a proposal's target); anything else none.
    static std::optional<Target> parseTarget(const QString &id);

private:
    // The view's JSON; `fresh` (a read just recorded) replaces the newest recorded read as its
    // snapshot. NotFound when Countersign knows nothing about the target.
    LedgerResult<QJsonObject> view(const Target &target, const ChargeStore::Recorded *fresh) const;
    std::variant<ApiResponse, Target> checkedTarget(const QString &id, const QString &instance) const;

    ActionService *m_actions; // its answers for ledger failures; whether charges are read
    const ActionReader *m_reader;
    const ApprovalStore *m_approvals;
    ChargeStore *m_charges;
    ProviderClient *m_provider;
    const EvidenceStore *m_evidence;
};

} // namespace cs
