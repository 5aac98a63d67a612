// Populates a real countersignd (with paysim behind it) with the scenarios the README shows,
// through the API only, then runs the console three times with --screenshot under the current
// display (scripts/screenshots.sh runs this under Xvfb):
//   screenshot-queue.png   the pending queue, an approver's view
//   screenshot-review.png  a REQUIRES_REVIEW refund: attempts, lookups and the timeline
//   screenshot-diff.png    the same refund's changed resubmission, side by side
// and then shows three dialogs in this process (against the same backend) and saves them:
//   screenshot-approve-reasons.png  the approve dialog of a refund proposed with the agent's reasons
//   screenshot-approve-budget.png   the approve dialog of a refund over half of a charge already
//                                   partly refunded: the charge's story, budget and warnings
//   screenshot-bulk.png             a bulk approval after a partial failure: one row refused
//                                   (rejected by someone else meanwhile), one without an answer
//                                   (lost on the way back, through a FaultProxy), one skipped
//   screenshot-charge-view.png      the charge view (issue 17): a charge with a refund made in the
//                                   provider's dashboard and two actions, one COMPLETED and one
//                                   PENDING, read afresh by the approver
//
// The review scenario is DESIGN.md's failure pattern: the first request commits at the provider
// but its connection is reset before the answer; lookups fail and same-key retries meet an
// outage until the reconciler gives up and asks for review; then the provider recovers, a
// supervisor's lookup finds the 40.00 refund, and the agent "re-reasons" 45.00 under the same
// reference — caught as a changed resubmission.

#include "client/apiclient.h"
#include "models/actiondetail.h"
#include "models/bulkdecisionmodel.h"
#include "tests/client/backendprocess.h"
#include "tests/client/faultproxy.h"
#include "ui/approvedialog.h"
#include "ui/bulkdecisioncontroller.h"
#include "ui/bulkdecisiondialog.h"
#include "ui/chargecontroller.h"
#include "ui/chargewindow.h"
#include "ui/draftstore.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QPushButton>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QPlainTextEdit>
#include <QProcess>
#include <QTextStream>
#include <QThread>

namespace {

QTextStream &out()
{
    static QTextStream stream(stdout);
    return stream;
}

[[noreturn]] void fail(const QString &message)
{
    QTextStream(stderr) << "screenshot_scenarios: " << message << Qt::endl;
    std::exit(1);
}

struct Charge
{
    QString id;
    qint64 amount;
    QString currency;
};

QList<Charge> allCharges(const BackendProcess &backend)
{
    QList<Charge> charges;
    const QJsonArray data = backend.paysimAdmin("GET", QStringLiteral("/_sim/charges")).body.value(QLatin1String("data")).toArray();
    for (const QJsonValue &v : data) {
        const QJsonObject c = v.toObject();
        charges.append({ c.value(QLatin1String("id")).toString(), c.value(QLatin1String("amount")).toInteger(),
                         c.value(QLatin1String("currency")).toString() });
    }
    return charges;
}

qint64 version(const BackendProcess &backend, const QString &id)
{
    return backend.action(id).value(QLatin1String("state_version")).toInteger();
}

bool waitForState(const BackendProcess &backend, const QString &id, const QString &state, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        if (backend.action(id).value(QLatin1String("state")).toString() == state)
            return true;
        QThread::msleep(200);
    }
    return false;
}

// Runs the event loop until `done` holds (this is a script, not the console: waiting is fine).
template <typename Predicate>
bool waitUntil(Predicate done, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(10);
    }
    return true;
}

