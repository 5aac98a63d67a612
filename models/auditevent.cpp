#include "models/auditevent.h"
#include "models/jsonfieldreader.h"

#include "models/actionrecord.h" // toWireTime, timeFromWire

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonValue>

#include <limits>

namespace cs {

using namespace wire; // FieldReader, timeToJson, finish

QString AuditEvent::chainHash(const QString &prevHash) const
{
    // The canonical content is this event's wire JSON without "hash", with "prev_hash" taken from
    // the argument. QJsonObject keeps its keys sorted at every level of nesting, so the compact
    // serialization is canonical; a known-answer test pins it (tst_models_wire).
    QJsonObject content = toJson();
    content.remove(QLatin1String("hash"));
    content.insert(QLatin1String("prev_hash"), prevHash);

    QByteArray input = prevHash.toUtf8();
    input += '\n';
    input += QJsonDocument(content).toJson(QJsonDocument::Compact);
    return QString::fromLatin1(QCryptographicHash::hash(input, QCryptographicHash::Sha256).toHex());
}

QJsonObject AuditEvent::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("seq"), QJsonValue(seq));
    json.insert(QLatin1String("action_id"), actionId);
    json.insert(QLatin1String("at"), timeToJson(at));
    json.insert(QLatin1String("actor"), actor);
    json.insert(QLatin1String("event"), event);
    json.insert(QLatin1String("reason"), reason);
    json.insert(QLatin1String("before"), before);
    json.insert(QLatin1String("after"), after);
    json.insert(QLatin1String("prev_hash"), prevHash);
    json.insert(QLatin1String("hash"), hash);
    return json;
}

// Required: seq, event. The rest may be absent or null (before/after then read as {}).
std::optional<AuditEvent> AuditEvent::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    AuditEvent e;
    e.seq = in.integer(QLatin1String("seq"), 0, std::numeric_limits<qint64>::max());
    e.actionId = in.string(QLatin1String("action_id"));
    e.at = in.time(QLatin1String("at"));
    e.actor = in.string(QLatin1String("actor"));
    e.event = in.string(QLatin1String("event"), Need::Required, true);
    e.reason = in.string(QLatin1String("reason"));
    e.before = in.object(QLatin1String("before"));
    e.after = in.object(QLatin1String("after"));
    e.prevHash = in.string(QLatin1String("prev_hash"));
    e.hash = in.string(QLatin1String("hash"));
    return finish(in, std::move(e), error);
}

} // namespace cs
