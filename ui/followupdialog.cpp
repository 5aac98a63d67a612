#include "ui/followupdialog.h"
#include "models/displayformat.h"
#include "models/money.h"
#include "ui/statepalette.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace cs {

FollowUpDialog::FollowUpDialog(const ActionDetail &detail, const FollowUpPlan &plan, QWidget *parent)
    : DecisionDialog(QStringLiteral("follow_up"), detail, parent)
    , m_plan(plan)
{
    setObjectName(QStringLiteral("followUpDialog"));
    setTitleFor(tr("Propose a follow-up adjustment"));

    m_breakdown = new QLabel(this);
    m_breakdown->setObjectName(QStringLiteral("committedLabel"));
    m_breakdown->setTextFormat(Qt::RichText);
    m_breakdown->setWordWrap(true);
    fieldsLayout()->addWidget(m_breakdown);

    auto *form = new QFormLayout;
    m_desired = new QLineEdit(this);
    m_desired->setObjectName(QStringLiteral("desiredTotalEdit"));
    setFirstInput(m_desired);
    m_desired->setAccessibleName(tr("Desired total refund"));
    m_desired->setPlaceholderText(tr("e.g. 45.00"));
    m_desired->setAlignment(Qt::AlignRight);
    m_desired->setFont(StatePalette::monospaceFont());
    form->addRow(tr("&Desired total (%1):").arg(detail.record.currency.toUpper()), m_desired);
    m_remainder = new QLabel(this);
    m_remainder->setObjectName(QStringLiteral("remainderLabel"));
    m_remainder->setFont(StatePalette::monospaceFont());
    form->addRow(tr("Remainder to refund:"), m_remainder);
    m_note = textInput(QStringLiteral("note"), QStringLiteral("noteEdit"), tr("Follow-up note"), 64);
    form->addRow(tr("&Note (required):"), m_note);
    fieldsLayout()->addLayout(form);

    setConfirmText(tr("Propose follow-up"));
    // Issue 18: a refund that failed after COMPLETED counts as 0 committed, so re-proposing it is
    // a desired total of everything committed plus its own amount: the remainder is its amount.
    // A restored draft replaces this.
    if (reProposesFailedRefund() && m_plan.possible) {
        if (const std::optional<Money> total = Money::fromMinorUnits(m_plan.committed + detail.record.amount,
                                                                     detail.record.currency))
            m_desired->setText(total->decimalString());
    }
    refresh();
    updateConfirm();
    connect(m_desired, &QLineEdit::textChanged, this, [this] { refresh(); updateConfirm(); });
}

void FollowUpDialog::setPlan(const FollowUpPlan &plan)
{
    m_plan = plan;
    refresh();
    updateConfirm();
}

std::optional<qint64> FollowUpDialog::desiredTotal() const
{
    return display::parseAmount(m_desired->text(), m_detail.record.currency);
}

std::optional<qint64> FollowUpDialog::remainder() const
{
    const std::optional<qint64> desired = desiredTotal();
    if (!desired)
        return std::nullopt;
    return m_plan.remainder(*desired);
}

QString FollowUpDialog::note() const
{
    return m_note->toPlainText().trimmed();
}

QString FollowUpDialog::inputProblem() const
{
    if (!m_plan.possible)
        return m_plan.blockedReason;
    if (m_desired->text().trimmed().isEmpty())
        return tr("Enter the total the customer should be refunded, across this action and its follow-ups.");
    if (!desiredTotal())
        return tr("\u201c%1\u201d is not an amount in %2.").arg(m_desired->text().trimmed(), m_detail.record.currency.toUpper());
    if (const std::optional<qint64> rest = remainder(); !rest || *rest <= 0)
        return tr("Nothing remains to refund: provider evidence shows %1 already committed.")
            .arg(display::money(m_plan.committed, m_plan.currency));
    if (note().isEmpty())
        return tr("Write a note: why the customer is owed this total.");
    return QString();
}

void FollowUpDialog::setInputReadOnly(bool readOnly)
{
    m_desired->setReadOnly(readOnly);
    DecisionDialog::setInputReadOnly(readOnly); // the note
}

