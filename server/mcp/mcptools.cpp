#include "server/mcp/mcptools.h"

#include "server/api/bodyreader.h"
#include "server/api/proposalparser.h"
#include "server/mcp/decisionwait.h"
#include "server/mcp/mcplog.h"

#include "models/evidencerule.h"
#include "models/money.h"

#include <QJsonDocument>
#include <QUrl>
#include <QUrlQuery>

namespace cs {

namespace {

const QStringList &states()
{
    static const QStringList all = {QStringLiteral("PENDING"), QStringLiteral("EXECUTING"),
                                    QStringLiteral("COMPLETED"), QStringLiteral("REJECTED"),
                                    QStringLiteral("CONFIRMATION_UNKNOWN"), QStringLiteral("REQUIRES_REVIEW")};
    return all;
}

QJsonObject str(const QString &description)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}, {QStringLiteral("description"), description}};
}

QJsonObject integer(const QString &description, qint64 minimum, qint64 maximum)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")},
                       {QStringLiteral("minimum"), minimum},
                       {QStringLiteral("maximum"), maximum},
                       {QStringLiteral("description"), description}};
}

QJsonObject objectSchema(const QJsonObject &properties, const QStringList &required, bool closed = true)
{
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("object")}, {QStringLiteral("properties"), properties}};
    if (!required.isEmpty())
        schema.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
    if (closed)
        schema.insert(QStringLiteral("additionalProperties"), false);
    return schema;
}

const QString actionIdPattern = QStringLiteral("act_[a-z2-7]{24}");

QJsonObject actionIdSchema()
{
    QJsonObject id = str(QStringLiteral("The action's id, as propose_refund or list_my_actions answered it (act_…)."));
    id.insert(QStringLiteral("pattern"), QString(u'^' + actionIdPattern + u'$'));
    return id;
}

// The members every action result has (actionView()).
QJsonObject actionProperties()
{
    QJsonObject stateSchema = str(QStringLiteral("PENDING (awaiting approval, or approved and queued), EXECUTING, "
                                                 "COMPLETED, REJECTED, CONFIRMATION_UNKNOWN (the provider's answer was "
                                                 "lost; being confirmed), REQUIRES_REVIEW (a human reviews it)."));
    stateSchema.insert(QStringLiteral("enum"), QJsonArray::fromStringList(states()));
    const QJsonObject approval = objectSchema(
        QJsonObject{{QStringLiteral("decision"), str(QStringLiteral("approved or rejected"))},
                    {QStringLiteral("decided_by"), str(QStringLiteral("The human (or policy) who decided."))},
                    {QStringLiteral("decided_at"), str(QStringLiteral("UTC timestamp."))},
                    {QStringLiteral("reason"), str(QStringLiteral("For a rejection, why (wrong_amount, duplicate, not_eligible, needs_information, other)."))},
                    {QStringLiteral("note"), str(QStringLiteral("The decider's note."))}},
        {QStringLiteral("decision"), QStringLiteral("decided_by"), QStringLiteral("decided_at"),
         QStringLiteral("reason"), QStringLiteral("note")});
    const QJsonObject attempts = objectSchema(
        QJsonObject{{QStringLiteral("count"), integer(QStringLiteral("Requests sent to the provider so far."), 0, 1000000)},
                    {QStringLiteral("last_outcome"), str(QStringLiteral("The last request's outcome (succeeded, rejected, unknown, …); \"\" if none."))},
                    {QStringLiteral("last_error_code"), str(QStringLiteral("The provider's error code of the last request; \"\" if none."))}},
        {QStringLiteral("count"), QStringLiteral("last_outcome"), QStringLiteral("last_error_code")});
    return QJsonObject{
        {QStringLiteral("action_id"), str(QStringLiteral("The action (act_…)."))},
        {QStringLiteral("state"), stateSchema},
        {QStringLiteral("state_version"), integer(QStringLiteral("Bumped by every change."), 1, 9007199254740991)},
        {QStringLiteral("amount"), integer(QStringLiteral("Integer minor units (4000 = 40.00 USD)."), 0, Money::MaxMinorUnits)},
        {QStringLiteral("currency"), str(QStringLiteral("Lowercase ISO-4217 code."))},
        {QStringLiteral("charge"), str(QStringLiteral("The charge refunded (ch_…); \"\" when a payment intent is."))},
        {QStringLiteral("payment_intent"), str(QStringLiteral("The payment intent refunded (pi_…); \"\" when a charge is."))},
        {QStringLiteral("reason"), str(QStringLiteral("The refund reason given to the provider; may be \"\"."))},
        {QStringLiteral("business_reference"), str(QStringLiteral("The order or case it belongs to; may be \"\"."))},
        {QStringLiteral("client_reference"), str(QStringLiteral("Your reference for this business action."))},
        {QStringLiteral("created_at"), str(QStringLiteral("UTC timestamp."))},
        {QStringLiteral("updated_at"), str(QStringLiteral("UTC timestamp."))},
        {QStringLiteral("final"), QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")},
                                             {QStringLiteral("description"), QStringLiteral("COMPLETED or REJECTED: the state will not change any more (a COMPLETED refund's refund_status still may, until it settles).")}}},
        {QStringLiteral("waiting_for"), str(QStringLiteral("What the action waits for now, in one sentence (or why nothing)."))},
        {QStringLiteral("refund_id"), str(QStringLiteral("The provider's refund (re_…) once COMPLETED; \"\" before."))},
        {QStringLiteral("refund_status"),
         str(QStringLiteral("Once COMPLETED, the refund's status at the provider as Countersign last learned it: pending (on its "
                            "way: not arrived yet), succeeded, failed or canceled (accepted, then failed: the customer was NOT "
                            "refunded; a human decides what follows), requires_action; \"\" before COMPLETED or when not known."))},
        {QStringLiteral("review_reason"), str(QStringLiteral("Why it is under human review; \"\" otherwise."))},
        {QStringLiteral("approvals"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), approval},
                                                 {QStringLiteral("description"), QStringLiteral("Human decisions so far, oldest first.")}}},
        {QStringLiteral("approvals_required"), integer(QStringLiteral("Distinct approvers the action needs."), 1, 10)},
        {QStringLiteral("approvals_given"), integer(QStringLiteral("Approvers who signed so far."), 0, 10)},
        {QStringLiteral("attempts"), attempts},
    };
}

