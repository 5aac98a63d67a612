#include "server/api/policyservice.h"

#include "server/api/apilog.h"
#include "server/api/problem.h"
#include "server/api/strictjson.h"
#include "server/ledger/approvalstore.h"
#include "server/ledger/policystore.h"

#include <QFile>

namespace cs {

namespace {

constexpr qsizetype kMaxPolicyBytes = 1 << 20;

int lineOf(const QByteArray &text, qsizetype offset)
{
    return int(text.left(offset).count('\n')) + 1;
}

} // namespace

PolicyService::PolicyService(PolicyStore &store, ApprovalStore &approvals, QString file)
    : m_store(store), m_approvals(approvals), m_file(std::move(file))
{
}

std::variant<Policy, PolicyParser::Error> PolicyService::parse(const QByteArray &text)
{
    if (text.size() > kMaxPolicyBytes)
        return PolicyParser::Error{QString(), QStringLiteral("the policy file is larger than %1 bytes").arg(kMaxPolicyBytes), 0};
    auto parsed = StrictJson::parseObject(text);
    if (const auto *error = std::get_if<StrictJson::Error>(&parsed)) {
        PolicyParser::Error out{error->path, error->message, lineOf(text, error->offset)};
        if (error->kind == StrictJson::Error::Kind::DuplicateMember)
            out.message = QStringLiteral("%1: a member given twice").arg(error->path);
        return out;
    }
    return PolicyParser::parse(std::get<QJsonObject>(parsed));
}

std::variant<std::shared_ptr<const Policy>, PolicyParser::Error> PolicyService::reload(const QString &loadedBy)
{
    QFile file(m_file);
    if (!file.open(QIODevice::ReadOnly))
        return PolicyParser::Error{QString(), QStringLiteral("cannot read %1: %2").arg(m_file, file.errorString()), 0};
    const QByteArray text = file.read(kMaxPolicyBytes + 1);
    auto parsed = parse(text);
    if (auto *error = std::get_if<PolicyParser::Error>(&parsed))
        return *error;
    auto policy = std::make_shared<Policy>(std::get<Policy>(std::move(parsed)));
    const auto recorded = m_store.recordLoad(QString::fromUtf8(text), m_file, loadedBy);
    if (!recorded.ok())
        return PolicyParser::Error{QString(), QStringLiteral("cannot record the policy in the ledger: %1")
                                                  .arg(recorded.error().message()), 0};
    policy->version = recorded->version;
    policy->sha256 = recorded->sha256;
    policy->source = recorded->source;
    policy->loadedBy = recorded->loadedBy;
    policy->loadedAt = recorded->loadedAt;
    m_approvals.setPolicy(policy);
    qCInfo(lcApi) << "policy version" << policy->version << "loaded by" << loadedBy << "from" << m_file;
    return std::shared_ptr<const Policy>(policy);
}

ApiResponse PolicyService::current(const ApprovalStore &approvals)
{
    const std::shared_ptr<const Policy> policy = approvals.policy();
    return ApiResponse::json(200, policy ? policy->toJson() : Policy().toJson());
}

ApiResponse PolicyService::reloadAnswer(PolicyService *service, const ApprovalStore &approvals, const QString &loadedBy,
                                        const QString &instance)
{
    if (!service)
        return Problem(QStringLiteral("no_policy_file"),
                       QStringLiteral("countersignd was started without --policy FILE: there is no file to reload"))
            .toResponse(instance);
    auto loaded = service->reload(loadedBy);
    if (const auto *error = std::get_if<PolicyParser::Error>(&loaded)) {
        const std::shared_ptr<const Policy> inForce = approvals.policy();
        qCWarning(lcApi) << "policy not reloaded for" << loadedBy << ":" << error->toString();
        Problem problem(QStringLiteral("invalid_policy"),
                        QStringLiteral("%1; policy version %2 stays in force").arg(error->toString()).arg(inForce ? inForce->version : 0));
        problem.with(QStringLiteral("version_in_force"), inForce ? inForce->version : 0);
        if (error->line > 0)
            problem.with(QStringLiteral("line"), error->line);
        if (!error->field.isEmpty())
            problem.withErrors({{error->field, error->message}});
        return problem.toResponse(instance);
    }
    return ApiResponse::json(200, std::get<std::shared_ptr<const Policy>>(loaded)->toJson());
}

} // namespace cs
