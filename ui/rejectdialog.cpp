#include "ui/rejectdialog.h"
#include "models/displayformat.h"

#include <QPlainTextEdit>

namespace cs {

RejectDialog::RejectDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("reject"), detail, parent)
{
    setObjectName(QStringLiteral("rejectDialog"));
    setWindowTitle(tr("Reject refund"));
    m_reason = addTextField(tr("&Reason (required, recorded with the rejection):"), QStringLiteral("reason"), QStringLiteral("reasonEdit"),
                            tr("Rejection reason"), 80);
    setConfirmText(tr("Reject"));
    refresh();
    updateConfirm();
}

QString RejectDialog::reason() const
{
    return m_reason->toPlainText().trimmed();
}

QString RejectDialog::inputProblem() const
{
    return reason().isEmpty() ? tr("Write the reason for the rejection.") : QString();
}

void RejectDialog::refresh()
{
    const ActionRecord &r = m_detail.record;
    setDescription(tr("<p style=\"font-size:large\"><b>Reject the refund of %1 on %2</b></p>"
                      "<p>Requested by %3%4. The action becomes <b>REJECTED</b>: nothing is ever sent to the "
                      "provider for it, and it cannot be approved later. If a refund is still owed, a new proposal "
                      "is needed.</p>")
                       .arg(display::money(r.amount, r.currency).toHtmlEscaped(), r.targetId.toHtmlEscaped(),
                            r.requestedBy.toHtmlEscaped(),
                            r.businessReference.isEmpty() ? QString()
                                                          : tr(" for order %1").arg(r.businessReference.toHtmlEscaped())));
}

} // namespace cs