QStringList actionRequired()
{
    return actionProperties().keys();
}

QJsonObject annotations(const QString &title, bool readOnly)
{
    QJsonObject a{{QStringLiteral("title"), title},
                  {QStringLiteral("readOnlyHint"), readOnly},
                  {QStringLiteral("openWorldHint"), false}};
    if (!readOnly) {
        a.insert(QStringLiteral("destructiveHint"), false); // it proposes; a human approves; it sends nothing
        a.insert(QStringLiteral("idempotentHint"), true);   // same client_reference + same payload → the same action
    }
    return a;
}

// One tools/list entry; the annotations' title is the tool's.
QJsonObject tool(const QString &name, const QString &title, const QString &description, const QJsonObject &input,
                 const QJsonObject &output, bool readOnly)
{
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("title"), title},
                       {QStringLiteral("description"), description},
                       {QStringLiteral("inputSchema"), input},
                       {QStringLiteral("outputSchema"), output},
                       {QStringLiteral("annotations"), annotations(title, readOnly)}};
}

QJsonObject textItem(const QString &text)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}};
}

QString compact(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

McpTools::Outcome success(const QString &text, const QJsonObject &structured)
{
    const QJsonObject clean = McpTools::withoutKeys(structured).toObject();
    McpTools::Outcome out;
    out.result = QJsonObject{{QStringLiteral("content"), QJsonArray{textItem(text), textItem(compact(clean))}},
                             {QStringLiteral("structuredContent"), clean},
                             {QStringLiteral("isError"), false}};
    return out;
}

McpTools::Outcome failure(const QString &text, const QJsonObject &details)
{
    McpTools::Outcome out;
    out.result = QJsonObject{
        {QStringLiteral("content"), QJsonArray{textItem(text), textItem(compact(McpTools::withoutKeys(details).toObject()))}},
        {QStringLiteral("isError"), true}};
    return out;
}

QJsonArray fieldErrorsJson(const QList<FieldError> &errors)
{
    QJsonArray out;
    for (const FieldError &e : errors)
        out.append(QJsonObject{{QStringLiteral("field"), e.field}, {QStringLiteral("message"), e.message}});
    return out;
}

QString fieldErrorsText(const QList<FieldError> &errors)
{
    QStringList parts;
    for (const FieldError &e : errors)
        parts.append(QString(e.field + u": " + e.message));
    return parts.join(QStringLiteral("; "));
}

QString amountText(qint64 amount, const QString &currency)
{
    if (const auto money = Money::fromMinorUnits(amount, currency))
        return money->format();
    return QStringLiteral("%1 %2 (minor units)").arg(amount).arg(currency);
}

// The REST API's member names as the flat arguments name them.
QString flatField(const QString &field)
{
    if (field == u"target.charge" || field == u"target")
        return QStringLiteral("charge");
    if (field == u"target.payment_intent")
        return QStringLiteral("payment_intent");
    if (field == u"justification")
        return QStringLiteral("note");
    return field;
}

QList<FieldError> flatErrors(const QJsonArray &errors)
{
    QList<FieldError> out;
    for (const QJsonValue &e : errors) {
        const QJsonObject o = e.toObject();
        const QString field = o.value(QStringLiteral("field")).toString();
        QString message = o.value(QStringLiteral("message")).toString();
        if (field == u"target")
            message = QStringLiteral("give exactly one of \"charge\" or \"payment_intent\"");
        out.append(FieldError{flatField(field), message});
    }
    return out;
}

// A proposal payload (ProposalPayload, flattened) as the tools name its members.
QJsonObject flatPayload(const QJsonObject &payload)
{
    const QJsonObject target = payload.value(QStringLiteral("target")).toObject();
    return QJsonObject{{QStringLiteral("charge"), target.value(QStringLiteral("charge")).toString()},
                       {QStringLiteral("payment_intent"), target.value(QStringLiteral("payment_intent")).toString()},
                       {QStringLiteral("amount"), payload.value(QStringLiteral("amount"))},
                       {QStringLiteral("currency"), payload.value(QStringLiteral("currency")).toString().toLower()},
                       {QStringLiteral("reason"), payload.value(QStringLiteral("reason")).toString()},
                       {QStringLiteral("business_reference"), payload.value(QStringLiteral("business_reference")).toString()},
                       {QStringLiteral("note"), payload.value(QStringLiteral("justification")).toString()}};
}

QString payloadText(const QJsonObject &flat)
{
    const QString target = flat.value(QStringLiteral("charge")).toString().isEmpty()
                               ? flat.value(QStringLiteral("payment_intent")).toString()
                               : flat.value(QStringLiteral("charge")).toString();
    return QString(amountText(flat.value(QStringLiteral("amount")).toInteger(), flat.value(QStringLiteral("currency")).toString())
                   + u" on " + target);
}

QString problemText(const McpBackend::Reply &reply)
{
    return QStringLiteral("%1 %2: %3")
        .arg(reply.status)
        .arg(reply.body.value(QStringLiteral("code")).toString(), reply.body.value(QStringLiteral("detail")).toString());
}

// The problem's members an agent can act on (type, title and instance are for HTTP clients).
QJsonObject problemDetails(const McpBackend::Reply &reply)
{
    QJsonObject details = reply.body;
    details.remove(QStringLiteral("type"));
    details.remove(QStringLiteral("title"));
    details.remove(QStringLiteral("instance"));
    if (details.contains(QStringLiteral("errors")))
        details.insert(QStringLiteral("errors"), fieldErrorsJson(flatErrors(details.value(QStringLiteral("errors")).toArray())));
    details.insert(QStringLiteral("status"), reply.status);
    if (reply.retryAfterSeconds >= 0)
        details.insert(QStringLiteral("retry_after_seconds"), reply.retryAfterSeconds);
    return details;
}

// Any answer a tool does not handle itself: a transport failure, a refused token, 5xx, 429.
McpTools::Outcome backendFailure(const McpBackend::Reply &reply, bool proposing)
{
    if (reply.status == 0) {
        const QString text = proposing
            ? QStringLiteral("Countersign did not answer (%1): the proposal may or may not have been recorded. "
                             "Call propose_refund again with exactly the same arguments, the same client_reference "
                             "included: it returns the same action and never makes a second one. Never switch to a "
                             "new client_reference.").arg(reply.failure)
            : QStringLiteral("Countersign did not answer (%1). Nothing changed; try the same call again shortly.")
                  .arg(reply.failure);
        return failure(text, QJsonObject{{QStringLiteral("code"), QStringLiteral("no_answer")},
                                         {QStringLiteral("detail"), reply.failure}});
    }
    const int status = reply.status;
    QString text;
    if (status == 401 || status == 403) {
        text = QStringLiteral("Countersign refused this agent's credentials (%1). Nothing was done. The MCP server's "
                              "token is wrong, expired or disabled: tell the user; retrying will not help.")
                   .arg(problemText(reply));
    } else if (status == 429 || status == 503) {
        text = QStringLiteral("Countersign is busy (%1). Nothing was done; retry the same call later%2.")
                   .arg(problemText(reply),
                        reply.retryAfterSeconds >= 0 ? QStringLiteral(", after %1 s").arg(reply.retryAfterSeconds) : QString());
    } else {
        text = QStringLiteral("Countersign refused the call (%1). Nothing was recorded.").arg(problemText(reply));
    }
    return failure(text, problemDetails(reply));
}

QString waitingFor(const QJsonObject &a, const QString &refundId)
{
    const QString state = a.value(QStringLiteral("state")).toString();
    const QJsonArray approvals = a.value(QStringLiteral("approvals")).toArray();
    if (state == u"PENDING") {
        if (a.value(QStringLiteral("approval_version")).toInteger() > 0)
            return QStringLiteral("Approved; waiting for Countersign to send it to the provider (execution may be paused).");
        const qint64 required = a.value(QStringLiteral("approvals_required")).toInteger(1);
        if (required > 1)
            return QStringLiteral("Waiting for human approval: %1 of %2 approvers have signed.")
                .arg(a.value(QStringLiteral("approvals_given")).toArray().size())
                .arg(required);
        return QStringLiteral("Waiting for a human approver to approve or reject it. Nothing has been sent.");
    }
    if (state == u"EXECUTING")
        return QStringLiteral("Approved and being sent to the provider now.");
    if (state == u"CONFIRMATION_UNKNOWN")
        return QStringLiteral("The provider's answer was lost; Countersign is confirming whether the refund happened. "
                              "Do not propose it again: ask get_action later.");
    if (state == u"REQUIRES_REVIEW")
        return QStringLiteral("A human supervisor is reviewing it (%1). Do not propose it again: ask get_action later.")
            .arg(a.value(QStringLiteral("review_reason")).toString());
    if (state == u"COMPLETED") {
        // What became of the refund after the provider accepted it (docs/SETTLEMENT.md).
        const QJsonObject settlement = a.value(QStringLiteral("settlement")).toObject();
        const QString status = settlement.value(QStringLiteral("status")).toString();
        const QString attention = settlement.value(QStringLiteral("attention")).toString();
        if (status == u"pending" || status == u"requires_action")
            return QStringLiteral("The provider accepted refund %1; it is still %2 at the provider and Countersign follows it "
                                  "until it settles. Tell the customer it is on its way, not that it has arrived; ask "
                                  "get_action later.").arg(refundId, status);
        if (status == u"failed" || status == u"canceled") {
            const QString reason = settlement.value(QStringLiteral("failure_reason")).toString();
            const QString what = QStringLiteral("The provider accepted refund %1, then it %2%3: the customer has NOT been "
                                                "refunded.").arg(refundId, status,
                                                                 reason.isEmpty() ? QString() : QString(u" (" + reason + u")"));
            if (attention == u"followed_up")
                return QStringLiteral("%1 A supervisor re-proposed it as a new operation, %2, with its own approval: follow "
                                      "that action.").arg(what, settlement.value(QStringLiteral("follow_up_id")).toString());
            if (attention == u"closed")
                return QStringLiteral("%1 A supervisor closed it without re-sending: %2.")
                    .arg(what, settlement.value(QStringLiteral("resolution_note")).toString());
            return QStringLiteral("%1 A human supervisor decides what happens next. Do not propose it again yourself: ask "
                                  "get_action later.").arg(what);
        }
        return QStringLiteral("Nothing: the refund %1 was made at the provider.").arg(refundId);
    }
    if (state == u"REJECTED") {
        for (qsizetype i = approvals.size() - 1; i >= 0; --i) {
            const QJsonObject ap = approvals.at(i).toObject();
            if (ap.value(QStringLiteral("decision")).toString() == u"rejected")
                return QStringLiteral("Nothing: rejected by %1 (%2%3).")
                    .arg(ap.value(QStringLiteral("decided_by")).toString(), ap.value(QStringLiteral("reason")).toString(),
                         ap.value(QStringLiteral("note")).toString().isEmpty()
                             ? QString()
                             : QString(u": " + ap.value(QStringLiteral("note")).toString()));
        }
        return QStringLiteral("Nothing: the provider refused the refund.");
    }
    return QString();
}

bool settled(const QString &state)
{
    return state != u"PENDING" && state != u"EXECUTING";
}

} // namespace

