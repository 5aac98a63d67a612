#include "client/tlstrust.h"

#include <QFile>
#include <QNetworkReply>
#include <QSslCertificate>
#include <QStringList>

namespace cs {

std::optional<QSslConfiguration> sslConfigurationTrusting(const QString &caFile, QString *error)
{
    QFile file(caFile);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(caFile, file.errorString());
        return std::nullopt;
    }
    const QList<QSslCertificate> certificates = QSslCertificate::fromData(file.readAll(), QSsl::Pem);
    if (certificates.isEmpty()) {
        if (error)
            *error = QStringLiteral("%1 holds no PEM certificate").arg(caFile);
        return std::nullopt;
    }
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.addCaCertificates(certificates);
    return configuration;
}

QString describeSslErrors(const QList<QSslError> &errors)
{
    QStringList reasons;
    for (const QSslError &error : errors) {
        if (!reasons.contains(error.errorString()))
            reasons.append(error.errorString());
    }
    if (reasons.isEmpty())
        return QString();
    return QStringLiteral("certificate not trusted: ") + reasons.join(QStringLiteral("; "));
}

void rememberSslErrors(QNetworkReply *reply)
{
    QObject::connect(reply, &QNetworkReply::sslErrors, reply, [reply](const QList<QSslError> &errors) {
        reply->setProperty("cs_tls_problem", describeSslErrors(errors));
    });
}

QString failureText(const QNetworkReply *reply)
{
    const QString tls = reply->property("cs_tls_problem").toString();
    return tls.isEmpty() ? reply->errorString() : tls;
}

} // namespace cs
