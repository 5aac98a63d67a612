#pragma once

#include "models/actionsummary.h"

#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace cs {

// One page of the action list (GET /actions → Page): rows newest first, the cursor of the next
// page (empty on the last page) and the counts per state (ignoring the filters).
struct ActionPage
{
    QList<ActionSummary> rows;
    QString nextCursor;
    StateCounts counts;

    QJsonObject toJson() const;
    static std::optional<ActionPage> fromJson(const QJsonObject &json, QString *error = nullptr);
};

} // namespace cs

Q_DECLARE_METATYPE(cs::ActionPage)
