#pragma once

#include "simulator/apierror.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <variant>

namespace cs::paysim {

// Stripe's cursor pagination: objects newest first; limit 1..100 (default 10); starting_after
// returns the objects after (older than) the cursor, ending_before the ones just before (newer
// than) it, still newest first; the two are mutually exclusive. has_more tells whether objects
// remain beyond the page in the direction of travel.
class ListPagination
{
public:
    struct Query
    {
        int limit = 10;
        QString startingAfter;
        QString endingBefore;
    };

    static std::variant<Query, ApiError> parse(const QJsonObject &params);
    // `newestFirst` objects must carry "id"; `kind` names them in errors ("refund").
    static std::variant<QJsonObject, ApiError> page(const QList<QJsonObject> &newestFirst, const Query &query,
                                                   const QString &url, const QString &kind);
};

} // namespace cs::paysim
