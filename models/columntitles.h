#pragma once

#include <QList>
#include <QString>
#include <QVariant>

namespace cs {

// A table model's horizontal header text: `titles` lists one title per column in the order of the
// model's Column enum, so the section number indexes it. Past the end: QVariant() (no title).
inline QVariant columnTitle(const QList<QString> &titles, int section)
{
    return section >= 0 && section < titles.size() ? QVariant(titles.at(section)) : QVariant();
}

} // namespace cs
