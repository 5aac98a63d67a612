#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

namespace cs {

class MainWindow;

// The console's --screenshot: saves a picture of the main window once it shows what was asked
// for, then reports finished(ok) (main.cpp quits with it). It only watches MainWindow's public
// signals and accessors and grabs the window; it never changes what the console does, except
// selecting the requested action and tab.
//
// Limits: one picture per Screenshotter; a picture that is never due (the backend does not
// answer, the action does not exist) is reported only by giveUpAfter().
class Screenshotter : public QObject
{
    Q_OBJECT

public:
    explicit Screenshotter(MainWindow *window, QObject *parent = nullptr);

    // Once the queue's first page, and `actionId`'s detail if given (it is selected), are shown,
    // on `tab` ("overview", "evidence", "approvals", "reconciliations", "audit", "related", "diff";
    // another name keeps the remembered tab). Call before MainWindow::start().
    void whenShown(const QString &path, const QString &actionId, const QString &tab);
    // A while after `sender` first emits `signal` (demo mode: signed in, or a scenario ended),
    // so that the queue and the panels have caught up.
    template <typename Sender, typename Signal>
    void after(const Sender *sender, Signal signal, const QString &path)
    {
        connect(sender, signal, this, [this, path] { grabSoon(path, DemoSettleMs); }, Qt::SingleShotConnection);
    }
    // Reports finished(false), with `why` on stderr, if no picture was saved within `ms`.
    void giveUpAfter(int ms, const QString &why);

signals:
    void finished(bool ok);

private:
    static constexpr int ShownSettleMs = 600;  // the last layout and paint
    static constexpr int DemoSettleMs = 2500;  // the queue and the demo panels catch up

    void maybeGrab();
    void grabSoon(const QString &path, int delayMs);

    QPointer<MainWindow> m_window;
    QString m_path;     // of the picture whenShown() waits for; empty once it is due
    QString m_actionId;
    QString m_tab;
    bool m_done = false;
};

} // namespace cs
