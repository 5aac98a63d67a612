#pragma once

#include <QJsonObject>
#include <QString>

namespace cs {

// Why a ledger operation was refused or failed. Codes are stable and distinguishable so the API
// can map them: NotFound 404, StaleVersion 412, IllegalTransition/Conflict/LeaseLost 409,
// Forbidden 403, Invalid 422, OverBudget 422, Busy 503, Unavailable 503, CannotWrite 503, Damaged
// 503, Storage 500.
class LedgerError
{
public:
    enum class Code {
        None,              // success
        NotFound,          // no such action (or attempt, lookup, ...)
        StaleVersion,      // expectedStateVersion does not match the stored state_version
        IllegalTransition, // StateMachine::apply refused, or the operation needs another state
        Conflict,          // the stored data disagrees (already finished, fingerprint drift, in flight, ...)
        Forbidden,         // a rule of the domain refuses it (four-eyes, key rules, missing approval, ...)
        Invalid,           // malformed input (amount, currency, missing field, ...)
        LeaseLost,         // the executor no longer holds the action's lease: it recorded nothing
        Busy,              // the database stayed locked through every bounded retry
        Storage,           // SQL or I/O failure
        Unavailable,       // the database cannot be reached (PostgreSQL down, connection lost): retry later
        OverBudget,        // more than the charge can still refund (detail: the budget and what was requested)
        CannotWrite,       // the storage refuses writes: a full disk or tablespace, a read-only file or
                           // database, an I/O error (issue 34); nothing was written, retry later
        Damaged,           // the ledger is damaged (a corrupt page, a broken audit chain) or behind its
                           // witness: not served, not written (LedgerCheck, LedgerWitness)
    };

    LedgerError() = default;
    LedgerError(Code code, QString message) : m_code(code), m_message(std::move(message)) {}
    LedgerError(Code code, QString message, QJsonObject detail)
        : m_code(code), m_message(std::move(message)), m_detail(std::move(detail))
    {
    }

    bool ok() const { return m_code == Code::None; }
    Code code() const { return m_code; }
    const QString &message() const { return m_message; }
    // What the refusal rests on, for the API's problem body (OverBudget: ChargeBudget::toJson plus
    // "requested"); empty for most errors.
    const QJsonObject &detail() const { return m_detail; }

    // "stale_version: ..." for logs.
    QString toString() const;

private:
    Code m_code = Code::None;
    QString m_message;
    QJsonObject m_detail;
};

QString toWire(LedgerError::Code code); // "not_found", "stale_version", ...

} // namespace cs
