#pragma once

#include <QHash>
#include <QMultiHash>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace cs {

// Which waiting tool calls a change concerns (wait_for_decision on /mcp, DecisionWait): a waiting
// call subscribes to its action; notify() wakes the subscribers of the actions it names,
// notifyAll() every subscriber. In countersignd the names come from the event stream's read of
// the audit log after each commit (EventStream::actionsChanged, wired by HttpTransport), so a wait
// reads its action again only when a commit may have changed it, and a commit of an action nobody
// waits for costs a hash look-up. The source needs to be followed only while someone subscribes:
// following(true) is emitted inside the first subscribe(), before it returns, and following(false)
// when the last subscription goes.
//
// A wake is a call on this thread, from inside notify(): keep it short (start a read). A wake may
// unsubscribe any subscription, its own included. Not thread-safe.
class ActionChangeFeed : public QObject
{
    Q_OBJECT
public:
    using Wake = std::function<void()>;

    explicit ActionChangeFeed(QObject *parent = nullptr);
    ~ActionChangeFeed() override;

    // `wake` is called for every change of actionId notified from now on, until unsubscribe(handle).
    quint64 subscribe(const QString &actionId, Wake wake);
    void unsubscribe(quint64 handle);
    int subscriptions() const { return int(m_subscribers.size()); }

public slots:
    void notify(const QStringList &actionIds);
    void notifyAll();

signals:
    void following(bool on);

private:
    struct Subscriber
    {
        QString actionId;
        Wake wake;
    };
    void wake(const QList<quint64> &handles);

    QHash<quint64, Subscriber> m_subscribers;
    QMultiHash<QString, quint64> m_byAction;
    quint64 m_nextHandle = 1;
};

} // namespace cs
