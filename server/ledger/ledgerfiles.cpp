#include "server/ledger/ledgerfiles.h"
#include "server/ledger/ledgerconnections.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <sys/stat.h>

namespace cs {

namespace LedgerFiles {

namespace {

using Code = LedgerError::Code;

// Where a write to path would land: symlinks followed (a dangling one to where it points), the
// folder made canonical; the name kept when nothing is there yet.
QString resolved(const QString &path)
{
    QString current = QFileInfo(path).absoluteFilePath();
    for (int hops = 0; hops < 40; ++hops) {
        const QFileInfo info(current);
        if (!info.isSymLink())
            break;
        const QString next = info.symLinkTarget();
        if (next.isEmpty() || next == current)
            break;
        current = next;
    }
    const QFileInfo info(current);
    if (info.exists())
        return info.canonicalFilePath();
    const QString folder = QFileInfo(info.absolutePath()).canonicalFilePath();
    return folder.isEmpty() ? info.absoluteFilePath() : QDir(folder).filePath(info.fileName());
}

bool sameInode(const QString &a, const QString &b)
{
    struct stat first = {};
    struct stat second = {};
    return ::stat(QFile::encodeName(a).constData(), &first) == 0 && ::stat(QFile::encodeName(b).constData(), &second) == 0
        && first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

QString nameOf(const QString &suffix)
{
    if (suffix.isEmpty())
        return QStringLiteral("database file");
    if (suffix == u".witness")
        return QStringLiteral("witness file");
    return suffix.mid(1) + QStringLiteral(" file");
}

} // namespace

const QStringList &suffixes()
{
    static const QStringList list = {QString(), QStringLiteral("-journal"), QStringLiteral("-wal"), QStringLiteral("-shm"),
                                     QStringLiteral(".witness")};
    return list;
}

bool isSqliteDatabase(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    return file.read(16) == QByteArrayView("SQLite format 3\0", 16);
}

LedgerError refuseTarget(const QString &targetFile, const QString &ledgerFile, Replacing replacing)
{
    const QString target = resolved(targetFile);
    if (!ledgerFile.isEmpty() && !LedgerLocation::isUri(ledgerFile)) {
        const QString ledger = resolved(ledgerFile);
        const QString spelt = QFileInfo(ledgerFile).absoluteFilePath();
        for (const QString &suffix : suffixes()) {
            if (target == ledger + suffix || target == resolved(spelt + suffix)
                || (suffix.isEmpty() && sameInode(target, ledger)))
                return LedgerError(Code::Invalid,
                                   suffix.isEmpty()
                                       ? QStringLiteral("%1 is the ledger itself; write to another file").arg(targetFile)
                                       : QStringLiteral("%1 is the ledger's own %2; writing it would destroy the ledger's"
                                                        " acknowledged writes: write to another file")
                                             .arg(targetFile, nameOf(suffix)));
        }
    }
    // Another SQLite database's companions: its -wal is as much a part of it as the file.
    for (const QString &suffix : suffixes()) {
        if (suffix.isEmpty() || !target.endsWith(suffix))
            continue;
        const QString database = target.chopped(suffix.size());
        if (isSqliteDatabase(database))
            return LedgerError(Code::Invalid, QStringLiteral("%1 is the %2 of the SQLite database %3 (a ledger?); writing"
                                                             " it would destroy that database's data: write to another file")
                                                  .arg(targetFile, nameOf(suffix), database));
    }
    if (replacing == Replacing::Nothing && isSqliteDatabase(target))
        return LedgerError(Code::Invalid, QStringLiteral("%1 is a SQLite database (a ledger?); not replaced: write to"
                                                         " another file")
                                              .arg(targetFile));
    return {};
}

} // namespace LedgerFiles

} // namespace cs
