#include "server/ledger/ids.h"

#include <QRandomGenerator>

namespace cs {

namespace {
constexpr QStringView kAlphabet = u"abcdefghijklmnopqrstuvwxyz234567";
constexpr QStringView kActionPrefix = u"act_";
constexpr int kActionRandomLength = 24;
} // namespace

QString Ids::randomBase32(int length)
{
    QString out;
    out.reserve(length);
    QRandomGenerator *random = QRandomGenerator::system();
    for (int i = 0; i < length; ++i)
        out.append(kAlphabet.at(random->bounded(int(kAlphabet.size()))));
    return out;
}

QString Ids::newActionId()
{
    return kActionPrefix.toString() + randomBase32(kActionRandomLength);
}

bool Ids::looksLikeActionId(QStringView id)
{
    if (id.size() != kActionPrefix.size() + kActionRandomLength || !id.startsWith(kActionPrefix))
        return false;
    for (QChar c : id.mid(kActionPrefix.size())) {
        if (!kAlphabet.contains(c))
            return false;
    }
    return true;
}

QString Ids::newIdempotencyKey(const QString &actionId, int approvalVersion)
{
    // The action's random part keeps a key recognisable in provider dashboards; the fresh random
    // tail makes every approval's key unique even for the same version number.
    QString suffix = actionId.startsWith(kActionPrefix) ? actionId.mid(kActionPrefix.size()) : actionId;
    suffix.truncate(64);
    return QStringLiteral("csk_") + suffix + QStringLiteral("_v") + QString::number(approvalVersion)
        + QStringLiteral("_") + randomBase32(16);
}

} // namespace cs
