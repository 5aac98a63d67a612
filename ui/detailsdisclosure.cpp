#include "ui/detailsdisclosure.h"
#include "ui/statepalette.h"

#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace cs {

namespace {

// A zero-width space after every 40 characters without a space: raw JSON and ids wrap instead
// of widening the label.
QString breakable(const QString &text)
{
    constexpr int longest = 40;
    QString out;
    out.reserve(text.size() + text.size() / longest);
    int run = 0;
    for (const QChar c : text) {
        out.append(c);
        run = c.isSpace() ? 0 : run + 1;
        if (run == longest) {
            out.append(QChar(0x200B));
            run = 0;
        }
    }
    return out;
}

} // namespace

DetailsDisclosure::DetailsDisclosure(QWidget *parent)
    : QWidget(parent)
    , m_toggle(new QToolButton(this))
    , m_text(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    m_toggle->setObjectName(QStringLiteral("detailsToggle"));
    m_toggle->setText(tr("Details"));
    m_toggle->setAccessibleName(tr("Details"));
    m_toggle->setToolTip(tr("The server's reason and the provider's answer, as they were given"));
    m_toggle->setCheckable(true);
    m_toggle->setAutoRaise(true);
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toggle->setArrowType(Qt::RightArrow);
    layout->addWidget(m_toggle, 0, Qt::AlignLeft);

    m_text->setObjectName(QStringLiteral("detailsText"));
    m_text->setTextFormat(Qt::PlainText);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_text->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    m_text->setFont(StatePalette::monospaceFont());
    m_text->setVisible(false);
    layout->addWidget(m_text);

    connect(m_toggle, &QToolButton::toggled, this, [this](bool open) {
        m_toggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        m_text->setVisible(open);
        emit expandedChanged(open);
    });
    setVisible(false);
}

void DetailsDisclosure::setDetails(const QString &plainText)
{
    m_details = plainText;
    m_text->setText(breakable(plainText));
    setVisible(!plainText.isEmpty());
}

bool DetailsDisclosure::isExpanded() const
{
    return m_toggle->isChecked();
}

void DetailsDisclosure::setExpanded(bool expanded)
{
    m_toggle->setChecked(expanded);
}

} // namespace cs
