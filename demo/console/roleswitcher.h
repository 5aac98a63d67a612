#pragma once

#include <QMap>
#include <QObject>
#include <QPointer>

class QActionGroup;
class QMenu;

namespace cs {

class MainWindow;

// Demo mode: "Sign in as ▸ agent / approver / supervisor / auditor / admin". Each entry re-points
// the console's token at the demo user with that role and reloads everything.
class RoleSwitcher : public QObject
{
    Q_OBJECT

public:
    RoleSwitcher(MainWindow *window, QMap<QString, QString> roles, QMap<QString, QString> tokens,
                 QObject *parent = nullptr);

    static QStringList roleOrder();
    // The first user with `role`, or empty.
    QString userFor(const QString &role) const;
    // A "Sign in as" menu with one checkable entry per role that has a user.
    QMenu *menu() const { return m_menu; }
    QString currentRole() const { return m_current; }

public slots:
    bool signInAs(const QString &role);

signals:
    void signedIn(const QString &user, const QString &role);

private:
    QPointer<MainWindow> m_window;
    QMap<QString, QString> m_roles;  // user -> role
    QMap<QString, QString> m_tokens; // user -> token
    QMenu *m_menu;
    QActionGroup *m_group;
    QString m_current;
};

} // namespace cs
