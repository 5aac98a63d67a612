#include "demo/console/narrationpanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace cs {

NarrationPanel::NarrationPanel(QWidget *parent)
    : QDockWidget(tr("Narration"), parent)
{
    setObjectName(QStringLiteral("narrationDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    m_header = new QLabel(tr("Choose a scenario in the Scenarios menu."), body);
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    m_steps = new QListWidget(body);
    m_steps->setObjectName(QStringLiteral("narrationSteps"));
    m_steps->setAccessibleName(tr("Scenario steps"));
    m_steps->setWordWrap(true);
    m_steps->setAlternatingRowColors(true);
    m_focusLabel = new QLabel(body);
    m_focusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_next = new QPushButton(tr("Next step"), body);
    m_next->setObjectName(QStringLiteral("narrationNext"));
    m_next->setAccessibleName(tr("Next step"));
    m_next->setEnabled(false);
    m_cancel = new QPushButton(tr("Cancel"), body);
    m_cancel->setAccessibleName(tr("Cancel the scenario"));
    m_cancel->setEnabled(false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_focusLabel, 1);
    buttons->addWidget(m_next);
    buttons->addWidget(m_cancel);
    layout->addWidget(m_header);
    layout->addWidget(m_steps, 1);
    layout->addLayout(buttons);
    setWidget(body);
    connect(m_next, &QPushButton::clicked, this, &NarrationPanel::nextRequested);
    connect(m_cancel, &QPushButton::clicked, this, &NarrationPanel::cancelRequested);
}

void NarrationPanel::begin(const QString &title, const QString &summary)
{
    m_steps->clear();
    m_focused.clear();
    m_focusLabel->clear();
    m_header->setText(QStringLiteral("<b>%1</b><br>%2").arg(title.toHtmlEscaped(), summary.toHtmlEscaped()));
    show();
    raise();
}

void NarrationPanel::append(const QString &text, Kind kind)
{
    auto *item = new QListWidgetItem(m_steps);
    QString prefix;
    QFont font = m_steps->font();
    switch (kind) {
    case Kind::Step:
        prefix = tr("Step");
        break;
    case Kind::Observation:
        prefix = tr("Seen");
        item->setForeground(palette().color(QPalette::PlaceholderText));
        break;
    case Kind::Problem:
        prefix = tr("Problem");
        item->setForeground(QColor(0xb0, 0x1e, 0x1e));
        break;
    case Kind::Cure:
        prefix = tr("Cure");
        item->setForeground(QColor(0x1b, 0x7a, 0x2e));
        break;
    case Kind::Verdict:
        prefix = tr("Verdict");
        font.setBold(true);
        break;
    case Kind::Task: // exercise mode: what the trainee must do now
        prefix = tr("Your turn");
        font.setBold(true);
        item->setForeground(QColor(0x1d, 0x4e, 0xa8));
        item->setBackground(QColor(0xe8, 0xf0, 0xfd));
        break;
    }
    item->setFont(font);
    // The runner's verdict line already says "VERDICT PASS: …".
    const bool labelled = text.startsWith(prefix, Qt::CaseInsensitive);
    item->setText(labelled ? text : tr("%1: %2").arg(prefix, text));
    item->setData(Qt::UserRole, QVariant::fromValue(kind));
    item->setToolTip(text);
    m_steps->scrollToItem(item);
}

void NarrationPanel::setWaiting(bool waiting)
{
    m_next->setEnabled(waiting);
}

void NarrationPanel::setRunning(bool running)
{
    m_cancel->setEnabled(running);
    if (!running)
        m_next->setEnabled(false);
}

void NarrationPanel::followAction(const QString &actionId)
{
    m_focused = actionId;
    m_focusLabel->setText(tr("Action: %1").arg(actionId));
    emit focusRequested(actionId);
}

} // namespace cs