McpTools::McpTools(McpBackend *backend, QObject *parent)
    : QObject(parent)
    , m_backend(backend)
{
}

QJsonArray McpTools::definitions()
{
    QJsonObject charge = str(QStringLiteral("The charge to refund (ch_…). Give exactly one of charge or payment_intent."));
    charge.insert(QStringLiteral("pattern"), QStringLiteral("^ch_[A-Za-z0-9_]{1,250}$"));
    QJsonObject intent = str(QStringLiteral("The payment intent to refund (pi_…). Give exactly one of charge or payment_intent."));
    intent.insert(QStringLiteral("pattern"), QStringLiteral("^pi_[A-Za-z0-9_]{1,250}$"));
    QJsonObject currency = str(QStringLiteral("ISO-4217 code, such as \"usd\"."));
    currency.insert(QStringLiteral("pattern"), QStringLiteral("^[A-Za-z]{3}$"));
    QJsonObject reason = str(QStringLiteral("The refund reason the provider records."));
    reason.insert(QStringLiteral("enum"), QJsonArray{QStringLiteral("duplicate"), QStringLiteral("fraudulent"),
                                                     QStringLiteral("requested_by_customer")});
    QJsonObject business = str(QStringLiteral("The order or case this refund belongs to (shown to the approver)."));
    business.insert(QStringLiteral("maxLength"), 255);
    QJsonObject reference = str(QStringLiteral(
        "Your own stable reference for this one business action (e.g. \"order-4821-refund\"). Choose it once and "
        "reuse it on every retry of this refund: the same reference and payload return the same action."));
    reference.insert(QStringLiteral("minLength"), 1);
    reference.insert(QStringLiteral("maxLength"), 255);
    QJsonObject note = str(QStringLiteral("Why the refund is due, for the human approver (never sent to the provider)."));
    note.insert(QStringLiteral("maxLength"), 2000);

    const QJsonObject proposeInput = objectSchema(
        QJsonObject{{QStringLiteral("charge"), charge},
                    {QStringLiteral("payment_intent"), intent},
                    {QStringLiteral("amount"), integer(QStringLiteral("Integer minor units: 4000 is 40.00 USD. Never a decimal."), 1, Money::MaxMinorUnits)},
                    {QStringLiteral("currency"), currency},
                    {QStringLiteral("reason"), reason},
                    {QStringLiteral("business_reference"), business},
                    {QStringLiteral("client_reference"), reference},
                    {QStringLiteral("note"), note}},
        {QStringLiteral("amount"), QStringLiteral("currency"), QStringLiteral("client_reference")});

    QJsonObject proposeOutputProps = actionProperties();
    proposeOutputProps.insert(QStringLiteral("created"),
                              QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")},
                                          {QStringLiteral("description"), QStringLiteral("true: recorded now; false: this client_reference was already proposed with the same payload, and this is that action.")}});
    QStringList proposeRequired = actionRequired();
    proposeRequired.append(QStringLiteral("created"));

    QJsonObject timeout = integer(QStringLiteral("How long to wait at most, in seconds (default 25)."), 0, MaxWaitSeconds);
    QJsonObject waitProps = actionProperties();
    waitProps.insert(QStringLiteral("timed_out"),
                     QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")},
                                 {QStringLiteral("description"), QStringLiteral("true: still PENDING or EXECUTING at the timeout; call again to keep waiting.")}});
    waitProps.insert(QStringLiteral("waited_seconds"), QJsonObject{{QStringLiteral("type"), QStringLiteral("number")}});
    QStringList waitRequired = actionRequired();
    waitRequired << QStringLiteral("timed_out") << QStringLiteral("waited_seconds");

    QJsonObject stateFilter = str(QStringLiteral("Only actions in this state."));
    stateFilter.insert(QStringLiteral("enum"), QJsonArray::fromStringList(states()));
    QJsonObject cursor = str(QStringLiteral("next_cursor of the previous page."));
    cursor.insert(QStringLiteral("maxLength"), 512);
    const QJsonObject row = objectSchema(
        QJsonObject{{QStringLiteral("action_id"), str(QStringLiteral("act_…"))},
                    {QStringLiteral("state"), str(QStringLiteral("One of the six states."))},
                    {QStringLiteral("amount"), integer(QStringLiteral("Integer minor units."), 0, Money::MaxMinorUnits)},
                    {QStringLiteral("currency"), str(QStringLiteral("Lowercase ISO-4217."))},
                    {QStringLiteral("charge"), str(QStringLiteral("ch_… or \"\"."))},
                    {QStringLiteral("payment_intent"), str(QStringLiteral("pi_… or \"\"."))},
                    {QStringLiteral("business_reference"), str(QString())},
                    {QStringLiteral("created_at"), str(QString())},
                    {QStringLiteral("updated_at"), str(QString())},
                    {QStringLiteral("review_reason"), str(QString())}},
        {QStringLiteral("action_id"), QStringLiteral("state"), QStringLiteral("amount"), QStringLiteral("currency"),
         QStringLiteral("charge"), QStringLiteral("payment_intent"), QStringLiteral("business_reference"),
         QStringLiteral("created_at"), QStringLiteral("updated_at"), QStringLiteral("review_reason")});
    QJsonObject counts{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("additionalProperties"), QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")}}},
                       {QStringLiteral("description"), QStringLiteral("How many of your actions are in each state.")}};
    const QJsonObject listOutput = objectSchema(
        QJsonObject{{QStringLiteral("actions"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), row}}},
                    {QStringLiteral("next_cursor"), QJsonObject{{QStringLiteral("type"), QJsonArray{QStringLiteral("string"), QStringLiteral("null")}},
                                                                {QStringLiteral("description"), QStringLiteral("Pass as cursor for the next page; null on the last page.")}}},
                    {QStringLiteral("counts"), counts}},
        {QStringLiteral("actions"), QStringLiteral("next_cursor"), QStringLiteral("counts")});

    const QJsonObject idOnly = objectSchema(QJsonObject{{QStringLiteral("action_id"), actionIdSchema()}},
                                            {QStringLiteral("action_id")});
    return QJsonArray{
        tool(QStringLiteral("propose_refund"), QStringLiteral("Propose a refund"),
             QStringLiteral("Proposes a refund for a human to approve; it sends nothing to the payment provider "
                            "itself. Idempotent by client_reference: calling it again with the same reference and "
                            "the same arguments returns the same action. After a timeout or a lost answer, call it "
                            "again with exactly the same arguments; never invent a new client_reference for the "
                            "same refund. Returns action_id; then use wait_for_decision."),
             proposeInput,
             objectSchema(proposeOutputProps, proposeRequired, false), false),
        tool(QStringLiteral("get_action"), QStringLiteral("Get an action"),
             QStringLiteral("One of your actions now: its state, amount, the human decisions, the provider "
                            "attempts, the provider's refund id once COMPLETED, and what it is waiting for."),
             idOnly,
             objectSchema(actionProperties(), actionRequired(), false), true),
        tool(QStringLiteral("wait_for_decision"), QStringLiteral("Wait for the decision"),
             QStringLiteral("Waits until the action leaves PENDING and EXECUTING (approved and sent, rejected, or "
                            "under review), or until timeout_seconds (at most 60) pass; answers the state either "
                            "way. Sends progress notifications when the request has a progress token."),
             objectSchema(QJsonObject{{QStringLiteral("action_id"), actionIdSchema()},
                                      {QStringLiteral("timeout_seconds"), timeout}},
                          {QStringLiteral("action_id")}),
             objectSchema(waitProps, waitRequired, false), true),
        tool(QStringLiteral("list_my_actions"), QStringLiteral("List my actions"),
             QStringLiteral("Your own actions, newest first, a page at a time. Use it to find an action whose "
                            "id you lost."),
             objectSchema(QJsonObject{{QStringLiteral("state"), stateFilter},
                                      {QStringLiteral("limit"), integer(QStringLiteral("Page size (default 20)."), 1, 200)},
                                      {QStringLiteral("cursor"), cursor}},
                          {}),
             listOutput, true),
    };
}

