#pragma once

#include "server/api/apiresponse.h"
#include "server/policy/policy.h"
#include "server/policy/policyparser.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <variant>

namespace cs {

class ApprovalStore;
class PolicyStore;

// The approval policy file of `countersignd serve --policy FILE` (docs/POLICY.md): read, parsed
// strictly, recorded as a version in the ledger (PolicyStore) and put in force (ApprovalStore).
// A file that does not load leaves the version in force as it is and says why, naming the line
// (JSON syntax, a member given twice) or the member. Used on the HTTP server's thread (and by
// main before it serves).
class PolicyService
{
public:
    PolicyService(PolicyStore &store, ApprovalStore &approvals, QString file);

    // The file's bytes to a policy: StrictJson (syntax and duplicate members: the line named),
    // then PolicyParser (the members). Pure.
    static std::variant<Policy, PolicyParser::Error> parse(const QByteArray &text);

    // Reads the file and, if it parses, records it (a new version unless its SHA-256 is the
    // latest's) and puts it in force. On any failure nothing changes in force.
    std::variant<std::shared_ptr<const Policy>, PolicyParser::Error> reload(const QString &loadedBy);

    const QString &file() const { return m_file; }

    // GET /api/v1/policy: the version in force and its rules ({"version": 0, "rules": []} when
    // countersignd runs without a policy: one approver, four-eyes).
    static ApiResponse current(const ApprovalStore &approvals);
    // POST /api/v1/policy/reload: 200 with the policy now in force, or 422 invalid_policy with
    // the line or member (the version in force unchanged); 409 no_policy_file without --policy.
    static ApiResponse reloadAnswer(PolicyService *service, const ApprovalStore &approvals, const QString &loadedBy,
                                    const QString &instance);

private:
    PolicyStore &m_store;
    ApprovalStore &m_approvals;
    QString m_file;
};

} // namespace cs
