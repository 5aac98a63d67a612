#include "models/actionpage.h"

#include <QJsonArray>

namespace cs {

QJsonObject ActionPage::toJson() const
{
    QJsonArray data;
    for (const ActionSummary &row : rows)
        data.append(row.toJson());
    QJsonObject json;
    json.insert(QLatin1String("data"), data);
    json.insert(QLatin1String("next_cursor"),
                nextCursor.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(nextCursor));
    json.insert(QLatin1String("counts"), counts.toJson());
    return json;
}

std::optional<ActionPage> ActionPage::fromJson(const QJsonObject &json, QString *error)
{
    const auto fail = [error](const QString &message) -> std::optional<ActionPage> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    const QJsonValue data = json.value(QLatin1String("data"));
    if (!data.isArray())
        return fail(QStringLiteral("data: must be an array"));
    ActionPage page;
    const QJsonArray rows = data.toArray();
    page.rows.reserve(rows.size());
    for (qsizetype i = 0; i < rows.size(); ++i) {
        QString rowError;
        std::optional<ActionSummary> row = ActionSummary::fromJson(rows.at(i).toObject(), &rowError);
        if (!row)
            return fail(QStringLiteral("data[%1].%2").arg(i).arg(rowError));
        page.rows.append(std::move(*row));
    }
    const QJsonValue cursor = json.value(QLatin1String("next_cursor"));
    if (cursor.isString())
        page.nextCursor = cursor.toString();
    else if (!cursor.isNull() && !cursor.isUndefined())
        return fail(QStringLiteral("next_cursor: must be a string or null"));
    QString countsError;
    std::optional<StateCounts> counts =
        StateCounts::fromJson(json.value(QLatin1String("counts")).toObject(), &countsError);
    if (!counts)
        return fail(QStringLiteral("counts.") + countsError);
    page.counts = *counts;
    return page;
}

} // namespace cs