bool McpTools::exists(const QString &name)
{
    static const QStringList names = {QStringLiteral("propose_refund"), QStringLiteral("get_action"),
                                      QStringLiteral("wait_for_decision"), QStringLiteral("list_my_actions")};
    return names.contains(name);
}

QList<FieldError> McpTools::checkArguments(const QString &name, const QJsonObject &args, QJsonObject *restBody)
{
    QList<FieldError> errors;
    BodyReader in(args, &errors);
    if (name == u"propose_refund") {
        const QStringList known = {QStringLiteral("charge"), QStringLiteral("payment_intent"), QStringLiteral("amount"),
                                   QStringLiteral("currency"), QStringLiteral("reason"),
                                   QStringLiteral("business_reference"), QStringLiteral("client_reference"),
                                   QStringLiteral("note")};
        in.refuseUnknown(known);
        // The REST Proposal, checked by the API's own parser: what passes here passes there.
        QJsonObject target;
        for (const QString &member : {QStringLiteral("charge"), QStringLiteral("payment_intent")}) {
            if (args.contains(member))
                target.insert(member, args.value(member));
        }
        QJsonObject body{{QStringLiteral("kind"), QStringLiteral("refund")}, {QStringLiteral("target"), target}};
        for (const QString &member : {QStringLiteral("amount"), QStringLiteral("currency"), QStringLiteral("reason"),
                                      QStringLiteral("business_reference"), QStringLiteral("client_reference")}) {
            if (args.contains(member))
                body.insert(member, args.value(member));
        }
        if (args.contains(QStringLiteral("note")))
            body.insert(QStringLiteral("justification"), args.value(QStringLiteral("note")));
        QList<FieldError> rest;
        ProposalParser::parse(body, &rest);
        for (const FieldError &e : rest)
            errors.append(FieldError{flatField(e.field), e.field == u"target"
                                                             ? QStringLiteral("give exactly one of \"charge\" or \"payment_intent\"")
                                                             : e.message});
        if (restBody)
            *restBody = body;
        return errors;
    }
    BodyReader::StringRule id;
    id.required = true;
    id.pattern = actionIdPattern;
    id.patternDescription = QStringLiteral("must be an action id such as \"act_4n2kq7zx3m5p6r7s2t3v4w5y\"");
    if (name == u"get_action") {
        in.refuseUnknown({QStringLiteral("action_id")});
        in.string(QStringLiteral("action_id"), id);
    } else if (name == u"wait_for_decision") {
        in.refuseUnknown({QStringLiteral("action_id"), QStringLiteral("timeout_seconds")});
        in.string(QStringLiteral("action_id"), id);
        in.integer(QStringLiteral("timeout_seconds"), 0, MaxWaitSeconds, false);
    } else if (name == u"list_my_actions") {
        in.refuseUnknown({QStringLiteral("state"), QStringLiteral("limit"), QStringLiteral("cursor")});
        BodyReader::StringRule state;
        state.oneOf = states();
        in.string(QStringLiteral("state"), state);
        in.integer(QStringLiteral("limit"), 1, 200, false);
        BodyReader::StringRule cursor;
        cursor.maxLength = 512;
        in.string(QStringLiteral("cursor"), cursor);
    }
    return errors;
}

