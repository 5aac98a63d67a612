#include "ui/settlementclosedialog.h"
#include "models/displayformat.h"

namespace cs {

SettlementCloseDialog::SettlementCloseDialog(const ActionDetail &detail, QWidget *parent)
    : CloseWithNoteDialog(QStringLiteral("close_settlement"), detail,
                          {tr("&Note (required: why nothing more is refunded through Countersign):"),
                           tr("e.g. refunded by bank transfer, ticket 4411"), tr("Close without re-sending")},
                          parent)
{
    setObjectName(QStringLiteral("settlementCloseDialog"));
    setTitleFor(tr("Close the failed refund without re-sending"));
    refresh();
    updateConfirm();
}

QString SettlementCloseDialog::whyNothingToClose() const
{
    if (!m_detail.settlement || !m_detail.settlement->needsReview())
        return tr("This refund has no open review item: it was decided already, or it did not fail.");
    return QString();
}

QString SettlementCloseDialog::whatTheNoteSays() const
{
    return tr("Write a note: why the customer is not refunded again through Countersign.");
}

void SettlementCloseDialog::refresh()
{
    const ActionRecord &r = m_detail.record;
    QString html = tr("<p style=\"font-size:large\"><b>Close the failed refund of %1 on %2</b></p>")
                       .arg(display::money(r.amount, r.currency).toHtmlEscaped(), r.targetId.toHtmlEscaped());
    if (const std::optional<Settlement> &s = m_detail.settlement) {
        const QDateTime when = s->settledAt.isValid() ? s->settledAt : s->confirmedAt;
        html += tr("<p>The provider accepted refund <code>%1</code>, then reported it <b>%2</b> on %3%4. "
                   "<b>The customer has not been refunded.</b></p>")
                    .arg(s->refundId.toHtmlEscaped(), s->status.toHtmlEscaped(), display::time(when).toHtmlEscaped(),
                         s->failureReason.isEmpty() ? QString() : tr(" (%1)").arg(s->failureReason.toHtmlEscaped()));
    }
    html += tr("<p>Closing records your decision and note; the action stays COMPLETED and <b>nothing is sent</b> to "
               "the provider, now or later. To refund the customer through Countersign instead, cancel and choose "
               "<i>Propose follow-up</i>.</p>");
    setDescription(html);
}

} // namespace cs
