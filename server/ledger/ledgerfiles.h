#pragma once

#include "server/ledger/ledgererror.h"

#include <QString>
#include <QStringList>

namespace cs {

// The files that make up a SQLite ledger, and the rule that no command writes over one of them
// (issue 34). A ledger is its file and what SQLite and countersignd keep beside it: FILE-journal,
// FILE-wal, FILE-shm and FILE.witness (LedgerWitness). Writing any of them with anything but
// SQLite destroys acknowledged writes — an export over FILE-wal while serve runs lost every
// commit since the last checkpoint, and `audit verify` could not tell.
namespace LedgerFiles {

// "", "-journal", "-wal", "-shm", ".witness": appended to a ledger file's path.
const QStringList &suffixes();

// Whether the file at path begins as a SQLite database does ("SQLite format 3\0").
bool isSqliteDatabase(const QString &path);

enum class Replacing {
    Nothing,      // an export: a SQLite database at the target is refused too
    OneOfOurCopies, // a backup with --force: an existing copy (a database) may be replaced
};

// Invalid, with the reason in words, when a command that writes targetFile would write over a
// ledger's file: ledgerFile (the ledger the command reads; empty or a URI: none) or one of its
// siblings, however spelt (`..`, symlinks — followed, dangling ones too — and hard links: compared
// as files); the -wal, -shm, -journal or witness of ANY SQLite database; and, unless replacing
// allows it, any SQLite database. ok() otherwise (the target may not exist).
LedgerError refuseTarget(const QString &targetFile, const QString &ledgerFile, Replacing replacing);

} // namespace LedgerFiles

} // namespace cs