QJsonValue McpTools::withoutKeys(const QJsonValue &value)
{
    if (value.isObject()) {
        QJsonObject out;
        const QJsonObject in = value.toObject();
        for (auto it = in.constBegin(); it != in.constEnd(); ++it) {
            if (it.key() == u"idempotency_key")
                continue;
            out.insert(it.key(), withoutKeys(it.value()));
        }
        return out;
    }
    if (value.isArray()) {
        QJsonArray out;
        for (const QJsonValue &v : value.toArray())
            out.append(withoutKeys(v));
        return out;
    }
    return value;
}

QJsonObject McpTools::actionView(const QJsonObject &a)
{
    const QString state = a.value(QStringLiteral("state")).toString();
    const QJsonObject target = a.value(QStringLiteral("target")).toObject();

    QJsonArray approvals;
    for (const QJsonValue &v : a.value(QStringLiteral("approvals")).toArray()) {
        const QJsonObject ap = v.toObject();
        approvals.append(QJsonObject{{QStringLiteral("decision"), ap.value(QStringLiteral("decision")).toString()},
                                     {QStringLiteral("decided_by"), ap.value(QStringLiteral("decided_by")).toString()},
                                     {QStringLiteral("decided_at"), ap.value(QStringLiteral("decided_at")).toString()},
                                     {QStringLiteral("reason"), ap.value(QStringLiteral("reason")).toString()},
                                     {QStringLiteral("note"), ap.value(QStringLiteral("note")).toString()}});
    }
    const QJsonArray attempts = a.value(QStringLiteral("attempts")).toArray();
    const QJsonObject last = attempts.isEmpty() ? QJsonObject() : attempts.last().toObject();

    const QJsonObject settlement = a.value(QStringLiteral("settlement")).toObject();
    // Only once COMPLETED: the refund its settlement follows, or (completed before settlements
    // existed, migration 14) the one its attempts named — read from the API's JSON as far as the
    // rule needs it.
    std::optional<Settlement> followed;
    if (const QString id = settlement.value(QStringLiteral("refund_id")).toString(); !id.isEmpty()) {
        followed.emplace();
        followed->refundId = id;
    }
    QList<Attempt> named;
    for (const QJsonValue &v : attempts) {
        Attempt attempt;
        attempt.providerObjectId = v.toObject().value(QStringLiteral("provider_object_id")).toString();
        named << attempt;
    }
    const QString refundId = state == u"COMPLETED" ? refundOnRecord(followed, named) : QString();
    return QJsonObject{
        {QStringLiteral("action_id"), a.value(QStringLiteral("id")).toString()},
        {QStringLiteral("state"), state},
        {QStringLiteral("state_version"), a.value(QStringLiteral("state_version")).toInteger()},
        {QStringLiteral("amount"), a.value(QStringLiteral("amount")).toInteger()},
        {QStringLiteral("currency"), a.value(QStringLiteral("currency")).toString()},
        {QStringLiteral("charge"), target.value(QStringLiteral("charge")).toString()},
        {QStringLiteral("payment_intent"), target.value(QStringLiteral("payment_intent")).toString()},
        {QStringLiteral("reason"), a.value(QStringLiteral("reason")).toString()},
        {QStringLiteral("business_reference"), a.value(QStringLiteral("business_reference")).toString()},
        {QStringLiteral("client_reference"), a.value(QStringLiteral("client_reference")).toString()},
        {QStringLiteral("created_at"), a.value(QStringLiteral("created_at")).toString()},
        {QStringLiteral("updated_at"), a.value(QStringLiteral("updated_at")).toString()},
        {QStringLiteral("final"), state == u"COMPLETED" || state == u"REJECTED"},
        {QStringLiteral("waiting_for"), waitingFor(a, refundId)},
        {QStringLiteral("refund_id"), refundId},
        {QStringLiteral("refund_status"), state == u"COMPLETED" ? settlement.value(QStringLiteral("status")).toString() : QString()},
        {QStringLiteral("review_reason"), a.value(QStringLiteral("review_reason")).toString()},
        {QStringLiteral("approvals"), approvals},
        {QStringLiteral("approvals_required"), qMax<qint64>(1, a.value(QStringLiteral("approvals_required")).toInteger(1))},
        {QStringLiteral("approvals_given"), a.value(QStringLiteral("approvals_given")).toArray().size()},
        {QStringLiteral("attempts"), QJsonObject{{QStringLiteral("count"), attempts.size()},
                                                 {QStringLiteral("last_outcome"), last.value(QStringLiteral("outcome")).toString()},
                                                 {QStringLiteral("last_error_code"), last.value(QStringLiteral("error_code")).toString()}}},
    };
}

