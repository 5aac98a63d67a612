#pragma once

#include "server/api/actionpolicy.h"
#include "server/api/actionviews.h"
#include "server/api/apiresponse.h"
#include "server/api/role.h"
#include "server/ledger/actionreader.h"

#include "server/ledger/approvalstore.h"
#include "server/ledger/evidencestore.h"
#include "server/ledger/proposalstore.h"

#include <QJsonObject>
#include <QString>
#include <QUrlQuery>

#include <chrono>
#include <functional>
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
    };

    ActionService(Stores stores, ProviderClient *provider, Config config);

    ApiResponse list(const User &user, const QUrlQuery &query, const QString &instance) const;
    ApiResponse get(const User &user, const QString &id, const QString &instance) const;
    ApiResponse propose(const User &user, const QJsonObject &body, const QString &instance);
    ApiResponse approve(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                        const QString &instance);
    ApiResponse reject(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                       const QString &instance);
    ApiResponse reconcile(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                          const QString &instance);
    ApiResponse followUp(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                         const QString &instance);

    // "Look up now" in two steps: the checks (validation, 404, 412) on the HTTP thread, then the
    // provider call and its recording on a worker thread (thread-safe; blocks up to the provider's
    // timeout). The lookup is recorded whatever the provider answered.
    std::variant<ApiResponse, ActionRecord> prepareLookup(const User &user, const QString &id, qint64 ifMatch,
                                                          const QJsonObject &body, const QString &instance) const;
    ApiResponse runLookup(const User &user, const QString &id, const QString &instance);
    bool hasProvider() const { return m_provider != nullptr || m_lookupRunner != nullptr; }

    // Who asks the provider for "look up now". Unset: the service's own rules with the
    // ProviderClient (retrieve by refund id when an attempt named one, else list by metadata;
    // CONFIRMATION_UNKNOWN moves as the reconciler would). Set: e.g. Reconciler::lookUpNow, so a
    // look-up through the API and one by the reconciler follow literally the same code. Called on
    // a worker thread.
    using LookupRunner = std::function<LedgerResult<EvidenceStore::RecordedLookup>(const QString &actionId,
                                                                                const QString &askedBy)>;
    void setLookupRunner(LookupRunner runner) { m_lookupRunner = std::move(runner); }

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
    static void insertQuorum(const ApprovalStore::Quorum &quorum, QJsonObject *json);

    ProposalStore *m_proposals;
    ApprovalStore *m_approvals;
    EvidenceStore *m_evidence;
    const ActionReader *m_reader;
    ProviderClient *m_provider;
    LookupRunner m_lookupRunner;
    Config m_config;
    ActionViews m_views;
};

} // namespace cs
