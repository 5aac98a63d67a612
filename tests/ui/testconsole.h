#pragma once

// One console session for the GUI tests that run the real MainWindow against a backend: the API
// client and event stream with short deadlines and backoffs (a test waits seconds, not minutes),
// the settings in a file of the test's own, and the window. Closing it rejects a decision or
// pause dialog still open, so nothing outlives the window.

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "ui/consolesettings.h"
#include "ui/decisioncontroller.h"
#include "ui/executioncontroller.h"
#include "ui/mainwindow.h"

#include <QDialog>
#include <QSignalSpy>
#include <QString>
#include <QUrl>
#include <QWidget>

#include <chrono>
#include <memory>

namespace cs::test {

struct TestConsole
{
    ApiClient client;
    EventStreamClient events;
    std::unique_ptr<ConsoleSettings> settings;
    std::unique_ptr<MainWindow> window;

    TestConsole(const QUrl &url, const QString &token, const QString &iniFile)
    {
        using namespace std::chrono_literals;
        client.setBaseUrl(url);
        client.setToken(token);
        client.setDeadline(5s);
        client.setResendPolicy(100ms, 300ms);
        client.setProbeInterval(100ms, 300ms);
        events.setBaseUrl(url);
        events.setToken(token);
        events.setBackoff(100ms, 400ms);
        settings = std::make_unique<ConsoleSettings>(iniFile);
        window = std::make_unique<MainWindow>(&client, &events, settings.get());
        window->resize(1400, 880);
    }
    ~TestConsole()
    {
        if (window && window->decisions()->openDialog())
            window->decisions()->openDialog()->done(QDialog::Rejected);
        if (window && window->execution()->openDialog())
            window->execution()->openDialog()->done(QDialog::Rejected);
        window.reset();
    }
    // Shows the window, starts it and waits until the backend has said who is signed in: what
    // every test that drives the console does first. False (with a warning) when it did not.
    bool showAndSignIn(int timeoutMs = 10000)
    {
        window->show();
        QSignalSpy identity(window.get(), &MainWindow::identityKnown);
        window->start();
        if (identity.wait(timeoutMs))
            return true;
        qWarning("no identity");
        return false;
    }

    TestConsole(const TestConsole &) = delete;
    TestConsole &operator=(const TestConsole &) = delete;
};

// The child of parent with that object name (null when there is none).
template <typename T>
T *child(QWidget *parent, const char *name)
{
    return parent ? parent->findChild<T *>(QString::fromLatin1(name)) : nullptr;
}

} // namespace cs::test
