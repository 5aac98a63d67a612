// The backend root both console clients keep (client/backendurl.h): one backend, however the
// user wrote its URL.

#include "client/apiclient.h"
#include "client/backendurl.h"

#include <QTest>

using namespace cs;

class TestBackendUrl : public QObject
{
    Q_OBJECT

private slots:
    void root_data()
    {
        QTest::addColumn<QString>("given");
        QTest::addColumn<QString>("root");
        QTest::newRow("bare") << u"http://127.0.0.1:8470"_qs << u"http://127.0.0.1:8470"_qs;
        QTest::newRow("trailing slash") << u"http://127.0.0.1:8470/"_qs << u"http://127.0.0.1:8470"_qs;
        QTest::newRow("slashes") << u"https://h:8470///"_qs << u"https://h:8470"_qs;
        QTest::newRow("with /api/v1") << u"https://h:8470/api/v1"_qs << u"https://h:8470"_qs;
        QTest::newRow("with /api/v1/") << u"https://h:8470/api/v1/"_qs << u"https://h:8470"_qs;
        QTest::newRow("behind a prefix") << u"https://h/cs/api/v1"_qs << u"https://h/cs"_qs;
        QTest::newRow("another path is kept") << u"https://h/api/v2"_qs << u"https://h/api/v2"_qs;
        QTest::newRow("only the last /api/v1") << u"https://h/api/v1/api/v1"_qs << u"https://h/api/v1"_qs;
    }

    void root()
    {
        QFETCH(QString, given);
        QFETCH(QString, root);
        QCOMPARE(backendRoot(QUrl(given)).toString(), root);
        ApiClient api;
        api.setBaseUrl(QUrl(given));
        QCOMPARE(api.baseUrl().toString(), root);
    }
};

QTEST_GUILESS_MAIN(TestBackendUrl)
#include "tst_backendurl.moc"