QVariantMap FollowUpDialog::draft() const
{
    QVariantMap draft = DecisionDialog::draft(); // the note
    draft.insert(QStringLiteral("desired"), m_desired->text());
    return draft;
}

void FollowUpDialog::restoreDraft(const QVariantMap &draft)
{
    m_desired->setText(draft.value(QStringLiteral("desired")).toString());
    DecisionDialog::restoreDraft(draft); // the note
}

bool FollowUpDialog::reProposesFailedRefund() const
{
    return m_detail.settlement && m_detail.settlement->needsReview();
}

void FollowUpDialog::refresh()
{
    const ActionRecord &r = m_detail.record;
    const QString currency = r.currency;
    QString breakdown = tr("<b>What provider evidence says was committed</b>");
    breakdown += QStringLiteral("<table cellspacing=\"3\" style=\"margin-top:4px\">");
    for (const FollowUpPlan::Part &part : m_plan.parts) {
        breakdown += QStringLiteral("<tr><td><code>%1</code></td><td>%2</td><td align=\"right\"><code>%3</code></td>"
                                    "<td style=\"padding-left:8px\">%4</td></tr>")
                         .arg(part.actionId.toHtmlEscaped(),
                              part.isParent ? tr("this action") : tr("follow-up"),
                              part.committed ? display::money(*part.committed, currency).toHtmlEscaped()
                                             : tr("unknown"),
                              part.basis.toHtmlEscaped());
    }
    breakdown += QStringLiteral("<tr><td colspan=\"2\"><b>%1</b></td><td align=\"right\"><code><b>%2</b></code></td><td></td></tr>")
                     .arg(tr("Committed"), m_plan.possible ? display::money(m_plan.committed, currency).toHtmlEscaped()
                                                            : tr("unknown"));
    breakdown += QStringLiteral("</table>");
    m_breakdown->setText(breakdown);

    const std::optional<qint64> rest = remainder();
    if (!m_plan.possible)
        m_remainder->setText(tr("refused: outcome unknown"));
    else if (!rest)
        m_remainder->setText(QStringLiteral("\u2014"));
    else if (*rest <= 0)
        m_remainder->setText(tr("nothing (%1)").arg(display::money(0, currency)));
    else
        m_remainder->setText(display::money(*rest, currency));

    QString html = tr("<p style=\"font-size:large\"><b>Follow-up to %1 on %2</b></p>")
                       .arg(r.id.toHtmlEscaped(), r.targetId.toHtmlEscaped());
    if (reProposesFailedRefund()) {
        const Settlement &s = *m_detail.settlement;
        html += tr("<p>Refund <code>%1</code> was accepted, then <b>%2</b> at the provider%3: <b>the customer has not "
                   "been refunded</b>, so it counts as nothing committed. Proposing the full amount again makes a "
                   "<b>new refund</b> that needs <b>its own approval</b> and is sent as a refund of its own; "
                   "the failed refund itself is never re-sent.</p>")
                    .arg(s.refundId.toHtmlEscaped(), s.status.toHtmlEscaped(),
                         s.failureReason.isEmpty() ? QString() : tr(" (%1)").arg(s.failureReason.toHtmlEscaped()));
    }
    if (m_plan.possible && rest && *rest > 0)
        html += tr("<p>Creates a <b>new PENDING action</b> refunding <b>%1</b> (%2 desired \u2212 %3 committed) on %4, "
                   "linked to this one. It needs its own approval and is sent as a refund of its own, never as a resend of this one; "
                   "<b>nothing is sent</b> until it is approved and claimed.</p>")
                    .arg(display::money(*rest, currency).toHtmlEscaped(),
                         display::money(*desiredTotal(), currency).toHtmlEscaped(),
                         display::money(m_plan.committed, currency).toHtmlEscaped(), r.targetId.toHtmlEscaped());
    else
        html += tr("<p>A follow-up refunds the difference between the total the customer should get and what the "
                   "provider confirms was committed. It is a new action with its own approval and key.</p>");
    setDescription(html);
}

} // namespace cs
