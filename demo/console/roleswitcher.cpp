#include "demo/console/roleswitcher.h"

#include "ui/mainwindow.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>

namespace cs {

RoleSwitcher::RoleSwitcher(MainWindow *window, QMap<QString, QString> roles, QMap<QString, QString> tokens, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_roles(std::move(roles))
    , m_tokens(std::move(tokens))
    , m_menu(new QMenu(tr("Sign &in as"), window))
    , m_group(new QActionGroup(this))
{
    m_menu->setObjectName(QStringLiteral("signInAsMenu"));
    m_group->setExclusive(true);
    for (const QString &role : roleOrder()) {
        const QString user = userFor(role);
        if (user.isEmpty())
            continue;
        QAction *a = m_menu->addAction(tr("%1 (%2)").arg(role, user));
        a->setObjectName(QStringLiteral("signInAs_") + role);
        a->setCheckable(true);
        a->setData(role);
        m_group->addAction(a);
        connect(a, &QAction::triggered, this, [this, role] { signInAs(role); });
    }
}

QStringList RoleSwitcher::roleOrder()
{
    return { QStringLiteral("agent"), QStringLiteral("approver"), QStringLiteral("supervisor"), QStringLiteral("auditor"),
             QStringLiteral("admin") };
}

QString RoleSwitcher::userFor(const QString &role) const
{
    for (auto it = m_roles.cbegin(); it != m_roles.cend(); ++it) {
        if (it.value() == role)
            return it.key();
    }
    return QString();
}

bool RoleSwitcher::signInAs(const QString &role)
{
    const QString user = userFor(role);
    const QString token = m_tokens.value(user);
    if (user.isEmpty() || token.isEmpty() || !m_window)
        return false;
    m_current = role;
    for (QAction *a : m_group->actions())
        a->setChecked(a->data().toString() == role);
    m_window->switchToken(token);
    emit signedIn(user, role);
    return true;
}

} // namespace cs
