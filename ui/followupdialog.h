#pragma once

#include "models/followupplan.h"
#include "ui/decisiondialog.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace cs {

// Propose a follow-up adjustment of an original action: the reviewer enters the total the
// customer should get; the dialog shows what provider evidence says was committed (per action)
// and the remainder the new action would refund, and refuses while any outcome is unknown or
// nothing remains. The new action is PENDING, needs its own approval and gets its own key.
// For a COMPLETED action whose refund failed afterwards (issue 18, its review item open) it says
// so and starts with the desired total that re-proposes the whole amount.
class FollowUpDialog : public DecisionDialog
{
    Q_OBJECT

public:
    FollowUpDialog(const ActionDetail &detail, const FollowUpPlan &plan, QWidget *parent = nullptr);

    void setPlan(const FollowUpPlan &plan);
    const FollowUpPlan &plan() const { return m_plan; }
    std::optional<qint64> desiredTotal() const; // minor units
    std::optional<qint64> remainder() const;
    QString note() const;
    // The action's refund failed or was canceled after COMPLETED and its review item is open.
    bool reProposesFailedRefund() const;

    QVariantMap draft() const override;
    void restoreDraft(const QVariantMap &draft) override;

protected:
    void refresh() override;
    QString inputProblem() const override;
    void setInputReadOnly(bool readOnly) override;

private:
    FollowUpPlan m_plan;
    QLabel *m_breakdown;
    QLineEdit *m_desired;
    QLabel *m_remainder;
    QPlainTextEdit *m_note;
};

} // namespace cs
