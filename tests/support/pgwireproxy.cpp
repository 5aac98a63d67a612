#include "tests/support/pgwireproxy.h"

#include <QHostAddress>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QtEndian>

namespace cs::test {

namespace {

constexpr quint32 kSslRequest = 80877103;
constexpr quint32 kGssEncRequest = 80877104;

// One client connection and its upstream twin. Client bytes are parsed into messages; server
// bytes are relayed as they come (or dropped, once an AnswerLost COMMIT went up).
struct Pair
{
    QPointer<QTcpSocket> client;
    QPointer<QTcpSocket> upstream;
    QByteArray fromClient; // not yet a whole message
    QByteArray pending;    // whole messages waiting for the upstream connection
    bool startup = true;   // untyped packets until the StartupMessage
    bool dropAnswer = false;
    bool cut = false;
    QHash<QByteArray, QByteArray> prepared; // statement name -> its text
    bool sentMarker = false;                // the open transaction ran a statement with the marker
};

QByteArray cString(const QByteArray &bytes, qsizetype *from)
{
    const qsizetype end = bytes.indexOf('\0', *from);
    if (end < 0) {
        *from = bytes.size();
        return bytes.mid(*from);
    }
    const QByteArray out = bytes.mid(*from, end - *from);
    *from = end + 1;
    return out;
}

} // namespace

// The relay proper, on the proxy's thread: the listening socket and every pair.
class PgWireRelay : public QObject
{
public:
    explicit PgWireRelay(PgWireProxy *owner) : m_owner(owner)
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] { accept(); });
    }
    ~PgWireRelay() override { cutAll(); }

    bool listen()
    {
        if (!m_server.listen(QHostAddress::LocalHost, 0))
            return false;
        m_owner->m_port = m_server.serverPort();
        return true;
    }

    void cutAll()
    {
        const auto pairs = m_pairs;
        for (const auto &pair : pairs)
            cut(pair);
    }

