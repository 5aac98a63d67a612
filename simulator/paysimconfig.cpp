#include "simulator/paysimconfig.h"

namespace cs::paysim {

bool PaysimConfig::parseListen(const QString &text, QHostAddress *address, quint16 *port, QString *error)
{
    const qsizetype colon = text.lastIndexOf(u':');
    if (colon <= 0) {
        *error = QStringLiteral("--listen expects HOST:PORT, e.g. 127.0.0.1:0");
        return false;
    }
    QString host = text.left(colon);
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint p = text.mid(colon + 1).toUInt(&ok);
    if (!ok || p > 65535) {
        *error = QStringLiteral("--listen: invalid port in '%1'").arg(text);
        return false;
    }
    QHostAddress a;
    if (host == QLatin1String("localhost"))
        a = QHostAddress(QHostAddress::LocalHost);
    else if (!a.setAddress(host)) {
        *error = QStringLiteral("--listen: '%1' is not an IP address").arg(host);
        return false;
    }
    *address = a;
    *port = static_cast<quint16>(p);
    return true;
}

} // namespace cs::paysim
