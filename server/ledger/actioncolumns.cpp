#include "server/ledger/actioncolumns.h"

#include <QStringList>

namespace cs {

QString actionColumnList(const QString &tableAlias)
{
    static const QStringList columns = {
        QStringLiteral("id"), QStringLiteral("kind"), QStringLiteral("target_type"), QStringLiteral("target_id"),
        QStringLiteral("business_reference"), QStringLiteral("amount"), QStringLiteral("currency"),
        QStringLiteral("reason"), QStringLiteral("provider"), QStringLiteral("provider_account"),
        QStringLiteral("requested_by"), QStringLiteral("client_reference"), QStringLiteral("parent_id"),
        QStringLiteral("request_fingerprint"), QStringLiteral("idempotency_key"), QStringLiteral("approval_version"),
        QStringLiteral("state"), QStringLiteral("state_version"), QStringLiteral("review_reason"),
        QStringLiteral("created_at"), QStringLiteral("updated_at"), QStringLiteral("justification"),
        QStringLiteral("context_url"), QStringLiteral("facts")};
    static_assert(kActionColumnCount == 24);
    if (tableAlias.isEmpty())
        return columns.join(QStringLiteral(", "));
    QStringList qualified;
    qualified.reserve(columns.size());
    for (const QString &column : columns)
        qualified << tableAlias + QLatin1Char('.') + column;
    return qualified.join(QStringLiteral(", "));
}

} // namespace cs
