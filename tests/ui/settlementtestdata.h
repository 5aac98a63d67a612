#pragma once

// Shared by the console's settlement tests (issue 18): a COMPLETED refund of 40.00 USD on order
// 4711 as GET /api/v1/actions/{id} answers it, carrying the given `settlement`.

#include <QJsonObject>
#include <QString>

namespace cs::test {

inline QJsonObject completedRefundDetail(const QString &id, const QJsonObject &settlement, const QString &updatedAt)
{
    return QJsonObject{
        { QStringLiteral("id"), id },
        { QStringLiteral("kind"), QStringLiteral("refund") },
        { QStringLiteral("state"), QStringLiteral("COMPLETED") },
        { QStringLiteral("state_version"), 7 },
        { QStringLiteral("target"), QJsonObject{ { QStringLiteral("charge"), QStringLiteral("ch_thursday") } } },
        { QStringLiteral("amount"), 4000 },
        { QStringLiteral("currency"), QStringLiteral("usd") },
        { QStringLiteral("reason"), QStringLiteral("requested_by_customer") },
        { QStringLiteral("business_reference"), QStringLiteral("order-4711") },
        { QStringLiteral("provider"), QStringLiteral("paysim") },
        { QStringLiteral("idempotency_key"), QStringLiteral("csk_thursday_v1") },
        { QStringLiteral("request_fingerprint"), QString(64, QLatin1Char('a')) },
        { QStringLiteral("approval_version"), 1 },
        { QStringLiteral("requested_by"), QStringLiteral("refund-bot") },
        { QStringLiteral("created_at"), QStringLiteral("2026-12-01T08:59:00.000Z") },
        { QStringLiteral("updated_at"), updatedAt },
        { QStringLiteral("settlement"), settlement },
    };
}

} // namespace cs::test
