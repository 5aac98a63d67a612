#pragma once

#include <QDateTime>
#include <QString>
#include <QStringView>

#include <optional>

namespace cs {

// The roles of API users (docs/API.md, "Roles"). What each may call is ActionPolicy::mayCall.
enum class Role { Agent, Approver, Supervisor, Auditor, Admin };

QString toWire(Role role); // "agent", "approver", "supervisor", "auditor", "admin"
std::optional<Role> roleFromWire(QStringView wire);

// An authenticated caller.
struct User
{
    QString name;
    Role role = Role::Auditor;
    QDateTime createdAt;
};

} // namespace cs
