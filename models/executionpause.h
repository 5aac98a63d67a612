#pragma once

#include "models/actionrecord.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace cs {

// A stop switch for execution (issue 14; docs/EXECUTION.md, "Pausing execution"): while a pause
// is in force nothing it covers is claimed — everything, one agent's actions (requested_by) or one
// provider account's (provider_account) — what is in flight finishes and the reconciler keeps
// reconciling. A pause is put by a supervisor or an admin with a reason and stays until resumed;
// it is never edited otherwise (the ledger's triggers refuse it).
struct ExecutionPause
{
    enum class Scope { All, Agent, Account };

    QString id;        // "pau_…", minted by the backend
    Scope scope = Scope::All;
    QString agent;     // Scope::Agent: the requester whose actions are paused; else empty
    QString account;   // Scope::Account: the provider account (actions' provider_account); else empty
    QString reason;    // why, in words (required)
    QString pausedBy;
    QDateTime pausedAt;
    QString resumedBy;  // empty while in force
    QDateTime resumedAt; // null while in force
    QString resumeNote;

    bool inForce() const { return resumedAt.isNull(); }
    // Whether this pause (in force or not) covers `action`.
    bool covers(const ActionRecord &action) const;
    // "all", "agent agent-7", "account acct_1": what is paused, for people.
    QString what() const;
    // "Execution paused: all — by sue: provider incident" (the console's status bar).
    QString describe() const;

    QJsonObject toJson() const;
    static std::optional<ExecutionPause> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const ExecutionPause &, const ExecutionPause &) = default;
    // what() and describe() in the console's language (the backend installs no translation, so its
    // messages stay English); last: it ends private.
    Q_DECLARE_TR_FUNCTIONS(cs::ExecutionPause)
};

QString toWire(ExecutionPause::Scope scope);
std::optional<ExecutionPause::Scope> pauseScopeFromWire(QStringView wire);

// The console's one-line summary of the pauses in force: empty when there are none.
QString describePauses(const QList<ExecutionPause> &pauses);

} // namespace cs

Q_DECLARE_METATYPE(cs::ExecutionPause)
