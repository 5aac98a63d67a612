#pragma once

#include "server/providerclient.h"

#include <QByteArray>
#include <QString>
#include <QUrl>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

class QNetworkAccessManager;

namespace cs {

struct StripeClientConfig
{
    QUrl baseUrl = QUrl(QStringLiteral("https://api.stripe.com")); // or paysim's http://127.0.0.1:port
    QByteArray secretKey;                 // "sk_…": use StripeClient::readSecretKeyFile
    QString name = QStringLiteral("stripe"); // adapter name reported by name(): "stripe", "paysim"
    std::chrono::milliseconds requestTimeout{30000}; // deadline of a POST, from send to last byte
    std::chrono::milliseconds lookupTimeout{15000};  // deadline of each GET of a lookup
    int maxListPages = 20;                // 100 objects a page
    // How long the provider promises to keep an idempotency key: Stripe prunes keys "after they're
    // at least 24 hours old" (paysim by default too). countersignd's key window may not exceed it.
    std::chrono::milliseconds keyRetention{std::chrono::hours(24)};

    // Empty when usable. A plain-http base URL is refused unless its host is loopback (paysim on
    // http://127.0.0.1): the secret key goes out in every request's Authorization header.
    QString validate() const;
    static bool isLoopbackHost(const QString &host); // 127.0.0.0/8, ::1, ::ffff:127.x, "localhost"
};

// The Stripe adapter: Stripe's wire format (form encoding, Idempotency-Key, Bearer secret key,
// metadata[countersign_action_id]) against a configurable base URL — the real API or paysim.
//
// Every call blocks its thread until answered or until its deadline, and is meant for worker
// threads. Each calling thread gets its own QNetworkAccessManager (kept-alive connections are
// per thread), created on first use and deleted when that thread finishes. Thread-safe. Destroy
// the client after the threads that used it have finished (or from the only thread that did).
//
// It never retries on its own. Qt 6.4's HTTP stack silently re-sends a request whose connection
// closed before the answer; for a POST that would be a second request without an attempt row,
// so the body is uploaded from a device that cannot be rewound and Qt reports
// ContentReSendError instead — classified Unknown, like every failure after the request may
// have left the process.
class StripeClient : public ProviderClient
{
public:
    // What came back from one HTTP exchange, before classification.
    struct HttpAnswer
    {
        bool answered = false;  // a status line arrived
        int status = 0;
        QByteArray body;
        QByteArray requestId;   // Request-Id
        bool replayed = false;  // Idempotent-Replayed: true
        QByteArray retryAfter;  // Retry-After, raw
        bool timedOut = false;  // our deadline aborted it
        bool aborted = false;   // abortInFlight() aborted it
        QString transportError; // when !answered
        qint64 elapsedMs = 0;
        ProviderClock clock;    // the Date header (invalid when none arrived)
    };

    explicit StripeClient(StripeClientConfig config);
    ~StripeClient() override;
    Q_DISABLE_COPY_MOVE(StripeClient)

    // The whole file, trimmed; nothing (and *error) if unreadable, empty or not "sk_…"/"rk_…".
    static std::optional<QByteArray> readSecretKeyFile(const QString &path, QString *error = nullptr);

    // How one answer to POST /v1/refunds is classified (see the table in the .cpp).
    static RefundOutcome classifyRefundAnswer(const HttpAnswer &answer);

    const StripeClientConfig &config() const { return m_config; }

    QString name() const override;
    std::chrono::milliseconds longestDeadline() const override
    {
        return std::max(m_config.requestTimeout, m_config.lookupTimeout);
    }
    std::chrono::milliseconds promisedKeyWindow() const override { return m_config.keyRetention; }
    RefundOutcome createRefund(const ProviderRequest &request, const QString &idempotencyKey) override;
    ProviderLookup findRefundForAction(const ActionRecord &action, const QString &askedBy) override;
    ProviderLookup retrieveRefund(const ActionRecord &action, const QString &refundId,
                                  const QString &askedBy) override;
    RefundSearch searchRefundsForAction(const ActionRecord &action, const QString &askedBy) override;
    ProviderLookup findRefundInEvents(const ActionRecord &action, const QString &askedBy) override;
    // GET /v1/payment_intents/{id} (for a pi_: its latest_charge), then
    // GET /v1/charges/{id}?expand[]=refunds, then GET /v1/refunds?charge=… for every further page
    // (at most maxListPages; more is ERROR: a partial list would overstate what is left).
    ChargeSnapshot retrieveCharge(TargetType targetType, const QString &targetId, const QString &askedBy) override;
    bool readsCharges() const override { return true; }
    // GET /v1/refunds?limit=1 within min(lookupTimeout, 5 s): any 2xx or 429 is Reachable (it
    // answers, and accepts the key); 401/403 (the key is refused), other answers and no answer are
    // Unreachable: nothing could be sent.
    Reachability probe() override;
    void abortInFlight() override;

private:
    struct Shared;

    // actionId: the action the request is made for, named first in its log line (empty: none,
    // e.g. reading a charge).
    HttpAnswer perform(const QByteArray &verb, const QUrl &url, const QByteArray &formBody,
                       const QString &idempotencyKey, std::chrono::milliseconds timeout,
                       const QString &actionId = QString());
    QNetworkAccessManager *networkForCurrentThread();
    QUrl endpoint(const QString &path) const;

    StripeClientConfig m_config;
    std::shared_ptr<Shared> m_shared;
};

} // namespace cs
