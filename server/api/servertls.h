#pragma once

#include <QSslConfiguration>
#include <QString>

#include <optional>

namespace cs {

// countersignd's TLS listener settings from PEM files: the certificate chain (leaf first) and its
// private key (RSA or EC, unencrypted), TLS 1.2 or later, no client certificates. Empty with
// *error set when a file cannot be read, holds no certificate or key, or the key does not match.
std::optional<QSslConfiguration> loadServerTls(const QString &certificateFile, const QString &keyFile, QString *error);

} // namespace cs
