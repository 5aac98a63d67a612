#include "models/actionchange.h"
#include "models/jsonfieldreader.h"

#include <limits>

namespace cs {

using namespace wire;

QJsonObject ActionChange::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("action_id"), actionId);
    json.insert(QLatin1String("state"), toWire(state));
    json.insert(QLatin1String("state_version"), QJsonValue(stateVersion));
    json.insert(QLatin1String("event"), event);
    json.insert(QLatin1String("at"), timeToJson(at));
    return json;
}

std::optional<ActionChange> ActionChange::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    ActionChange change;
    change.actionId = in.string(QLatin1String("action_id"), Need::Required, true);
    change.state = in.enumeration(QLatin1String("state"), stateFromWire, ActionState::Pending);
    change.stateVersion = in.integer(QLatin1String("state_version"), 0,
                                     std::numeric_limits<qint64>::max());
    change.event = in.string(QLatin1String("event"));
    change.at = in.time(QLatin1String("at"));
    return finish(in, std::move(change), error);
}

} // namespace cs
