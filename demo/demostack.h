#pragma once

#include <QMap>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <memory>

namespace cs::demo {

class WebhookRelay;

// The demo's embedded default: paysim and countersignd as real child processes on loopback, on
// a SQLite ledger in a temporary folder, with one user per role and seeded charges. paysim's
// webhooks reach countersignd through a WebhookRelay (demo/webhookrelay.h), forwarding only while
// a scenario turns it on.
// start() blocks until both print their URLs (or fails with errorString()); the destructor and
// stop() terminate them (SIGTERM, then SIGKILL after a grace). Not thread-safe: GUI/main thread.
class DemoStack : public QObject
{
    Q_OBJECT
public:
    struct Options {
        QString paysimPath;       // default: next to the running executable's build tree or $PATH
        QString countersigndPath;
        int seedCharges = 12;
        quint64 seed = 1;
        QString executionConfigJson; // demo-friendly timeouts/backoffs; empty = the stack's defaults
    };

    explicit DemoStack(Options options, QObject *parent = nullptr);
    ~DemoStack() override;

    bool start();
    void stop();
    QString errorString() const;

    QUrl backendUrl() const;
    QUrl paysimUrl() const;
    QString dataDir() const;                    // the temporary folder (ledger, keys, logs)
    QMap<QString, QString> tokens() const;      // user name -> bearer token
    QMap<QString, QString> roles() const;       // user name -> role ("agent", "approver", ...)
    QString userFor(const QString &role) const; // the first demo user with that role

    // Scenario 5: SIGKILL the backend (no drain) and start it again on the same ledger file.
    bool killBackend();
    bool restartBackend();

    // Added for the scenarios: all users of a role, in creation order; the provider's test key;
    // extra `countersignd serve` arguments for the next (re)start (scenario 7: a short key window);
    // a second executor process on the same ledger file (scenario 4).
    QStringList usersFor(const QString &role) const;
    QString providerKey() const;
    void setExtraServeArguments(const QStringList &arguments);
    QStringList extraServeArguments() const;
    bool startSecondBackend();
    void stopSecondBackend();
    QUrl secondBackendUrl() const;

    // paysim's webhooks, relayed to the backend (also after a restart) while forwarding is on;
    // off after start(). Null before start() and after stop().
    WebhookRelay *webhooks() const;

signals:
    void backendRestarted(const QUrl &url);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace cs::demo
