#include "ui/discrepancyclosedialog.h"
#include "models/displayformat.h"

namespace cs {

DiscrepancyCloseDialog::DiscrepancyCloseDialog(const ActionDetail &detail, QWidget *parent)
    : CloseWithNoteDialog(QStringLiteral("close_discrepancy"), detail,
                          {tr("&Note (required: what you found and what was done):"),
                           tr("e.g. second refund confirmed with the customer, kept as goodwill; ticket 4411"),
                           tr("Close discrepancy")},
                          parent)
{
    setObjectName(QStringLiteral("discrepancyCloseDialog"));
    setTitleFor(tr("Close the discrepancy"));
    refresh();
    updateConfirm();
}

QString DiscrepancyCloseDialog::whyNothingToClose() const
{
    if (!m_detail.discrepancy || !m_detail.discrepancy->isOpen())
        return tr("This action has no open discrepancy: it was closed already.");
    return QString();
}

QString DiscrepancyCloseDialog::whatTheNoteSays() const
{
    return tr("Write a note: what you found at the provider and what was done about it.");
}

void DiscrepancyCloseDialog::refresh()
{
    const ActionRecord &r = m_detail.record;
    QString html = tr("<p style=\"font-size:large\"><b>%1</b></p>")
                       .arg(m_detail.discrepancy ? m_detail.discrepancy->headline().toHtmlEscaped()
                                                 : tr("No discrepancy"));
    html += tr("<p>This action is a refund of <b>%1</b> for order <b>%2</b>.</p>")
                .arg(display::money(r.amount, r.currency).toHtmlEscaped(),
                     (r.businessReference.isEmpty() ? r.targetId : r.businessReference).toHtmlEscaped());
    if (m_detail.discrepancy)
        html += tr("<p>%1</p>").arg(m_detail.discrepancy->detail.toHtmlEscaped());
    html += tr("<p>Closing records that you checked the refunds at the provider and dealt with the customer; "
               "<b>nothing is sent or undone</b> by Countersign, and the action keeps its state. A refund not seen "
               "before opens it again.</p>");
    setDescription(html);
}

} // namespace cs
