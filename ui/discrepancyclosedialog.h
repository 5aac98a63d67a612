#pragma once

#include "ui/closewithnotedialog.h"

namespace cs {

// Close a discrepancy (issue 33): the provider holds two refunds for one action, or a refund that
// contradicts a final one. Countersign sends and undoes nothing: the supervisor has checked the
// refunds at the provider and spoken with the customer, and records what was done in a required
// note. The action keeps its state. Sent by the DecisionController like every decision (the same
// Idempotency-Key and If-Match on every resend, the note kept in the drafts).
class DiscrepancyCloseDialog : public CloseWithNoteDialog
{
    Q_OBJECT

public:
    explicit DiscrepancyCloseDialog(const ActionDetail &detail, QWidget *parent = nullptr);

protected:
    void refresh() override;
    QString whyNothingToClose() const override;
    QString whatTheNoteSays() const override;
};

} // namespace cs
