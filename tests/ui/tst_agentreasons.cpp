// The agent's reasons and the reasons for a rejection in the console (issue 19), against a real
// countersignd and paysim: proposed through the API, read back from the detail pane's and the
// approve dialog's widgets; the context link opens in the browser (a URL handler stands in for
// it) and only an https address is a link; a rejection's reason reads in the reject dialog's
// words in the approvals table and on the timeline.

#include "client/apiclient.h"
#include "models/approvaltablemodel.h"
#include "models/factstablemodel.h"
#include "tests/client/backendprocess.h"
#include "tests/support/quietoffscreen.h"
#include "ui/actiondetailpane.h"
#include "ui/agentreasonsview.h"
#include "ui/approvedialog.h"
#include "ui/decisioncontroller.h"
#include "ui/timelinewidget.h"

#include <QAbstractItemModelTester>
#include <QDesktopServices>
#include <QJsonArray>
#include <QLabel>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

// Stands in for the browser: QDesktopServices hands https URLs to it.
class UrlCatcher : public QObject
{
    Q_OBJECT
public:
    QList<QUrl> opened;
public slots:
    void open(const QUrl &url) { opened.append(url); }
};

class TestAgentReasons : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QStringList m_charges;
    int m_next = 0;

    QString nextCharge() { return m_charges.at(m_next++ % m_charges.size()); }

    // The agent proposes with reasons (any of them may be empty); returns the action's id.
    QString proposeWithReasons(qint64 amount, const QString &justification, const QString &contextUrl,
                               const QJsonObject &facts)
    {
        QJsonObject proposal{
            { QStringLiteral("kind"), QStringLiteral("refund") },
            { QStringLiteral("target"), QJsonObject{ { QStringLiteral("charge"), nextCharge() } } },
            { QStringLiteral("amount"), QJsonValue(amount) },
            { QStringLiteral("currency"), QStringLiteral("usd") },
            { QStringLiteral("client_reference"), QStringLiteral("reasons-%1").arg(++m_next) },
            { QStringLiteral("business_reference"), QStringLiteral("order-%1").arg(m_next) },
        };
        if (!justification.isEmpty())
            proposal.insert(QStringLiteral("justification"), justification);
        if (!contextUrl.isEmpty())
            proposal.insert(QStringLiteral("context_url"), contextUrl);
        if (!facts.isEmpty())
            proposal.insert(QStringLiteral("facts"), facts);
        const BackendProcess::Reply reply = m_backend.post(QStringLiteral("agent7"), QStringLiteral("/actions"), proposal);
        if (reply.status != 201)
            qWarning() << "proposal refused" << reply.status << reply.body;
        return reply.body.value(QLatin1String("id")).toString();
    }

    std::optional<ActionDetail> read(ApiClient &client, const QString &id)
    {
        ApiCall *call = client.action(id);
        QSignalSpy finished(call, &ApiCall::finished);
        if (!finished.isValid() || !finished.wait(10000))
            return std::nullopt;
        return ActionDetail::fromJson(call->response().object());
    }

    static QStringList factRows(const QTableView *view)
    {
        QStringList rows;
        const QAbstractItemModel *model = view->model();
        for (int r = 0; r < model->rowCount(); ++r)
            rows << model->index(r, FactsTableModel::FactColumn).data().toString() + QStringLiteral(" = ")
                    + model->index(r, FactsTableModel::ValueColumn).data().toString();
        return rows;
    }

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
        QVERIFY2(m_backend.start(8), qPrintable(m_backend.error()));
        m_charges = m_backend.charges();
        QVERIFY(!m_charges.isEmpty());
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    // Proposed with all three reasons: the pane and the approve dialog show the justification
    // (wrapped, selectable, as plain text), the context as a link that opens in the browser and
    // the facts as a two-column table; no "no reasons" line.
    void reasonsReachThePaneAndTheApproveDialog()
    {
        const QString justification = QStringLiteral("The parcel was lost in transit; the carrier confirmed it. <b>not bold</b>");
        const QString url = QStringLiteral("https://support.example.com/tickets/4821");
        const QString id = proposeWithReasons(4000, justification, url,
                                              QJsonObject{ { QStringLiteral("customer_said"), QStringLiteral("It never arrived.") },
                                                           { QStringLiteral("order_total"), QStringLiteral("USD 99.00") } });
        QVERIFY(!id.isEmpty());

        ApiClient client;
        client.setBaseUrl(m_backend.url());
        client.setToken(m_backend.token(QStringLiteral("ana")));
        client.setDeadline(5s);
        QWidget window;
        window.resize(1000, 800);
        auto *pane = new ActionDetailPane(&window);
        pane->resize(1000, 800);
        DecisionController controller(&client, pane, &window);
        window.show();
        const std::optional<ActionDetail> detail = read(client, id);
        QVERIFY(detail);
        pane->setDetail(*detail);

        UrlCatcher browser;
        QDesktopServices::setUrlHandler(QStringLiteral("https"), &browser, "open");
        const auto unsetHandler = qScopeGuard([] { QDesktopServices::unsetUrlHandler(QStringLiteral("https")); });

        const auto check = [&](AgentReasonsView *view, const char *where) {
            QVERIFY2(view, where);
            QCOMPARE(view->justificationLabel()->text(), justification);
            QCOMPARE(view->justificationLabel()->textFormat(), Qt::PlainText); // the agent's text is never markup
            QVERIFY(view->justificationLabel()->wordWrap());
            QVERIFY(view->justificationLabel()->textInteractionFlags() & Qt::TextSelectableByMouse);
            QVERIFY(view->justificationLabel()->isVisibleTo(view));
            QVERIFY(!view->emptyLabel()->isVisibleTo(view));
            QLabel *context = view->contextLabel();
            QVERIFY(context->isVisibleTo(view));
            QVERIFY2(context->text().contains(QStringLiteral("<a href=\"%1\">").arg(url)), qPrintable(context->text()));
            QVERIFY(context->textInteractionFlags() & Qt::LinksAccessibleByMouse);
            QVERIFY(!context->openExternalLinks());
            QCOMPARE(factRows(view->factsView()),
                     (QStringList{ QStringLiteral("customer said = It never arrived."), QStringLiteral("order total = USD 99.00") }));
            QVERIFY(view->factsView()->isVisibleTo(view));
            QCOMPARE(view->factsView()->model()->columnCount(), 2);
            // Activating the link opens it in the browser.
            const qsizetype before = browser.opened.size();
            QSignalSpy opened(view, &AgentReasonsView::contextUrlOpened);
            QVERIFY(opened.isValid());
            emit context->linkActivated(url);
            QCOMPARE(opened.count(), 1);
            QCOMPARE(browser.opened.size(), before + 1);
            QCOMPARE(browser.opened.last(), QUrl(url));
        };
        check(pane->reasonsView(), "pane");

        controller.openApprove();
        auto *dialog = qobject_cast<ApproveDialog *>(controller.openDialog());
        QVERIFY(dialog);
        check(dialog->reasonsView(), "dialog");
        QCOMPARE(dialog->reasonsView(), dialog->findChild<AgentReasonsView *>(QStringLiteral("agentReasons")));
        dialog->done(QDialog::Rejected);
    }

    // Proposed without reasons: both places say so in words instead of leaving blank space.
    void noReasonsSaySo()
    {
        const QString id = proposeWithReasons(1500, QString(), QString(), QJsonObject());
        QVERIFY(!id.isEmpty());
        ApiClient client;
        client.setBaseUrl(m_backend.url());
        client.setToken(m_backend.token(QStringLiteral("ana")));
        QWidget window;
        auto *pane = new ActionDetailPane(&window);
        DecisionController controller(&client, pane, &window);
        window.show();
        const std::optional<ActionDetail> detail = read(client, id);
        QVERIFY(detail);
        pane->setDetail(*detail);
        controller.openApprove();
        auto *dialog = qobject_cast<ApproveDialog *>(controller.openDialog());
        QVERIFY(dialog);
        for (AgentReasonsView *view : { pane->reasonsView(), dialog->reasonsView() }) {
            QVERIFY(view->emptyLabel()->isVisibleTo(view));
            QCOMPARE(view->emptyLabel()->text(), QStringLiteral("The agent gave no reasons."));
            QVERIFY(!view->justificationLabel()->isVisibleTo(view));
            QVERIFY(!view->contextLabel()->isVisibleTo(view));
            QVERIFY(!view->factsView()->isVisibleTo(view));
        }
        dialog->done(QDialog::Rejected);
    }

    // Only an absolute https URL with a host is a link; anything else is text and never opened,
    // even if a link to it were activated. (The backend refuses such URLs: this is the console's
    // own guard, so the record is built here.)
    void onlyHttpsIsALink_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("link");
        QTest::newRow("https with a host") << QStringLiteral("https://support.example.com/t/1") << true;
        QTest::newRow("http") << QStringLiteral("http://support.example.com/t/1") << false;
        QTest::newRow("javascript") << QStringLiteral("javascript:alert(1)") << false;
        QTest::newRow("file") << QStringLiteral("file:///etc/passwd") << false;
        QTest::newRow("https without a host") << QStringLiteral("https:///t/1") << false;
        QTest::newRow("https with a password") << QStringLiteral("https://u:p@support.example.com/") << false;
        QTest::newRow("relative") << QStringLiteral("/tickets/1") << false;
    }

    void onlyHttpsIsALink()
    {
        QFETCH(QString, url);
        QFETCH(bool, link);
        QCOMPARE(AgentReasonsView::isOpenableUrl(url), link);
        UrlCatcher browser;
        for (const char *scheme : { "https", "http", "javascript", "file" })
            QDesktopServices::setUrlHandler(QString::fromLatin1(scheme), &browser, "open");
        const auto unsetHandlers = qScopeGuard([] {
            for (const char *scheme : { "https", "http", "javascript", "file" })
                QDesktopServices::unsetUrlHandler(QString::fromLatin1(scheme));
        });
        AgentReasonsView view;
        ActionRecord record;
        record.contextUrl = url;
        view.setRecord(record);
        QVERIFY(view.contextLabel()->isVisibleTo(&view));
        QCOMPARE(view.contextLabel()->text().contains(QStringLiteral("<a href")), link);
        QCOMPARE(view.contextLabel()->textFormat(), link ? Qt::RichText : Qt::PlainText);
        QVERIFY(view.contextLabel()->text().contains(url.toHtmlEscaped()) || view.contextLabel()->text().contains(url));
        emit view.contextLabel()->linkActivated(url);
        QCOMPARE(browser.opened.size(), link ? 1 : 0);
    }

    // The facts table under QAbstractItemModelTester: key order, keys shown with spaces, the key
    // as written in the tooltip and KeyRole.
    void factsModel()
    {
        FactsTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QVERIFY(reset.isValid());
        model.setFacts({ { QStringLiteral("order_total"), QStringLiteral("USD 99.00") },
                         { QStringLiteral("customer_said"), QStringLiteral("It never arrived.") } });
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), 2);
        QCOMPARE(model.index(0, FactsTableModel::FactColumn).data().toString(), QStringLiteral("customer said"));
        QCOMPARE(model.index(0, FactsTableModel::FactColumn).data(Qt::ToolTipRole).toString(), QStringLiteral("customer_said"));
        QCOMPARE(model.index(0, FactsTableModel::ValueColumn).data(FactsTableModel::KeyRole).toString(), QStringLiteral("customer_said"));
        QCOMPARE(model.index(1, FactsTableModel::ValueColumn).data().toString(), QStringLiteral("USD 99.00"));
        QCOMPARE(model.headerData(FactsTableModel::FactColumn, Qt::Horizontal).toString(), QStringLiteral("Fact"));
        model.setFacts({});
        QCOMPARE(model.rowCount(), 0);
    }

    // A rejection through the API with a reason and a note: the approvals table and the timeline
    // show the reason in the reject dialog's words ("Wrong amount", not "wrong_amount") and the note.
    void rejectionReasonInTheApprovalsAndTheTimeline()
    {
        const QString id = proposeWithReasons(2600, QStringLiteral("Customer asked."), QString(), QJsonObject());
        QVERIFY(!id.isEmpty());
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(id),
                                QJsonObject{ { QStringLiteral("reason"), QStringLiteral("wrong_amount") },
                                             { QStringLiteral("note"), QStringLiteral("the order total was 20.00") } },
                                1)
                     .status,
                 200);
        ApiClient client;
        client.setBaseUrl(m_backend.url());
        client.setToken(m_backend.token(QStringLiteral("ana")));
        ActionDetailPane pane;
        pane.resize(1000, 700);
        pane.show();
        const std::optional<ActionDetail> detail = read(client, id);
        QVERIFY(detail);
        pane.setDetail(*detail);

        auto *approvals = pane.findChild<QTableView *>(QStringLiteral("approvalTable"));
        QVERIFY(approvals);
        QCOMPARE(approvals->model()->rowCount(), 1);
        const QModelIndex decision = approvals->model()->index(0, ApprovalTableModel::DecisionColumn);
        QCOMPARE(decision.data().toString(), QStringLiteral("rejected: Wrong amount"));
        QCOMPARE(decision.data(Qt::ToolTipRole).toString(), QStringLiteral("Wrong amount: the order total was 20.00"));
        QCOMPARE(approvals->model()->index(0, ApprovalTableModel::NoteColumn).data().toString(),
                 QStringLiteral("the order total was 20.00"));

        bool found = false;
        for (const TimelineWidget::Mark &mark : pane.timeline()->marks()) {
            if (mark.lane != TimelineWidget::Lane::Decision)
                continue;
            found = true;
            QCOMPARE(mark.label, QStringLiteral("rejected: Wrong amount"));
            QVERIFY2(mark.tooltip.contains(QStringLiteral("Rejected by ben")), qPrintable(mark.tooltip));
            QVERIFY2(mark.tooltip.endsWith(QStringLiteral("Wrong amount: the order total was 20.00")), qPrintable(mark.tooltip));
        }
        QVERIFY(found);
    }
};

QTEST_MAIN(TestAgentReasons)
#include "tst_agentreasons.moc"
