#include "server/ledger/ledgererror.h"

namespace cs {

QString toWire(LedgerError::Code code)
{
    switch (code) {
    case LedgerError::Code::None: return QStringLiteral("none");
    case LedgerError::Code::NotFound: return QStringLiteral("not_found");
    case LedgerError::Code::StaleVersion: return QStringLiteral("stale_version");
    case LedgerError::Code::IllegalTransition: return QStringLiteral("illegal_transition");
    case LedgerError::Code::Conflict: return QStringLiteral("conflict");
    case LedgerError::Code::Forbidden: return QStringLiteral("forbidden");
    case LedgerError::Code::Invalid: return QStringLiteral("invalid");
    case LedgerError::Code::LeaseLost: return QStringLiteral("lease_lost");
    case LedgerError::Code::Busy: return QStringLiteral("busy");
    case LedgerError::Code::Storage: return QStringLiteral("storage");
    case LedgerError::Code::Unavailable: return QStringLiteral("unavailable");
    case LedgerError::Code::OverBudget: return QStringLiteral("over_budget");
    case LedgerError::Code::CannotWrite: return QStringLiteral("cannot_write");
    case LedgerError::Code::Damaged: return QStringLiteral("damaged");
    }
    return QStringLiteral("unknown");
}

QString LedgerError::toString() const
{
    return toWire(m_code) + QStringLiteral(": ") + m_message;
}

} // namespace cs
