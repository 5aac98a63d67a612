#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace cs::paysim {

// What the idempotency layer remembers about one (API key, Idempotency-Key) pair.
struct IdempotencyRecord
{
    QString apiKey;
    QString key;
    QString method;
    QString path;
    QJsonObject params; // parsed request parameters, compared on reuse
    bool inFlight = true;
    int status = 0;     // the saved answer, once complete
    QByteArray body;
    QString requestId;  // of the request whose answer is saved
    qint64 createdMs = 0; // simulator clock; pruned once the key window has passed
};

} // namespace cs::paysim
