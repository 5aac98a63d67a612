#pragma once

#include "models/decisioncontext.h"

#include <QWidget>

namespace cs {

// A charge's refund budget as one horizontal bar (issue 14): of what was captured, the part
// refunded at the provider, the part other actions reserve in Countersign, this action, and what
// is left — widths in proportion to the server's figures (minor units). This action is drawn in
// the warning colour when it does not fit. Shows nothing when the budget is not known. Its
// accessible description says the same in words.
class BudgetBar : public QWidget
{
    Q_OBJECT

public:
    explicit BudgetBar(QWidget *parent = nullptr);

    void setCharge(const ChargeView &view);
    void clear();

    // The segments drawn, in order: refunded at the provider, reserved, this action, left
    // (minor units; "left" after this action, never below 0).
    struct Segments
    {
        qint64 refunded = 0;
        qint64 reserved = 0;
        qint64 thisAction = 0;
        qint64 left = 0;
        bool fits = true;
    };
    Segments segments() const { return m_segments; }
    bool hasBudget() const { return m_known; }

    // The colours of the four segments, in the order above (this action's when it fits, and
    // when it does not): the legend in words uses them too.
    struct Colors
    {
        QColor refunded, reserved, thisAction, tooMuch, left;
    };
    static Colors colors(const QPalette &palette);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    Segments m_segments;
    bool m_known = false;
};

} // namespace cs
