#include "models/decisioncontext.h"

#include "models/displayformat.h"
#include "models/jsonfieldreader.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <cmath>

namespace cs {

using namespace wire;
using Need = FieldReader::Need;

namespace {

constexpr qint64 kMaxMinor = 1'000'000'000'000'000LL; // far above any amount, below 2^53
constexpr qint64 kMaxCount = std::numeric_limits<int>::max();

bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

// Each element of json[key] (an array; absent or null is empty) through read(object, &error).
template <typename T, typename Read>
bool readArray(const QJsonObject &json, QLatin1String key, QList<T> *out, QString *error, Read read)
{
    const QJsonValue value = json.value(key);
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isArray())
        return fail(error, key + QLatin1String(": must be an array"));
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        QString problem;
        std::optional<T> item = array.at(i).isObject() ? read(array.at(i).toObject(), &problem) : std::nullopt;
        if (!item)
            return fail(error, QStringLiteral("%1[%2]%3").arg(key).arg(i).arg(problem.isEmpty() ? QStringLiteral(": must be an object")
                                                                                                 : QLatin1Char('.') + problem));
        out->append(std::move(*item));
    }
    return true;
}

std::optional<ChargeView::Warning> warningFromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    ChargeView::Warning w;
    w.code = in.string(QLatin1String("code"), Need::Required, true);
    w.text = in.string(QLatin1String("text"), Need::Required);
    return finish(in, std::move(w), error);
}

std::optional<RequesterRecord::Total> totalFromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    RequesterRecord::Total t;
    t.currency = in.string(QLatin1String("currency"), Need::Required, true);
    t.count = in.integer(QLatin1String("count"), 0, kMaxCount);
    t.amount = in.integer(QLatin1String("amount"), 0, kMaxMinor);
    return finish(in, std::move(t), error);
}

// A share in [0, 1] or null.
std::optional<double> share(const QJsonObject &json, QLatin1String key, FieldReader &in)
{
    const QJsonValue value = json.value(key);
    if (value.isUndefined() || value.isNull())
        return std::nullopt;
    if (!value.isDouble() || value.toDouble() < 0 || value.toDouble() > 1) {
        in.fail(key, QStringLiteral("must be a number from 0 to 1, or null"));
        return std::nullopt;
    }
    return value.toDouble();
}

std::optional<RequesterRecord::Window> windowFromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    RequesterRecord::Window w;
    w.since = in.time(QLatin1String("since"));
    w.count = in.integer(QLatin1String("count"), 0, kMaxCount);
    w.rejected = in.integer(QLatin1String("rejected"), 0, kMaxCount, Need::Optional, 0);
    w.sentToReview = in.integer(QLatin1String("sent_to_review"), 0, kMaxCount, Need::Optional, 0);
    w.rejectedShare = share(json, QLatin1String("rejected_share"), in);
    w.sentToReviewShare = share(json, QLatin1String("sent_to_review_share"), in);
    QString problem;
    if (in.ok() && !readArray(json, QLatin1String("totals"), &w.totals, &problem, totalFromJson))
        in.fail(problem);
    return finish(in, std::move(w), error);
}

std::optional<Quorum::Signature> signatureFromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    Quorum::Signature s;
    s.approver = in.string(QLatin1String("approver"), Need::Required, true);
    s.signedAt = in.time(QLatin1String("signed_at"));
    return finish(in, std::move(s), error);
}

QString percent(const std::optional<double> &share)
{
    return share ? QStringLiteral("%1%").arg(std::lround(*share * 100)) : QStringLiteral("\u2014");
}

} // namespace

