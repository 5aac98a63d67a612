#include "models/executionpause.h"

#include "models/jsonfieldreader.h"
#include "models/wirenames.h"

#include <QCoreApplication>

namespace cs {

using namespace wire;

namespace {

constexpr Name<ExecutionPause::Scope> kScopes[] = {
    {ExecutionPause::Scope::All, QLatin1String("all")},
    {ExecutionPause::Scope::Agent, QLatin1String("agent")},
    {ExecutionPause::Scope::Account, QLatin1String("account")},
};

} // namespace

QString toWire(ExecutionPause::Scope scope)
{
    return nameOf(kScopes, scope);
}

std::optional<ExecutionPause::Scope> pauseScopeFromWire(QStringView wire)
{
    return valueOf(kScopes, wire);
}

bool ExecutionPause::covers(const ActionRecord &action) const
{
    switch (scope) {
    case Scope::All:
        return true;
    case Scope::Agent:
        return action.requestedBy == agent;
    case Scope::Account:
        return action.providerAccount == account;
    }
    return false;
}

QString ExecutionPause::what() const
{
    switch (scope) {
    case Scope::All:
        return tr("all", "what is paused");
    case Scope::Agent:
        return tr("agent %1", "what is paused").arg(agent);
    case Scope::Account:
        return tr("account %1", "what is paused: a provider account").arg(account);
    }
    return QString();
}

QString ExecutionPause::describe() const
{
    return tr("Execution paused: %1 \u2014 by %2: %3").arg(what(), pausedBy, reason);
}

QString describePauses(const QList<ExecutionPause> &pauses)
{
    if (pauses.isEmpty())
        return QString();
    if (pauses.size() == 1)
        return pauses.constFirst().describe();
    QStringList what;
    for (const ExecutionPause &pause : pauses)
        what << pause.what();
    return QCoreApplication::translate("cs::ExecutionPause", "Execution paused (%1): %2")
        .arg(pauses.size())
        .arg(what.join(QStringLiteral(", ")));
}

QJsonObject ExecutionPause::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("id"), id);
    json.insert(QLatin1String("scope"), toWire(scope));
    if (scope == Scope::Agent)
        json.insert(QLatin1String("agent"), agent);
    if (scope == Scope::Account)
        json.insert(QLatin1String("account"), account);
    json.insert(QLatin1String("reason"), reason);
    json.insert(QLatin1String("paused_by"), pausedBy);
    json.insert(QLatin1String("paused_at"), timeToJson(pausedAt));
    json.insert(QLatin1String("in_force"), inForce());
    if (!inForce()) {
        json.insert(QLatin1String("resumed_by"), resumedBy);
        json.insert(QLatin1String("resumed_at"), timeToJson(resumedAt));
        json.insert(QLatin1String("resume_note"), resumeNote);
    }
    return json;
}

std::optional<ExecutionPause> ExecutionPause::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    ExecutionPause pause;
    pause.id = in.string(QLatin1String("id"), Need::Required, true);
    pause.scope = in.enumeration(QLatin1String("scope"), pauseScopeFromWire, Scope::All);
    pause.agent = in.string(QLatin1String("agent"), pause.scope == Scope::Agent ? Need::Required : Need::Optional);
    pause.account = in.string(QLatin1String("account"), pause.scope == Scope::Account ? Need::Required : Need::Optional);
    pause.reason = in.string(QLatin1String("reason"));
    pause.pausedBy = in.string(QLatin1String("paused_by"));
    pause.pausedAt = in.time(QLatin1String("paused_at"));
    pause.resumedBy = in.string(QLatin1String("resumed_by"));
    if (json.contains(QLatin1String("resumed_at")))
        pause.resumedAt = in.time(QLatin1String("resumed_at"));
    pause.resumeNote = in.string(QLatin1String("resume_note"));
    return finish(in, std::move(pause), error);
}

} // namespace cs
