#include "ui/rejectdialog.h"
#include "models/approval.h"
#include "models/displayformat.h"

#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace cs {

RejectDialog::RejectDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("reject"), detail, parent)
{
    setObjectName(QStringLiteral("rejectDialog"));
    setTitleFor(tr("Reject refund"));
    auto *reasonLabelWidget = new QLabel(tr("&Reason (required, the agent sees it):"), this);
    m_reason = new QComboBox(this);
    m_reason->setObjectName(QStringLiteral("reasonCombo"));
    m_reason->setAccessibleName(tr("Rejection reason"));
    addReasons(m_reason);
    reasonLabelWidget->setBuddy(m_reason);
    setFirstInput(m_reason);
    fieldsLayout()->addWidget(reasonLabelWidget);
    fieldsLayout()->addWidget(m_reason);
    connect(m_reason, &QComboBox::currentIndexChanged, this, [this] { updateConfirm(); });
    m_note = addTextField(tr("&Note (required for Other, recorded with the rejection):"), QStringLiteral("note"),
                          QStringLiteral("noteEdit"), tr("Rejection note"), 80);
    setConfirmText(tr("Reject"));
    refresh();
    updateConfirm();
}

void RejectDialog::addReasons(QComboBox *combo)
{
    combo->addItem(tr("Choose a reason\u2026"), QString());
    for (const QString &reason : Approval::rejectionReasons())
        combo->addItem(reason == u"other" ? tr("Other (say why in the note)") : display::rejectionReason(reason), reason);
}

QString RejectDialog::reason() const
{
    return m_reason->currentData().toString();
}

QString RejectDialog::note() const
{
    return m_note->toPlainText().trimmed();
}

QVariantMap RejectDialog::draft() const
{
    QVariantMap draft = DecisionDialog::draft(); // the note
    draft.insert(QStringLiteral("reason"), reason());
    return draft;
}

void RejectDialog::restoreDraft(const QVariantMap &draft)
{
    DecisionDialog::restoreDraft(draft); // the note
    const int index = m_reason->findData(draft.value(QStringLiteral("reason")).toString());
    m_reason->setCurrentIndex(index < 0 ? 0 : index);
}

void RejectDialog::setInputReadOnly(bool readOnly)
{
    m_reason->setEnabled(!readOnly);
    DecisionDialog::setInputReadOnly(readOnly);
}

QString RejectDialog::inputProblem() const
{
    if (reason().isEmpty())
        return tr("Choose the reason for the rejection.");
    if (reason() == u"other" && note().isEmpty())
        return tr("Write a note saying why: the reason is Other.");
    return QString();
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
