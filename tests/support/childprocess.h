#pragma once

// What the tests' child programs (tests/server/ledger_claimer, tests/execution/executor_child)
// share: a line to the parent on stdout, and waiting for the parent's start signal (a file), so
// that several children can be released at the same moment.

#include <QDeadlineTimer>
#include <QFile>
#include <QString>
#include <QThread>

#include <cstdio>
#include <mutex>

namespace cs::test {

// One line on stdout, flushed at once; thread-safe (workers may report concurrently).
inline void say(const QString &line)
{
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

// Waits until `path` exists (an empty path: at once). False, after saying "start signal never
// came", if it did not appear within 20 s.
inline bool waitForStartFile(const QString &path)
{
    if (path.isEmpty())
        return true;
    QDeadlineTimer deadline(20000);
    while (!QFile::exists(path)) {
        if (deadline.hasExpired()) {
            say(QStringLiteral("start signal never came"));
            return false;
        }
        QThread::usleep(200);
    }
    return true;
}

} // namespace cs::test
