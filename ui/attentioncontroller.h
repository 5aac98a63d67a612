#pragma once

#include "ui/attentionnotifier.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QToolButton;

namespace cs {

class ApiClient;
class ConsoleSettings;
class EventStreamClient;
class MainWindow;
class TrayIndicator;

// Notifications in the console (issue 17): wires an AttentionNotifier to what the main window
// already receives — who is signed in (identityKnown), the queue's counts and pages, the event
// stream, and the action whose settlement changed (read to know whether its refund failed) — and
// shows what it decides: the count in the window title, in the status bar (a button
// that opens what waits, Ctrl+Shift+N) and on the tray icon; a notice as a desktop notification
// through the tray and, for NoticeShownMs, in a status-bar field of its own. Clicking a notice (or the tray's) opens its action, or
// the filter of what it reports, and raises the window. The Settings menu's entries (notices on or
// off, at most one per N seconds) are remembered in ConsoleSettings.
//
// Without a system tray everything but the tray works: the status bar carries the notices.
class AttentionController : public QObject
{
    Q_OBJECT

public:
    AttentionController(MainWindow *window, ApiClient *client, EventStreamClient *events, ConsoleSettings *settings);
    ~AttentionController() override;

    AttentionNotifier *notifier() { return &m_notifier; }
    TrayIndicator *tray() const { return m_tray; }
    // The window-title, status-bar and tray text of the current counts.
    QString windowTitle() const;
    QToolButton *statusButton() const { return m_statusButton; }
    // The last notice in the status bar (its own field: it never replaces another message), for a while.
    QLabel *noticeLabel() const { return m_noticeLabel; }
    // "Desktop notifications" (checkable) and the interval entries: the Settings menu's.
    QAction *noticesAction() const { return m_noticesAction; }
    QList<QAction *> intervalActions() const;
    // Adds the two entries to `menu` (the interval as a submenu).
    void addSettingsTo(QMenu *menu);
    // The last notice shown (its actionId/kind say what clicking it opens).
    AttentionNotifier::Notice lastNotice() const { return m_lastNotice; }

    // The interval choices of the Settings menu, in seconds.
    static QList<int> intervalChoices() { return { 10, 30, 60, 300 }; }
    static constexpr int NoticeShownMs = 20000;

public slots:
    // What clicking the last notice does: its action (or its filter) in the queue, window raised.
    void openLastNotice();
    // What the status button does: the filter of what waits.
    void openWaiting();

signals:
    // A notice that was shown (in the status bar, and on the desktop when there is a tray).
    void noticeShown(const cs::AttentionNotifier::Notice &notice, bool onDesktop);

private:
    void updateShownCounts();
    // Reads the action whose settlement changed and hands its settlement to the notifier.
    void checkSettlement(const QString &actionId);
    void showNotice(const AttentionNotifier::Notice &notice);
    void raiseWindow();
    void setInterval(int seconds);

    QPointer<MainWindow> m_window;
    ApiClient *m_client;
    ConsoleSettings *m_settings;
    AttentionNotifier m_notifier;
    TrayIndicator *m_tray = nullptr;
    QToolButton *m_statusButton = nullptr;
    QLabel *m_noticeLabel = nullptr;
    QTimer m_noticeHide;
    QAction *m_showWaitingAction = nullptr;
    QAction *m_noticesAction = nullptr;
    QActionGroup *m_intervalGroup = nullptr;
    AttentionNotifier::Notice m_lastNotice;
    QMetaObject::Connection m_selectWhenLoaded;
};

} // namespace cs
