#include "ui/trayindicator.h"
#include "ui/uilog.h"

#include <QAction>
#include <QFont>
#include <QMenu>
#include <QPainter>
#include <QPixmap>
#include <QSystemTrayIcon>

namespace cs {

TrayIndicator::TrayIndicator(QAction *noticesSwitch, QObject *parent)
    : QObject(parent)
{
    if (!QSystemTrayIcon::isSystemTrayAvailable()) {
        m_count = 0;
        qCDebug(lcUi) << "no system tray: the waiting counts are shown in the window only";
        return;
    }
    m_menu = new QMenu;
    QAction *show = m_menu->addAction(tr("&Show Countersign"), this, &TrayIndicator::showRequested);
    show->setObjectName(QStringLiteral("trayShowAction"));
    if (noticesSwitch)
        m_menu->addAction(noticesSwitch);
    m_menu->addSeparator();
    QAction *quit = m_menu->addAction(tr("&Quit"), this, &TrayIndicator::quitRequested);
    quit->setObjectName(QStringLiteral("trayQuitAction"));

    m_tray = new QSystemTrayIcon(this);
    m_tray->setContextMenu(m_menu);
    connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            emit showRequested();
    });
    connect(m_tray, &QSystemTrayIcon::messageClicked, this, &TrayIndicator::noticeClicked);
    setAttention(0, tr("Countersign"));
    m_tray->show();
}

TrayIndicator::~TrayIndicator()
{
    delete m_tray; // before its context menu
    delete m_menu;
}

QIcon TrayIndicator::iconWithCount(qint64 count)
{
    // Drawn at tray sizes rather than scaled from one: the badge's digits stay legible at 16 px.
    QIcon icon;
    const QIcon shield(QStringLiteral(":/icons/countersign.svg"));
    for (const int size : { 16, 22, 24, 32, 48, 64 }) {
        QPixmap pixmap = shield.pixmap(size, size);
        if (pixmap.isNull()) {
            pixmap = QPixmap(size, size);
            pixmap.fill(QColor(0x2f, 0x6f, 0xb6));
        }
        if (count > 0) {
            QPainter p(&pixmap);
            p.setRenderHint(QPainter::Antialiasing);
            const QString text = count > 99 ? QStringLiteral("99+") : QString::number(count);
            const int diameter = size * 5 / 8 + (text.size() > 1 ? size / 8 : 0);
            const QRectF badge(size - diameter, 0, diameter, diameter);
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(0xc6, 0x28, 0x28));
            p.drawEllipse(badge);
            QFont font;
            font.setBold(true);
            font.setPixelSize(std::max(7, int(diameter * (text.size() > 2 ? 0.42 : text.size() > 1 ? 0.55 : 0.7))));
            p.setFont(font);
            p.setPen(Qt::white);
            p.drawText(badge, Qt::AlignCenter, text);
        }
        icon.addPixmap(pixmap);
    }
    return icon;
}

void TrayIndicator::setAttention(qint64 count, const QString &toolTip)
{
    const bool changed = count != m_count;
    m_count = count;
    m_toolTip = toolTip;
    if (!m_tray)
        return;
    if (changed)
        m_tray->setIcon(iconWithCount(count));
    m_tray->setToolTip(toolTip);
}

bool TrayIndicator::showNotice(const QString &title, const QString &text)
{
    if (!m_tray)
        return false;
    m_tray->showMessage(title, text, iconWithCount(0), 10000);
    return true;
}

} // namespace cs
