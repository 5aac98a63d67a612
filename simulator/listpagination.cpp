#include "simulator/listpagination.h"

#include <QJsonArray>

namespace cs::paysim {

std::variant<ListPagination::Query, ApiError> ListPagination::parse(const QJsonObject &params)
{
    Query q;
    const QJsonValue limit = params.value(QStringLiteral("limit"));
    if (!limit.isUndefined() && !(limit.isString() && limit.toString().isEmpty())) {
        if (!limit.isString())
            return ApiError::invalidRequest(QStringLiteral("Invalid integer: limit"), QStringLiteral("parameter_invalid_integer"),
                                            QStringLiteral("limit"));
        bool ok = false;
        const int n = limit.toString().toInt(&ok);
        if (!ok)
            return ApiError::invalidRequest(QStringLiteral("Invalid integer: %1").arg(limit.toString()),
                                            QStringLiteral("parameter_invalid_integer"), QStringLiteral("limit"));
        if (n < 1 || n > 100)
            return ApiError::invalidRequest(QStringLiteral("This value must be between 1 and 100 (it was %1).").arg(n),
                                            QStringLiteral("parameter_invalid_integer"), QStringLiteral("limit"));
        q.limit = n;
    }
    for (const auto &[name, target] : {std::pair{QStringLiteral("starting_after"), &q.startingAfter},
                                       std::pair{QStringLiteral("ending_before"), &q.endingBefore}}) {
        const QJsonValue v = params.value(name);
        if (v.isUndefined())
            continue;
        if (!v.isString())
            return ApiError::invalidRequest(QStringLiteral("Invalid string: %1").arg(name), QStringLiteral("parameter_invalid_string"), name);
        *target = v.toString();
    }
    if (!q.startingAfter.isEmpty() && !q.endingBefore.isEmpty())
        return ApiError::invalidRequest(QStringLiteral("You may only specify one of these parameters: ending_before, starting_after."),
                                        QStringLiteral("parameters_exclusive"), QStringLiteral("ending_before"));
    return q;
}

std::variant<QJsonObject, ApiError> ListPagination::page(const QList<QJsonObject> &newestFirst, const Query &query,
                                                         const QString &url, const QString &kind)
{
    const qsizetype n = newestFirst.size();
    auto indexOf = [&](const QString &id) -> qsizetype {
        for (qsizetype i = 0; i < n; ++i) {
            if (newestFirst[i].value(QStringLiteral("id")).toString() == id)
                return i;
        }
        return -1;
    };

    qsizetype begin = 0;
    qsizetype end = 0;
    bool hasMore = false;
    if (!query.startingAfter.isEmpty()) {
        const qsizetype at = indexOf(query.startingAfter);
        if (at < 0)
            return ApiError::resourceMissing(kind, query.startingAfter, QStringLiteral("starting_after"));
        begin = at + 1;
        end = std::min(n, begin + query.limit);
        hasMore = end < n;
    } else if (!query.endingBefore.isEmpty()) {
        const qsizetype at = indexOf(query.endingBefore);
        if (at < 0)
            return ApiError::resourceMissing(kind, query.endingBefore, QStringLiteral("ending_before"));
        end = at;
        begin = std::max<qsizetype>(0, end - query.limit);
        hasMore = begin > 0;
    } else {
        end = std::min<qsizetype>(n, query.limit);
        hasMore = end < n;
    }

    QJsonArray data;
    for (qsizetype i = begin; i < end; ++i)
        data.append(newestFirst[i]);
    return QJsonObject{{QStringLiteral("object"), QStringLiteral("list")},
                       {QStringLiteral("data"), data},
                       {QStringLiteral("has_more"), hasMore},
                       {QStringLiteral("url"), url}};
}

} // namespace cs::paysim
