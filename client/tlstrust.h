#pragma once

#include <QList>
#include <QSslConfiguration>
#include <QSslError>
#include <QString>

#include <optional>

class QNetworkReply;

namespace cs {

// The console's TLS trust: the system's CAs, plus those of a private CA given with --ca-file.
// Certificate errors are never ignored: ApiClient and EventStreamClient report them with
// describeSslErrors() ("certificate not trusted: …"), and the call fails.

// The default configuration with the PEM certificates of `path` added to its CAs; nothing (and
// *error) when the file cannot be read or holds no certificate.
std::optional<QSslConfiguration> sslConfigurationTrusting(const QString &caFile, QString *error);

// "certificate not trusted: <reason>[; <reason>…]" for a handshake's errors (empty for none).
QString describeSslErrors(const QList<QSslError> &errors);

// Keeps the reasons a certificate was refused on the reply (Qt 6.4's errorString() only says
// "SSL handshake failed"); nothing here ignores them. Then failureText() is those reasons, or the
// reply's errorString() when the failure was not the certificate.
void rememberSslErrors(QNetworkReply *reply);
QString failureText(const QNetworkReply *reply);

} // namespace cs
