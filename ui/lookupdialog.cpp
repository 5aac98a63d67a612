#include "ui/lookupdialog.h"
#include "models/displayformat.h"
#include "models/evidencerule.h"
#include "models/lookuppurpose.h"
#include "models/reviewexplanation.h"
#include "ui/detailsdisclosure.h"
#include "ui/statepalette.h"

#include <QLabel>
#include <QVBoxLayout>

namespace cs {

LookupDialog::LookupDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("lookup"), detail, parent)
{
    setObjectName(QStringLiteral("lookupDialog"));
    setTitleFor(tr("Look up at the provider"));
    setConfirmText(tr("Look up now"));
    // The answer in words, then what the provider said as it said it: both appear once answered.
    m_answer = new QLabel(this);
    m_answer->setObjectName(QStringLiteral("lookupAnswer"));
    m_answer->setWordWrap(true);
    m_answer->setTextFormat(Qt::RichText);
    m_answer->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_answer->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    m_answer->setVisible(false);
    fieldsLayout()->addWidget(m_answer);
    m_answerDetails = new DetailsDisclosure(this);
    m_answerDetails->setObjectName(QStringLiteral("lookupDetails"));
    fieldsLayout()->addWidget(m_answerDetails);
    connect(m_answerDetails, &DetailsDisclosure::expandedChanged, this, [this] { contentGrew(); });
    refresh();
    updateConfirm();
}

void LookupDialog::refresh()
{
    const ActionRecord &r = m_detail.record;
    // In words; the exact request (the charge, the metadata matched, the refund's id) is in the tooltip.
    QString how = tr("look through the refunds of this charge for the one Countersign made for this action");
    QString exact = tr("Lists the refunds of %1 and matches metadata[countersign_action_id] = %2.").arg(r.targetId, r.id);
    const QString objectId = refundOnRecord(m_detail.settlement, m_detail.attempts);
    if (!objectId.isEmpty()) {
        how = tr("%1, or ask for the refund on record by its id if it is not listed").arg(how);
        exact += QLatin1Char(' ') + tr("Retrieves refund %1 if it is not listed.").arg(objectId);
    }
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
    setDescriptionToolTip(exact);
}

void LookupDialog::showResult(const ProviderLookup &lookup, const ActionRecord &after)
{
    const QColor color = StatePalette::lookupColor(lookup.result, palette());
    const Explanation answer = ReviewExplanation::forLookup(lookup, m_detail.record.provider);
    m_answer->setText(tr("<p><span style=\"color:%1; font-weight:600\">%2</span></p>")
                          .arg(color.name(), answer.sentence.toHtmlEscaped()));
    m_answer->setVisible(true);
    m_answerDetails->setDetails(answer.details);
    QString html;
    if (after.state != m_detail.record.state)
        html = tr("<p>The action moved from %1 to <b>%2</b>.</p>")
                   .arg(display::stateName(m_detail.record.state), display::stateName(after.state));
    else
        html = tr("<p>The action stays %1.</p>").arg(display::stateName(after.state));
    showOutcome(html);
    contentGrew();
}

} // namespace cs
