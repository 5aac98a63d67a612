// The console on an https:// backend (issue 12, "TLS"): ApiClient and EventStreamClient against a
// real TLS server on 127.0.0.1 (QSslServer, a certificate from a private CA made with the
// `openssl` command), refusing it until the CA is given (--ca-file: client/tlstrust.h), saying why
// plainly, and the offline banner saying it too. Nothing is sent to a server that is refused.
#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "client/tlstrust.h"
#include "ui/offlinebanner.h"

#include <QApplication>
#include <QProcess>
#include <QSignalSpy>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

namespace {

// Just enough HTTP/1.1 over TLS: GET /api/v1/health, /api/v1/me (Bearer cst_test) and
// /api/v1/events (a stream that stays open).
class TinyHttpsServer : public QObject
{
public:
    int requests = 0;

    bool start(const QString &certFile, const QString &keyFile, QString *error)
    {
        QFile cert(certFile);
        QFile key(keyFile);
        if (!cert.open(QIODevice::ReadOnly) || !key.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read the server's certificate or key");
            return false;
        }
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificate(QSslCertificate(cert.readAll(), QSsl::Pem));
        tls.setPrivateKey(QSslKey(key.readAll(), QSsl::Ec, QSsl::Pem));
        m_server.setSslConfiguration(tls);
        connect(&m_server, &QSslServer::pendingConnectionAvailable, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection())
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { serve(socket); });
        });
        if (!m_server.listen(QHostAddress::LocalHost, 0)) {
            *error = m_server.errorString();
            return false;
        }
        return true;
    }

    quint16 port() const { return m_server.serverPort(); }

private:
    void serve(QTcpSocket *socket)
    {
        QByteArray buffer = socket->property("buffer").toByteArray() + socket->readAll();
        qsizetype end;
        while ((end = buffer.indexOf("\r\n\r\n")) >= 0) {
            const QByteArray head = buffer.left(end);
            buffer.remove(0, end + 4);
            ++requests;
            const QByteArray path = head.left(head.indexOf("\r\n")).split(' ').value(1);
            if (path == "/api/v1/events") {
                socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n"
                              "retry: 1000\n: live\n\n");
                continue;
            }
            QByteArray status = "200 OK";
            QByteArray body = R"({"status":"ok","version":"test"})";
            if (path == "/api/v1/me") {
                if (head.contains("\r\nAuthorization: Bearer cst_test")) {
                    body = R"({"user":"ana","role":"approver"})";
                } else {
                    status = "401 Unauthorized";
                    body = R"({"type":"about:blank","title":"Unauthenticated","status":401,"code":"unauthenticated"})";
                }
            }
            socket->write("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: "
                          + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        }
        socket->setProperty("buffer", buffer);
    }

    QSslServer m_server;
};

bool openssl(std::initializer_list<const char *> words, const QString &folder, QString *error)
{
    QStringList arguments;
    for (const char *word : words)
        arguments.append(QString::fromLatin1(word));
    QProcess p;
    p.setWorkingDirectory(folder);
    p.start(QStringLiteral("openssl"), arguments);
    if (!p.waitForFinished(20000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = QStringLiteral("openssl %1: %2%3")
                     .arg(arguments.join(u' '), p.errorString(), QString::fromUtf8(p.readAllStandardError()));
        return false;
    }
    return true;
}

ApiResponse wait(ApiCall *call)
{
    QSignalSpy finished(call, &ApiCall::finished);
    if (!finished.isValid() || !finished.wait(10000))
        qFatal("call %s did not finish", qPrintable(call->path()));
    return call->response();
}

} // namespace

