// Issue 12, what exact input costs: (1) reading a request body with StrictJson vs QJsonDocument
// (the baseline it replaced), for a typical proposal and for a 60 KB note; (2) verifying the
// audit chain over the stored bytes (AuditChain::verify) vs recomputing AuditEvent::chainHash
// over the rows read back (the old verify), on one ledger of N actions. Median of 5 runs each.
//
//   bench_input [N=2000]
#include "server/api/strictjson.h"
#include "server/ledger/ledger.h"
#include "tests/bench/benchstats.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTextStream>

using namespace cs;

namespace {

QTextStream &out()
{
    static QTextStream stream(stdout);
    return stream;
}

template <typename F>
double microsPer(int iterations, F &&f)
{
    QList<double> runs;
    for (int run = 0; run < 5; ++run) {
        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < iterations; ++i)
            f();
        runs << double(timer.nsecsElapsed()) / 1000.0 / iterations;
    }
    return bench::median(runs);
}

void bodies()
{
    const QByteArray proposal = R"({"kind":"refund","target":{"charge":"ch_3Pq8Xk2eZvKYlo2C1b4a9dEf"},"amount":4000,)"
                                R"("currency":"usd","reason":"requested_by_customer","client_reference":"order-1001-r1",)"
                                R"("business_reference":"order-1001 caf\u00e9 \ud83d\udce6"})";
    const QByteArray note = "{\"note\":\"" + QByteArray("line of a long note \\u00e9 \xc3\xa9\\n").repeated(1800) + "\"}";
    for (const auto &[name, body] : {std::pair{"proposal (330 B)", proposal}, std::pair{"note (60 KB)", note}}) {
        const int n = body.size() > 10000 ? 300 : 20000;
        volatile qsizetype sink = 0;
        const double qt = microsPer(n, [&] { sink = sink + QJsonDocument::fromJson(body).object().size(); });
        const double strict = microsPer(n, [&] {
            const auto parsed = StrictJson::parseObject(body);
            sink = sink + std::get<QJsonObject>(parsed).size();
        });
        out() << QStringLiteral("body %1: QJsonDocument %2 us, StrictJson %3 us (x%4)\n")
                     .arg(QLatin1String(name))
                     .arg(qt, 0, 'f', 2)
                     .arg(strict, 0, 'f', 2)
                     .arg(strict / qt, 0, 'f', 2);
    }
}

bool chain(int actions)
{
    QTemporaryDir dir;
    Ledger ledger;
    if (!ledger.open(dir.filePath(QStringLiteral("ledger.db"))).ok())
        return false;
    for (int i = 0; i < actions; ++i) {
        ProposalStore::ProposalInput input;
        input.targetId = QStringLiteral("ch_bench%1").arg(i);
        input.amount = 1000 + i;
        input.currency = QStringLiteral("usd");
        input.clientReference = QStringLiteral("bench-%1 caf\u00e9").arg(i);
        input.businessReference = QStringLiteral("order %1 \U0001F4E6").arg(i);
        input.provider = QStringLiteral("paysim");
        input.providerAccount = QStringLiteral("acct");
        input.note = QStringLiteral("generated note %1").arg(i);
        const auto p = ledger.proposals().propose(input, QStringLiteral("agent-7"));
        if (!p.ok() || !ledger.approvals().approve(p->record.id, QStringLiteral("ana"), QStringLiteral("ok"), 1).ok())
            return false;
    }
    qint64 rows = 0;
    QList<double> stored, reread;
    for (int run = 0; run < 5; ++run) {
        QElapsedTimer timer;
        timer.start();
        const auto v = ledger.reader().verifyAudit();
        stored << double(timer.nsecsElapsed()) / 1e6;
        if (!v.ok() || !v->ok)
            return false;
        rows = v->rowsChecked;
        timer.restart();
        const auto events = ledger.reader().auditLog(0, int(rows) + 1);
        bool ok = events.ok();
        for (const AuditEvent &e : events.value())
            ok = ok && e.chainHash(e.prevHash) == e.hash;
        reread << double(timer.nsecsElapsed()) / 1e6;
        if (!ok)
            return false;
    }
    out() << QStringLiteral("audit verify, %1 rows: over the stored bytes %2 ms, chainHash over the rows read back %3 ms (x%4)\n")
                 .arg(rows)
                 .arg(bench::median(stored), 0, 'f', 1)
                 .arg(bench::median(reread), 0, 'f', 1)
                 .arg(bench::median(stored) / bench::median(reread), 0, 'f', 2);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int actions = argc > 1 ? QByteArray(argv[1]).toInt() : 2000;
    bodies();
    if (!chain(actions > 0 ? actions : 2000)) {
        out() << "the ledger part failed\n";
        return 1;
    }
    return 0;
}