void McpTools::call(const QString &name, const QJsonObject &arguments, const Context &context, Done done)
{
    QJsonObject restBody;
    const QList<FieldError> errors = checkArguments(name, arguments, &restBody);
    if (!errors.isEmpty()) {
        const QString message = QString(u"Invalid arguments for " + name + u": " + fieldErrorsText(errors));
        if (context.argumentErrorsAsResults) {
            done(failure(QString(message + u". Nothing was recorded; correct the arguments and call again."),
                         QJsonObject{{QStringLiteral("code"), QStringLiteral("invalid_arguments")},
                                     {QStringLiteral("errors"), fieldErrorsJson(errors)}}));
        } else {
            Outcome out;
            out.invalidParams = true;
            out.message = message;
            out.errors = errors;
            done(out);
        }
        return;
    }
    if (name == u"propose_refund")
        propose(restBody, done);
    else if (name == u"get_action")
        getAction(arguments.value(QStringLiteral("action_id")).toString(), done);
    else if (name == u"wait_for_decision")
        waitForDecision(arguments.value(QStringLiteral("action_id")).toString(),
                        int(arguments.value(QStringLiteral("timeout_seconds")).toInteger(DefaultWaitSeconds)), context, done);
    else
        listMine(arguments, done);
}

void McpTools::propose(const QJsonObject &body, const Done &done)
{
    QPointer<McpTools> self(this);
    m_backend->request("POST", QStringLiteral("/actions"), body, [self, body, done](const McpBackend::Reply &reply) {
        if (!self)
            return;
        if (reply.status == 200 || reply.status == 201) {
            QJsonObject view = actionView(reply.body);
            const bool created = reply.status == 201;
            view.insert(QStringLiteral("created"), created);
            const QString id = view.value(QStringLiteral("action_id")).toString();
            const QString what = payloadText(flatPayload(reply.body));
            const QString text = created
                ? QStringLiteral("Proposed %1 as %2 (%3). A human approves or rejects it before anything is sent; "
                                 "call wait_for_decision with action_id \"%2\".").arg(what, id, view.value(QStringLiteral("state")).toString())
                : QStringLiteral("Already proposed: client_reference \"%1\" is action %2 (%3), with the same payload; "
                                 "nothing new was recorded. %4")
                      .arg(view.value(QStringLiteral("client_reference")).toString(), id,
                           view.value(QStringLiteral("state")).toString(), view.value(QStringLiteral("waiting_for")).toString());
            done(success(text, view));
            return;
        }
        const QString code = reply.body.value(QStringLiteral("code")).toString();
        if (reply.status == 409 && code == u"payload_mismatch") {
            self->reportMismatch(reply.body, body, done);
            return;
        }
        if (reply.status == 422) {
            const QJsonObject details = problemDetails(reply);
            QString text = QStringLiteral("Countersign refused the proposal (%1). Nothing was recorded.").arg(problemText(reply));
            if (code == u"exceeds_refundable")
                text = QStringLiteral("Countersign refused the proposal: %1 is more than the charge can still refund "
                                      "(%2 available). Nothing was recorded.")
                           .arg(amountText(details.value(QStringLiteral("requested")).toInteger(), details.value(QStringLiteral("currency")).toString()),
                                amountText(details.value(QStringLiteral("available")).toInteger(), details.value(QStringLiteral("currency")).toString()));
            else if (details.contains(QStringLiteral("errors")))
                text = QStringLiteral("Countersign refused the proposal: %1. Nothing was recorded.")
                           .arg(fieldErrorsText(flatErrors(reply.body.value(QStringLiteral("errors")).toArray())));
            done(failure(text, details));
            return;
        }
        done(backendFailure(reply, true));
    });
}

