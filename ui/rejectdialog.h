#pragma once

#include "ui/decisiondialog.h"

class QPlainTextEdit;

namespace cs {

// Reject a PENDING action with a reason: it becomes REJECTED and nothing is ever sent.
class RejectDialog : public DecisionDialog
{
    Q_OBJECT

public:
    explicit RejectDialog(const ActionDetail &detail, QWidget *parent = nullptr);

    QString reason() const;

protected:
    void refresh() override;
    QString inputProblem() const override;

private:
    QPlainTextEdit *m_reason;
};

} // namespace cs