class TestTls : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    TinyHttpsServer m_server;

    QString file(const char *name) const { return m_dir.filePath(QLatin1String(name)); }
    QUrl url(const QString &host = QStringLiteral("127.0.0.1")) const
    {
        return QUrl(QStringLiteral("https://%1:%2").arg(host).arg(m_server.port()));
    }
    QSslConfiguration trusted() const
    {
        QString error;
        const auto tls = sslConfigurationTrusting(file("ca.pem"), &error);
        if (!tls)
            qFatal("%s", qPrintable(error));
        return *tls;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(QSslSocket::supportsSsl());
        QString error;
        const QString folder = m_dir.path();
        QFile ext(file("server.ext"));
        QVERIFY(ext.open(QIODevice::WriteOnly));
        ext.write("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
        ext.close();
        const char *ec = "ec_paramgen_curve:prime256v1";
        QVERIFY2(openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                          "-days", "2", "-subj", "/CN=Countersign test CA", "-addext",
                          "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"},
                         folder, &error),
                 qPrintable(error));
        QVERIFY2(openssl({"req", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "server.key", "-out", "server.csr",
                          "-subj", "/CN=127.0.0.1"},
                         folder, &error),
                 qPrintable(error));
        QVERIFY2(openssl({"x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                          "-out", "server.pem", "-days", "2", "-extfile", "server.ext"},
                         folder, &error),
                 qPrintable(error));
        QVERIFY2(m_server.start(file("server.pem"), file("server.key"), &error), qPrintable(error));
    }

    // Without the private CA: refused, said plainly, and not a byte of HTTP (no token) sent.
    void refusesAnUntrustedCertificate()
    {
        ApiClient client;
        client.setBaseUrl(url());
        client.setToken(QStringLiteral("cst_test"));
        const int before = m_server.requests;
        const ApiResponse response = wait(client.me());
        QCOMPARE(response.error.kind, ApiError::Kind::Transport);
        QVERIFY2(response.error.message.startsWith(QLatin1String("certificate not trusted: ")),
                 qPrintable(response.error.message));
        QCOMPARE(client.lastTransportError(), response.error.message);
        // What the connection dialog's Test shows.
        QVERIFY2(response.error.userText().startsWith(QLatin1String("The backend was refused: certificate not trusted: ")),
                 qPrintable(response.error.userText()));
        QCOMPARE(client.connectionState(), ApiClient::ConnectionState::Offline);
        QCOMPARE(m_server.requests, before);
    }

    void trustsThePrivateCa()
    {
        ApiClient client;
        client.setBaseUrl(url());
        client.setToken(QStringLiteral("cst_test"));
        client.setSslConfiguration(trusted());
        const ApiResponse health = wait(client.health());
        QVERIFY2(health.ok(), qPrintable(health.error.userText()));
        const ApiResponse me = wait(client.me());
        QVERIFY2(me.ok(), qPrintable(me.error.userText()));
        QCOMPARE(me.object().value(QLatin1String("user")).toString(), QStringLiteral("ana"));
        QCOMPARE(client.connectionState(), ApiClient::ConnectionState::Online);
        QVERIFY(client.lastTransportError().isEmpty());
    }

    // The CA is trusted, but the certificate is for 127.0.0.1, not for "localhost".
    void refusesAWrongHostName()
    {
        ApiClient client;
        client.setBaseUrl(url(QStringLiteral("localhost")));
        client.setSslConfiguration(trusted());
        const ApiResponse response = wait(client.health());
        QVERIFY2(response.error.message.startsWith(QLatin1String("certificate not trusted: ")),
                 qPrintable(response.error.message));
        QVERIFY2(response.error.message.contains(QLatin1String("host name")), qPrintable(response.error.message));
    }

    void eventStreamUsesTheSameTrust()
    {
        EventStreamClient refused;
        refused.setBaseUrl(url());
        refused.setBackoff(5s, 5s);
        QSignalSpy refusedStates(&refused, &EventStreamClient::stateChanged);
        refused.start();
        QTRY_COMPARE_WITH_TIMEOUT(refused.state(), EventStreamClient::State::Reconnecting, 10000);
        QVERIFY2(refused.lastError().startsWith(QLatin1String("certificate not trusted: ")), qPrintable(refused.lastError()));
        refused.stop();

        EventStreamClient live;
        live.setBaseUrl(url());
        live.setSslConfiguration(trusted());
        live.start();
        QTRY_COMPARE_WITH_TIMEOUT(live.state(), EventStreamClient::State::Live, 10000);
        live.stop();
    }

    void caFileMustHoldACertificate()
    {
        QString error;
        QVERIFY(!sslConfigurationTrusting(file("missing.pem"), &error));
        QVERIFY(error.contains(QLatin1String("cannot read")));
        QVERIFY(!sslConfigurationTrusting(file("server.ext"), &error));
        QVERIFY(error.contains(QLatin1String("no PEM certificate")));
        QVERIFY(sslConfigurationTrusting(file("ca.pem"), &error));
    }

    // What the console shows: the reason, not only "does not answer".
    void offlineBannerSaysWhy()
    {
        ApiClient client;
        client.setBaseUrl(url());
        wait(client.health());
        OfflineBanner banner;
        banner.showOffline(client.baseUrl().toDisplayString(), 0, client.lastTransportError());
        QVERIFY2(banner.text().contains(QLatin1String("certificate not trusted: ")), qPrintable(banner.text()));
        QVERIFY(banner.text().contains(QLatin1String("--ca-file")));
        banner.showOffline(client.baseUrl().toDisplayString(), 0, QStringLiteral("Connection refused"));
        QVERIFY(banner.text().contains(QLatin1String("does not answer")));
    }
};

QTEST_MAIN(TestTls)
#include "tst_tls.moc"
