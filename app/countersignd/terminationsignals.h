#pragma once

#include <QObject>

class QSocketNotifier;

// Turns SIGTERM and SIGINT into a Qt signal on the event loop: the POSIX handler only writes the
// signal number into a socketpair (async-signal-safe); a QSocketNotifier reads it on the main
// thread. One instance per process.
class TerminationSignals : public QObject
{
    Q_OBJECT
public:
    explicit TerminationSignals(QObject *parent = nullptr);
    ~TerminationSignals() override;

signals:
    void terminationRequested(int signalNumber);

private:
    void onActivated();

    QSocketNotifier *m_notifier = nullptr;
};
