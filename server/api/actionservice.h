#pragma once

#include "server/api/actionpolicy.h"
#include "server/api/actionviews.h"
#include "server/api/apiresponse.h"
#include "server/api/role.h"
#include "server/ledger/actionreader.h"

#include "server/ledger/approvalstore.h"
#include "server/ledger/chargestore.h"
#include "server/ledger/evidencestore.h"
#include "server/ledger/proposalstore.h"
#include "server/ledger/executionstore.h"
#include "server/reconciler.h"

#include <QJsonObject>
#include <QString>
#include <QUrlQuery>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <variant>

namespace cs {

class ProviderClient;

// The API's operations on actions, one per endpoint, after the HTTP layer has authenticated the
// caller, checked the role, parsed the JSON and handled the client Idempotency-Key. Each returns
// the complete answer (success or problem) and follows the contract's order of checks from
// `validation_failed` on: 422, 404, 412, then the operation's own rules. A refused operation
// writes nothing (except a changed proposal, which the contract keeps as evidence).
//
// Thread-safe where marked; the rest runs on the HTTP server's thread.
class ActionService
{
public:
    struct Config
    {
        QString providerName = QStringLiteral("paysim"); // stamped on every proposal
        QString providerAccount;
        std::chrono::milliseconds keyWindow = std::chrono::hours(24);
        std::chrono::milliseconds keyWindowSafetyMargin = std::chrono::hours(1);
        std::function<void()> approved; // after every approval (e.g. Executor::wake); may be unset
    };

    // The ledger's pieces the API's actions use (Ledger hands them out).
    struct Stores
    {
        ProposalStore *proposals;
        ApprovalStore *approvals;
        EvidenceStore *evidence;
        const ActionReader *reader;
        ChargeStore *charges; // the provider's view of each charge; may be null (no charge is read)
        ExecutionStore *execution; // for "look up now", which is the reconciler's (Reconciler::lookUpNow)
    };

    ActionService(Stores stores, ProviderClient *provider, Config config);

    ApiResponse list(const User &user, const QUrlQuery &query, const QString &instance) const;
    ApiResponse get(const User &user, const QString &id, const QString &instance) const;
    // Thread-safe, blocks up to the provider's timeout: when the provider reads charges
    // (ProviderClient::readsCharges) a new proposal's charge is read first and recorded with it
    // (ProposalInput::charge; no ledger lock is held while the provider answers). A resubmission
    // under an existing client_reference reads nothing. A read that fails is recorded as ERROR
    // evidence and the proposal is still accepted; NOT_FOUND is recorded too and shown as a
    // warning (docs/EXECUTION.md, "The refund budget of a charge"). Run it on a worker thread.
    ApiResponse propose(const User &user, const QJsonObject &body, const QString &instance);
    ApiResponse approve(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                        const QString &instance);
    ApiResponse reject(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                       const QString &instance);
    ApiResponse reconcile(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                          const QString &instance);
    ApiResponse followUp(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                         const QString &instance);
    // Closes the open settlement review item of a COMPLETED action whose refund failed or was
    // canceled afterwards, without re-sending anything (issue 18): 200 {settlement, action}.
    // POST /actions/{id}/discrepancy/close (issue 33): a supervisor closes an open discrepancy with a note.
    ApiResponse closeDiscrepancy(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                                 const QString &instance);
    ApiResponse closeSettlement(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                                const QString &instance);

    // "Look up now" in two steps: the checks (validation, 404, 412) on the HTTP thread, then the
    // provider call and its recording on a worker thread (thread-safe; blocks up to the provider's
    // timeout). The lookup is recorded whatever the provider answered.
    std::variant<ApiResponse, ActionRecord> prepareLookup(const User &user, const QString &id, qint64 ifMatch,
                                                          const QJsonObject &body, const QString &instance) const;
    ApiResponse runLookup(const User &user, const QString &id, const QString &instance);
    bool hasProvider() const { return m_provider != nullptr; }
    // Whether proposals and charge-lookups ask the provider (ProviderClient::readsCharges).
    bool readsCharges() const;

