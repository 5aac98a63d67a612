#pragma once

#include <QLatin1String>
#include <QString>
#include <QStringView>

#include <cstddef>
#include <optional>

namespace cs::wire {

// One enumerator and how the wire spells it. A constexpr array of these is the one place where a
// wire enum is spelled; nameOf and valueOf read it in both directions.
template <typename Enum>
struct Name
{
    Enum value;
    QLatin1String wire;
};

// The wire name of `value`; an empty string for an enumerator the table does not list.
template <typename Enum, std::size_t N>
QString nameOf(const Name<Enum> (&names)[N], Enum value)
{
    for (const Name<Enum> &name : names) {
        if (name.value == value)
            return name.wire;
    }
    return QString();
}

// The enumerator spelled `wire` (exactly, case-sensitive); nullopt for anything else.
template <typename Enum, std::size_t N>
std::optional<Enum> valueOf(const Name<Enum> (&names)[N], QStringView wire)
{
    for (const Name<Enum> &name : names) {
        if (wire == name.wire)
            return name.value;
    }
    return std::nullopt;
}

} // namespace cs::wire
