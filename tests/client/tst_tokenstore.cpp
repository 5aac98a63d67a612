// The token store's file fallback: a file only the user can read, in a folder only the user can
// enter, round-tripped per profile; and --token-file reading.

#include "client/tokenstore.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace cs;

class TestTokenStore : public QObject
{
    Q_OBJECT

private slots:
    void fileFallbackIsPrivate()
    {
        QTemporaryDir dir;
        TokenStore store;
        store.setKeychainEnabled(false);
        store.setDirectory(dir.path());
        QSignalSpy saved(&store, &TokenStore::saved);
        QVERIFY(saved.isValid());
        store.save(QStringLiteral("http://127.0.0.1:8470"), QStringLiteral("cst_secret"));
        QVERIFY(saved.wait(2000));
        QCOMPARE(saved.first().at(1).value<TokenStore::Backend>(), TokenStore::Backend::File);

        const QString path = store.filePath(QStringLiteral("http://127.0.0.1:8470"));
        struct stat file {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &file), 0);
        QCOMPARE(file.st_mode & 0777, mode_t(0600));
        struct stat folder {};
        QCOMPARE(::stat(QFile::encodeName(QFileInfo(path).absolutePath()).constData(), &folder), 0);
        QCOMPARE(folder.st_mode & 0777, mode_t(0700));
        QVERIFY(!QFile::exists(path + QStringLiteral(".tmp")));

        QSignalSpy loaded(&store, &TokenStore::loaded);
        QVERIFY(loaded.isValid());
        store.load(QStringLiteral("http://127.0.0.1:8470"));
        QVERIFY(loaded.wait(2000));
        QCOMPARE(loaded.first().at(1).toString(), QStringLiteral("cst_secret"));

        QSignalSpy notFound(&store, &TokenStore::notFound);
        QVERIFY(notFound.isValid());
        store.load(QStringLiteral("http://other:1"));
        QVERIFY(notFound.wait(2000));

        store.remove(QStringLiteral("http://127.0.0.1:8470"));
        QVERIFY(!QFile::exists(path));
    }

    void tokenFile_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("token");
        QTest::newRow("a line") << QByteArray("cst_abc\n") << QStringLiteral("cst_abc");
        QTest::newRow("blank lines and spaces first") << QByteArray("\n  \n  cst_abc  \nmore\n") << QStringLiteral("cst_abc");
        QTest::newRow("empty") << QByteArray("\n\n") << QString();
    }

    void tokenFile()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, token);
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("t")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        QString error;
        QCOMPARE(TokenStore::readTokenFile(file.fileName(), &error), token);
        QCOMPARE(error.isEmpty(), !token.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestTokenStore)
#include "tst_tokenstore.moc"
