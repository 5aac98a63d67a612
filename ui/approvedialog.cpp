#include "approvedialog.h"
#include "displayformat.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace cs {

ApproveDialog::ApproveDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("approve"), detail, parent)
{
    setObjectName(QStringLiteral("approveDialog"));
    setWindowTitle(tr("Approve refund"));
    auto *label = new QLabel(tr("&Note (optional, kept with the approval):"), this);
    m_note = new QPlainTextEdit(this);
    m_note->setObjectName(QStringLiteral("noteEdit"));
    m_note->setAccessibleName(tr("Approval note"));
    m_note->setTabChangesFocus(true);
    m_note->setFixedHeight(70);
    label->setBuddy(m_note);
    fieldsLayout()->addWidget(label);
    fieldsLayout()->addWidget(m_note);
    setConfirmText(tr("Approve"));
    refresh();
    updateConfirm();
    connect(m_note, &QPlainTextEdit::textChanged, this, &ApproveDialog::updateConfirm);
}

QString ApproveDialog::note() const
{
    return m_note->toPlainText().trimmed();
}

QVariantMap ApproveDialog::draft() const
{
    return { { QStringLiteral("note"), m_note->toPlainText() } };
}

void ApproveDialog::restoreDraft(const QVariantMap &draft)
{
    m_note->setPlainText(draft.value(QStringLiteral("note")).toString());
}

void ApproveDialog::setInputReadOnly(bool readOnly)
{
    m_note->setReadOnly(readOnly);
}

void ApproveDialog::refresh()
{
    const ActionRecord &r = m_detail.record;
    const QString amount = display::money(r.amount, r.currency);
    QString html = tr("<p style=\"font-size:large\"><b>Approve a refund of %1</b></p>").arg(amount.toHtmlEscaped());
    html += QStringLiteral("<table cellspacing=\"4\">");
    const auto row = [&html](const QString &k, const QString &v, bool mono = false) {
        html += QStringLiteral("<tr><td style=\"padding-right:12px\">%1</td><td>%2%3%4</td></tr>")
                    .arg(k.toHtmlEscaped(), mono ? QStringLiteral("<code>") : QString(), v.toHtmlEscaped(),
                         mono ? QStringLiteral("</code>") : QString());
    };
    row(tr("Amount"), tr("%1 (%2 minor units)").arg(amount).arg(r.amount), true);
    row(tr("Currency"), r.currency.toUpper(), true);
    row(tr("Target"), toWire(r.targetType) + QLatin1Char(' ') + r.targetId, true);
    if (!r.businessReference.isEmpty())
        row(tr("Order"), r.businessReference);
    row(tr("Provider"), r.provider.isEmpty() ? tr("the configured provider") : r.provider);
    row(tr("Requested by"), r.requestedBy);
    row(tr("Request fingerprint"), display::shortHash(r.requestFingerprint), true);
    html += QStringLiteral("</table>");
    html += tr("<p>Approving creates <b>approval version %1</b>, which mints a <b>fresh idempotency key</b> for this "
               "action and signs this exact request (its fingerprint). <b>Nothing is sent to the provider now</b>: "
               "the action stays PENDING, approved and queued, until the executor claims it and sends it once "
               "with that key.</p>")
                .arg(r.approvalVersion + 1);
    setDescription(html);
}

} // namespace cs
