#include "models/lookuppurpose.h"
#include "models/actiondetail.h"
#include "models/refundstatus.h"

namespace cs {

QString LookupPurpose::help(const ActionDetail &detail)
{
    if (detail.record.state != ActionState::Completed || !detail.settlement)
        return {};
    const Settlement &s = *detail.settlement;
    const QString refund = s.refundId.isEmpty() ? tr("the refund") : s.refundId;
    // The provider's word for the status, as everywhere (untranslated).
    const QString status = s.status.isEmpty() ? tr("not known") : s.status;
    if (s.needsReview())
        return tr("Ask the provider again about refund %1 (%2 after it was accepted): the answer is kept as evidence; "
                  "the review item stays open until a supervisor decides")
            .arg(refund, status);
    if (!s.isSettled())
        return tr("Ask the provider now whether refund %1 has settled (%2 so far): the answer moves its settlement, "
                  "as a webhook or a scheduled check would")
            .arg(refund, status);
    if (refundStatusFromWire(s.status) == RefundStatus::Succeeded)
        return tr("Ask the provider whether refund %1 still stands: it succeeded, and a succeeded refund can still "
                  "fail later")
            .arg(refund);
    return tr("Ask the provider about refund %1 again: its status, %2, is final; the answer is only kept as evidence")
        .arg(refund, status);
}

} // namespace cs