void McpTools::reportMismatch(const QJsonObject &problem, const QJsonObject &sent, const Done &done)
{
    const QString id = problem.value(QStringLiteral("action_id")).toString();
    const qint64 seq = problem.value(QStringLiteral("conflict_seq")).toInteger();
    const QString reference = sent.value(QStringLiteral("client_reference")).toString();
    QPointer<McpTools> self(this);
    m_backend->request("GET", QString(u"/actions/" + id), {}, [self, id, seq, reference, sent, done](const McpBackend::Reply &reply) {
        if (!self)
            return;
        QJsonObject sentFlat = flatPayload(sent);
        QJsonValue stored = QJsonValue::Null;
        QString state = QStringLiteral("REQUIRES_REVIEW");
        if (reply.status == 200) {
            state = reply.body.value(QStringLiteral("state")).toString();
            for (const QJsonValue &v : reply.body.value(QStringLiteral("conflicts")).toArray()) {
                const QJsonObject conflict = v.toObject();
                if (conflict.value(QStringLiteral("seq")).toInteger() == seq) {
                    stored = flatPayload(conflict.value(QStringLiteral("stored_payload")).toObject());
                    sentFlat = flatPayload(conflict.value(QStringLiteral("conflicting_payload")).toObject());
                }
            }
            if (stored.isNull())
                stored = flatPayload(reply.body);
        }
        const QString storedText = stored.isObject() ? payloadText(stored.toObject()) : QStringLiteral("(could not be read)");
        const QString text = QStringLiteral(
            "Refused: client_reference \"%1\" already belongs to action %2 with a different payload. The stored action is "
            "unchanged (stored: %3; you sent: %4) and nothing new was recorded. A human now reviews action %2 (state %5). "
            "Do not propose this refund again under another client_reference: tell the user that a human is reviewing "
            "it, and follow it with get_action \"%2\".")
            .arg(reference, id, storedText, payloadText(sentFlat), state);
        done(failure(text, QJsonObject{{QStringLiteral("code"), QStringLiteral("payload_mismatch")},
                                       {QStringLiteral("action_id"), id},
                                       {QStringLiteral("client_reference"), reference},
                                       {QStringLiteral("state"), state},
                                       {QStringLiteral("human_review"), true},
                                       {QStringLiteral("stored"), stored},
                                       {QStringLiteral("sent"), sentFlat}}));
    });
}

void McpTools::getAction(const QString &id, const Done &done)
{
    QPointer<McpTools> self(this);
    m_backend->request("GET", QString(u"/actions/" + id), {}, [self, id, done](const McpBackend::Reply &reply) {
        if (!self)
            return;
        if (reply.status == 200) {
            const QJsonObject view = actionView(reply.body);
            done(success(QStringLiteral("%1 is %2: %3").arg(id, view.value(QStringLiteral("state")).toString(),
                                                            view.value(QStringLiteral("waiting_for")).toString()),
                         view));
        } else if (reply.status == 404) {
            done(failure(QStringLiteral("No action %1 among yours.").arg(id),
                         QJsonObject{{QStringLiteral("code"), QStringLiteral("not_found")}, {QStringLiteral("action_id"), id}}));
        } else {
            done(backendFailure(reply, false));
        }
    });
}

