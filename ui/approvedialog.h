#pragma once

#include "ui/decisiondialog.h"

class QLabel;
class QPlainTextEdit;

namespace cs {

class AgentReasonsView;
class ChargeStoryView;

// Approve a PENDING action: states the amount, currency and target, that the approval creates
// version N+1 with a fresh idempotency key signing this exact request, and that nothing is sent
// until the executor claims it — or, under dual control, that this signature counts k of N and
// no key is minted before the quorum; who requested it with the agent's record (today, 7 days);
// the charge's story and budget (ChargeStoryView: the detail's snapshot with its age until the
// fresh read DecisionController asks for answers); then the agent's reasons (AgentReasonsView).
// An optional note — required when the action may duplicate others (the backend's
// related.possible_duplicates, listed above the charge): it says why both refunds are intended.
class ApproveDialog : public DecisionDialog
{
    Q_OBJECT

public:
    explicit ApproveDialog(const ActionDetail &detail, QWidget *parent = nullptr);

    QString note() const;
    // The possible duplicates of `detail` as warnings, in the console's words (the bulk dialog
    // shows them too).
    static QList<WarningLine> duplicateWarnings(const ActionDetail &detail, const QDateTime &now);
    AgentReasonsView *reasonsView() const { return m_reasons; }
    ChargeStoryView *chargeView() const { return m_charge; }

    // The fresh charge read asked for when the dialog opened: started, answered, failed.
    void setChargeReading();
    void setChargeRead(const ChargeView &view);
    void setChargeReadFailed(const QString &why);

protected:
    void refresh() override;
    QString inputProblem() const override;

private:
    // The possible duplicates, then the charge's warnings, first in the dialog.
    void showWarnings();

    AgentReasonsView *m_reasons;
    ChargeStoryView *m_charge;
    bool m_freshCharge = false; // a fresh read answered: newer than the detail's snapshot
    QPlainTextEdit *m_note;
};

} // namespace cs
