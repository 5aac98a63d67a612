// DraftStore on disk: drafts and unresolved Idempotency-Keys survive a second store on the same
// file (what a console restart is), resolve/remove are written, the file is its owner's only, a
// corrupt file is set aside without blocking anything, one file per backend and user, drafts
// made before the user is known are adopted, old drafts expire loudly, and writes are atomic.

#include "ui/draftstore.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <functional>

#include <sys/stat.h>

using namespace cs;

namespace {

const QUrl backendA(QStringLiteral("http://127.0.0.1:8470"));
const QUrl backendB(QStringLiteral("https://countersign.example.com"));

// Mints "k1", "k2", ... and counts its calls.
struct Mint
{
    int calls = 0;
    QString operator()() { return QStringLiteral("k%1").arg(++calls); }
};

QByteArray readAll(const QString &fileName)
{
    QFile f(fileName);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool isCompleteJson(const QByteArray &bytes)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    return error.error == QJsonParseError::NoError && doc.isObject() && doc.object().value(QLatin1String("drafts")).isObject();
}

mode_t modeOf(const QString &path)
{
    struct stat st{};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? (st.st_mode & 07777) : mode_t(07777);
}

ino_t inodeOf(const QString &path)
{
    struct stat st{};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_ino : 0;
}

} // namespace

