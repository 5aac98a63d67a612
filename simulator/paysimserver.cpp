#include "simulator/paysimserver.h"

#include "simulator/adminapi.h"
#include "simulator/paysimlog.h"
#include "simulator/refundsettler.h"
#include "simulator/simdatabase.h"
#include "simulator/stripeapi.h"
#include "simulator/webhooksender.h"

#include <QCryptographicHash>
#include <QJsonDocument>

namespace cs::paysim {

PaysimServer::PaysimServer(const PaysimConfig &config, QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_ids(config.seed)
    , m_faults(config.seed)
{
    if (!m_config.dbPath.isEmpty())
        m_db = std::make_unique<SimDatabase>(m_config.dbPath);
    m_idempotency = std::make_unique<IdempotencyStore>(m_db.get());
    m_idempotency->setWindowMs(static_cast<qint64>(m_config.keyWindowHours * 3600.0 * 1000.0));
    m_store = std::make_unique<PaymentStore>(m_clock, m_ids, m_db.get());
    m_webhooks = new WebhookSender(m_config.webhookUrl, m_config.webhookSecret, this);
    m_webhooks->setRetryPolicy(m_config.webhookMaxAttempts, m_config.webhookRetryBaseMs);
    m_store->setWebhooksPerEvent(m_webhooks->isEnabled() ? 1 : 0);
    m_store->setEventSink([this](const StripeEvent &event) {
        if (!m_webhooks->isEnabled())
            return;
        const QByteArray payload = QJsonDocument(event.toApiJson()).toJson(QJsonDocument::Indented);
        // Events of a lagging refund are held back until the refund becomes visible.
        m_webhooks->deliver(event.id, event.type, payload, std::max<qint64>(0, event.visibleAtMs - m_clock.nowMs()));
    });
    connect(m_webhooks, &WebhookSender::deliveryFinished, this,
            [this](const QString &eventId, bool) { m_store->setEventPendingWebhooks(eventId, 0); });

    m_listener = new HttpListener(this);
    m_stripe = new StripeApi(m_clock, m_ids, *m_idempotency, *m_store, m_faults, m_requestLog, m_db.get(), this);
    m_admin = new AdminApi(*this, this);
    m_settler = new RefundSettler(m_clock, *m_store, m_db.get(), this);
    connect(m_stripe, &StripeApi::stateChanged, m_settler, &RefundSettler::settleDue);
    m_listener->setHandler([this](std::shared_ptr<HttpExchange> exchange) { route(exchange); });
    // A real provider's Date follows its own clock; paysim's follows the simulated one, so a client
    // can tell when paysim's clock runs ahead of its own (issue 33: the key window on both clocks).
    m_listener->setDateSource([this] { return QDateTime::fromMSecsSinceEpoch(m_clock.nowMs(), Qt::UTC); });
}

PaysimServer::~PaysimServer()
{
    stop();
    persistCounters();
    // The APIs hold references to the stores, which are members: delete them (and any request
    // they still hold) while the stores are alive.
    delete m_settler;
    delete m_admin;
    delete m_stripe;
    delete m_listener;
    delete m_webhooks;
}

bool PaysimServer::start(QString *error)
{
    if (m_db) {
        QString dbError;
        if (!m_db->open(&dbError)) {
            if (error)
                *error = QStringLiteral("cannot open database %1: %2").arg(m_config.dbPath, dbError);
            return false;
        }
        m_dbOpen = true;
        m_clock.setOffsetMs(m_db->meta(QStringLiteral("clock_offset_ms")).toLongLong());
        m_ids.setCounter(m_db->meta(QStringLiteral("id_counter")).toULongLong());
        m_amountCounter = m_db->meta(QStringLiteral("amount_counter")).toULongLong();
        m_store->load(m_db->loadCharges(), m_db->loadRefunds(), m_db->loadEvents());
        m_idempotency->load(m_db->loadIdempotency());
        m_settler->settleDue(); // refunds that fell due while paysim was down settle now
        qCDebug(lcPaysim) << "loaded" << m_store->charges().size() << "charges and" << m_store->refunds().size()
                          << "refunds from" << m_config.dbPath;
    }
    for (const QJsonObject &json : std::as_const(m_config.faults)) {
        const QString faultError = addFault(json);
        if (!faultError.isEmpty()) {
            if (error)
                *error = QStringLiteral("invalid --fault rule: %1").arg(faultError);
            return false;
        }
    }
    if (m_config.seedCharges > 0 && m_store->charges().isEmpty())
        seedCharges(m_config.seedCharges, QStringLiteral("usd"));
    QString listenError;
    if (!m_listener->listen(m_config.address, m_config.port, &listenError)) {
        if (error)
            *error = QStringLiteral("cannot listen on %1:%2: %3").arg(m_config.address.toString()).arg(m_config.port).arg(listenError);
        return false;
    }
    return true;
}

void PaysimServer::stop()
{
    if (m_listener)
        m_listener->close();
}

QUrl PaysimServer::baseUrl() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(m_listener->address().toString());
    url.setPort(m_listener->port());
    return url;
}

quint16 PaysimServer::port() const
{
    return m_listener->port();
}

void PaysimServer::route(const std::shared_ptr<HttpExchange> &exchange)
{
    const QString path = exchange->request().path();
    if (path == QLatin1String("/_sim") || path.startsWith(QLatin1String("/_sim/")))
        m_admin->handle(exchange);
    else
        m_stripe->handle(exchange);
}

QString PaysimServer::addFault(const QJsonObject &json)
{
    const auto parsed = FaultRule::fromJson(json);
    if (const auto *error = std::get_if<QString>(&parsed))
        return *error;
    m_faults.add(std::get<FaultRule>(parsed));
    return {};
}

QList<Charge> PaysimServer::seedCharges(const QList<qint64> &amounts, const QString &currency, const ChargeSeed &seed)
{
    QList<Charge> out;
    SimDatabase::Transaction transaction(m_db.get());
    for (qint64 amount : amounts) {
        const QString requestId = m_ids.mint(QStringLiteral("req_"), 14);
        Charge c;
        c.amount = amount;
        c.currency = currency;
        c.source = seed.source;
        c.description = QStringLiteral("Seeded by paysim");
        c.cardBrand = seed.cardBrand;
        c.cardLast4 = seed.cardLast4;
        c.created = m_clock.nowSeconds() - seed.ageSeconds;
        c = m_store->addCharge(std::move(c), requestId, {});
        if (seed.disputed)
            c = std::get<Charge>(m_store->disputeCharge(c.id, QStringLiteral("general"), requestId));
        out.append(c);
    }
    persistCounters();
    transaction.commit();
    return out;
}

QList<Charge> PaysimServer::seedCharges(int count, const QString &currency, const ChargeSeed &seed)
{
    // Varied but reproducible amounts from 10.00 to 200.00, derived from the seed.
    QList<qint64> amounts;
    for (int i = 0; i < count; ++i) {
        const QByteArray material = "amount:" + QByteArray::number(m_config.seed) + ':' + QByteArray::number(++m_amountCounter);
        const QByteArray digest = QCryptographicHash::hash(material, QCryptographicHash::Sha256);
        const quint32 r = (static_cast<quint8>(digest[0]) << 8) | static_cast<quint8>(digest[1]);
        amounts.append(1000 + static_cast<qint64>(r % 191) * 100);
    }
    return seedCharges(amounts, currency, seed);
}

void PaysimServer::advanceClock(qint64 ms)
{
    m_clock.advance(ms);
    persistCounters();
    m_settler->settleDue();
}

void PaysimServer::reset()
{
    m_store->clear();
    m_idempotency->clear();
    m_faults.clear();
    m_faults.reseed();
    m_requestLog.clear();
    m_webhooks->clear();
    m_clock.setOffsetMs(0);
    if (m_db && m_dbOpen)
        m_db->clearAll();
    persistCounters();
    m_settler->reschedule();
}

void PaysimServer::persistCounters()
{
    if (!m_db || !m_dbOpen)
        return;
    m_db->setMeta(QStringLiteral("clock_offset_ms"), QString::number(m_clock.offsetMs()));
    m_db->setMeta(QStringLiteral("id_counter"), QString::number(m_ids.counter()));
    m_db->setMeta(QStringLiteral("amount_counter"), QString::number(m_amountCounter));
}

} // namespace cs::paysim
