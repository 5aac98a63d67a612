#include "server/api/executionservice.h"

#include "server/api/apilog.h"
#include "server/api/bodyreader.h"
#include "server/api/problem.h"
#include "server/ledger/pausestore.h"

#include <QJsonArray>

namespace cs {

namespace {

ApiResponse validationFailed(const QList<FieldError> &errors, const QString &instance)
{
    return Problem(QStringLiteral("validation_failed"),
                   errors.size() == 1 ? QStringLiteral("1 field is invalid")
                                      : QStringLiteral("%1 fields are invalid").arg(errors.size()))
        .withErrors(errors)
        .toResponse(instance);
}

BodyReader::StringRule textRule(bool required, qsizetype maxLength, BodyReader::Text text = BodyReader::Text::SingleLine)
{
    BodyReader::StringRule rule;
    rule.text = text;
    rule.required = required;
    rule.minLength = required ? 1 : 0;
    rule.maxLength = maxLength;
    rule.nonBlank = required;
    return rule;
}

// A ledger refusal of a pause or a resume (the request itself was valid).
ApiResponse pauseFailure(const LedgerError &error, const QString &code409, const QString &instance)
{
    using Code = LedgerError::Code;
    switch (error.code()) {
    case Code::NotFound:
        return Problem(QStringLiteral("not_found"), error.message()).toResponse(instance);
    case Code::Conflict:
        return Problem(code409, error.message()).toResponse(instance);
    case Code::Invalid:
        return validationFailed({FieldError{error.message().section(u':', 0, 0), error.message()}}, instance);
    case Code::Busy:
    case Code::Unavailable:
        qCWarning(lcApi) << "ledger unavailable for a pause:" << error.toString();
        return Problem(QStringLiteral("unavailable"), QStringLiteral("the ledger cannot be written now; nothing was written"))
            .withHeader("Retry-After", "2")
            .toResponse(instance);
    case Code::CannotWrite:
    case Code::Damaged:
        qCWarning(lcApi) << "ledger cannot write a pause:" << error.toString();
        return storageProblem(error, QStringLiteral("nothing was written"))->toResponse(instance);
    default:
        break;
    }
    qCWarning(lcApi) << "ledger failure on a pause:" << error.toString();
    return Problem(QStringLiteral("internal"), QStringLiteral("an unexpected ledger failure; nothing was written"))
        .toResponse(instance);
}

} // namespace

ApiResponse ExecutionService::state(const QString &instance) const
{
    const auto pauses = m_pauses->inForce();
    if (!pauses.ok())
        return pauseFailure(pauses.error(), QStringLiteral("internal"), instance);
    QJsonArray list;
    for (const ExecutionPause &pause : *pauses)
        list.append(pause.toJson());
    return ApiResponse::json(200, QJsonObject{{QStringLiteral("paused"), !pauses->isEmpty()},
                                              {QStringLiteral("summary"), describePauses(*pauses)},
                                              {QStringLiteral("pauses"), list}});
}

ApiResponse ExecutionService::pause(const User &user, const QJsonObject &body, const QString &instance)
{
    QList<FieldError> errors;
    BodyReader in(body, &errors);
    in.refuseUnknown({QStringLiteral("scope"), QStringLiteral("agent"), QStringLiteral("account"), QStringLiteral("reason")});
    BodyReader::StringRule scopeRule = textRule(true, 16);
    scopeRule.oneOf = {QStringLiteral("all"), QStringLiteral("agent"), QStringLiteral("account")};
    // The scope as given ("" when it is missing or not one of the three: refused above).
    const QString scopeText = in.string(QStringLiteral("scope"), scopeRule).value_or(QString());
    const ExecutionPause::Scope scope = pauseScopeFromWire(scopeText).value_or(ExecutionPause::Scope::All);
    const bool agentScope = scopeText == u"agent";
    const bool accountScope = scopeText == u"account";
    const auto agent = in.string(QStringLiteral("agent"), textRule(agentScope, 255));
    const auto account = in.string(QStringLiteral("account"), textRule(accountScope, 255));
    const auto reason = in.string(QStringLiteral("reason"), textRule(true, 2000, BodyReader::Text::MultiLine));
    if (!scopeText.isEmpty() && !agentScope && agent)
        in.fail(QStringLiteral("agent"), QStringLiteral("is only given with scope agent"));
    if (!scopeText.isEmpty() && !accountScope && account)
        in.fail(QStringLiteral("account"), QStringLiteral("is only given with scope account"));
    if (!errors.isEmpty())
        return validationFailed(errors, instance);
    const auto paused = m_pauses->pause(scope, agent.value_or(QString()), account.value_or(QString()),
                                        reason.value_or(QString()), user.name);
    if (!paused.ok())
        return pauseFailure(paused.error(), QStringLiteral("already_paused"), instance);
    qCInfo(lcApi) << "execution paused by" << user.name << ":" << paused->what() << paused->id;
    return ApiResponse::json(201, paused->toJson());
}

ApiResponse ExecutionService::resume(const User &user, const QString &id, const QJsonObject &body, const QString &instance)
{
    QList<FieldError> errors;
    BodyReader in(body, &errors);
    in.refuseUnknown({QStringLiteral("note")});
    const auto note = in.string(QStringLiteral("note"), textRule(false, 2000, BodyReader::Text::MultiLine));
    if (!errors.isEmpty())
        return validationFailed(errors, instance);
    const auto resumed = m_pauses->resume(id, user.name, note.value_or(QString()));
    if (!resumed.ok())
        return pauseFailure(resumed.error(), QStringLiteral("already_resumed"), instance);
    qCInfo(lcApi) << "execution resumed by" << user.name << ":" << resumed->what() << resumed->id;
    return ApiResponse::json(200, resumed->toJson());
}

} // namespace cs
