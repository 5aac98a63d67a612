#pragma once

#include "server/ledger/ledgererror.h"

#include <QtGlobal>

#include <optional>
#include <utility>

namespace cs {

// A value or the LedgerError that prevented it. Constructible implicitly from either, so
// operations can `return record;` or `return LedgerError(...)`.
template <typename T>
class LedgerResult
{
public:
    LedgerResult(T value) : m_value(std::move(value)) {}
    LedgerResult(LedgerError error) : m_error(std::move(error)) { Q_ASSERT(!m_error.ok()); }

    bool ok() const { return m_error.ok(); }
    explicit operator bool() const { return ok(); }

    const T &value() const { Q_ASSERT(ok()); return *m_value; }
    T &value() { Q_ASSERT(ok()); return *m_value; }
    const T &operator*() const { return value(); }
    T &operator*() { return value(); }
    const T *operator->() const { return &value(); }
    T *operator->() { return &value(); }

    const LedgerError &error() const { return m_error; }
    LedgerError::Code code() const { return m_error.code(); }

private:
    std::optional<T> m_value;
    LedgerError m_error;
};

} // namespace cs
