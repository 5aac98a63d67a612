#pragma once

#include <QStringList>

namespace cs {

// `countersignd export` (docs/EXPORT.md), for finance jobs:
//
//   countersignd export actions --db FILE|URI [--state S]... [--search TEXT] [--since DATE]
//                               [--until DATE] --format csv|json --to FILE|-
//   countersignd export history ACTION_ID --db FILE|URI --format csv|json --to FILE|-
//
// Reads through LedgerExport (never writes to the ledger, recovers no lease) and writes the
// console's export formats. A FILE is written through QSaveFile — a temporary file beside it,
// renamed over FILE once complete — so a failure leaves no file and an existing one as it was;
// `-` writes to standard output as the pages are read. Messages go to standard error.
class ExportCommand
{
public:
    // `arguments` as main() received them (program, "export", ...). Returns the exit status:
    // 0 written, 1 the export failed (the ledger, an unknown action, the file), 2 a usage error.
    static int run(const QStringList &arguments);
};

} // namespace cs
