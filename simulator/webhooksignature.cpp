#include "simulator/webhooksignature.h"

#include <QMessageAuthenticationCode>

namespace cs::paysim {

QByteArray WebhookSignature::sign(const QByteArray &secret, qint64 timestamp, const QByteArray &payload)
{
    QByteArray signedPayload = QByteArray::number(timestamp);
    signedPayload.append('.').append(payload);
    return QMessageAuthenticationCode::hash(signedPayload, secret, QCryptographicHash::Sha256).toHex();
}

QByteArray WebhookSignature::header(const QByteArray &secret, qint64 timestamp, const QByteArray &payload)
{
    QByteArray out("t=");
    out.append(QByteArray::number(timestamp)).append(",v1=").append(sign(secret, timestamp, payload));
    return out;
}

} // namespace cs::paysim
