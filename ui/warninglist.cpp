#include "ui/warninglist.h"
#include "ui/statepalette.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QVBoxLayout>

namespace cs {

WarningList::WarningList(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("warningList"));
    setFrameShape(QFrame::StyledPanel);
    m_rows = new QVBoxLayout(this);
    m_rows->setContentsMargins(8, 6, 8, 6);
    m_rows->setSpacing(4);
    restyle();
    setVisible(false);
}

void WarningList::setWarnings(const QList<WarningLine> &warnings)
{
    if (warnings == m_warnings && (m_rows->count() > 0) == !warnings.isEmpty())
        return;
    m_warnings = warnings;
    while (QLayoutItem *item = m_rows->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize);
    for (const WarningLine &w : warnings) {
        auto *row = new QWidget(this);
        row->setObjectName(QStringLiteral("warning_") + w.code);
        auto *h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(8);
        auto *icon = new QLabel(row);
        icon->setObjectName(QStringLiteral("warningIcon"));
        icon->setPixmap(style()->standardIcon(w.severe ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning)
                            .pixmap(size, size));
        icon->setAlignment(Qt::AlignTop);
        auto *label = new QLabel(QStringLiteral("<b>%1</b>").arg(w.text.toHtmlEscaped()), row);
        label->setObjectName(QStringLiteral("warningText"));
        label->setTextFormat(Qt::RichText);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        h->addWidget(icon);
        h->addWidget(label, 1);
        m_rows->addWidget(row);
    }
    setVisible(!warnings.isEmpty());
}

void WarningList::restyle()
{
    // From the palette the list was made with: a style sheet of its own would change that palette.
    const QPalette pal = parentWidget() ? parentWidget()->palette() : palette();
    const QString sheet = QStringLiteral("QFrame#warningList { background: %1; border: 1px solid %2; border-radius: 6px; }"
                                         " QFrame#warningList QLabel { color: %2; background: transparent; }")
                              .arg(StatePalette::warningFill(pal).name(), StatePalette::warningText(pal).name());
    setStyleSheet(sheet);
}

} // namespace cs
