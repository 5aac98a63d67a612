#include "server/api/role.h"

namespace cs {

QString toWire(Role role)
{
    switch (role) {
    case Role::Agent:
        return QStringLiteral("agent");
    case Role::Approver:
        return QStringLiteral("approver");
    case Role::Supervisor:
        return QStringLiteral("supervisor");
    case Role::Auditor:
        return QStringLiteral("auditor");
    case Role::Admin:
        return QStringLiteral("admin");
    }
    return QString();
}

std::optional<Role> roleFromWire(QStringView wire)
{
    for (Role role : {Role::Agent, Role::Approver, Role::Supervisor, Role::Auditor, Role::Admin}) {
        if (wire == toWire(role))
            return role;
    }
    return std::nullopt;
}

} // namespace cs
