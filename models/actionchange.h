#pragma once

#include "models/actionstate.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include <optional>

namespace cs {

// One `action.changed` event of the backend's event stream: which action, its state and
// state_version as they were when the event was sent, the audit event's name and time, and the
// stream id (the audit seq).
struct ActionChange
{
    qint64 seq = 0; // the SSE id
    QString actionId;
    ActionState state = ActionState::Pending;
    qint64 stateVersion = 0;
    QString event; // "proposed", "approved", "attempt_started", ...
    QDateTime at;

    QJsonObject toJson() const;
    static std::optional<ActionChange> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const ActionChange &, const ActionChange &) = default;
};

} // namespace cs

Q_DECLARE_METATYPE(cs::ActionChange)
