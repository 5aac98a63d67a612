#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QList>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPair>
#include <QString>
#include <QUrl>

#include <memory>

// Helpers shared by the paysim test suites. Both clients keep the Qt event loop running while
// they wait, so they work against an in-process PaysimServer as well as a separate process.

struct SimReply
{
    int status = 0;
    QByteArray body;
    QJsonObject json;
    QList<QPair<QByteArray, QByteArray>> headers;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    qint64 elapsedMs = 0;

    QByteArray header(const QByteArray &name) const;
    QString errorType() const;
    QString errorCode() const;
};

// Talks to paysim with QNetworkAccessManager. Form bodies are given as pairs and encoded here.
class SimClient
{
public:
    using Form = QList<QPair<QString, QString>>;

    explicit SimClient(const QUrl &base);
    void setBase(const QUrl &base) { m_base = base; }

    QNetworkReply *postAsync(const QString &path, const Form &form, const QString &idempotencyKey = {},
                             const QString &apiKey = QStringLiteral("sk_test_countersign"));
    SimReply post(const QString &path, const Form &form, const QString &idempotencyKey = {},
                  const QString &apiKey = QStringLiteral("sk_test_countersign"));
    SimReply get(const QString &pathAndQuery, const QString &apiKey = QStringLiteral("sk_test_countersign"));
    SimReply raw(const QByteArray &verb, const QString &path, const QByteArray &body,
                 const QList<QPair<QByteArray, QByteArray>> &headers);
    SimReply adminGet(const QString &pathAndQuery);
    SimReply adminPost(const QString &path, const QJsonObject &body = {});
    SimReply adminDelete(const QString &path);

    // Waits for a reply started with postAsync (up to timeoutMs) and collects it.
    static SimReply collect(QNetworkReply *reply, int timeoutMs = 10000);
    static QByteArray encode(const Form &form);

    // Conveniences.
    QString seedCharge(qint64 amount, const QString &currency = QStringLiteral("usd"));
    int groundTruthRefunds();
    QJsonObject addFault(const QJsonObject &rule); // returns the stored rule

private:
    QNetworkRequest request(const QString &pathAndQuery) const;

    QUrl m_base;
    QNetworkAccessManager m_network;
};

// A `refund_settles` rule (docs/PAYSIM.md) for every POST /v1/refunds: each refund is answered
// `pending` and becomes `to` after `afterSeconds` on the simulator clock.
QJsonObject refundSettlesRule(qint64 afterSeconds, const QString &to, const QString &failureReason = {});

// A raw TCP client (POSIX socket, non-blocking, polled while the Qt event loop runs) that can
// tell an answer from a connection closed without one (FIN) and from a reset (RST).
class RawConnection
{
public:
    enum class Outcome { Answered, ClosedWithoutAnswer, Reset, Timeout, ConnectFailed };

    struct Result
    {
        Outcome outcome = Outcome::Timeout;
        int status = 0;
        QByteArray head;
        QByteArray body;
        QJsonObject json;
        qint64 elapsedMs = 0;
        QByteArray header(const QByteArray &name) const;
    };

    RawConnection() = default;
    ~RawConnection();
    RawConnection(const RawConnection &) = delete;
    RawConnection &operator=(const RawConnection &) = delete;

    bool open(quint16 port);
    void close();
    bool send(const QByteArray &bytes);
    // Reads one answer; starts the clock at the last send().
    Result receive(int timeoutMs = 5000);
    Result roundTrip(const QByteArray &request, int timeoutMs = 5000);

    static Result once(quint16 port, const QByteArray &request, int timeoutMs = 5000);
    static QByteArray post(const QString &path, const QByteArray &formBody, const QString &idempotencyKey = {},
                           const QString &apiKey = QStringLiteral("sk_test_raw"));
    static QByteArray get(const QString &pathAndQuery, const QString &apiKey = QStringLiteral("sk_test_raw"));
    static QString outcomeName(Outcome outcome);

private:
    int m_fd = -1;
    QByteArray m_pending;
    QElapsedTimer m_clock;
};
