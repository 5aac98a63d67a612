#pragma once

#include <QIcon>
#include <QObject>
#include <QString>

class QAction;
class QMenu;
class QSystemTrayIcon;

namespace cs {

// The console's icon in the system tray: Countersign's shield with the number of actions waiting
// for the user drawn on it, the waiting counts as its tooltip, desktop notices (shown through the
// tray, which on Linux hands them to the desktop's notification service), and a menu: Show
// Countersign, the notices' on/off switch (the caller's QAction, shared with the Settings menu)
// and Quit.
//
// Limits: whether a tray exists is asked once, when constructed (QSystemTrayIcon::
// isSystemTrayAvailable()); without one (offscreen, CI, a desktop without a tray) nothing is
// created, every call does nothing and isShown() is false — one debug line says so, no warning.
class TrayIndicator : public QObject
{
    Q_OBJECT

public:
    TrayIndicator(QAction *noticesSwitch, QObject *parent = nullptr);
    ~TrayIndicator() override;

    bool isShown() const { return m_tray != nullptr; }
    // The shield with `count` drawn on it in a red badge ("99+" above 99); the plain shield at 0.
    static QIcon iconWithCount(qint64 count);

    // The number on the icon and the tooltip ("Countersign — 3 to review").
    void setAttention(qint64 count, const QString &toolTip);
    qint64 count() const { return m_count; }
    QString toolTip() const { return m_toolTip; }
    // A desktop notice; false when there is no tray to show it.
    bool showNotice(const QString &title, const QString &text);
    QMenu *menu() const { return m_menu; }

signals:
    void showRequested();   // the icon was clicked, or "Show Countersign"
    void noticeClicked();   // the last notice was clicked
    void quitRequested();

private:
    QSystemTrayIcon *m_tray = nullptr; // owned; none without a tray
    QMenu *m_menu = nullptr;
    qint64 m_count = -1;
    QString m_toolTip;
};

} // namespace cs
