#include "rejectdialog.h"
#include "displayformat.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace cs {

RejectDialog::RejectDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("reject"), detail, parent)
{
    setObjectName(QStringLiteral("rejectDialog"));
    setWindowTitle(tr("Reject refund"));
    auto *label = new QLabel(tr("&Reason (required, recorded with the rejection):"), this);
    m_reason = new QPlainTextEdit(this);
    m_reason->setObjectName(QStringLiteral("reasonEdit"));
    m_reason->setAccessibleName(tr("Rejection reason"));
    m_reason->setTabChangesFocus(true);
    m_reason->setFixedHeight(80);
    label->setBuddy(m_reason);
    fieldsLayout()->addWidget(label);
    fieldsLayout()->addWidget(m_reason);
    setConfirmText(tr("Reject"));
    refresh();
    updateConfirm();
    connect(m_reason, &QPlainTextEdit::textChanged, this, &RejectDialog::updateConfirm);
}

QString RejectDialog::reason() const
{
    return m_reason->toPlainText().trimmed();
}

QVariantMap RejectDialog::draft() const
{
    return { { QStringLiteral("reason"), m_reason->toPlainText() } };
}

void RejectDialog::restoreDraft(const QVariantMap &draft)
{
    m_reason->setPlainText(draft.value(QStringLiteral("reason")).toString());
}

QString RejectDialog::inputProblem() const
{
    return reason().isEmpty() ? tr("Write the reason for the rejection.") : QString();
}

void RejectDialog::setInputReadOnly(bool readOnly)
{
    m_reason->setReadOnly(readOnly);
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
