#pragma once

// A real countersignd with a real paysim behind it, as subprocesses on 127.0.0.1 with ephemeral
// ports, for the console's client and GUI tests. Users of every role are created with
// `countersignd user add`; helpers act as an agent (propose) or straight at paysim (to plant
// evidence) through plain HTTP, never through the code under test. The ledger is at
// cs::test::ledgerLocation() (tests/support/testledger.h): a SQLite file in directory(), or a
// PostgreSQL database when COUNTERSIGN_TEST_ENGINE=postgres.

#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>

class BackendProcess
{
public:
    BackendProcess();
    ~BackendProcess();

    // Starts paysim (seeded with charges) and countersignd; false with error() on failure.
    bool start(int seedCharges = 12, const QStringList &extraServeArguments = {},
               const QStringList &extraUsers = {});
    void stop();
    // Stops countersignd and starts it again on the same ledger and port.
    bool restartBackend();
    QString error() const { return m_error; }

    QUrl url() const { return m_url; }       // http://127.0.0.1:PORT
    // countersignd's process id (0 when it is not running): for SIGSTOP, SIGCONT and SIGKILL.
    qint64 backendPid() const;
    QUrl paysimUrl() const { return m_paysimUrl; }
    quint16 port() const { return quint16(m_url.port()); }
    QString ledgerPath() const; // the --db location (a file or a postgresql:// URI), set by start()

    // Tokens by user name: agent7 (agent), ana and ben (approver), sue (supervisor),
    // audrey (auditor), root (admin).
    QString token(const QString &user) const { return m_tokens.value(user); }
    // A file holding the user's token (for --token-file).
    QString tokenFile(const QString &user) const;

    // paysim's charges (ids), oldest first.
    QStringList charges() const;

    struct Reply
    {
        int status = 0;
        QJsonObject body;
        QByteArray etag;
    };
    // Plain HTTP against countersignd, for arranging scenarios and checking outcomes.
    Reply get(const QString &user, const QString &path) const;
    Reply post(const QString &user, const QString &path, const QJsonObject &body, qint64 ifMatch = -1,
               const QString &idempotencyKey = QString()) const;

    // The agent proposes a refund of `amount` cents on `charge`; returns the action.
    QJsonObject propose(const QString &charge, qint64 amount, const QString &clientReference,
                        const QString &businessReference = QString(), const QString &agent = QStringLiteral("agent7"),
                        const QString &currency = QStringLiteral("usd")) const;
    // Resubmits under the same reference with another amount: 409, REQUIRES_REVIEW, a conflict.
    Reply resubmitChanged(const QString &charge, qint64 amount, const QString &clientReference,
                          const QString &businessReference = QString(), const QString &agent = QStringLiteral("agent7")) const;
    QJsonObject action(const QString &actionId) const { return get(QStringLiteral("root"), QStringLiteral("/actions/") + actionId).body; }
    // Creates, at paysim, the refund a lost first request would have created (metadata names the
    // action): what a later lookup then finds.
    bool plantProviderRefund(const QString &charge, qint64 amount, const QString &actionId) const;
    // paysim's admin API (/_sim/...): faults, charges in other currencies, ground truth.
    Reply paysimAdmin(const QByteArray &verb, const QString &path, const QJsonObject &body = QJsonObject()) const;
    // The temporary folder holding the ledger, tokens and logs.
    QString directory() const { return m_dir.path(); }

private:
    bool startPaysim(int seedCharges);
    bool startBackend(const QStringList &extraServeArguments);
    bool addUser(const QString &name, const QString &role);
    QString readFirstLine(QProcess *process, int timeoutMs);

    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_paysim;
    std::unique_ptr<QProcess> m_backend;
    QUrl m_url;
    QUrl m_paysimUrl;
    QMap<QString, QString> m_tokens;
    QStringList m_serveArguments;
    QString m_ledgerLocation;
    QString m_error;
};
