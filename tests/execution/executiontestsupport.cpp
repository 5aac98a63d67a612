#include "tests/execution/executiontestsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QTest>

namespace cs::test {

Paysim::Paysim(paysim::PaysimConfig config)
{
    config.address = QHostAddress(QHostAddress::LocalHost);
    config.port = 0;
    m_server = std::make_unique<paysim::PaysimServer>(config);
}

Paysim::~Paysim()
{
    m_admin.reset();
    if (m_server)
        m_server->stop();
}

bool Paysim::start()
{
    QString error;
    if (!m_server->start(&error)) {
        qWarning() << "paysim did not start:" << error;
        return false;
    }
    m_admin = std::make_unique<SimClient>(m_server->baseUrl());
    return true;
}

QString Paysim::seedCharge(qint64 amount, const QString &currency)
{
    const QList<paysim::Charge> charges = m_server->seedCharges(QList<qint64>{amount}, currency);
    return charges.isEmpty() ? QString() : charges.first().id;
}

bool Paysim::addFault(const QJsonObject &rule)
{
    const QString error = m_server->addFault(rule);
    if (!error.isEmpty())
        qWarning() << "fault refused:" << error << rule;
    return error.isEmpty();
}

QJsonArray Paysim::groundTruth()
{
    const SimReply reply = m_admin->adminGet(QStringLiteral("/_sim/refunds"));
    if (reply.status != 200)
        qWarning() << "ground truth unavailable:" << reply.status << reply.body;
    return reply.json.value(QStringLiteral("data")).toArray();
}

QJsonArray Paysim::refundsFor(const QString &actionId)
{
    QJsonArray out;
    for (const QJsonValue &row : groundTruth()) {
        if (row.toObject().value(QStringLiteral("metadata")).toObject().value(QStringLiteral("countersign_action_id")).toString()
            == actionId) {
            out.append(row);
        }
    }
    return out;
}

int Paysim::requestsTo(const QString &method, const QString &path)
{
    const SimReply reply = m_admin->adminGet(QStringLiteral("/_sim/requests?limit=1000"));
    int n = 0;
    for (const QJsonValue &row : reply.json.value(QStringLiteral("data")).toArray()) {
        const QJsonObject r = row.toObject();
        if (r.value(QStringLiteral("method")).toString() == method && r.value(QStringLiteral("path")).toString() == path)
            ++n;
    }
    return n;
}

QByteArray secretKey()
{
    return QByteArrayLiteral("sk_test_countersign_execution");
}

QString writeSecretKeyFile(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("stripe.key"));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        file.write(secretKey() + '\n');
    return path;
}

StripeClientConfig providerConfig(const QUrl &base, int timeoutMs)
{
    StripeClientConfig config;
    config.baseUrl = base;
    config.secretKey = secretKey();
    config.name = QStringLiteral("paysim");
    config.requestTimeout = std::chrono::milliseconds(timeoutMs);
    config.lookupTimeout = std::chrono::milliseconds(timeoutMs);
    return config;
}

ExecutionConfig fastConfig(int workers)
{
    ExecutionConfig config;
    config.workers = workers;
    config.requestTimeout = std::chrono::milliseconds(400);
    config.leaseDuration = std::chrono::milliseconds(2000);
    config.idlePoll = std::chrono::milliseconds(10);
    config.recoverySweep = std::chrono::milliseconds(100);
    config.maxBusyRetries = 3;
    config.backoffBase = std::chrono::milliseconds(50);
    config.backoffMax = std::chrono::milliseconds(400);
    config.maxReconcileTries = 6;
    config.ambiguousLookups = 2;
    config.instanceName = QStringLiteral("test");
    return config;
}

ProposalStore::ProposalInput refundInput(const QString &chargeId, qint64 amount, const QString &clientReference)
{
    ProposalStore::ProposalInput input;
    input.targetType = TargetType::Charge;
    input.targetId = chargeId;
    input.businessReference = QStringLiteral("order-") + clientReference;
    input.amount = amount;
    input.currency = QStringLiteral("usd");
    input.reason = QStringLiteral("requested_by_customer");
    input.clientReference = clientReference;
    input.provider = QStringLiteral("paysim");
    return input;
}

ActionRecord approvedRefund(Ledger &ledger, const QString &chargeId, qint64 amount, const QString &clientReference)
{
    const auto proposed = ledger.proposals().propose(refundInput(chargeId, amount, clientReference), QStringLiteral("agent-7"));
    if (!proposed.ok()) {
        qWarning() << "propose failed:" << proposed.error().toString();
        return {};
    }
    const auto approved = ledger.approvals().approve(proposed->record.id, QStringLiteral("alice"), QStringLiteral("ok"),
                                         proposed->record.stateVersion);
    if (!approved.ok()) {
        qWarning() << "approve failed:" << approved.error().toString();
        return {};
    }
    return approved.value();
}

QString describe(Ledger &ledger, const QString &actionId)
{
    QJsonObject out;
    const auto action = ledger.reader().action(actionId);
    if (action.ok()) {
        out.insert(QStringLiteral("state"), toWire(action->state));
        out.insert(QStringLiteral("review_reason"), action->reviewReason);
    }
    QJsonArray attempts;
    if (const auto list = ledger.reader().attempts(actionId); list.ok()) {
        for (const Attempt &a : list.value())
            attempts.append(a.toJson());
    }
    out.insert(QStringLiteral("attempts"), attempts);
    QJsonArray lookups;
    if (const auto list = ledger.reader().lookups(actionId); list.ok()) {
        for (const ProviderLookup &l : list.value())
            lookups.append(l.toJson());
    }
    out.insert(QStringLiteral("lookups"), lookups);
    return QString::fromUtf8(QJsonDocument(out).toJson(QJsonDocument::Indented));
}

} // namespace cs::test
