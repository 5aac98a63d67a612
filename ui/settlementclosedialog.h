#pragma once

#include "ui/decisiondialog.h"

class QPlainTextEdit;

namespace cs {

// Close a COMPLETED action's settlement review item without re-sending (issue 18): its refund
// was accepted, then failed or was canceled at the provider, and a supervisor decides that
// nothing more is to be refunded through Countersign (refunded another way, customer agreed, …).
// A note (1–2000 characters) is required and recorded with the decision; nothing is ever sent to
// the provider. The other choice, re-proposing the refund, is the follow-up dialog. Sent by the
// DecisionController like every decision: the same Idempotency-Key and If-Match on every resend,
// the typed note kept in the drafts until the backend answers.
class SettlementCloseDialog : public DecisionDialog
{
    Q_OBJECT

public:
    static constexpr int MaxNoteLength = 2000; // the backend's limit

    explicit SettlementCloseDialog(const ActionDetail &detail, QWidget *parent = nullptr);

    QString note() const;

protected:
    void refresh() override;
    QString inputProblem() const override;

private:
    QPlainTextEdit *m_note;
};

} // namespace cs
