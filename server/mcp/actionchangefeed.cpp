#include "server/mcp/actionchangefeed.h"

namespace cs {

ActionChangeFeed::ActionChangeFeed(QObject *parent)
    : QObject(parent)
{
}

ActionChangeFeed::~ActionChangeFeed()
{
    if (!m_subscribers.isEmpty())
        emit following(false); // the source need not be followed for subscribers that outlive us
}

quint64 ActionChangeFeed::subscribe(const QString &actionId, Wake wake)
{
    const quint64 handle = m_nextHandle++;
    m_subscribers.insert(handle, Subscriber{actionId, std::move(wake)});
    m_byAction.insert(actionId, handle);
    if (m_subscribers.size() == 1)
        emit following(true);
    return handle;
}

void ActionChangeFeed::unsubscribe(quint64 handle)
{
    const auto it = m_subscribers.constFind(handle);
    if (it == m_subscribers.constEnd())
        return;
    m_byAction.remove(it->actionId, handle);
    m_subscribers.erase(it);
    if (m_subscribers.isEmpty())
        emit following(false);
}

// Handles are looked up again before each call: an earlier wake may have ended a subscription.
void ActionChangeFeed::wake(const QList<quint64> &handles)
{
    for (const quint64 handle : handles) {
        const auto it = m_subscribers.constFind(handle);
        if (it == m_subscribers.constEnd())
            continue;
        const Wake call = it->wake; // a copy: the subscription may end inside the call
        call();
    }
}

void ActionChangeFeed::notify(const QStringList &actionIds)
{
    QList<quint64> handles;
    for (const QString &id : actionIds)
        handles += m_byAction.values(id);
    if (!handles.isEmpty())
        wake(handles);
}

void ActionChangeFeed::notifyAll()
{
    wake(m_subscribers.keys());
}

} // namespace cs
