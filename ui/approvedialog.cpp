#include "ui/approvedialog.h"
#include "models/displayformat.h"
#include "ui/agentreasonsview.h"
#include "ui/chargestoryview.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace cs {

ApproveDialog::ApproveDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("approve"), detail, parent)
{
    setObjectName(QStringLiteral("approveDialog"));
    setWindowTitle(tr("Approve refund"));
    // Whether it should be sent, below what will be sent: other refunds for the same need, the
    // charge's story and budget, then why.
    m_duplicates = new QLabel(this);
    m_duplicates->setObjectName(QStringLiteral("duplicatesBox"));
    m_duplicates->setWordWrap(true);
    m_duplicates->setTextFormat(Qt::RichText);
    m_duplicates->setStyleSheet(QStringLiteral("QLabel { background: #fff4d6; border: 1px solid #c9a227;"
                                               " border-radius: 4px; padding: 6px; color: #5a4300; }"));
    fieldsLayout()->addWidget(m_duplicates);
    auto *chargeTitle = new QLabel(tr("<b>The charge</b>"), this);
    chargeTitle->setObjectName(QStringLiteral("chargeTitle"));
    fieldsLayout()->addWidget(chargeTitle);
    m_charge = new ChargeStoryView(this);
    fieldsLayout()->addWidget(m_charge);
    fieldsLayout()->addSpacing(6);
    auto *reasonsTitle = new QLabel(tr("<b>The agent's reasons</b>"), this);
    reasonsTitle->setObjectName(QStringLiteral("reasonsTitle"));
    fieldsLayout()->addWidget(reasonsTitle);
    m_reasons = new AgentReasonsView(this);
    fieldsLayout()->addWidget(m_reasons);
    fieldsLayout()->addSpacing(6);
    m_note = addTextField(detail.possibleDuplicates.isEmpty()
                              ? tr("&Note (optional, kept with the approval):")
                              : tr("&Note (required: why both refunds are intended; kept with the approval):"),
                          QStringLiteral("note"), QStringLiteral("noteEdit"), tr("Approval note"), 70);
    setConfirmText(tr("Approve"));
    refresh();
    updateConfirm();
}

void ApproveDialog::setChargeReading()
{
    m_charge->setReading();
}

void ApproveDialog::setChargeRead(const ChargeView &view)
{
    m_freshCharge = true;
    m_charge->setView(view);
}

void ApproveDialog::setChargeReadFailed(const QString &why)
{
    m_charge->setReadFailed(why);
}

QString ApproveDialog::inputProblem() const
{
    if (!m_detail.possibleDuplicates.isEmpty() && note().isEmpty())
        return tr("This refund may duplicate %n other(s): write a note saying why both are intended.", nullptr,
                  int(m_detail.possibleDuplicates.size()));
    return QString();
}

QString ApproveDialog::note() const
{
    return m_note->toPlainText().trimmed();
}

void ApproveDialog::refresh()
{
    const ActionRecord &r = m_detail.record;
    m_reasons->setRecord(r);
    // The backend's sentences, as they are ("order 4821 already has 40.00 USD COMPLETED by …").
    QString duplicates;
    for (const PossibleDuplicate &d : m_detail.possibleDuplicates)
        duplicates += QStringLiteral("<li>%1</li>").arg(d.sentence.toHtmlEscaped());
    m_duplicates->setVisible(!duplicates.isEmpty());
    if (!duplicates.isEmpty())
        m_duplicates->setText(tr("<b>Possible duplicate.</b> Another refund for the same need is in Countersign:"
                                 "<ul style=\"margin:2px 0\">%1</ul>Approve only if both are intended, and say why "
                                 "in the note.")
                                  .arg(duplicates));
    if (!m_freshCharge)
        m_charge->setView(m_detail.charge);
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
    if (m_detail.requesterRecord) {
        const RequesterRecord &rec = *m_detail.requesterRecord;
        row(tr("Requested by"), tr("%1 \u2014 today: %2; 7 days: %3")
                                    .arg(r.requestedBy, RequesterRecord::describe(rec.today), RequesterRecord::describe(rec.week)));
    } else {
        row(tr("Requested by"), r.requestedBy);
    }
    const Quorum &q = m_detail.quorum;
    if (q.isDualControl())
        row(tr("Approvals"), tr("%1 (rule %2, policy v%3)").arg(q.describe(), q.ruleId).arg(q.policyVersion));
    row(tr("Request fingerprint"), display::shortHash(r.requestFingerprint), true);
    html += QStringLiteral("</table>");
    if (q.isDualControl() && q.given.size() + 1 < q.required)
        html += tr("<p>The policy asks for <b>%1 distinct approvers</b>. Your approval is <b>signature %2 of %1</b>: it is "
                   "counted, the action stays PENDING and <b>no idempotency key is minted</b> until %1 approvers have "
                   "signed. Nothing is sent to the provider now.</p>")
                    .arg(q.required)
                    .arg(q.given.size() + 1);
    else
        html += tr("<p>Approving creates <b>approval version %1</b>, which mints a <b>fresh idempotency key</b> for this "
                   "action and signs this exact request (its fingerprint). <b>Nothing is sent to the provider now</b>: "
                   "the action stays PENDING, approved and queued, until the executor claims it and sends it once "
                   "with that key.</p>")
                    .arg(r.approvalVersion + 1);
    setDescription(html);
}

} // namespace cs
