#include "server/api/servertls.h"

#include <QFile>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslSocket>

namespace cs {

std::optional<QSslConfiguration> loadServerTls(const QString &certificateFile, const QString &keyFile, QString *error)
{
    const auto failed = [error](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!QSslSocket::supportsSsl())
        return failed(QStringLiteral("TLS is not available (no TLS backend for Qt Network)"));
    QFile certFile(certificateFile);
    if (!certFile.open(QIODevice::ReadOnly))
        return failed(QStringLiteral("--tls-cert: cannot read %1").arg(certificateFile));
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certFile.readAll(), QSsl::Pem);
    if (chain.isEmpty() || chain.first().isNull())
        return failed(QStringLiteral("--tls-cert: %1 holds no PEM certificate").arg(certificateFile));
    QFile key(keyFile);
    if (!key.open(QIODevice::ReadOnly))
        return failed(QStringLiteral("--tls-key: cannot read %1").arg(keyFile));
    const QByteArray keyPem = key.readAll();
    QSslKey privateKey(keyPem, QSsl::Rsa, QSsl::Pem, QSsl::PrivateKey);
    if (privateKey.isNull())
        privateKey = QSslKey(keyPem, QSsl::Ec, QSsl::Pem, QSsl::PrivateKey);
    if (privateKey.isNull())
        return failed(QStringLiteral("--tls-key: %1 holds no unencrypted RSA or EC private key in PEM").arg(keyFile));
    if (chain.first().publicKey().algorithm() != privateKey.algorithm())
        return failed(QStringLiteral("--tls-key is not the kind of key the certificate in --tls-cert holds"));

    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setLocalCertificateChain(chain);
    configuration.setPrivateKey(privateKey);
    configuration.setProtocol(QSsl::TlsV1_2OrLater);
    configuration.setPeerVerifyMode(QSslSocket::VerifyNone);
    return configuration;
}

} // namespace cs
