#include "tests/simulator/paysimtestsupport.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QUrlQuery>

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

QByteArray headerOf(const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &name)
{
    for (const auto &h : headers) {
        if (QByteArrayView(h.first).compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

} // namespace

QByteArray SimReply::header(const QByteArray &name) const
{
    return headerOf(headers, name);
}

QString SimReply::errorType() const
{
    return json.value(QStringLiteral("error")).toObject().value(QStringLiteral("type")).toString();
}

QString SimReply::errorCode() const
{
    return json.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString();
}

SimClient::SimClient(const QUrl &base)
    : m_base(base)
{
}

QNetworkRequest SimClient::request(const QString &pathAndQuery) const
{
    QUrl url = m_base;
    const qsizetype q = pathAndQuery.indexOf(u'?');
    url.setPath(q < 0 ? pathAndQuery : pathAndQuery.left(q));
    if (q >= 0)
        url.setQuery(pathAndQuery.mid(q + 1));
    QNetworkRequest r(url);
    r.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    r.setTransferTimeout(15000);
    return r;
}

QByteArray SimClient::encode(const Form &form)
{
    QByteArray out;
    for (const auto &p : form) {
        if (!out.isEmpty())
            out.append('&');
        out.append(QUrl::toPercentEncoding(p.first, "[]")).append('=').append(QUrl::toPercentEncoding(p.second));
    }
    return out;
}

QNetworkReply *SimClient::postAsync(const QString &path, const Form &form, const QString &idempotencyKey,
                                    const QString &apiKey)
{
    QNetworkRequest r = request(path);
    r.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/x-www-form-urlencoded"));
    if (!apiKey.isEmpty())
        r.setRawHeader("Authorization", QByteArray("Bearer ").append(apiKey.toUtf8()));
    if (!idempotencyKey.isEmpty())
        r.setRawHeader("Idempotency-Key", idempotencyKey.toUtf8());
    return m_network.post(r, encode(form));
}

SimReply SimClient::collect(QNetworkReply *reply, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    if (!reply->isFinished()) {
        QSignalSpy spy(reply, &QNetworkReply::finished);
        spy.wait(timeoutMs);
    }
    SimReply out;
    out.elapsedMs = timer.elapsed();
    out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    out.body = reply->readAll();
    out.json = QJsonDocument::fromJson(out.body).object();
    out.headers = reply->rawHeaderPairs();
    out.error = reply->error();
    reply->deleteLater();
    return out;
}

SimReply SimClient::post(const QString &path, const Form &form, const QString &idempotencyKey, const QString &apiKey)
{
    return collect(postAsync(path, form, idempotencyKey, apiKey));
}

SimReply SimClient::get(const QString &pathAndQuery, const QString &apiKey)
{
    QNetworkRequest r = request(pathAndQuery);
    if (!apiKey.isEmpty())
        r.setRawHeader("Authorization", QByteArray("Bearer ").append(apiKey.toUtf8()));
    return collect(m_network.get(r));
}

SimReply SimClient::raw(const QByteArray &verb, const QString &path, const QByteArray &body,
                        const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QNetworkRequest r = request(path);
    for (const auto &h : headers)
        r.setRawHeader(h.first, h.second);
    return collect(m_network.sendCustomRequest(r, verb, body));
}

SimReply SimClient::adminGet(const QString &pathAndQuery)
{
    return get(pathAndQuery, {});
}

SimReply SimClient::adminPost(const QString &path, const QJsonObject &body)
{
    QNetworkRequest r = request(path);
    r.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    return collect(m_network.post(r, QJsonDocument(body).toJson(QJsonDocument::Compact)));
}

SimReply SimClient::adminDelete(const QString &path)
{
    return collect(m_network.deleteResource(request(path)));
}

QJsonObject refundSettlesRule(qint64 afterSeconds, const QString &to, const QString &failureReason)
{
    QJsonObject rule{{QStringLiteral("fault"), QStringLiteral("refund_settles")},
                     {QStringLiteral("method"), QStringLiteral("POST")},
                     {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                     {QStringLiteral("times"), 0},
                     {QStringLiteral("after_seconds"), afterSeconds},
                     {QStringLiteral("to"), to}};
    if (!failureReason.isEmpty())
        rule.insert(QStringLiteral("failure_reason"), failureReason);
    return rule;
}

QString SimClient::seedCharge(qint64 amount, const QString &currency)
{
    const SimReply r = adminPost(QStringLiteral("/_sim/charges"),
                                 QJsonObject{{QStringLiteral("amounts"), QJsonArray{amount}},
                                             {QStringLiteral("currency"), currency}});
    return r.json.value(QStringLiteral("data")).toArray().at(0).toObject().value(QStringLiteral("id")).toString();
}

int SimClient::groundTruthRefunds()
{
    const SimReply r = adminGet(QStringLiteral("/_sim/refunds"));
    if (r.status != 200)
        return -1;
    return static_cast<int>(r.json.value(QStringLiteral("data")).toArray().size());
}

QJsonObject SimClient::addFault(const QJsonObject &rule)
{
    const SimReply r = adminPost(QStringLiteral("/_sim/faults"), QJsonObject{{QStringLiteral("rules"), QJsonArray{rule}}});
    const QJsonArray rules = r.json.value(QStringLiteral("rules")).toArray();
    return rules.isEmpty() ? QJsonObject() : rules.last().toObject();
}

// ---- RawConnection

QByteArray RawConnection::Result::header(const QByteArray &name) const
{
    for (const QByteArray &line : head.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && QByteArrayView(line).first(colon).compare(name, Qt::CaseInsensitive) == 0)
            return line.mid(colon + 1).trimmed();
    }
    return {};
}

RawConnection::~RawConnection()
{
    close();
}

bool RawConnection::open(quint16 port)
{
    close();
    m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (m_fd < 0)
        return false;
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(m_fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        close();
        return false;
    }
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    m_pending.clear();
    return true;
}

void RawConnection::close()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

bool RawConnection::send(const QByteArray &bytes)
{
    if (m_fd < 0)
        return false;
    m_clock.start();
    qsizetype sent = 0;
    QElapsedTimer guard;
    guard.start();
    while (sent < bytes.size() && guard.elapsed() < 5000) {
        const ssize_t n = ::send(m_fd, bytes.constData() + sent, static_cast<size_t>(bytes.size() - sent), MSG_NOSIGNAL);
        if (n > 0) {
            sent += n;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        } else {
            return false;
        }
    }
    return sent == bytes.size();
}

RawConnection::Result RawConnection::receive(int timeoutMs)
{
    Result result;
    if (m_fd < 0) {
        result.outcome = Outcome::ConnectFailed;
        return result;
    }
    QElapsedTimer waited;
    waited.start();
    QByteArray buffer = m_pending;
    m_pending.clear();
    for (;;) {
        // A complete answer in the buffer?
        const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd >= 0) {
            result.head = buffer.left(headEnd);
            const QByteArray statusLine = result.head.left(result.head.indexOf("\r\n"));
            result.status = statusLine.split(' ').value(1).toInt();
            const qsizetype length = result.header("Content-Length").toLongLong();
            if (buffer.size() >= headEnd + 4 + length) {
                result.body = buffer.mid(headEnd + 4, length);
                m_pending = buffer.mid(headEnd + 4 + length);
                result.json = QJsonDocument::fromJson(result.body).object();
                result.outcome = Outcome::Answered;
                result.elapsedMs = m_clock.elapsed();
                return result;
            }
        }
        if (waited.elapsed() > timeoutMs) {
            result.outcome = Outcome::Timeout;
            result.elapsedMs = m_clock.elapsed();
            return result;
        }
        char chunk[65536];
        const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
        if (n > 0) {
            buffer.append(chunk, n);
            continue;
        }
        if (n == 0) {
            result.outcome = Outcome::ClosedWithoutAnswer;
            result.head = buffer; // whatever partial bytes came
            result.elapsedMs = m_clock.elapsed();
            close();
            return result;
        }
        if (errno == ECONNRESET) {
            result.outcome = Outcome::Reset;
            result.elapsedMs = m_clock.elapsed();
            close();
            return result;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            result.outcome = Outcome::Reset;
            result.elapsedMs = m_clock.elapsed();
            close();
            return result;
        }
        // Let an in-process server run, then wait briefly for bytes.
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        pollfd pfd = {m_fd, POLLIN, 0};
        ::poll(&pfd, 1, 2);
    }
}

RawConnection::Result RawConnection::roundTrip(const QByteArray &request, int timeoutMs)
{
    if (!send(request)) {
        Result r;
        r.outcome = Outcome::ConnectFailed;
        return r;
    }
    return receive(timeoutMs);
}

RawConnection::Result RawConnection::once(quint16 port, const QByteArray &request, int timeoutMs)
{
    RawConnection c;
    if (!c.open(port)) {
        Result r;
        r.outcome = Outcome::ConnectFailed;
        return r;
    }
    return c.roundTrip(request, timeoutMs);
}

QByteArray RawConnection::post(const QString &path, const QByteArray &formBody, const QString &idempotencyKey,
                               const QString &apiKey)
{
    QByteArray r = "POST " + path.toUtf8() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    if (!apiKey.isEmpty())
        r.append("Authorization: Bearer ").append(apiKey.toUtf8()).append("\r\n");
    if (!idempotencyKey.isEmpty())
        r.append("Idempotency-Key: ").append(idempotencyKey.toUtf8()).append("\r\n");
    r.append("Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ");
    r.append(QByteArray::number(formBody.size())).append("\r\n\r\n").append(formBody);
    return r;
}

QByteArray RawConnection::get(const QString &pathAndQuery, const QString &apiKey)
{
    QByteArray r = "GET " + pathAndQuery.toUtf8() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    if (!apiKey.isEmpty())
        r.append("Authorization: Bearer ").append(apiKey.toUtf8()).append("\r\n");
    r.append("\r\n");
    return r;
}

QString RawConnection::outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Answered: return QStringLiteral("answered");
    case Outcome::ClosedWithoutAnswer: return QStringLiteral("closed-without-answer");
    case Outcome::Reset: return QStringLiteral("reset");
    case Outcome::Timeout: return QStringLiteral("timeout");
    case Outcome::ConnectFailed: return QStringLiteral("connect-failed");
    }
    return {};
}
