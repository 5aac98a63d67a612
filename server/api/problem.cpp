#include "server/api/problem.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>

namespace cs {

namespace {

struct CodeInfo
{
    int status;
    const char *title;
};

const QHash<QString, CodeInfo> &codes()
{
    static const QHash<QString, CodeInfo> table = {
        {QStringLiteral("malformed_json"), {400, "Malformed JSON"}},
        {QStringLiteral("duplicate_member"), {400, "Duplicate member"}},
        {QStringLiteral("malformed_request"), {400, "Malformed request"}},
        {QStringLiteral("invalid_parameter"), {400, "Invalid parameter"}},
        {QStringLiteral("invalid_signature"), {400, "Invalid signature"}},
        {QStringLiteral("unauthenticated"), {401, "Unauthenticated"}},
        {QStringLiteral("token_expired"), {401, "Token expired"}},
        {QStringLiteral("token_disabled"), {401, "User disabled"}},
        {QStringLiteral("forbidden"), {403, "Forbidden"}},
        {QStringLiteral("four_eyes"), {403, "Four-eyes rule"}},
        {QStringLiteral("not_found"), {404, "Not found"}},
        {QStringLiteral("method_not_allowed"), {405, "Method not allowed"}},
        {QStringLiteral("request_timeout"), {408, "Request timeout"}},
        {QStringLiteral("payload_mismatch"), {409, "Changed resubmission"}},
        {QStringLiteral("illegal_state"), {409, "Illegal state"}},
        {QStringLiteral("already_approved"), {409, "Already approved"}},
        {QStringLiteral("already_signed"), {409, "Already signed"}},
        {QStringLiteral("no_policy_file"), {409, "No policy file"}},
        {QStringLiteral("already_sent"), {409, "Already sent"}},
        {QStringLiteral("fingerprint_mismatch"), {409, "Fingerprint mismatch"}},
        {QStringLiteral("outcome_unknown"), {409, "Outcome unknown"}},
        {QStringLiteral("not_original_action"), {409, "Not an original action"}},
        {QStringLiteral("already_paused"), {409, "Already paused"}},
        {QStringLiteral("already_resumed"), {409, "Already resumed"}},
        {QStringLiteral("in_flight"), {409, "Request in flight"}},
        {QStringLiteral("idempotency_key_in_flight"), {409, "Idempotency key in flight"}},
        {QStringLiteral("length_required"), {411, "Length required"}},
        {QStringLiteral("stale_state_version"), {412, "Stale state version"}},
        {QStringLiteral("payload_too_large"), {413, "Payload too large"}},
        {QStringLiteral("unsupported_media_type"), {415, "Unsupported media type"}},
        {QStringLiteral("validation_failed"), {422, "Validation failed"}},
        {QStringLiteral("idempotency_key_reuse"), {422, "Idempotency key reused"}},
        {QStringLiteral("no_evidence"), {422, "No evidence"}},
        {QStringLiteral("no_remaining_amount"), {422, "No remaining amount"}},
        {QStringLiteral("exceeds_refundable"), {422, "Exceeds the refundable amount"}},
        {QStringLiteral("note_required"), {422, "A note is required"}},
        {QStringLiteral("invalid_policy"), {422, "Invalid policy"}},
        {QStringLiteral("if_match_required"), {428, "If-Match required"}},
        {QStringLiteral("too_many_auth_failures"), {429, "Too many failed authentications"}},
        {QStringLiteral("header_too_large"), {431, "Request header fields too large"}},
        {QStringLiteral("internal"), {500, "Internal error"}},
        {QStringLiteral("provider_unavailable"), {502, "The provider did not answer"}},
        {QStringLiteral("unavailable"), {503, "Unavailable"}},
        {QStringLiteral("too_many_connections"), {503, "Too many connections"}},
        {QStringLiteral("http_version_not_supported"), {505, "HTTP version not supported"}},
    };
    return table;
}

} // namespace

Problem::Problem(QString code, QString detail)
    : m_code(std::move(code)), m_status(statusOf(m_code)), m_detail(std::move(detail))
{
}

Problem &Problem::withErrors(const QList<FieldError> &errors)
{
    QJsonArray array;
    for (const FieldError &error : errors)
        array.append(QJsonObject{{QStringLiteral("field"), error.field}, {QStringLiteral("message"), error.message}});
    m_extensions.insert(QStringLiteral("errors"), array);
    return *this;
}

Problem &Problem::with(const QString &member, const QJsonValue &value)
{
    m_extensions.insert(member, value);
    return *this;
}

Problem &Problem::withHeader(const QByteArray &name, const QByteArray &value)
{
    m_headers.append({name, value});
    return *this;
}

QString Problem::title() const
{
    const auto it = codes().constFind(m_code);
    return it == codes().constEnd() ? QStringLiteral("Error") : QString::fromLatin1(it->title);
}

int Problem::statusOf(const QString &code)
{
    const auto it = codes().constFind(code);
    return it == codes().constEnd() ? 500 : it->status;
}

QJsonObject Problem::toJson(const QString &instance) const
{
    QJsonObject json = m_extensions;
    json.insert(QStringLiteral("type"), QString(QStringLiteral("urn:countersign:problem:") + m_code));
    json.insert(QStringLiteral("title"), title());
    json.insert(QStringLiteral("status"), m_status);
    json.insert(QStringLiteral("code"), m_code);
    json.insert(QStringLiteral("detail"), m_detail);
    json.insert(QStringLiteral("instance"), instance);
    return json;
}

ApiResponse Problem::toResponse(const QString &instance) const
{
    ApiResponse response;
    response.status = m_status;
    response.contentType = "application/problem+json";
    response.body = QJsonDocument(toJson(instance)).toJson(QJsonDocument::Compact);
    response.headers = m_headers;
    response.problemCode = m_code;
    return response;
}

std::optional<Problem> storageProblem(const LedgerError &error, const QString &notDone)
{
    const bool damaged = error.code() == LedgerError::Code::Damaged;
    if (!damaged && error.code() != LedgerError::Code::CannotWrite)
        return std::nullopt;
    // The words before the driver's text ("the ledger's disk is full: database or disk is full").
    const QString reason = error.message().section(QStringLiteral(": "), 0, 0);
    Problem problem(QStringLiteral("unavailable"),
                    (damaged ? QStringLiteral("the ledger is damaged (%1); %2: an operator must restore it")
                             : QStringLiteral("the ledger cannot write (%1); %2: retry later"))
                        .arg(reason, notDone));
    problem.with(QStringLiteral("ledger"), damaged ? QStringLiteral("damaged") : QStringLiteral("cannot_write"));
    problem.withHeader("Retry-After", "30");
    return problem;
}

} // namespace cs