private:
    void accept()
    {
        while (QTcpSocket *socket = m_server.nextPendingConnection()) {
            socket->setParent(this);
            if (m_owner->m_refusing.load()) {
                ++m_owner->m_refused;
                socket->abort();
                socket->deleteLater();
                continue;
            }
            ++m_owner->m_accepted;
            auto pair = std::make_shared<Pair>();
            pair->client = socket;
            pair->upstream = new QTcpSocket(this);
            m_pairs.append(pair);
            QObject::connect(socket, &QTcpSocket::readyRead, this, [this, pair] { fromClient(pair); });
            QObject::connect(socket, &QTcpSocket::disconnected, this, [this, pair] { cut(pair); });
            QObject::connect(pair->upstream, &QTcpSocket::connected, this, [pair] {
                pair->upstream->write(pair->pending);
                pair->pending.clear();
            });
            QObject::connect(pair->upstream, &QTcpSocket::readyRead, this, [this, pair] { fromServer(pair); });
            QObject::connect(pair->upstream, &QTcpSocket::disconnected, this, [this, pair] { cut(pair); });
            QObject::connect(pair->upstream, &QTcpSocket::errorOccurred, this, [this, pair] { cut(pair); });
            pair->upstream->connectToHost(QHostAddress::LocalHost, m_owner->m_upstreamPort);
        }
    }

    void toServer(const std::shared_ptr<Pair> &pair, const QByteArray &bytes)
    {
        if (pair->upstream->state() == QAbstractSocket::ConnectedState)
            pair->upstream->write(bytes);
        else
            pair->pending += bytes;
    }

    // Relays whole messages; acts on an armed COMMIT.
    void fromClient(const std::shared_ptr<Pair> &pair)
    {
        if (pair->cut || !pair->client)
            return;
        pair->fromClient += pair->client->readAll();
        for (;;) {
            QByteArray &in = pair->fromClient;
            const int header = pair->startup ? 0 : 1;
            if (in.size() < header + 4)
                return;
            const quint32 length = qFromBigEndian<quint32>(in.constData() + header);
            if (length < 4 || length > (1u << 30)) { // not the protocol we know: relay blindly
                toServer(pair, in);
                in.clear();
                return;
            }
            const qsizetype total = header + qsizetype(length);
            if (in.size() < total)
                return;
            const QByteArray message = in.left(total);
            in.remove(0, total);
            if (pair->startup) {
                const quint32 code = qFromBigEndian<quint32>(message.constData() + 4);
                if (code != kSslRequest && code != kGssEncRequest)
                    pair->startup = false; // the StartupMessage (or a CancelRequest)
                toServer(pair, message);
                continue;
            }
            if (!isCommit(message)) {
                track(*pair, message);
            } else {
                ++m_owner->m_commits;
                const bool marked = pair->sentMarker || m_owner->m_marker.isEmpty();
                pair->sentMarker = false;
                int armed = m_owner->m_fault.load();
                if (armed != int(PgWireProxy::CommitFault::None) && marked
                    && m_owner->m_fault.compare_exchange_strong(armed, int(PgWireProxy::CommitFault::None))) {
                    ++m_owner->m_fired;
                    if (m_owner->m_refuseAfter.load())
                        m_owner->m_refusing.store(true);
                    if (armed == int(PgWireProxy::CommitFault::RequestLost)) {
                        cut(pair);
                        return;
                    }
                    pair->dropAnswer = true; // AnswerLost: up it goes; the answer is dropped
                    toServer(pair, message);
                    in.clear(); // a client waits for COMMIT's answer: nothing may follow
                    return;
                }
            }
            toServer(pair, message);
        }
    }

    void fromServer(const std::shared_ptr<Pair> &pair)
    {
        if (pair->cut || !pair->upstream)
            return;
        const QByteArray bytes = pair->upstream->readAll();
        if (pair->dropAnswer) {
            cut(pair); // the server answered COMMIT: it committed; the client never hears
            return;
        }
        if (pair->client)
            pair->client->write(bytes);
    }

    // The statements of a transaction, as QPSQL sends them: simple queries, prepared ones as SQL
    // PREPARE name AS … / EXECUTE name (…); the extended protocol's Parse and Bind too.
    void track(Pair &pair, const QByteArray &message) const
    {
        const QByteArray &marker = m_owner->m_marker;
        qsizetype at = 5;
        if (message.at(0) == 'P') {
            const QByteArray name = cString(message, &at);
            pair.prepared.insert(name, cString(message, &at));
        } else if (message.at(0) == 'B') {
            cString(message, &at); // the portal
            if (!marker.isEmpty() && pair.prepared.value(cString(message, &at)).contains(marker))
                pair.sentMarker = true;
        } else if (message.at(0) == 'Q') {
            const QByteArray text = cString(message, &at).trimmed();
            const QByteArray upper = text.left(16).toUpper();
            if (upper.startsWith("PREPARE ")) {
                const qsizetype as = text.indexOf(" AS ");
                pair.prepared.insert(text.mid(8, as - 8).trimmed(), text.mid(as + 4));
            } else if (upper.startsWith("EXECUTE ")) {
                const qsizetype open = text.indexOf('(');
                const QByteArray name = text.mid(8, open < 0 ? -1 : open - 8).trimmed();
                if (!marker.isEmpty() && pair.prepared.value(name).contains(marker))
                    pair.sentMarker = true;
            } else if (upper.startsWith("BEGIN") || upper.startsWith("ROLLBACK")) {
                pair.sentMarker = false;
            } else if (!marker.isEmpty() && text.contains(marker)) {
                pair.sentMarker = true;
            }
        }
    }

    static bool isCommit(const QByteArray &message)
    {
        if (message.at(0) != 'Q')
            return false;
        QByteArray text = message.mid(5);
        if (text.endsWith('\0'))
            text.chop(1);
        text = text.trimmed();
        if (text.endsWith(';'))
            text.chop(1);
        return text.trimmed().compare("COMMIT", Qt::CaseInsensitive) == 0;
    }

    void cut(const std::shared_ptr<Pair> &pair)
    {
        if (pair->cut)
            return;
        pair->cut = true;
        m_pairs.removeOne(pair);
        for (QTcpSocket *socket : {pair->client.data(), pair->upstream.data()}) {
            if (!socket)
                continue;
            socket->disconnect(this);
            socket->abort();
            socket->deleteLater();
        }
    }

    PgWireProxy *m_owner;
    QTcpServer m_server{this};
    QList<std::shared_ptr<Pair>> m_pairs;
};

PgWireProxy::PgWireProxy(quint16 upstreamPort) : m_upstreamPort(upstreamPort) {}

PgWireProxy::~PgWireProxy()
{
    if (!m_thread)
        return;
    QMetaObject::invokeMethod(m_relay, [this] { m_relay->cutAll(); }, Qt::BlockingQueuedConnection);
    m_relay->deleteLater(); // with its sockets, when the thread finishes
    m_thread->quit();
    m_thread->wait();
}

bool PgWireProxy::start()
{
    if (m_thread)
        return true;
    m_thread = std::make_unique<QThread>();
    m_thread->setObjectName(QStringLiteral("pgwireproxy"));
    m_relay = new PgWireRelay(this);
    m_relay->moveToThread(m_thread.get()); // before it listens: its sockets live on that thread
    m_thread->start();
    bool listening = false;
    QMetaObject::invokeMethod(m_relay, [this, &listening] { listening = m_relay->listen(); },
                              Qt::BlockingQueuedConnection);
    return listening;
}

quint16 PgWireProxy::port() const
{
    return m_port;
}

void PgWireProxy::armCommitFault(CommitFault fault, bool refuseAfter, const QByteArray &onlyAfter)
{
    QMetaObject::invokeMethod(m_relay, [this, onlyAfter] { m_marker = onlyAfter; }, Qt::BlockingQueuedConnection);
    m_refuseAfter.store(refuseAfter);
    m_fault.store(int(fault));
}

void PgWireProxy::setRefusing(bool refusing)
{
    m_refusing.store(refusing);
    if (refusing && m_relay)
        QMetaObject::invokeMethod(m_relay, [this] { m_relay->cutAll(); }, Qt::BlockingQueuedConnection);
}

} // namespace cs::test
