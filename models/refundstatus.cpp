#include "models/refundstatus.h"

namespace cs {

RefundStatus refundStatusFromWire(const QString &status)
{
    if (status == u"pending")
        return RefundStatus::Pending;
    if (status == u"requires_action")
        return RefundStatus::RequiresAction;
    if (status == u"succeeded")
        return RefundStatus::Succeeded;
    if (status == u"failed")
        return RefundStatus::Failed;
    if (status == u"canceled")
        return RefundStatus::Canceled;
    return RefundStatus::Unrecognised; // exact, case-sensitive: the provider writes lowercase
}

QString toWire(RefundStatus status)
{
    switch (status) {
    case RefundStatus::Pending: return QStringLiteral("pending");
    case RefundStatus::RequiresAction: return QStringLiteral("requires_action");
    case RefundStatus::Succeeded: return QStringLiteral("succeeded");
    case RefundStatus::Failed: return QStringLiteral("failed");
    case RefundStatus::Canceled: return QStringLiteral("canceled");
    case RefundStatus::Unrecognised: break;
    }
    return QString();
}

RefundEvidence evidenceOf(RefundStatus status)
{
    switch (status) {
    case RefundStatus::Pending:
    case RefundStatus::Succeeded:
        return RefundEvidence::Committed;
    case RefundStatus::Failed:
    case RefundStatus::Canceled:
        return RefundEvidence::NotCommitted;
    case RefundStatus::RequiresAction:
        return RefundEvidence::Unsettled;
    case RefundStatus::Unrecognised:
        break;
    }
    return RefundEvidence::Unrecognised;
}

RefundEvidence refundEvidence(const QString &status)
{
    return evidenceOf(refundStatusFromWire(status));
}

} // namespace cs
