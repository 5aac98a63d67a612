#include "ui/discrepancybanner.h"
#include "models/displayformat.h"
#include "ui/statepalette.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace cs {

DiscrepancyBanner::DiscrepancyBanner(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("discrepancyBanner"));
    setFrameShape(QFrame::StyledPanel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->setSpacing(6);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("discrepancyText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    layout->addWidget(m_text);
    auto *row = new QHBoxLayout;
    row->setSpacing(6);
    row->addStretch(1);
    layout->addLayout(row);
    setVisible(false);
}

void DiscrepancyBanner::setCloseAction(QAction *close)
{
    auto *row = static_cast<QHBoxLayout *>(layout()->itemAt(1)->layout());
    m_close = new QToolButton(this);
    m_close->setObjectName(QStringLiteral("discrepancyCloseButton"));
    m_close->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_close->setAutoRaise(false);
    m_close->setMinimumHeight(30);
    m_close->setText(tr("Close with a note\u2026"));
    m_close->setAccessibleName(m_close->text());
    m_close->setIcon(close->icon());
    const auto sync = [button = m_close, close] {
        button->setEnabled(close->isEnabled());
        button->setToolTip(close->toolTip());
    };
    connect(close, &QAction::changed, m_close, sync);
    sync();
    connect(m_close, &QToolButton::clicked, close, &QAction::trigger);
    row->addWidget(m_close);
}

void DiscrepancyBanner::setDetail(const ActionDetail &detail)
{
    const std::optional<Discrepancy> &d = detail.discrepancy;
    const bool open = d && d->isOpen();
    setVisible(open);
    if (!open)
        return;
    const StatePalette::Chip chip = StatePalette::stateChip(ActionState::RequiresReview, palette());
    setStyleSheet(QStringLiteral("QFrame#discrepancyBanner { background: %1; border: 1px solid %2; border-radius: 6px; }"
                                 " QLabel { color: %3; }")
                      .arg(chip.fill.name(), chip.border.name(QColor::HexArgb), chip.text.name()));
    const ActionRecord &r = detail.record;
    const QString money = display::money(r.amount, r.currency).toHtmlEscaped();
    const QString what = d->kind == Discrepancy::Kind::DuplicateRefund
        ? tr("<b>%1.</b> Money may have gone out twice: this %2 refund was made %3 times at the provider.")
              .arg(d->headline().toHtmlEscaped(), money)
              .arg(qMax<qsizetype>(2, d->refundIds.size()))
        : tr("<b>%1.</b> What the provider holds does not match this %2 refund in state %3.")
              .arg(d->headline().toHtmlEscaped(), money, display::stateName(r.state));
    const QString by = d->foundBy == QLatin1String("webhook")      ? tr("a notification from the provider")
        : d->foundBy == QLatin1String("reconciler")                    ? tr("the reconciler")
        : d->foundBy == QLatin1String("settlement")                    ? tr("a scheduled check of the refund")
                                                                       : tr("a look-up by %1").arg(d->foundBy);
    m_text->setText(tr("%1 First seen on %2, in %3. Nothing is undone by itself: check the refunds at the provider and "
                       "with the customer, then close this with a note. The provider's refunds are in the <i>Evidence</i> tab.")
                        .arg(what, display::time(d->openedAt).toHtmlEscaped(), by.toHtmlEscaped()));
}

} // namespace cs
