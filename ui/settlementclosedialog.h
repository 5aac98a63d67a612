#pragma once

#include "ui/closewithnotedialog.h"

namespace cs {

// Close a COMPLETED action's settlement review item without re-sending (issue 18): its refund
// was accepted, then failed or was canceled at the provider, and a supervisor decides that
// nothing more is to be refunded through Countersign (refunded another way, customer agreed, …).
// A note is required and recorded with the decision; nothing is ever sent to the provider. The
// other choice, re-proposing the refund, is the follow-up dialog. Sent by the DecisionController
// like every decision: the same Idempotency-Key and If-Match on every resend, the typed note kept
// in the drafts until the backend answers.
class SettlementCloseDialog : public CloseWithNoteDialog
{
    Q_OBJECT

public:
    explicit SettlementCloseDialog(const ActionDetail &detail, QWidget *parent = nullptr);

protected:
    void refresh() override;
    QString whyNothingToClose() const override;
    QString whatTheNoteSays() const override;
};

} // namespace cs
