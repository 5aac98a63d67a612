#pragma once

// The real countersignd binary run as a command (backup, export, check, audit verify, serve that
// refuses to start), for the ledger tests that judge what it prints and leaves behind.

#include "tests/api/apitestsupport.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStringList>

#include <grp.h>
#include <unistd.h>

namespace cs::test {

struct Run
{
    int exitCode = -1; // -1: it did not exit normally
    QString out;
    QString err;
};

// The real countersignd; `asNobody` (when this test runs as root): the child drops to uid/gid
// 65534 first, so that a folder's permissions bind it. env: the child's environment.
inline Run countersignd(const QStringList &arguments, bool asNobody = false,
                        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(env);
    if (asNobody && ::geteuid() == 0) {
        process.setChildProcessModifier([] {
            if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)
                ::_exit(99);
        });
    }
    process.start(ApiHarness::countersigndBinary(), arguments);
    Run run;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        run.err = QStringLiteral("countersignd did not finish");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// Every entry under a folder with its size and content hash: "nothing left behind, nothing
// changed" is this listing unchanged.
inline QStringList listing(const QString &folder)
{
    QStringList out;
    QDirIterator it(folder, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QFileInfo info = it.fileInfo();
        QString line = QDir(folder).relativeFilePath(info.filePath());
        if (info.isSymLink()) {
            line += QStringLiteral(" -> ") + info.symLinkTarget();
        } else if (info.isFile()) {
            QFile file(info.filePath());
            line += QStringLiteral(" %1 bytes").arg(info.size());
            if (file.open(QIODevice::ReadOnly))
                line += u' ' + QString::fromLatin1(QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex().left(16));
        } else {
            line += u'/';
        }
        out << line;
    }
    out.sort();
    return out;
}

// The first column of the first row of sql on a SQLite file, read-only (-1 when it fails).
inline qint64 scalarOf(const QString &db, const QString &sql)
{
    const QString name = QStringLiteral("scalar-of-%1").arg(quintptr(&db));
    qint64 value = -1;
    {
        QSqlDatabase connection = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        connection.setDatabaseName(db);
        connection.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
        if (connection.open()) {
            QSqlQuery q(connection);
            if (q.exec(sql) && q.next())
                value = q.value(0).toLongLong();
        }
    }
    QSqlDatabase::removeDatabase(name);
    return value;
}

} // namespace cs::test
