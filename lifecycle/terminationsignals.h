#pragma once

#include <QObject>

class QSocketNotifier;

namespace cs {

// Turns SIGTERM and SIGINT into a Qt signal on the event loop, for the services' main()s
// (countersignd, paysim) to shut down cleanly. The POSIX handler only writes the
// signal number into a socketpair (async-signal-safe); a QSocketNotifier reads it on the main
// thread. One instance per process.
class TerminationSignals : public QObject
{
    Q_OBJECT
public:
    explicit TerminationSignals(QObject *parent = nullptr);
    ~TerminationSignals() override;

    bool isInstalled() const { return m_notifier != nullptr; }

signals:
    void terminationRequested(int signalNumber);

private:
    void onActivated();

    QSocketNotifier *m_notifier = nullptr;
};

} // namespace cs
