#pragma once

#include <QLayout>
#include <QList>

namespace cs {

// Lays its widgets out left to right and starts a new line where the next one would not fit, so a
// row of buttons (the queue's filters) never forces its window wider than the screen: in a longer
// language, or with one more filter shown, it takes a second line instead (STYLE.md: a layout never
// squeezes what a person must read). Hidden widgets take no room. Its minimum width is its widest
// widget; its height follows its width (heightForWidth).
class FlowLayout : public QLayout
{
public:
    explicit FlowLayout(int horizontalSpacing = 4, int verticalSpacing = 4);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    int count() const override { return int(m_items.size()); }
    QLayoutItem *itemAt(int index) const override { return m_items.value(index); }
    QLayoutItem *takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect &rect) override;

private:
    // Places the items in `rect` (or only measures, when !apply); returns the height used.
    int arrange(const QRect &rect, bool apply) const;

    QList<QLayoutItem *> m_items;
    int m_hSpacing;
    int m_vSpacing;
};

} // namespace cs
