#include "ui/approvedialog.h"
#include "models/displayformat.h"
#include "ui/agentreasonsview.h"
#include "ui/chargestoryview.h"

#include <QDateTime>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include <utility>

namespace cs {

namespace {

// A possible duplicate in the console's words (the backend's sentence is English).
QString duplicateWords(const ActionRecord &of, const PossibleDuplicate &d, const QDateTime &now)
{
    const ActionRecord &other = d.summary.record;
    const bool before = std::pair(other.createdAt, other.id) < std::pair(of.createdAt, of.id);
    const QString amount = display::money(other.amount, other.currency);
    const QString state = display::stateName(other.state);
    const QString when = display::relative(other.createdAt, now);
    if (d.same == QLatin1String("business_reference") && !other.businessReference.isEmpty())
        return before ? ApproveDialog::tr("Possible duplicate: order %1 already has a refund of %2 (%3; requested by %4, %5).")
                            .arg(other.businessReference, amount, state, other.requestedBy, when)
                      : ApproveDialog::tr("Possible duplicate: order %1 also has a refund of %2 (%3; requested by %4, %5).")
                            .arg(other.businessReference, amount, state, other.requestedBy, when);
    return before ? ApproveDialog::tr("Possible duplicate: the same charge already has a refund of %1 (%2; requested by %3, %4).")
                        .arg(amount, state, other.requestedBy, when)
                  : ApproveDialog::tr("Possible duplicate: the same charge also has a refund of %1 (%2; requested by %3, %4).")
                        .arg(amount, state, other.requestedBy, when);
}

} // namespace

ApproveDialog::ApproveDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("approve"), detail, parent)
{
    setObjectName(QStringLiteral("approveDialog"));
    setTitleFor(tr("Approve refund"));
    setPreferredWidth(720);
    // Whether it should be sent, below what will be sent: the charge's story and budget (its
    // warnings go first, with the possible duplicates, in the dialog's warning box), then why.
    auto *chargeTitle = new QLabel(tr("<b>The charge</b>"), this);
    chargeTitle->setObjectName(QStringLiteral("chargeTitle"));
    fieldsLayout()->addWidget(chargeTitle);
    m_charge = new ChargeStoryView(this);
    m_charge->setWarningsShown(false);
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
    connect(m_charge, &ChargeStoryView::warningsChanged, this, [this] {
        showWarnings();
        contentGrew();
    });
    refresh();
    updateConfirm();
}

QList<WarningLine> ApproveDialog::duplicateWarnings(const ActionDetail &detail, const QDateTime &now)
{
    QList<WarningLine> lines;
    for (const PossibleDuplicate &d : detail.possibleDuplicates)
        lines.append({ QStringLiteral("possible_duplicate"), duplicateWords(detail.record, d, now), true });
    if (!lines.isEmpty())
        lines.last().text += QLatin1Char(' ') + tr("Approve only if both are intended, and say why in the note.");
    return lines;
}

void ApproveDialog::showWarnings()
{
    setWarnings(duplicateWarnings(m_detail, QDateTime::currentDateTimeUtc()) + m_charge->warnings());
}

void ApproveDialog::setChargeReading()
{
    m_charge->setReading();
}

void ApproveDialog::setChargeRead(const ChargeView &view)
{
    m_freshCharge = true;
    m_charge->setView(view);
    contentGrew();
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
    if (!m_freshCharge)
        m_charge->setView(m_detail.charge);
    showWarnings();
    const QString amount = display::money(r.amount, r.currency);
    QString html = r.businessReference.isEmpty()
        ? tr("<p style=\"font-size:large\"><b>Approve a refund of %1</b></p>").arg(amount.toHtmlEscaped())
        : tr("<p style=\"font-size:large\"><b>Approve a refund of %1 for %2</b></p>")
              .arg(amount.toHtmlEscaped(), r.businessReference.toHtmlEscaped());
    html += QStringLiteral("<table cellspacing=\"4\">");
    const auto row = [&html](const QString &k, const QString &v) {
        html += QStringLiteral("<tr><td style=\"padding-right:12px\">%1</td><td>%2</td></tr>").arg(k.toHtmlEscaped(), v.toHtmlEscaped());
    };
    row(tr("Refund"), amount);
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
        row(tr("Approvals"), q.describe());
    html += QStringLiteral("</table>");
    if (q.isDualControl() && q.given.size() + 1 < q.required)
        html += tr("<p>The policy asks for <b>%1 different approvers</b>. Yours is <b>signature %2 of %1</b>: it is counted "
                   "and the refund waits. <b>Nothing is sent to the provider</b> until %1 approvers have signed.</p>")
                    .arg(q.required)
                    .arg(q.given.size() + 1);
    else
        html += tr("<p>Approving signs this exact refund. <b>Nothing is sent to the provider now</b>: the refund waits, "
                   "approved, until the executor sends it \u2014 once, however often it has to ask again.</p>");
    setDescription(html);
}

} // namespace cs
