#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QString>
#include <QVariantMap>

class QSettings;
class QUrl;

namespace cs {

// A reviewer's half-written decisions, per dialog kind and action: a dialog closed by accident,
// a backend that went away or a console that was closed or crashed never costs the text. Also
// remembers the Idempotency-Key of a decision whose answer never arrived, so that sending the
// very same request again (in this session or after a restart) reuses it and the backend replays
// the first answer instead of acting twice.
//
// Kept in memory and, once open() names a file, in that file too: one JSON file per backend and
// user (fileFor()), rewritten atomically (QSaveFile) with mode 0600 on every change and read back
// by open(). Before open() (the signed-in user is not known yet) the drafts live in memory only;
// open() adopts them into the file, close() forgets them. A file that cannot be read or parsed
// is set aside as "<name>.corrupt-<timestamp>" with a warning and the store starts empty.
// Drafts untouched for more than MaxAgeDays are dropped when the file is read; one that still
// holds an unresolved Idempotency-Key is dropped with a warning naming the key, never earlier.
//
// Not thread-safe. One console per backend and user at a time: two consoles on the same file
// overwrite each other's drafts (the last write wins; the file is never left half-written).
class DraftStore
{
public:
    static constexpr int MaxAgeDays = 30;

    struct Draft
    {
        QVariantMap fields;
        QString idempotencyKey;     // of a request whose outcome is unknown; empty otherwise
        QByteArray requestIdentity; // method, path, If-Match and body of that request
        QDateTime updated;          // last change of fields or key (UTC); drives MaxAgeDays
    };

    // Which store an operation began in: a decision answered after the reviewer switched user or
    // backend must settle its draft in the file it came from, not in the one open now.
    struct Origin
    {
        quint64 session = 0;
        QString fileName;
    };

    static QString keyFor(const QString &kind, const QString &actionId)
    {
        return kind + QLatin1Char('/') + actionId;
    }

    // The "drafts" folder beside `settings`' file (an INI file in tests and portable setups,
    // ~/.config/Countersign/ by default on Linux).
    static QString directoryFor(const QSettings &settings);
    // The file for one backend and user in `directory`: named by a SHA-256 of both, so neither
    // appears in the name and no two pairs share a file.
    static QString fileFor(const QString &directory, const QUrl &backend, const QString &user);

    // Binds the store to `fileName` and reads it (a missing file is an empty store). Drafts kept
    // while no file was open are adopted (they are newer: their fields win; a key on either side
    // is kept). Another file open before is closed first. Returns false if the file existed but
    // was unreadable or corrupt (set aside, warning logged); the store is usable either way.
    bool open(const QString &fileName, const QDateTime &now = QDateTime::currentDateTimeUtc());
    // Unbinds and forgets the drafts in memory (those of an open file are in the file).
    void close();
    QString fileName() const { return m_fileName; }
    Origin origin() const { return { m_session, m_fileName }; }
    // False if the last write to the file failed (the drafts are still kept in memory).
    bool lastWriteSucceeded() const { return m_lastWriteOk; }

    bool contains(const QString &key) const { return m_drafts.contains(key); }
    Draft draft(const QString &key) const { return m_drafts.value(key); }
    void saveFields(const QString &key, const QVariantMap &fields);
    void remove(const QString &key);
    int size() const { return int(m_drafts.size()); }

    // The key to send `identity` with: the remembered one if the same request is still
    // unresolved, else a fresh one from `mint`, remembered (and written) until resolve().
    template <typename Mint>
    QString keyForRequest(const QString &key, const QByteArray &identity, Mint mint)
    {
        Draft &d = m_drafts[key];
        if (d.idempotencyKey.isEmpty() || d.requestIdentity != identity) {
            d.idempotencyKey = mint();
            d.requestIdentity = identity;
            d.updated = QDateTime::currentDateTimeUtc();
            write();
        }
        return d.idempotencyKey;
    }
    // The backend answered (success or a definitive error): the key is spent.
    void resolve(const QString &key);

private:
    void write();

    QHash<QString, Draft> m_drafts;
    QString m_fileName;
    bool m_writable = false; // false while unbound, or if a bad file could not be set aside
    bool m_lastWriteOk = true;
    quint64 m_session = 1;   // changes on close()
};

} // namespace cs
