#include "actionquery.h"

#include <QStringList>

namespace cs {

ActionQuery ActionQuery::queue()
{
    ActionQuery query;
    query.states = { ActionState::Pending, ActionState::ConfirmationUnknown,
                     ActionState::RequiresReview };
    return query;
}

QString ActionQuery::stateParameter() const
{
    QStringList names;
    names.reserve(states.size());
    for (ActionState state : states)
        names.append(toWire(state));
    return names.join(QLatin1Char(','));
}

bool ActionQuery::matches(const ActionRecord &record) const
{
    if (!states.isEmpty() && !states.contains(record.state))
        return false;
    const QString needle = search.trimmed();
    if (needle.isEmpty())
        return true;
    for (const QString *hay : { &record.id, &record.targetId, &record.businessReference,
                                &record.requestedBy, &record.clientReference }) {
        if (hay->contains(needle, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace cs
