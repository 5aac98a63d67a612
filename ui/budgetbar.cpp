#include "ui/budgetbar.h"
#include "ui/statepalette.h"

#include <QPainter>
#include <QPainterPath>

namespace cs {

BudgetBar::BudgetBar(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("budgetBar"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void BudgetBar::setCharge(const ChargeView &view)
{
    const ChargeBudget &b = view.budget;
    m_known = b.known && b.captured > 0;
    Segments s;
    if (m_known) {
        s.refunded = qMin(b.refundedAtProvider, b.captured);
        s.reserved = qMin(b.reserved, b.captured - s.refunded);
        s.thisAction = qMin(view.requested, b.captured - s.refunded - s.reserved);
        s.left = qMax<qint64>(0, b.captured - s.refunded - s.reserved - s.thisAction);
        s.fits = view.fits;
    }
    m_segments = s;
    setVisible(m_known);
    update();
}

void BudgetBar::clear()
{
    m_known = false;
    m_segments = {};
    setVisible(false);
}

BudgetBar::Colors BudgetBar::colors(const QPalette &pal)
{
    const bool dark = StatePalette::isDark(pal);
    return Colors{ pal.color(QPalette::Mid), StatePalette::stateChip(ActionState::Executing, pal).fill.darker(dark ? 100 : 125),
                   pal.color(QPalette::Highlight), StatePalette::warningText(pal),
                   StatePalette::stateChip(ActionState::Completed, pal).fill.darker(dark ? 100 : 108) };
}

QSize BudgetBar::sizeHint() const
{
    return QSize(360, fontMetrics().height() + 8);
}

QSize BudgetBar::minimumSizeHint() const
{
    return QSize(120, fontMetrics().height() + 8);
}

void BudgetBar::paintEvent(QPaintEvent *)
{
    if (!m_known)
        return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF frame = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    const QPalette pal = palette();
    const qint64 total = m_segments.refunded + m_segments.reserved + m_segments.thisAction + m_segments.left;
    QPainterPath clip;
    clip.addRoundedRect(frame, 4, 4);
    p.setClipPath(clip);
    p.fillRect(frame, pal.color(QPalette::Base));
    const Colors c = colors(pal);
    qreal x = frame.left();
    const auto segment = [&](qint64 amount, const QColor &color) {
        if (amount <= 0 || total <= 0)
            return;
        const qreal w = frame.width() * qreal(amount) / qreal(total);
        p.fillRect(QRectF(x, frame.top(), w, frame.height()), color);
        x += w;
    };
    segment(m_segments.refunded, c.refunded);
    segment(m_segments.reserved, c.reserved);
    segment(m_segments.thisAction, m_segments.fits ? c.thisAction : c.tooMuch);
    segment(m_segments.left, c.left);
    p.setClipping(false);
    p.setPen(pal.color(QPalette::Mid));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(frame, 4, 4);
}

} // namespace cs
