#include "models/historyexport.h"
#include "models/actiondetail.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace cs {

namespace {

// The wire's integer `amount` becomes amount_minor, and `amount` the formatted string (null when
// there is no money to format).
QJsonObject withMoney(QJsonObject json, qint64 minorUnits, const QString &currency, bool hasMoney)
{
    const QString formatted = hasMoney ? formattedAmount(minorUnits, currency) : QString();
    json.insert(QStringLiteral("amount_minor"), QJsonValue(minorUnits));
    json.insert(QStringLiteral("amount"), formatted.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(formatted));
    return json;
}

QJsonObject actionJson(const ActionRecord &record)
{
    return withMoney(record.toJson(), record.amount, record.currency, true);
}

QJsonObject lookupJson(const ProviderLookup &lookup)
{
    return withMoney(lookup.toJson(), lookup.amount, lookup.currency, lookup.result == ProviderLookup::Result::Found);
}

QString timeOrEmpty(const QDateTime &time)
{
    return time.isValid() ? toWireTime(time) : QString();
}

QString statusOrEmpty(int httpStatus)
{
    return httpStatus > 0 ? QString::number(httpStatus) : QString();
}

QString compact(const QJsonObject &json)
{
    return QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Compact));
}

template <typename T, typename ToJson>
QJsonArray arrayOf(const QList<T> &items, ToJson toJson)
{
    QJsonArray out;
    for (const T &item : items)
        out.append(toJson(item));
    return out;
}

// One CSV row: the columns in columns() order.
struct Row
{
    QString section;
    QString seq;
    QString at;
    QString actor;
    QString event;
    QString outcome;
    QString amountMinor;
    QString amount;
    QString currency;
    QString providerObjectId;
    QString httpStatus;
    QString note;
    QJsonObject detail;

    QByteArray csv(const QString &actionId) const
    {
        return csv::record({actionId, section, seq, at, actor, event, outcome, amountMinor, amount, currency,
                            providerObjectId, httpStatus, note, compact(detail)});
    }
};

QString approvalOutcome(const Approval &approval)
{
    if (approval.decision == Approval::Decision::Rejected)
        return approval.rejectionReason;
    return approval.expiredAt.isValid() ? QStringLiteral("expired") : QString();
}

} // namespace

ActionHistory ActionHistory::fromDetail(const ActionDetail &detail)
{
    return {detail.record, detail.attempts, detail.lookups, detail.approvals, detail.reconciliations, detail.audit};
}

const QStringList &HistoryExport::columns()
{
    static const QStringList names = {
        QStringLiteral("action_id"),    QStringLiteral("section"),  QStringLiteral("seq"),
        QStringLiteral("at"),           QStringLiteral("actor"),    QStringLiteral("event"),
        QStringLiteral("outcome"),      QStringLiteral("amount_minor"), QStringLiteral("amount"),
        QStringLiteral("currency"),     QStringLiteral("provider_object_id"), QStringLiteral("http_status"),
        QStringLiteral("note"),         QStringLiteral("detail"),
    };
    return names;
}

QJsonObject HistoryExport::toJson(const ActionHistory &history)
{
    return QJsonObject{
        {QStringLiteral("action"), actionJson(history.record)},
        {QStringLiteral("attempts"), arrayOf(history.attempts, [](const Attempt &a) { return a.toJson(); })},
        {QStringLiteral("lookups"), arrayOf(history.lookups, lookupJson)},
        {QStringLiteral("approvals"), arrayOf(history.approvals, [](const Approval &a) { return a.toJson(); })},
        {QStringLiteral("reconciliations"),
         arrayOf(history.reconciliations, [](const Reconciliation &r) { return r.toJson(); })},
        {QStringLiteral("audit"), arrayOf(history.audit, [](const AuditEvent &e) { return e.toJson(); })},
    };
}

QByteArray HistoryExport::write(const ActionHistory &history, ExportFormat format)
{
    if (format == ExportFormat::Json)
        return QJsonDocument(toJson(history)).toJson(QJsonDocument::Indented);

    const ActionRecord &r = history.record;
    const QString &id = r.id;
    QByteArray out = csv::record(columns());
    out += Row{QStringLiteral("action"), QString(), timeOrEmpty(r.createdAt), r.requestedBy, r.kind, toWire(r.state),
               QString::number(r.amount), formattedAmount(r.amount, r.currency), r.currency, QString(), QString(),
               r.reviewReason, actionJson(r)}
               .csv(id);
    for (const Attempt &a : history.attempts) {
        out += Row{QStringLiteral("attempt"), QString::number(a.seq), timeOrEmpty(a.startedAt), a.executor,
                   QStringLiteral("attempt"), toWire(a.outcome), QString(), QString(), QString(), a.providerObjectId,
                   statusOrEmpty(a.httpStatus), a.errorCode, a.toJson()}
                   .csv(id);
    }
    for (const ProviderLookup &l : history.lookups) {
        const bool found = l.result == ProviderLookup::Result::Found;
        out += Row{QStringLiteral("lookup"), QString::number(l.seq), timeOrEmpty(l.at), l.askedBy, toWire(l.method),
                   toWire(l.result), found ? QString::number(l.amount) : QString(),
                   found ? formattedAmount(l.amount, l.currency) : QString(), found ? l.currency : QString(),
                   l.providerObjectId, statusOrEmpty(l.httpStatus), l.status, lookupJson(l)}
                   .csv(id);
    }
    for (const Approval &a : history.approvals) {
        out += Row{QStringLiteral("approval"), QString::number(a.version), timeOrEmpty(a.decidedAt), a.decidedBy,
                   toWire(a.decision), approvalOutcome(a), QString(), QString(), QString(), QString(), QString(),
                   a.note, a.toJson()}
                   .csv(id);
    }
    for (const Reconciliation &c : history.reconciliations) {
        out += Row{QStringLiteral("reconciliation"), QString::number(c.seq), timeOrEmpty(c.decidedAt), c.decidedBy,
                   QStringLiteral("reconciled"), toWire(c.outcome), QString(), QString(), QString(), QString(),
                   QString(), c.note, c.toJson()}
                   .csv(id);
    }
    for (const AuditEvent &e : history.audit) {
        out += Row{QStringLiteral("audit"), QString::number(e.seq), timeOrEmpty(e.at), e.actor, e.event, QString(),
                   QString(), QString(), QString(), QString(), QString(), e.reason, e.toJson()}
                   .csv(id);
    }
    return out;
}

} // namespace cs