    // "Read the charge now" (POST …/charge-lookups) in two steps like a look-up: the checks on the
    // HTTP thread (validation, 404; 503 without a provider that reads charges), then the read and
    // its recording on a worker thread (thread-safe). 201 {snapshot, budget, warnings} as
    // chargeView; 502 provider_unavailable when the provider did not answer (the ERROR snapshot is
    // recorded all the same).
    std::variant<ApiResponse, ActionRecord> prepareChargeLookup(const User &user, const QString &id,
                                                                const QJsonObject &body, const QString &instance) const;
    ApiResponse runChargeLookup(const User &user, const ActionRecord &record, const QString &instance);
    // {snapshot, budget, warnings} of the action's charge: the snapshot ChargeStore::shown, the
    // budget at the approval stage without this action, the warnings for this action's amount at
    // `now`. Null when the charge was never read.
    LedgerResult<QJsonValue> chargeView(const ActionRecord &record, const QDateTime &now) const;
    // {requested_by, today, week}: ActionReader::requesterRecord as JSON.
    static QJsonObject requesterRecordJson(const ActionReader::RequesterRecord &record);

    // Problem answers shared with the HTTP layer.
    ApiResponse ledgerFailure(const LedgerError &error, const QString &instance) const;
    // 422 exceeds_refundable: the charge's budget from the error's detail (captured, refunded,
    // reserved, requested, and the whole budget).
    static ApiResponse exceedsRefundable(const LedgerError &error, const QString &instance);
    ApiResponse stale(const ActionRecord &current, qint64 ifMatch, const QString &instance) const;
    // load(), then the If-Match check every mutation of an existing action makes first.
    std::variant<ApiResponse, ActionRecord> loadForMutation(const User &user, const QString &id, qint64 ifMatch,
                                                            const QString &instance) const;
    // 200 with the action and the approval row an approve or reject just wrote (beside `body`'s
    // members).
    ApiResponse decided(const ActionRecord &record, QJsonObject body = {}) const;
    // A ledger refusal of a mutation guarded by If-Match: StaleVersion (the action moved after our
    // checks, e.g. another process) answers 412 with the current version; anything else as
    // ledgerFailure.
    ApiResponse mutationFailure(const LedgerError &error, const QString &id, qint64 ifMatch,
                                const QString &instance) const;
    // A refused close of an attention item (settlement review, discrepancy): 412, 409 or as ledgerFailure.
    ApiResponse closeFailure(const LedgerError &error, const QString &id, qint64 ifMatch, const QString &instance) const;

    const ActionViews &views() const { return m_views; }

private:
    struct Loaded
    {
        ActionRecord record;
        QDateTime firstAttemptAt;
    };
    // The action as the user may see it: NotFound also for an agent's foreign action.
    std::variant<ApiResponse, ActionReader::Summary> load(const User &user, const QString &id,
                                                          const QString &instance) const;
    ApiResponse refusal(const ActionPolicy::Verdict &verdict, const ActionRecord &record, const QString &instance) const;
    QJsonObject actionJson(const ActionRecord &record) const; // reads the first attempt's start
    ApiResponse withAction(int status, QJsonObject body, const ActionRecord &record) const;
    // chargeView's object for a given snapshot.
    LedgerResult<QJsonObject> chargeJson(const ActionRecord &record, const ChargeStore::Recorded &shown,
                                         const QDateTime &now) const;
    static void insertQuorum(const ApprovalStore::Quorum &quorum, QJsonObject *json);

    ProposalStore *m_proposals;
    ApprovalStore *m_approvals;
    EvidenceStore *m_evidence;
    const ActionReader *m_reader;
    ChargeStore *m_charges;
    ProviderClient *m_provider;
    // "Look up now" follows literally the reconciler's code (one evidence rule); null without a provider.
    std::unique_ptr<Reconciler> m_lookups;
    Config m_config;
    ActionViews m_views;
};

} // namespace cs
