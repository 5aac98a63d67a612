#include "ui/lookupdialog.h"
#include "models/displayformat.h"
#include "models/evidencerule.h"
#include "models/lookuppurpose.h"
#include "models/lookuptablemodel.h"
#include "ui/statepalette.h"

namespace cs {

LookupDialog::LookupDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("lookup"), detail, parent)
{
    setObjectName(QStringLiteral("lookupDialog"));
    setWindowTitle(tr("Look up at the provider"));
    setConfirmText(tr("Look up now"));
    refresh();
    updateConfirm();
}

void LookupDialog::refresh()
{
    const ActionRecord &r = m_detail.record;
    QString how = tr("list the refunds of <code>%1</code> and match <code>metadata[countersign_action_id] = %2</code>")
                      .arg(r.targetId.toHtmlEscaped(), r.id.toHtmlEscaped());
    const QString objectId = refundOnRecord(m_detail.settlement, m_detail.attempts);
    if (!objectId.isEmpty())
        how = tr("%1, or retrieve refund <code>%2</code> by its id if it is not listed").arg(how, objectId.toHtmlEscaped());
    QString html = tr("<p style=\"font-size:large\"><b>Ask %1 what happened to this refund</b></p>"
                      "<p>The backend will %2 and record the answer as <b>lookup #%3</b> (asked by you), whatever it is. "
                      "A lookup only reads: it cannot refund anything. In CONFIRMATION_UNKNOWN a conclusive answer "
                      "settles the state; a REQUIRES_REVIEW action stays for a reconciliation.</p>")
                       .arg((r.provider.isEmpty() ? tr("the provider") : r.provider).toHtmlEscaped(), how)
                       .arg(m_detail.lookups.size() + 1);
    // A COMPLETED action: what the answer does to its refund's settlement (issue 18).
    if (const QString purpose = LookupPurpose::help(m_detail); !purpose.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(purpose.toHtmlEscaped());
    setDescription(html);
}

void LookupDialog::showResult(const ProviderLookup &lookup, const ActionRecord &after)
{
    const QColor color = StatePalette::lookupColor(lookup.result, palette());
    QString html = tr("<p><span style=\"color:%1; font-weight:600\">%2</span></p>")
                       .arg(color.name(), LookupTableModel::describe(lookup).toHtmlEscaped());
    if (after.state != m_detail.record.state)
        html += tr("<p>The action moved from %1 to <b>%2</b>.</p>")
                    .arg(display::stateName(m_detail.record.state), display::stateName(after.state));
    else
        html += tr("<p>The action stays %1.</p>").arg(display::stateName(after.state));
    showOutcome(html);
}

} // namespace cs