void settleAndSave(QWidget *widget, const QString &path)
{
    widget->show();
    widget->raise();
    waitUntil([] { return false; }, 800); // the last layout and paint
    if (!widget->grab().save(path))
        fail(QStringLiteral("could not save %1").arg(path));
    out() << "saved " << path << Qt::endl;
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption consoleOption(QStringLiteral("console"), QStringLiteral("The countersign executable."),
                                           QStringLiteral("PATH"));
    const QCommandLineOption outOption(QStringLiteral("out"), QStringLiteral("Folder for the PNG files."), QStringLiteral("DIR"));
    const QCommandLineOption sizeOption(QStringLiteral("window-size"), QStringLiteral("Window size."), QStringLiteral("WxH"),
                                        QStringLiteral("1440x900"));
    parser.addOptions({ consoleOption, outOption, sizeOption });
    parser.process(app);
    if (!parser.isSet(consoleOption) || !parser.isSet(outOption))
        fail(QStringLiteral("--console and --out are required"));
    const QString outDir = QDir(parser.value(outOption)).absolutePath();
    QDir().mkpath(outDir);

    BackendProcess backend;
    QTemporaryDir work;
    const QString config = work.filePath(QStringLiteral("execution.json"));
    {
        QFile file(config);
        if (!file.open(QIODevice::WriteOnly))
            fail(QStringLiteral("cannot write the execution config"));
        file.write(R"({"workers": 2, "request_timeout_ms": 3000, "lease_duration_ms": 8000, "idle_poll_ms": 100,
                       "recovery_sweep_ms": 1000, "backoff_base_ms": 500, "backoff_max_ms": 1500,
                       "max_reconcile_tries": 3})");
    }
    // Dual control for the one JPY refund in the queue (docs/POLICY.md): the queue shows "1 of 2".
    const QString policy = work.filePath(QStringLiteral("policy.json"));
    {
        QFile file(policy);
        if (!file.open(QIODevice::WriteOnly))
            fail(QStringLiteral("cannot write the policy"));
        file.write(R"({"rules": [{"id": "jpy-large", "match": {"currency": "jpy", "amount_above": 10000},
                                  "require_approvals": 2, "approval_expires_after": "4h"}]})");
    }
    if (!backend.start(0, { QStringLiteral("--execution-config"), config, QStringLiteral("--sse-poll-ms"), QStringLiteral("100"),
                            QStringLiteral("--policy"), policy },
                       { QStringLiteral("returns-agent:agent"), QStringLiteral("billing-agent:agent"),
                         QStringLiteral("support-agent:agent") }))
        fail(backend.error());
    out() << "backend " << backend.url().toString() << "  paysim " << backend.paysimUrl().toString() << Qt::endl;

    // Charges in a few currencies.
    backend.paysimAdmin("POST", QStringLiteral("/_sim/charges"),
                        QJsonObject{ { QStringLiteral("amounts"), QJsonArray{ 4000, 8900, 12500, 2599, 15000, 7450, 3999, 6000, 1899, 21000, 5000, 3250 } } });
    backend.paysimAdmin("POST", QStringLiteral("/_sim/charges"),
                        QJsonObject{ { QStringLiteral("amounts"), QJsonArray{ 5600, 9900 } }, { QStringLiteral("currency"), QStringLiteral("eur") } });
    backend.paysimAdmin("POST", QStringLiteral("/_sim/charges"),
                        QJsonObject{ { QStringLiteral("amounts"), QJsonArray{ 4200 } }, { QStringLiteral("currency"), QStringLiteral("gbp") } });
    backend.paysimAdmin("POST", QStringLiteral("/_sim/charges"),
                        QJsonObject{ { QStringLiteral("amounts"), QJsonArray{ 12000 } }, { QStringLiteral("currency"), QStringLiteral("jpy") } });
    const QList<Charge> charges = allCharges(backend);
    if (charges.size() < 16)
        fail(QStringLiteral("paysim made %1 charges").arg(charges.size()));
    int next = 0;
    const auto charge = [&](qint64 amount, const QString &currency = QStringLiteral("usd")) {
        for (int i = 0; i < charges.size(); ++i) {
            const Charge &c = charges.at((next + i) % charges.size());
            if (c.amount == amount && c.currency == currency) {
                next = (next + i + 1) % int(charges.size());
                return c.id;
            }
        }
        fail(QStringLiteral("no charge of %1 %2").arg(amount).arg(currency));
    };

    // ---- the review scenario (first, alone, while the faults apply) ----
    const QString reviewCharge = charge(4000);
    backend.paysimAdmin("POST", QStringLiteral("/_sim/faults"), QJsonObject{ { QStringLiteral("rules"), QJsonArray{
        QJsonObject{ { QStringLiteral("method"), QStringLiteral("POST") }, { QStringLiteral("path"), QStringLiteral("/v1/refunds") },
                     { QStringLiteral("nth"), 1 }, { QStringLiteral("times"), 1 }, { QStringLiteral("fault"), QStringLiteral("reset_connection") },
                     { QStringLiteral("after_commit"), true } },
        QJsonObject{ { QStringLiteral("method"), QStringLiteral("POST") }, { QStringLiteral("path"), QStringLiteral("/v1/refunds") },
                     { QStringLiteral("nth"), 2 }, { QStringLiteral("times"), 0 }, { QStringLiteral("fault"), QStringLiteral("outage_503") } },
        QJsonObject{ { QStringLiteral("method"), QStringLiteral("GET") }, { QStringLiteral("path"), QStringLiteral("/v1/refunds*") },
                     { QStringLiteral("times"), 0 }, { QStringLiteral("fault"), QStringLiteral("forced_error") },
                     { QStringLiteral("status"), 500 }, { QStringLiteral("type"), QStringLiteral("api_error") },
                     { QStringLiteral("code"), QString() }, { QStringLiteral("message"), QStringLiteral("An error occurred with our connection to the bank.") } },
    } } });
    const QString reviewId = backend.propose(reviewCharge, 4000, QStringLiteral("order-1042-refund"), QStringLiteral("order-1042"),
                                             QStringLiteral("returns-agent")).value(QLatin1String("id")).toString();
    if (backend.post(QStringLiteral("ana"), QStringLiteral("/actions/%1/approvals").arg(reviewId),
                     QJsonObject{ { QStringLiteral("note"), QStringLiteral("customer ticket #5512: damaged item") } }, 1).status != 200)
        fail(QStringLiteral("approval of the review scenario failed"));
    if (!waitForState(backend, reviewId, QStringLiteral("REQUIRES_REVIEW"), 60000))
        fail(QStringLiteral("the review scenario never reached REQUIRES_REVIEW: ") + backend.action(reviewId).value(QLatin1String("state")).toString());
    backend.paysimAdmin("DELETE", QStringLiteral("/_sim/faults"));
    QThread::msleep(1200);
    if (backend.post(QStringLiteral("sue"), QStringLiteral("/actions/%1/lookups").arg(reviewId), {}, version(backend, reviewId)).status != 200)
        fail(QStringLiteral("the supervisor's lookup failed"));
    QThread::msleep(700);
    backend.resubmitChanged(reviewCharge, 4500, QStringLiteral("order-1042-refund"), QStringLiteral("order-1042"),
                            QStringLiteral("returns-agent"));
    out() << "review scenario " << reviewId << " " << backend.action(reviewId).value(QLatin1String("state")).toString() << Qt::endl;

    // ---- history: completed and rejected actions ----
    const QString done1 = backend.propose(charge(21000), 21000, QStringLiteral("order-0981-refund"), QStringLiteral("order-0981"),
                                          QStringLiteral("billing-agent")).value(QLatin1String("id")).toString();
    backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/approvals").arg(done1), QJsonObject{ { QStringLiteral("note"), QStringLiteral("ok") } }, 1);
    const QString rejected = backend.propose(charge(3250), 3250, QStringLiteral("order-0990-refund"), QStringLiteral("order-0990"),
                                             QStringLiteral("support-agent")).value(QLatin1String("id")).toString();
    backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(rejected),
                 QJsonObject{ { QStringLiteral("reason"), QStringLiteral("duplicate") },
                              { QStringLiteral("note"), QStringLiteral("already refunded as store credit") } }, 1);
    waitForState(backend, done1, QStringLiteral("COMPLETED"), 20000);

    // ---- a plain changed resubmission while pending ----
    const QString mismatchCharge = charge(5000);
    const QString mismatch = backend.propose(mismatchCharge, 2500, QStringLiteral("order-1107-partial"), QStringLiteral("order-1107"),
                                             QStringLiteral("support-agent")).value(QLatin1String("id")).toString();
    QThread::msleep(300);
    backend.resubmitChanged(mismatchCharge, 5000, QStringLiteral("order-1107-partial"), QStringLiteral("order-1107"),
                            QStringLiteral("support-agent"));

    // ---- the pending queue ----
    struct Proposal { qint64 chargeAmount; qint64 amount; const char *currency; const char *order; const char *agent; };
    const Proposal pending[] = {
        { 8900, 8900, "usd", "order-1121", "returns-agent" },
        { 5600, 5600, "eur", "order-1122", "billing-agent" },
        { 12500, 2500, "usd", "order-1123", "support-agent" },
        { 4200, 4200, "gbp", "order-1124", "returns-agent" },
        { 2599, 2599, "usd", "order-1125", "returns-agent" },
        { 12000, 12000, "jpy", "order-1126", "billing-agent" },
        { 15000, 7500, "usd", "order-1127", "support-agent" },
        { 9900, 1990, "eur", "order-1128", "billing-agent" },
        { 7450, 7450, "usd", "order-1129", "returns-agent" },
        { 3999, 3999, "usd", "order-1130", "support-agent" },
        { 6000, 1500, "usd", "order-1131", "returns-agent" },
        { 1899, 1899, "usd", "order-1132", "billing-agent" },
    };
    QString queueSelection;
    QHash<QString, QString> byOrder;
    for (const Proposal &p : pending) {
        const QString currency = QString::fromLatin1(p.currency);
        const QString order = QString::fromLatin1(p.order);
        QJsonObject action;
        if (order == QLatin1String("order-1127")) {
            // This one comes with the agent's reasons (issue 19): the approve dialog's picture.
            QJsonObject proposal;
            proposal.insert(QStringLiteral("kind"), QStringLiteral("refund"));
            proposal.insert(QStringLiteral("target"), QJsonObject{ { QStringLiteral("charge"), charge(p.chargeAmount, currency) } });
            proposal.insert(QStringLiteral("amount"), QJsonValue(p.amount));
            proposal.insert(QStringLiteral("currency"), currency);
            proposal.insert(QStringLiteral("reason"), QStringLiteral("requested_by_customer"));
            proposal.insert(QStringLiteral("client_reference"), QString(order + QStringLiteral("-refund")));
            proposal.insert(QStringLiteral("business_reference"), order);
            proposal.insert(QStringLiteral("justification"),
                            QStringLiteral("The customer returned one of the two chairs in this order (item 2 of 2); the "
                                           "warehouse scanned the return on 28 November. Refunding that item's price, half "
                                           "of the charge."));
            proposal.insert(QStringLiteral("context_url"), QStringLiteral("https://support.example.com/tickets/5531"));
            QJsonObject facts;
            facts.insert(QStringLiteral("customer_said"), QStringLiteral("One chair arrived with a cracked leg, I sent it back."));
            facts.insert(QStringLiteral("order_total"), QStringLiteral("USD 150.00 (2 items)"));
            facts.insert(QStringLiteral("return_scanned"), QStringLiteral("2026-11-28, warehouse RTN-2291"));
            proposal.insert(QStringLiteral("facts"), facts);
            const BackendProcess::Reply reply = backend.post(QString::fromLatin1(p.agent), QStringLiteral("/actions"), proposal);
            if (reply.status != 201)
                fail(QStringLiteral("the proposal with reasons was refused: %1").arg(reply.status));
            action = reply.body;
            queueSelection = action.value(QLatin1String("id")).toString();
        } else {
            action = backend.propose(charge(p.chargeAmount, currency), p.amount, order + QStringLiteral("-refund"), order,
                                     QString::fromLatin1(p.agent), currency);
        }
        byOrder.insert(order, action.value(QLatin1String("id")).toString());
        QThread::msleep(150);
    }
    // The first of the JPY refund's two approvers signs: 202, no key yet.
    {
        const QString jpy = byOrder.value(QStringLiteral("order-1126"));
        const BackendProcess::Reply signed1 = backend.post(QStringLiteral("ana"), QStringLiteral("/actions/%1/approvals").arg(jpy),
                                                           QJsonObject{ { QStringLiteral("note"), QStringLiteral("first of two") } },
                                                           version(backend, jpy));
        if (signed1.status != 202)
            fail(QStringLiteral("the first signature of the JPY refund answered %1").arg(signed1.status));
    }
    out() << "populated; mismatch " << mismatch << Qt::endl;

    // ---- the pictures ----
    const QString console = parser.value(consoleOption);
    const auto shoot = [&](const QString &user, const QString &select, const QString &tab, const QString &filter, const QString &file) {
        QProcess process;
        process.setProcessChannelMode(QProcess::ForwardedChannels);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("QT_QPA_PLATFORM")); // a real X display (Xvfb), not offscreen
        process.setProcessEnvironment(env);
        process.start(console, { QStringLiteral("--backend"), backend.url().toString(), QStringLiteral("--token-file"),
                                 backend.tokenFile(user), QStringLiteral("--settings"), work.filePath(file + QStringLiteral(".ini")),
                                 QStringLiteral("--window-size"), parser.value(sizeOption), QStringLiteral("--filter"), filter,
                                 QStringLiteral("--select"), select, QStringLiteral("--tab"), tab, QStringLiteral("--screenshot"),
                                 outDir + QLatin1Char('/') + file });
        if (!process.waitForFinished(90000) || process.exitCode() != 0)
            fail(QStringLiteral("the console did not save %1").arg(file));
        out() << "saved " << outDir << '/' << file << Qt::endl;
    };
    shoot(QStringLiteral("ana"), queueSelection, QStringLiteral("overview"), QStringLiteral("queue"), QStringLiteral("screenshot-queue.png"));
    shoot(QStringLiteral("sue"), reviewId, QStringLiteral("evidence"), QStringLiteral("queue"), QStringLiteral("screenshot-review.png"));
    shoot(QStringLiteral("sue"), reviewId, QStringLiteral("diff"), QStringLiteral("review"), QStringLiteral("screenshot-diff.png"));

    // ---- the dialogs, shown here against the same backend ----
    {
        const BackendProcess::Reply read = backend.get(QStringLiteral("ana"), QStringLiteral("/actions/") + queueSelection);
        const std::optional<cs::ActionDetail> detail = cs::ActionDetail::fromJson(read.body);
        if (!detail)
            fail(QStringLiteral("could not read %1").arg(queueSelection));
        cs::ApproveDialog dialog(*detail);
        dialog.resize(dialog.sizeHint().expandedTo(QSize(640, 0)));
        settleAndSave(&dialog, outDir + QStringLiteral("/screenshot-approve-reasons.png"));
        dialog.done(QDialog::Rejected);
    }
    {
        // The charge's story and budget (issues 14, 19): a visa charge of 180.00 USD bought 41 days
        // ago, 30.00 USD refunded from the provider's dashboard; 100.00 USD asked for — over half,
        // refunds already made. Read afresh by ana, as the dialog does when it opens.
        const BackendProcess::Reply seeded = backend.paysimAdmin(
            "POST", QStringLiteral("/_sim/charges"),
            QJsonObject{ { QStringLiteral("count"), 1 }, { QStringLiteral("amount"), 18000 },
                         { QStringLiteral("age_seconds"), 41 * 86400 },
                         { QStringLiteral("card"), QJsonObject{ { QStringLiteral("brand"), QStringLiteral("visa") },
                                                                { QStringLiteral("last4"), QStringLiteral("4242") } } } });
        const QString budgetCharge = seeded.body.value(QLatin1String("data")).toArray().first().toObject().value(QLatin1String("id")).toString();
        if (budgetCharge.isEmpty() || !backend.plantProviderRefund(budgetCharge, 3000, QString()))
            fail(QStringLiteral("could not seed the budget's charge"));
        const QString budgetId = backend.propose(budgetCharge, 10000, QStringLiteral("order-1140-refund"), QStringLiteral("order-1140"),
                                                 QStringLiteral("returns-agent"))
                                     .value(QLatin1String("id"))
                                     .toString();
        const BackendProcess::Reply fresh = backend.post(QStringLiteral("ana"), QStringLiteral("/actions/%1/charge-lookups").arg(budgetId), QJsonObject());
        const std::optional<cs::ActionDetail> detail =
            cs::ActionDetail::fromJson(backend.get(QStringLiteral("ana"), QStringLiteral("/actions/") + budgetId).body);
        const std::optional<cs::ChargeView> view = cs::ChargeView::fromJson(fresh.body);
        if (fresh.status != 201 || !detail || !view)
            fail(QStringLiteral("could not read the budget's charge (%1)").arg(fresh.status));
        cs::ApproveDialog dialog(*detail);
        dialog.setChargeRead(*view);
        dialog.resize(dialog.sizeHint().expandedTo(QSize(760, 0)));
        settleAndSave(&dialog, outDir + QStringLiteral("/screenshot-approve-budget.png"));
        dialog.done(QDialog::Rejected);
    }
    {
        FaultProxy proxy(backend.port());
        if (!proxy.listen())
            fail(QStringLiteral("the fault proxy could not listen"));
        cs::ApiClient client;
        client.setBaseUrl(proxy.url());
        client.setToken(backend.token(QStringLiteral("ana")));
        client.setResendPolicy(std::chrono::milliseconds(200), std::chrono::milliseconds(400), 1); // no automatic resend
        client.setDeadline(std::chrono::milliseconds(1500));
        cs::DraftStore drafts;
        cs::BulkDecisionController bulk(&client, &drafts, nullptr);
        // The one whose answer goes missing first (it is sent first), the one someone else
        // rejects meanwhile, two that go through, and one this approver may not decide.
        const QStringList ids = { byOrder.value(QStringLiteral("order-1129")), byOrder.value(QStringLiteral("order-1121")),
                                  byOrder.value(QStringLiteral("order-1122")), byOrder.value(QStringLiteral("order-1125")),
                                  byOrder.value(QStringLiteral("order-1132")), rejected };
        bulk.open(QStringLiteral("approve"), ids);
        cs::BulkDecisionDialog *dialog = bulk.openDialog();
        using Status = cs::BulkDecisionModel::Status;
        if (!dialog || !waitUntil([dialog] { return dialog->model()->count(Status::Checking) == 0; }, 15000))
            fail(QStringLiteral("the bulk dialog did not read its actions"));
        backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(ids.at(3)),
                     QJsonObject{ { QStringLiteral("reason"), QStringLiteral("wrong_amount") },
                                  { QStringLiteral("note"), QStringLiteral("only one item was returned") } },
                     version(backend, ids.at(3)));
        proxy.holdNextPostResponse(); // applied, its answer held until the client gives up
        dialog->findChild<QPlainTextEdit *>(QStringLiteral("noteEdit"))->setPlainText(QStringLiteral("small refunds, tickets checked"));
        // Each of these refunds the whole of its charge: the approver ticks all but the last, which
        // stays held back.
        cs::BulkDecisionModel *model = dialog->model();
        for (int row = 0; row + 1 < model->rowCount(); ++row)
            model->setData(model->index(row, cs::BulkDecisionModel::WarningsColumn), Qt::Checked, Qt::CheckStateRole);
        dialog->confirmButton()->click();
        if (!waitUntil([dialog] { return dialog->model()->count(Status::Sending) == 0; }, 20000))
            fail(QStringLiteral("the bulk approval did not finish"));
        settleAndSave(dialog, outDir + QStringLiteral("/screenshot-bulk.png"));
        dialog->done(QDialog::Rejected);
    }
    {
        // The charge view (issue 17): 150.00 USD on a visa bought 41 days ago; 20.00 refunded from
        // the provider's dashboard; 50.00 refunded through Countersign (COMPLETED); 30.00 proposed
        // by another agent for the same order (PENDING). The approver opens it and looks it up now.
        const BackendProcess::Reply seeded = backend.paysimAdmin(
            "POST", QStringLiteral("/_sim/charges"),
            QJsonObject{ { QStringLiteral("count"), 1 }, { QStringLiteral("amount"), 15000 },
                         { QStringLiteral("age_seconds"), 41 * 86400 },
                         { QStringLiteral("card"), QJsonObject{ { QStringLiteral("brand"), QStringLiteral("visa") },
                                                                { QStringLiteral("last4"), QStringLiteral("4242") } } } });
        const QString viewCharge = seeded.body.value(QLatin1String("data")).toArray().first().toObject().value(QLatin1String("id")).toString();
        if (viewCharge.isEmpty() || !backend.plantProviderRefund(viewCharge, 2000, QString()))
            fail(QStringLiteral("could not seed the charge view's charge"));
        const QString done = backend.propose(viewCharge, 5000, QStringLiteral("order-1150-refund"), QStringLiteral("order-1150"),
                                             QStringLiteral("returns-agent"))
                                 .value(QLatin1String("id"))
                                 .toString();
        if (backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/approvals").arg(done),
                         QJsonObject{ { QStringLiteral("note"), QStringLiteral("damaged on arrival, ticket #5580") } }, 1).status != 200
            || !waitForState(backend, done, QStringLiteral("COMPLETED"), 20000))
            fail(QStringLiteral("the charge view's first refund did not complete"));
        backend.propose(viewCharge, 3000, QStringLiteral("order-1150-shipping"), QStringLiteral("order-1150"),
                        QStringLiteral("support-agent"));
        cs::ApiClient client;
        client.setBaseUrl(backend.url());
        client.setToken(backend.token(QStringLiteral("ana")));
        cs::ChargeController charges(&client, nullptr);
        charges.setRole(QStringLiteral("approver"));
        charges.open(viewCharge);
        cs::ChargeWindow *view = charges.window();
        const auto idle = [view] { return view->overview() && view->activity() == cs::ChargeWindow::Activity::Idle; };
        if (!waitUntil(idle, 15000))
            fail(QStringLiteral("the charge view did not load"));
        charges.lookUpNow();
        if (!waitUntil(idle, 15000) || view->overview()->snapshot->askedBy != QLatin1String("ana"))
            fail(QStringLiteral("the charge view's look-up did not answer"));
        view->resize(1040, 720);
        settleAndSave(view, outDir + QStringLiteral("/screenshot-charge-view.png"));
        view->close();
    }
    backend.stop();
    return 0;
}
