#include "ui/approvedialog.h"
#include "models/displayformat.h"
#include "ui/agentreasonsview.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace cs {

ApproveDialog::ApproveDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("approve"), detail, parent)
{
    setObjectName(QStringLiteral("approveDialog"));
    setWindowTitle(tr("Approve refund"));
    // Why, below what will be sent. (The charge's budget and story go between these two
    // sections once the backend serves them: issue 19's "the charge's story".)
    auto *reasonsTitle = new QLabel(tr("<b>The agent's reasons</b>"), this);
    reasonsTitle->setObjectName(QStringLiteral("reasonsTitle"));
    fieldsLayout()->addWidget(reasonsTitle);
    m_reasons = new AgentReasonsView(this);
    fieldsLayout()->addWidget(m_reasons);
    fieldsLayout()->addSpacing(6);
    m_note = addTextField(tr("&Note (optional, kept with the approval):"), QStringLiteral("note"), QStringLiteral("noteEdit"), tr("Approval note"), 70);
    setConfirmText(tr("Approve"));
    refresh();
    updateConfirm();
}

QString ApproveDialog::note() const
{
    return m_note->toPlainText().trimmed();
}

void ApproveDialog::refresh()
{
    const ActionRecord &r = m_detail.record;
    m_reasons->setRecord(r);
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
