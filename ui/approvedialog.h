#pragma once

#include "decisiondialog.h"

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
    QVariantMap draft() const override;
    void restoreDraft(const QVariantMap &draft) override;

protected:
    void refresh() override;
    void setInputReadOnly(bool readOnly) override;

private:
    QPlainTextEdit *m_note;
};

} // namespace cs
