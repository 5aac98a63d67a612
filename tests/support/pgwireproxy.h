#pragma once

// A TCP relay on 127.0.0.1 between the ledger and a PostgreSQL server that can lose a COMMIT on
// purpose (issue 13: FoundationDB's commit_unknown_result). It reads the client's side of the
// PostgreSQL wire protocol just far enough to find message boundaries — the untyped startup
// packets (SSLRequest, GSSENCRequest, StartupMessage), then typed messages (one type byte, a
// 32-bit length) — and, when armed, acts on the next simple-query message ('Q') whose text is
// COMMIT, on whichever connection sends it first:
//   AnswerLost   the COMMIT goes to the server; once the server's answer reaches the relay, both
//                sockets are cut without relaying it: the transaction committed, the client
//                never hears.
//   RequestLost  both sockets are cut before the COMMIT is forwarded: the server never got it,
//                the transaction rolls back when its backend notices.
// It can also refuse (accept and cut at once) every new connection and cut the open ones: the
// database is unreachable. Everything else is relayed untouched, both ways.
//
// The relay runs on a thread of its own, so a test thread blocked in libpq (a ledger call) does
// not block the relay. The public calls are thread-safe.

#include <QByteArray>
#include <QtGlobal>

#include <atomic>
#include <memory>

class QThread;

namespace cs::test {

class PgWireRelay;

class PgWireProxy
{
public:
    enum class CommitFault { None, AnswerLost, RequestLost };

    explicit PgWireProxy(quint16 upstreamPort);
    ~PgWireProxy();
    Q_DISABLE_COPY_MOVE(PgWireProxy)

    bool start(); // listens on 127.0.0.1, an ephemeral port
    quint16 port() const;

    // Arms the fault for the next COMMIT — with onlyAfter, the next COMMIT of a transaction that
    // ran a statement containing it (say "INSERT INTO attempts": a claim). refuseAfter: from the
    // moment it fires, the relay also refuses every connection (until setRefusing(false)), so the
    // client cannot ask what happened.
    void armCommitFault(CommitFault fault, bool refuseAfter = false, const QByteArray &onlyAfter = {});
    void setRefusing(bool refusing); // true also cuts every open connection

    int faultsFired() const { return m_fired.load(); }
    int commitsSeen() const { return m_commits.load(); }
    int connectionsAccepted() const { return m_accepted.load(); }
    int connectionsRefused() const { return m_refused.load(); }

private:
    friend class PgWireRelay;

    QByteArray m_marker; // touched on the relay's thread only
    std::atomic<int> m_fault{int(CommitFault::None)};
    std::atomic<bool> m_refuseAfter{false};
    std::atomic<bool> m_refusing{false};
    std::atomic<int> m_fired{0};
    std::atomic<int> m_commits{0};
    std::atomic<int> m_accepted{0};
    std::atomic<int> m_refused{0};
    std::unique_ptr<QThread> m_thread;
    PgWireRelay *m_relay = nullptr; // lives on m_thread
    quint16 m_upstreamPort;
    quint16 m_port = 0;
};

} // namespace cs::test
