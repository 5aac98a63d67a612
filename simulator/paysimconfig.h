#pragma once

#include <QHostAddress>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QUrl>

namespace cs::paysim {

// Everything paysim is started with (command line of the `paysim` executable, or set directly by
// tests and the demo launcher).
struct PaysimConfig
{
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0; // 0: an ephemeral port
    quint64 seed = 1;
    QString dbPath;   // empty: state in memory only
    double keyWindowHours = 24.0;
    QUrl webhookUrl;
    QByteArray webhookSecret;
    QList<QJsonObject> faults; // rules as in POST /_sim/faults, applied in order
    int seedCharges = 0;       // charges created at start when the store holds none
    int webhookMaxAttempts = 6;
    int webhookRetryBaseMs = 1000;

    // "127.0.0.1:0", "[::1]:8080", "localhost:12111".
    static bool parseListen(const QString &text, QHostAddress *address, quint16 *port, QString *error);
};

} // namespace cs::paysim
