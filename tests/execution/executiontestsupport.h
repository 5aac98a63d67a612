#pragma once

// Shared by the execution tests: an in-process paysim on 127.0.0.1 with its ground truth, an
// adjustable clock, fast configurations, and approved refunds in a ledger.

#include "models/actionstate.h"
#include "server/executionconfig.h"
#include "server/ledger/ledger.h"
#include "server/stripeclient.h"

#include "simulator/paysimconfig.h"
#include "simulator/paysimserver.h"
#include "tests/simulator/paysimtestsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QTemporaryDir>
#include <QUrl>

#include <atomic>
#include <memory>

namespace cs::test {

// Where an executed action comes to rest: done, refused, or handed to a human.
inline bool isSettled(ActionState state)
{
    return state == ActionState::Completed || state == ActionState::Rejected || state == ActionState::RequiresReview;
}

// The system clock plus an offset the test moves forward (key windows). Thread-safe.
class OffsetClock
{
public:
    OffsetClock() : m_offsetMs(std::make_shared<std::atomic<qint64>>(0)) {}
    Clock clock() const
    {
        auto offset = m_offsetMs;
        return [offset] { return QDateTime::currentDateTimeUtc().addMSecs(offset->load()); };
    }
    void advance(qint64 ms) { m_offsetMs->fetch_add(ms); }

private:
    std::shared_ptr<std::atomic<qint64>> m_offsetMs;
};

// paysim in this process, on the test's thread: while a test waits for workers it must keep the
// event loop running (QTRY_*, QTest::qWaitFor), or paysim cannot answer them.
class Paysim
{
public:
    explicit Paysim(paysim::PaysimConfig config = {});
    ~Paysim();
    bool start();
    QUrl url() const { return m_server->baseUrl(); }
    paysim::PaysimServer &server() { return *m_server; }
    SimClient &admin() { return *m_admin; }

    QString seedCharge(qint64 amount, const QString &currency = QStringLiteral("usd"));
    bool addFault(const QJsonObject &rule); // as POST /_sim/faults takes it
    QJsonArray groundTruth();               // GET /_sim/refunds: every refund really created
    QJsonArray refundsFor(const QString &actionId); // ground-truth rows whose metadata names the action
    int requestsTo(const QString &method, const QString &path); // from the request log

private:
    std::unique_ptr<paysim::PaysimServer> m_server;
    std::unique_ptr<SimClient> m_admin;
};

QByteArray secretKey();
QString writeSecretKeyFile(const QTemporaryDir &dir);
StripeClientConfig providerConfig(const QUrl &base, int timeoutMs = 400);

// Small times for tests: 400 ms request timeout, 2 s lease, 10 ms idle poll, backoff 50 ms doubling to 400 ms.
ExecutionConfig fastConfig(int workers = 1);

ProposalStore::ProposalInput refundInput(const QString &chargeId, qint64 amount, const QString &clientReference);
// Proposed by "agent-7" and approved by "alice"; an invalid record (empty id) on failure.
ActionRecord approvedRefund(Ledger &ledger, const QString &chargeId, qint64 amount, const QString &clientReference);

QString describe(Ledger &ledger, const QString &actionId); // state, attempts, lookups, for failure messages

} // namespace cs::test
