#include "ui/settlementview.h"
#include "models/displayformat.h"
#include "models/settlementhistorymodel.h"
#include "ui/statepalette.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace cs {

namespace {

QLabel *valueLabel(QWidget *parent, const QString &objectName, const QString &accessibleName)
{
    auto *label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setAccessibleName(accessibleName);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    return label;
}

} // namespace

SettlementView::SettlementView(QWidget *parent)
    : QWidget(parent)
    , m_model(new SettlementHistoryModel(this))
{
    setObjectName(QStringLiteral("settlementView"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    auto *form = new QFormLayout;
    form->setHorizontalSpacing(18);
    form->setVerticalSpacing(6);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
    const auto caption = [this](const QString &text, QLabel *buddy) {
        auto *label = new QLabel(text, this);
        QPalette muted = label->palette();
        muted.setColor(QPalette::WindowText, StatePalette::mutedText(palette()));
        label->setPalette(muted);
        label->setBuddy(buddy);
        return label;
    };
    m_status = valueLabel(this, QStringLiteral("settlementStatus"), tr("Refund status"));
    QFont bold = m_status->font();
    bold.setWeight(QFont::DemiBold);
    m_status->setFont(bold);
    m_refund = valueLabel(this, QStringLiteral("settlementRefund"), tr("Refund"));
    m_refund->setFont(StatePalette::monospaceFont());
    m_confirmed = valueLabel(this, QStringLiteral("settlementConfirmed"), tr("Last confirmed"));
    m_nextCheck = valueLabel(this, QStringLiteral("settlementNextCheck"), tr("Next check"));
    m_decision = valueLabel(this, QStringLiteral("settlementDecision"), tr("Decision"));
    m_decision->setTextFormat(Qt::RichText);
    m_decision->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse
                                        | Qt::LinksAccessibleByKeyboard);
    connect(m_decision, &QLabel::linkActivated, this, [this](const QString &link) {
        emit actionActivated(link.startsWith(QLatin1Char('#')) ? link.mid(1) : link);
    });
    form->addRow(caption(tr("Refund status:"), m_status), m_status);
    form->addRow(caption(tr("Refund:"), m_refund), m_refund);
    form->addRow(caption(tr("Last confirmed:"), m_confirmed), m_confirmed);
    m_nextCheckCaption = caption(tr("Next check:"), m_nextCheck);
    form->addRow(m_nextCheckCaption, m_nextCheck);
    m_decisionCaption = caption(tr("Decision:"), m_decision);
    form->addRow(m_decisionCaption, m_decision);
    layout->addLayout(form);

    m_history = new QTableView(this);
    m_history->setObjectName(QStringLiteral("settlementHistoryTable"));
    m_history->setAccessibleName(tr("Refund status changes"));
    m_history->setModel(m_model);
    m_history->verticalHeader()->hide();
    m_history->horizontalHeader()->setStretchLastSection(true);
    m_history->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_history->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_history->setSelectionMode(QAbstractItemView::SingleSelection);
    m_history->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_history->setTabKeyNavigation(false);
    m_history->setShowGrid(false);
    m_history->setWordWrap(false);
    m_history->setAlternatingRowColors(true);
    m_history->verticalHeader()->setDefaultSectionSize(m_history->fontMetrics().height() + 8);
    // The evidence (last) stretches; narrower than this the cells elide (the tooltips say all).
    m_history->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    const int widths[SettlementHistoryModel::ColumnCount] = { 30, 140, 130, 170, 130, 140 };
    for (int c = 0; c < SettlementHistoryModel::ColumnCount; ++c)
        m_history->setColumnWidth(c, widths[c]);
    layout->addWidget(m_history);
    setVisible(false);
}

QString SettlementView::describeStatus(const Settlement &s)
{
    if (s.status == QLatin1String("succeeded"))
        return tr("succeeded \u2014 the customer has been refunded");
    if (s.moneyReturned())
        return s.failureReason.isEmpty()
            ? tr("%1 after it was accepted \u2014 the customer has NOT been refunded").arg(s.status)
            : tr("%1 after it was accepted (%2) \u2014 the customer has NOT been refunded").arg(s.status, s.failureReason);
    return tr("%1 \u2014 still settling at the provider").arg(s.status);
}

void SettlementView::setSettlement(const std::optional<Settlement> &settlement, const QDateTime &now)
{
    setVisible(settlement.has_value());
    if (!settlement) {
        m_model->clear();
        return;
    }
    const Settlement &s = *settlement;
    const StatePalette::Chip tone = StatePalette::stateChip(
        s.needsReview() ? ActionState::RequiresReview
                        : (s.isSettled() ? (s.moneyReturned() ? ActionState::Rejected : ActionState::Completed)
                                         : ActionState::ConfirmationUnknown),
        palette());
    QPalette statusPalette = m_status->palette();
    statusPalette.setColor(QPalette::WindowText, tone.text);
    m_status->setPalette(statusPalette);
    m_status->setText(describeStatus(s));
    m_refund->setText(s.refundId.isEmpty() ? QStringLiteral("\u2014") : s.refundId);
    m_confirmed->setText(tr("%1, from %2").arg(display::time(s.confirmedAt), SettlementHistoryModel::sourceName(s.confirmedBy)));
    m_confirmed->setToolTip(display::isoTime(s.confirmedAt));

    const bool settling = !s.isSettled();
    m_nextCheck->setVisible(settling);
    m_nextCheckCaption->setVisible(settling);
    if (settling) {
        const QString checks = tr("%n scheduled check(s) so far", nullptr, s.checks);
        m_nextCheck->setText(s.nextCheckAt.isValid()
                                 ? tr("%1 (%2); a webhook event may settle it sooner \u00b7 %3")
                                       .arg(display::time(s.nextCheckAt),
                                            s.nextCheckAt > now ? tr("in %1").arg(display::age(now.secsTo(s.nextCheckAt)))
                                                                : tr("due now"),
                                            checks)
                                 : tr("none scheduled; waiting for a webhook event \u00b7 %1").arg(checks));
    }

    QString decision;
    switch (s.attention) {
    case Settlement::Attention::None:
        break;
    case Settlement::Attention::Open:
        decision = tr("<b>open</b> since %1: a supervisor decides \u2014 propose it again as a follow-up, or close it "
                      "with a note").arg(display::time(s.attentionSince).toHtmlEscaped());
        break;
    case Settlement::Attention::FollowedUp:
        decision = tr("re-proposed by %1 on %2 as follow-up <a href=\"#%3\">%3</a> (its own approval and key)")
                       .arg(s.resolvedBy.toHtmlEscaped(), display::time(s.resolvedAt).toHtmlEscaped(),
                            s.followUpId.toHtmlEscaped());
        break;
    case Settlement::Attention::Closed:
        decision = tr("closed by %1 on %2 without re-sending: \u201c%3\u201d")
                       .arg(s.resolvedBy.toHtmlEscaped(), display::time(s.resolvedAt).toHtmlEscaped(),
                            s.resolutionNote.toHtmlEscaped());
        break;
    }
    m_decision->setText(decision);
    m_decision->setVisible(!decision.isEmpty());
    m_decisionCaption->setVisible(!decision.isEmpty());

    m_model->setRecords(s.history);
    // Every change in view without a scroll bar for the usual two or three; more scroll.
    const int rows = qBound(1, int(s.history.size()), 5);
    m_history->setFixedHeight(m_history->horizontalHeader()->sizeHint().height()
                              + rows * m_history->verticalHeader()->defaultSectionSize() + 2 * m_history->frameWidth() + 2);
}

} // namespace cs