namespace {

// What one read means to wait_for_decision: an answer ends the wait when the action has left
// PENDING and EXECUTING, when it is not (or no longer) the caller's, and at the deadline; a
// transient failure (no answer, 5xx) is read through until then.
std::optional<McpTools::Outcome> judgeWait(const QString &id, const McpBackend::Reply &reply, double waited, bool atDeadline)
{
    if (reply.status == 404)
        return failure(QStringLiteral("No action %1 among yours.").arg(id),
                       QJsonObject{{QStringLiteral("code"), QStringLiteral("not_found")}, {QStringLiteral("action_id"), id}});
    if (reply.status == 401 || reply.status == 403)
        return backendFailure(reply, false);
    if (reply.status != 200)
        return atDeadline ? std::optional(backendFailure(reply, false)) : std::nullopt;
    QJsonObject view = McpTools::actionView(reply.body);
    const QString state = view.value(QStringLiteral("state")).toString();
    if (!settled(state) && !atDeadline)
        return std::nullopt;
    const bool timedOut = !settled(state);
    view.insert(QStringLiteral("timed_out"), timedOut);
    view.insert(QStringLiteral("waited_seconds"), waited);
    const QString text = timedOut
        ? QStringLiteral("Still %1 after %2 s: %3 Call wait_for_decision again to keep waiting.")
              .arg(state).arg(qRound(waited)).arg(view.value(QStringLiteral("waiting_for")).toString())
        : QStringLiteral("%1 is %2: %3").arg(id, state, view.value(QStringLiteral("waiting_for")).toString());
    return success(text, view);
}

QString waitProgress(const McpBackend::Reply &reply)
{
    if (reply.status != 200)
        return QStringLiteral("waiting; Countersign did not answer the last read");
    const QJsonObject view = McpTools::actionView(reply.body);
    return QString(view.value(QStringLiteral("state")).toString() + u": " + view.value(QStringLiteral("waiting_for")).toString());
}

} // namespace

void McpTools::waitForDecision(const QString &id, int timeoutSeconds, const Context &context, const Done &done)
{
    DecisionWait::Setup setup;
    setup.backend = m_backend;
    setup.changes = m_changes;
    setup.actionId = id;
    setup.timeoutSeconds = timeoutSeconds;
    setup.context = context;
    setup.judge = [id](const McpBackend::Reply &reply, double waited, bool atDeadline) {
        return judgeWait(id, reply, waited, atDeadline);
    };
    setup.describe = waitProgress;
    setup.done = done;
    (new DecisionWait(std::move(setup), this))->start();
}

void McpTools::listMine(const QJsonObject &arguments, const Done &done)
{
    QUrlQuery query;
    if (arguments.contains(QStringLiteral("state")))
        query.addQueryItem(QStringLiteral("state"), arguments.value(QStringLiteral("state")).toString());
    query.addQueryItem(QStringLiteral("limit"), QString::number(arguments.value(QStringLiteral("limit")).toInteger(20)));
    const QString cursor = arguments.value(QStringLiteral("cursor")).toString();
    if (!cursor.isEmpty())
        query.addQueryItem(QStringLiteral("cursor"), cursor);
    QPointer<McpTools> self(this);
    m_backend->request("GET", QString(u"/actions?" + query.toString(QUrl::FullyEncoded)), {},
                       [self, done](const McpBackend::Reply &reply) {
        if (!self)
            return;
        if (reply.status != 200) {
            if (reply.status == 400 || reply.status == 422) {
                done(failure(QStringLiteral("Countersign refused the list (%1).").arg(problemText(reply)), problemDetails(reply)));
                return;
            }
            done(backendFailure(reply, false));
            return;
        }
        QJsonArray rows;
        for (const QJsonValue &v : reply.body.value(QStringLiteral("data")).toArray()) {
            const QJsonObject s = v.toObject();
            const QJsonObject target = s.value(QStringLiteral("target")).toObject();
            rows.append(QJsonObject{{QStringLiteral("action_id"), s.value(QStringLiteral("id")).toString()},
                                    {QStringLiteral("state"), s.value(QStringLiteral("state")).toString()},
                                    {QStringLiteral("amount"), s.value(QStringLiteral("amount")).toInteger()},
                                    {QStringLiteral("currency"), s.value(QStringLiteral("currency")).toString()},
                                    {QStringLiteral("charge"), target.value(QStringLiteral("charge")).toString()},
                                    {QStringLiteral("payment_intent"), target.value(QStringLiteral("payment_intent")).toString()},
                                    {QStringLiteral("business_reference"), s.value(QStringLiteral("business_reference")).toString()},
                                    {QStringLiteral("created_at"), s.value(QStringLiteral("created_at")).toString()},
                                    {QStringLiteral("updated_at"), s.value(QStringLiteral("updated_at")).toString()},
                                    {QStringLiteral("review_reason"), s.value(QStringLiteral("review_reason")).toString()}});
        }
        QJsonObject counts;
        const QJsonObject given = reply.body.value(QStringLiteral("counts")).toObject();
        for (auto it = given.constBegin(); it != given.constEnd(); ++it)
            counts.insert(it.key(), it.value().toInteger());
        const QJsonValue next = reply.body.value(QStringLiteral("next_cursor"));
        const QJsonObject structured{{QStringLiteral("actions"), rows},
                                     {QStringLiteral("next_cursor"), next.isString() ? next : QJsonValue(QJsonValue::Null)},
                                     {QStringLiteral("counts"), counts}};
        done(success(QStringLiteral("%1 of your actions on this page%2.")
                         .arg(rows.size())
                         .arg(next.isString() ? QStringLiteral("; more with cursor") : QString()),
                     structured));
    });
}

} // namespace cs
