#pragma once

// A fresh ledger per test function, on either engine (tests/support/testledger.h). Header-only;
// for QtTest suites (the benchmarks use ledgertestsupport.h alone).

#include "server/ledger/ledger.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QString>
#include <QTemporaryDir>

#include <memory>

namespace cs::test {

// A fresh ledger for one test function, on `clock`: a file in its own temporary folder, or with
// COUNTERSIGN_TEST_ENGINE=postgres a fresh database (ledgerLocation). `m_ledger->approvals()`,
// `*m_ledger` and `m_ledger.path()` as the tests use them.
class ScratchLedger
{
public:
    // Empty when it opened; otherwise why not.
    QString open(const ManualClock &clock)
    {
        close();
        m_dir = std::make_unique<QTemporaryDir>();
        if (!m_dir->isValid())
            return QStringLiteral("no temporary folder");
        m_path = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
        if (m_path.isEmpty())
            return QStringLiteral("no ledger location (the warning above says why)");
        m_ledger = std::make_unique<Ledger>();
        Ledger::Options options;
        options.clock = clock.clock();
        const LedgerError e = m_ledger->open(m_path, options);
        return e.ok() ? QString() : e.toString();
    }
    void close()
    {
        m_ledger.reset();
        m_dir.reset();
    }
    Ledger *operator->() const { return m_ledger.get(); }
    Ledger &operator*() const { return *m_ledger; }
    const QString &path() const { return m_path; }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_ledger;
    QString m_path;
};

} // namespace cs::test
