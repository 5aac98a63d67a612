#pragma once

#include "ui/decisiondialog.h"

class QPlainTextEdit;

namespace cs {

// Approve a PENDING action: states the amount, currency and target, that the approval creates
// version N+1 with a fresh idempotency key signing this exact request, and that nothing is sent
// until the executor claims it. An optional note.
class ApproveDialog : public DecisionDialog
{
    Q_OBJECT

public:
    explicit ApproveDialog(const ActionDetail &detail, QWidget *parent = nullptr);

    QString note() const;

protected:
    void refresh() override;

private:
    QPlainTextEdit *m_note;
};

} // namespace cs