std::optional<ChargeView> ChargeView::fromJson(const QJsonObject &json, QString *error)
{
    ChargeView view;
    QString problem;
    const QJsonValue snapshot = json.value(QLatin1String("snapshot"));
    if (!snapshot.isObject()) {
        fail(error, QStringLiteral("snapshot: must be an object"));
        return std::nullopt;
    }
    std::optional<ChargeSnapshot> read = ChargeSnapshot::fromJson(snapshot.toObject(), &problem);
    if (!read) {
        fail(error, QStringLiteral("snapshot.") + problem);
        return std::nullopt;
    }
    view.snapshot = std::move(*read);
    view.snapshotSeq = int(snapshot.toObject().value(QLatin1String("seq")).toInteger(0));

    const QJsonObject budget = json.value(QLatin1String("budget")).toObject();
    std::optional<ChargeBudget> b = ChargeBudget::fromJson(budget, &problem);
    if (!b) {
        fail(error, QStringLiteral("budget.") + problem);
        return std::nullopt;
    }
    view.budget = std::move(*b);
    // This action's side of it (GET /actions/{id}, POST …/charge-lookups).
    FieldReader in(budget, QStringLiteral("budget."));
    view.requested = in.integer(QLatin1String("requested"), 0, kMaxMinor, Need::Optional, 0);
    view.requestedCurrency = in.string(QLatin1String("requested_currency"));
    view.fits = in.boolean(QLatin1String("fits"), Need::Optional, true);
    if (!in.ok()) {
        fail(error, in.error());
        return std::nullopt;
    }
    if (!readArray(json, QLatin1String("warnings"), &view.warnings, error, warningFromJson))
        return std::nullopt;
    return view;
}

QString RequesterRecord::describe(const Window &w)
{
    if (w.count == 0)
        return tr("no proposals");
    QStringList totals;
    for (const Total &t : w.totals)
        totals << display::money(t.amount, t.currency);
    const QString count = w.count == 1 ? tr("1 refund") : tr("%1 refunds").arg(w.count);
    return tr("%1, %2 \u00b7 %3 rejected \u00b7 %4 sent to review")
        .arg(count, totals.join(QStringLiteral(" + ")), percent(w.rejectedShare), percent(w.sentToReviewShare));
}

std::optional<RequesterRecord> RequesterRecord::fromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    RequesterRecord record;
    record.requestedBy = in.string(QLatin1String("requested_by"), Need::Required);
    const QJsonObject today = in.object(QLatin1String("today"), Need::Required);
    const QJsonObject week = in.object(QLatin1String("week"), Need::Required);
    if (!in.ok()) {
        fail(error, in.error());
        return std::nullopt;
    }
    QString problem;
    std::optional<Window> t = windowFromJson(today, &problem);
    if (!t) {
        fail(error, QStringLiteral("today.") + problem);
        return std::nullopt;
    }
    std::optional<Window> w = windowFromJson(week, &problem);
    if (!w) {
        fail(error, QStringLiteral("week.") + problem);
        return std::nullopt;
    }
    record.today = std::move(*t);
    record.week = std::move(*w);
    return record;
}

QString Quorum::describe() const
{
    if (!isDualControl())
        return QString();
    const QString count = tr("%1 of %2 approvals").arg(given.size()).arg(required);
    if (given.isEmpty())
        return count;
    QStringList names;
    for (const Signature &s : given)
        names << s.approver;
    return tr("%1 \u2014 approved by %2").arg(count, names.join(QStringLiteral(", ")));
}

std::optional<Quorum> Quorum::fromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    Quorum quorum;
    quorum.required = int(in.integer(QLatin1String("approvals_required"), 1, 1000, Need::Optional, 1));
    const QJsonObject rule = in.object(QLatin1String("approval_rule"));
    FieldReader ruleIn(rule, QStringLiteral("approval_rule."));
    quorum.policyVersion = int(ruleIn.integer(QLatin1String("policy_version"), 0, kMaxCount, Need::Optional, 0));
    quorum.ruleId = ruleIn.string(QLatin1String("rule_id"));
    in.merge(ruleIn);
    QString problem;
    if (in.ok() && !readArray(json, QLatin1String("approvals_given"), &quorum.given, &problem, signatureFromJson))
        in.fail(problem);
    return finish(in, std::move(quorum), error);
}

} // namespace cs
