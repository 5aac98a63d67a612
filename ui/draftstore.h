#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QVariantMap>

namespace cs {

// A reviewer's half-written decisions, per dialog kind and action, kept in memory for the
// session: a dialog closed by accident, or a backend that went away, never costs the text.
// Also remembers the Idempotency-Key of a decision whose answer never arrived, so that sending
// the very same request again reuses it (the backend then replays the first answer).
class DraftStore
{
public:
    struct Draft
    {
        QVariantMap fields;
        QString idempotencyKey;     // of a request whose outcome is unknown; empty otherwise
        QByteArray requestIdentity; // method, path, If-Match and body of that request
    };

    static QString keyFor(const QString &kind, const QString &actionId)
    {
        return kind + QLatin1Char('/') + actionId;
    }

    bool contains(const QString &key) const { return m_drafts.contains(key); }
    Draft draft(const QString &key) const { return m_drafts.value(key); }
    void saveFields(const QString &key, const QVariantMap &fields) { m_drafts[key].fields = fields; }
    void remove(const QString &key) { m_drafts.remove(key); }
    int size() const { return int(m_drafts.size()); }

    // The key to send `identity` with: the remembered one if the same request is still
    // unresolved, else a fresh one from `mint`, remembered until resolve().
    template <typename Mint>
    QString keyForRequest(const QString &key, const QByteArray &identity, Mint mint)
    {
        Draft &d = m_drafts[key];
        if (d.idempotencyKey.isEmpty() || d.requestIdentity != identity) {
            d.idempotencyKey = mint();
            d.requestIdentity = identity;
        }
        return d.idempotencyKey;
    }
    // The backend answered (success or a definitive error): the key is spent.
    void resolve(const QString &key)
    {
        auto it = m_drafts.find(key);
        if (it != m_drafts.end()) {
            it->idempotencyKey.clear();
            it->requestIdentity.clear();
        }
    }

private:
    QHash<QString, Draft> m_drafts;
};

} // namespace cs
