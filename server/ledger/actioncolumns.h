#pragma once

#include "models/actionrecord.h"
#include "models/actionstate.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QString>
#include <QVariant>

namespace cs {

// The one place that owns the actions table's record columns and their mapping to ActionRecord.
// Queries select actionColumnList(alias) first and their own extra columns after it (from column
// kActionColumnCount on).
constexpr int kActionColumnCount = 24;

// "id, kind, …, updated_at", each prefixed with "alias." unless alias is empty.
QString actionColumnList(const QString &tableAlias = QString());

// Fills *r from the row's columns first .. first + kActionColumnCount - 1.
// Row: anything with `QVariant value(int) const` (QSqlQuery, the ledger's Statement).
template <typename Row>
void readActionColumns(const Row &q, int first, ActionRecord *r)
{
    const auto at = [&](int i) { return q.value(first + i); };
    const auto time = [&](int i) { return QDateTime::fromMSecsSinceEpoch(at(i).toLongLong(), Qt::UTC); };
    r->id = at(0).toString();
    r->kind = at(1).toString();
    r->targetType = targetTypeFromWire(at(2).toString()).value_or(TargetType::Charge);
    r->targetId = at(3).toString();
    r->businessReference = at(4).toString();
    r->amount = at(5).toLongLong();
    r->currency = at(6).toString();
    r->reason = at(7).toString();
    r->provider = at(8).toString();
    r->providerAccount = at(9).toString();
    r->requestedBy = at(10).toString();
    r->clientReference = at(11).toString();
    r->parentId = at(12).toString();
    r->requestFingerprint = at(13).toString();
    r->idempotencyKey = at(14).toString();
    r->approvalVersion = at(15).toInt();
    r->state = stateFromWire(at(16).toString()).value_or(ActionState::RequiresReview);
    r->stateVersion = at(17).toLongLong();
    r->reviewReason = at(18).toString();
    r->createdAt = time(19);
    r->updatedAt = time(20);
    r->justification = at(21).toString();
    r->contextUrl = at(22).toString();
    r->facts = factsFromJson(QJsonDocument::fromJson(at(23).toString().toUtf8()).object());
}

} // namespace cs