class TestDraftStore : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_drafts; // <tmp>/drafts: where the console keeps them beside its settings file

    QString fileFor(const QUrl &backend, const QString &user) const { return DraftStore::fileFor(m_drafts, backend, user); }

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_drafts = DraftStore::directoryFor(QSettings(m_dir->filePath(QStringLiteral("console.ini")), QSettings::IniFormat));
    }

    void draftsFolderSitsBesideTheSettingsFile()
    {
        QCOMPARE(m_drafts, QDir(m_dir->path()).absoluteFilePath(QStringLiteral("drafts")));
        QVERIFY(fileFor(backendA, QStringLiteral("ana")).startsWith(m_drafts + QLatin1Char('/')));
    }

    void fieldsAndKeysSurviveASecondStore()
    {
        const QString file = fileFor(backendA, QStringLiteral("ana"));
        const QString approve = DraftStore::keyFor(QStringLiteral("approve"), QStringLiteral("act_1"));
        const QString reconcile = DraftStore::keyFor(QStringLiteral("reconcile"), QStringLiteral("act_2"));
        const QByteArray identity = "POST /actions/act_1/approvals\n3\n{\"note\":\"ok\"}";
        Mint mint;
        QString key;
        {
            DraftStore first;
            QVERIFY(first.open(file));
            first.saveFields(reconcile, { { QStringLiteral("note"), QStringLiteral("provider says yes \u2713") },
                                          { QStringLiteral("committed"), true },
                                          { QStringLiteral("evidence"), 7 } });
            key = first.keyForRequest(approve, identity, std::ref(mint));
            first.saveFields(approve, { { QStringLiteral("note"), QStringLiteral("ok") } });
            QVERIFY(first.lastWriteSucceeded());
        } // the console is gone

        DraftStore second;
        QVERIFY(second.open(file));
        QCOMPARE(second.size(), 2);
        const DraftStore::Draft r = second.draft(reconcile);
        QCOMPARE(r.fields.value(QStringLiteral("note")).toString(), QStringLiteral("provider says yes \u2713"));
        QCOMPARE(r.fields.value(QStringLiteral("committed")).toBool(), true);
        QCOMPARE(r.fields.value(QStringLiteral("evidence")).toInt(), 7);
        QVERIFY(r.idempotencyKey.isEmpty());
        const DraftStore::Draft a = second.draft(approve);
        QCOMPARE(a.fields.value(QStringLiteral("note")).toString(), QStringLiteral("ok"));
        QCOMPARE(a.idempotencyKey, key);
        QCOMPARE(a.requestIdentity, identity);
        // Resending the very same request after the restart reuses the key: no new one is minted.
        QCOMPARE(second.keyForRequest(approve, identity, std::ref(mint)), key);
        QCOMPARE(mint.calls, 1);
        // A different request (the note changed) gets a fresh key, and that is written too.
        const QString fresh = second.keyForRequest(approve, identity + "!", std::ref(mint));
        QVERIFY(fresh != key);
        DraftStore third;
        QVERIFY(third.open(file));
        QCOMPARE(third.draft(approve).idempotencyKey, fresh);
    }

    void resolveAndRemoveAreWritten()
    {
        const QString file = fileFor(backendA, QStringLiteral("ana"));
        const QString reject = DraftStore::keyFor(QStringLiteral("reject"), QStringLiteral("act_3"));
        const QString approve = DraftStore::keyFor(QStringLiteral("approve"), QStringLiteral("act_4"));
        Mint mint;
        DraftStore store;
        QVERIFY(store.open(file));
        store.saveFields(reject, { { QStringLiteral("reason"), QStringLiteral("duplicate") } });
        store.keyForRequest(reject, "POST reject", std::ref(mint));
        store.saveFields(approve, { { QStringLiteral("note"), QStringLiteral("fine") } });
        store.keyForRequest(approve, "POST approve", std::ref(mint));

        store.resolve(reject); // refused definitively: key spent, text kept
        store.remove(approve); // applied: nothing left to keep
        DraftStore after;
        QVERIFY(after.open(file));
        QVERIFY(after.contains(reject));
        QCOMPARE(after.draft(reject).fields.value(QStringLiteral("reason")).toString(), QStringLiteral("duplicate"));
        QVERIFY(after.draft(reject).idempotencyKey.isEmpty());
        QVERIFY(after.draft(reject).requestIdentity.isEmpty());
        QVERIFY(!after.contains(approve));
        QCOMPARE(after.size(), 1);
    }

    void fileIsItsOwnersOnly()
    {
        const QString file = fileFor(backendA, QStringLiteral("ana"));
        DraftStore store;
        QVERIFY(store.open(file));
        store.saveFields(QStringLiteral("approve/act_5"), { { QStringLiteral("note"), QStringLiteral("secret") } });
        QVERIFY(QFile::exists(file));
        QCOMPARE(modeOf(file), mode_t(0600));
        QCOMPARE(modeOf(m_drafts), mode_t(0700));

        // A file someone loosened is tightened again by the next write.
        QVERIFY(QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther));
        QCOMPARE(modeOf(file), mode_t(0644));
        store.saveFields(QStringLiteral("approve/act_5"), { { QStringLiteral("note"), QStringLiteral("secret 2") } });
        QCOMPARE(modeOf(file), mode_t(0600));
    }

    void corruptFileIsSetAside_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("not JSON") << QByteArray("this is not json");
        QTest::newRow("truncated JSON") << QByteArray("{\"format\":1,\"drafts\":{\"approve/a\":{\"fields\":{\"no");
        QTest::newRow("a JSON array") << QByteArray("[1,2,3]");
        QTest::newRow("an unknown format") << QByteArray("{\"format\":99,\"drafts\":{}}");
        QTest::newRow("drafts not an object") << QByteArray("{\"format\":1,\"drafts\":[]}");
        QTest::newRow("empty file") << QByteArray();
    }

    void corruptFileIsSetAside()
    {
        QFETCH(QByteArray, content);
        const QString file = fileFor(backendA, QStringLiteral("ana"));
        QVERIFY(QDir().mkpath(m_drafts));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(content);
        }
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("was unreadable; set aside as")));
        DraftStore store;
        QVERIFY(!store.open(file));
        QCOMPARE(store.size(), 0);
        QVERIFY(!QFile::exists(file));
        const QStringList aside = QDir(m_drafts).entryList({ QFileInfo(file).fileName() + QStringLiteral(".corrupt-*") }, QDir::Files);
        QCOMPARE(aside.size(), 1);
        QCOMPARE(readAll(QDir(m_drafts).filePath(aside.first())), content); // kept as it was

        // Usable as ever: a draft written now lands in a fresh, sound file.
        Mint mint;
        store.saveFields(QStringLiteral("approve/act_6"), { { QStringLiteral("note"), QStringLiteral("after") } });
        const QString key = store.keyForRequest(QStringLiteral("approve/act_6"), "POST", std::ref(mint));
        QVERIFY(store.lastWriteSucceeded());
        DraftStore again;
        QVERIFY(again.open(file));
        QCOMPARE(again.draft(QStringLiteral("approve/act_6")).fields.value(QStringLiteral("note")).toString(), QStringLiteral("after"));
        QCOMPARE(again.draft(QStringLiteral("approve/act_6")).idempotencyKey, key);
    }

    void oneFilePerBackendAndUser()
    {
        const QString anaA = fileFor(backendA, QStringLiteral("ana"));
        const QString benA = fileFor(backendA, QStringLiteral("ben"));
        const QString anaB = fileFor(backendB, QStringLiteral("ana"));
        QVERIFY(anaA != benA);
        QVERIFY(anaA != anaB);
        QVERIFY(benA != anaB);
        QVERIFY(!anaA.contains(QStringLiteral("ana")));
        // The same backend spelled with a trailing slash is the same backend.
        QCOMPARE(DraftStore::fileFor(m_drafts, QUrl(QStringLiteral("http://127.0.0.1:8470/")), QStringLiteral("ana")), anaA);

        const QString key = DraftStore::keyFor(QStringLiteral("reject"), QStringLiteral("act_7"));
        DraftStore console;
        QVERIFY(console.open(anaA));
        console.saveFields(key, { { QStringLiteral("reason"), QStringLiteral("ana's") } });
        // Switching user (the console closes its store and opens the other's): nothing crosses.
        QVERIFY(console.open(benA));
        QVERIFY(!console.contains(key));
        console.saveFields(key, { { QStringLiteral("reason"), QStringLiteral("ben's") } });
        QVERIFY(console.open(anaB));
        QVERIFY(!console.contains(key));
        QVERIFY(console.open(anaA));
        QCOMPARE(console.draft(key).fields.value(QStringLiteral("reason")).toString(), QStringLiteral("ana's"));

        DraftStore ben;
        QVERIFY(ben.open(benA));
        QCOMPARE(ben.draft(key).fields.value(QStringLiteral("reason")).toString(), QStringLiteral("ben's"));
        QVERIFY(!QFile::exists(anaB)); // nothing was ever written for ana on B
    }

    void draftsBeforeTheUserIsKnownAreAdopted()
    {
        const QString file = fileFor(backendA, QStringLiteral("ana"));
        const QString older = DraftStore::keyFor(QStringLiteral("approve"), QStringLiteral("act_8"));
        const QString both = DraftStore::keyFor(QStringLiteral("reject"), QStringLiteral("act_9"));
        const QString early = DraftStore::keyFor(QStringLiteral("follow_up"), QStringLiteral("act_10"));
        Mint mint;
        QString fileKey;
        {
            DraftStore previousRun;
            QVERIFY(previousRun.open(file));
            previousRun.saveFields(older, { { QStringLiteral("note"), QStringLiteral("from yesterday") } });
            previousRun.saveFields(both, { { QStringLiteral("reason"), QStringLiteral("old text") } });
            fileKey = previousRun.keyForRequest(both, "POST reject", std::ref(mint));
        }
        const QByteArray onDiskBefore = readAll(file);
        DraftStore store; // no file yet: /me has not answered
        store.saveFields(both, { { QStringLiteral("reason"), QStringLiteral("new text") } });
        store.saveFields(early, { { QStringLiteral("desired"), QStringLiteral("12.50") } });
        QCOMPARE(readAll(file), onDiskBefore); // not written anywhere while nobody owns them
        QVERIFY(store.open(file));
        QCOMPARE(store.size(), 3);
        QCOMPARE(store.draft(older).fields.value(QStringLiteral("note")).toString(), QStringLiteral("from yesterday"));
        QCOMPARE(store.draft(both).fields.value(QStringLiteral("reason")).toString(), QStringLiteral("new text"));
        QCOMPARE(store.draft(both).idempotencyKey, fileKey); // the pending key is not lost
        QCOMPARE(store.draft(early).fields.value(QStringLiteral("desired")).toString(), QStringLiteral("12.50"));
        DraftStore onDisk;
        QVERIFY(onDisk.open(file));
        QCOMPARE(onDisk.size(), 3);

        // Closed before the user was known (the token was switched): those drafts are nobody's.
        DraftStore unbound;
        unbound.saveFields(early, { { QStringLiteral("desired"), QStringLiteral("99.00") } });
        const DraftStore::Origin before = unbound.origin();
        unbound.close();
        QVERIFY(unbound.origin().session != before.session);
        QCOMPARE(unbound.size(), 0);
        QVERIFY(unbound.open(fileFor(backendA, QStringLiteral("ben"))));
        QVERIFY(!unbound.contains(early));
    }

    void oldDraftsExpireAtLoad()
    {
        const QString file = fileFor(backendA, QStringLiteral("ana"));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const auto entry = [](const QDateTime &updated, const QString &key) {
            QJsonObject o{ { QStringLiteral("fields"), QJsonObject{ { QStringLiteral("note"), QStringLiteral("n") } } } };
            if (updated.isValid())
                o.insert(QStringLiteral("updated"), updated.toString(Qt::ISODateWithMs));
            if (!key.isEmpty()) {
                o.insert(QStringLiteral("idempotency_key"), key);
                o.insert(QStringLiteral("request"), QString::fromLatin1(QByteArray("POST").toBase64()));
            }
            return o;
        };
        const QJsonObject drafts{
            { QStringLiteral("approve/stale"), entry(now.addDays(-31), QString()) },
            { QStringLiteral("approve/stale_key"), entry(now.addDays(-31), QStringLiteral("key-old")) },
            { QStringLiteral("approve/young_key"), entry(now.addDays(-29), QStringLiteral("key-young")) },
            { QStringLiteral("approve/young"), entry(now.addDays(-1), QString()) },
            { QStringLiteral("approve/undated"), entry(QDateTime(), QString()) },
        };
        QVERIFY(QDir().mkpath(m_drafts));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QJsonDocument(QJsonObject{ { QStringLiteral("format"), 1 }, { QStringLiteral("drafts"), drafts } }).toJson());
        }
        // Only the draft that still held a key is worth a warning, and it names the key.
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("dropping .*approve/stale_key.*key-old")));
        DraftStore store;
        QVERIFY(store.open(file, now));
        QVERIFY(!store.contains(QStringLiteral("approve/stale")));
        QVERIFY(!store.contains(QStringLiteral("approve/stale_key")));
        QCOMPARE(store.draft(QStringLiteral("approve/young_key")).idempotencyKey, QStringLiteral("key-young"));
        QVERIFY(store.contains(QStringLiteral("approve/young")));
        QVERIFY(store.contains(QStringLiteral("approve/undated")));
        // The file no longer holds what was dropped.
        const QJsonObject written = QJsonDocument::fromJson(readAll(file)).object().value(QLatin1String("drafts")).toObject();
        QCOMPARE(written.keys(), QStringList({ QStringLiteral("approve/undated"), QStringLiteral("approve/young"),
                                               QStringLiteral("approve/young_key") }));
    }

    void writesAreAtomic()
    {
        const QString file = fileFor(backendA, QStringLiteral("ana"));
        DraftStore store;
        QVERIFY(store.open(file));
        store.saveFields(QStringLiteral("approve/act_11"), { { QStringLiteral("note"), QStringLiteral("first") } });
        const QByteArray old = readAll(file);
        QVERIFY(isCompleteJson(old));

        // A reader that opened the file before a write keeps reading the complete old document:
        // the new one replaces it by rename, it is never truncated and rewritten in place.
        QFile reader(file);
        QVERIFY(reader.open(QIODevice::ReadOnly));
        const ino_t before = inodeOf(file);
        store.saveFields(QStringLiteral("approve/act_11"), { { QStringLiteral("note"), QStringLiteral("second, longer than the first") } });
        QVERIFY(inodeOf(file) != before);
        QCOMPARE(reader.readAll(), old);

        // Many writes: after each one the file is a complete document holding that write, and
        // nothing else (no temporary files) is left in the folder.
        Mint mint;
        for (int i = 0; i < 50; ++i) {
            const QString key = QStringLiteral("reject/act_%1").arg(100 + i);
            store.saveFields(key, { { QStringLiteral("reason"), QString(i * 40, QLatin1Char('x')) } });
            store.keyForRequest(key, QByteArray::number(i), std::ref(mint));
            const QByteArray now = readAll(file);
            QVERIFY2(isCompleteJson(now), qPrintable(QStringLiteral("write %1").arg(i)));
            QVERIFY(QJsonDocument::fromJson(now).object().value(QLatin1String("drafts")).toObject().contains(key));
        }
        QCOMPARE(QDir(m_drafts).entryList(QDir::Files | QDir::Hidden | QDir::System), QStringList{ QFileInfo(file).fileName() });
        QCOMPARE(modeOf(file), mode_t(0600));
    }

    void aFailedWriteKeepsTheDraftInMemory()
    {
        // The folder cannot be created (a plain file is in its way): the console goes on.
        QFile blocker(m_dir->filePath(QStringLiteral("blocked")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const QString file = DraftStore::fileFor(blocker.fileName(), backendA, QStringLiteral("ana"));
        DraftStore store;
        QVERIFY(store.open(file)); // nothing to read is not an error
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("cannot create")));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("cannot write")));
        store.saveFields(QStringLiteral("approve/act_12"), { { QStringLiteral("note"), QStringLiteral("kept") } });
        QVERIFY(!store.lastWriteSucceeded());
        QCOMPARE(store.draft(QStringLiteral("approve/act_12")).fields.value(QStringLiteral("note")).toString(), QStringLiteral("kept"));
    }
};

QTEST_GUILESS_MAIN(TestDraftStore)
#include "tst_draftstore.moc"
