#pragma once

#include "ui/decisiondialog.h"

class QPlainTextEdit;

namespace cs {

class AgentReasonsView;

// Approve a PENDING action: states the amount, currency and target, that the approval creates
// version N+1 with a fresh idempotency key signing this exact request, and that nothing is sent
// until the executor claims it; then the agent's reasons (AgentReasonsView). An optional note.
class ApproveDialog : public DecisionDialog
{
    Q_OBJECT

public:
    explicit ApproveDialog(const ActionDetail &detail, QWidget *parent = nullptr);

    QString note() const;
    AgentReasonsView *reasonsView() const { return m_reasons; }

protected:
    void refresh() override;

private:
    AgentReasonsView *m_reasons;
    QPlainTextEdit *m_note;
};

} // namespace cs
