// A scripted approver clears 50 plain proposals in the real console while agents keep proposing
// (issue 36: the action in view is the action acted on; a queue that holds still). Not a ctest:
// it prints figures. See docs/PERFORMANCE.md "The approver's queue".
//
// A real countersignd and paysim (tests/client/backendprocess.h), the real MainWindow offscreen,
// signed in as an approver, driven only by key events sent to the widget with the keyboard focus,
// as a person at the keyboard. For each decision the script reads what is in view (the highlighted
// row, which must be the action the detail shows), presses Ctrl+Shift+A, waits for the approve
// dialog's confirm button, presses Ctrl+Enter, and waits until the console shows the next action
// ready to decide. If the console did not move on to an undecided action by itself, the script
// presses Down until it does, and counts those keys too.
//
// It prints:
//   - how many decisions acted on the action the person had in view ("N of 50"): the action the
//     backend recorded the approval for is the one highlighted and shown when the first key went;
//   - keystrokes per decision (goal: at most 3);
//   - console time per decision: the CPU time of the console's thread from the first key until
//     the next action is ready (goal: under 300 ms), and the wall time of the same span (which
//     includes the backend's work and the network);
//   - the arrivals while it ran, and how often one moved the row in view on the screen (goal: 0);
//   - the baseline of the same run: the API calls one decision needs (the action, the charge, the
//     approval, the next action), made directly by HTTP, and the console's wall time beside it.
//
// Usage: bench_approver [--decisions N] [--arrival-ms MS]

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actionqueuemodel.h"
#include "tests/bench/benchstats.h"
#include "tests/client/backendprocess.h"
#include "tests/support/quietoffscreen.h"
#include "tests/ui/testconsole.h"
#include "ui/actiondetailpane.h"
#include "ui/consolesettings.h"
#include "ui/decisioncontroller.h"
#include "ui/decisiondialog.h"
#include "ui/mainwindow.h"
#include "ui/queueview.h"

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <cstdio>
#include <ctime>

using namespace cs;
using namespace std::chrono_literals;

namespace {

// The CPU time of the console's thread (the GUI thread), in nanoseconds: the time the console
// itself works, without the time it waits for the network or the next event.
qint64 guiThreadCpuNs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Agents proposing in a thread of their own, one every `intervalMs`, each on a charge no other
// proposal uses (a shared charge would make it a possible duplicate, which needs a note).
class Agents : public QObject
{
public:
    Agents(QUrl base, QString token, QStringList charges, int intervalMs)
        : m_base(std::move(base)), m_token(std::move(token)), m_charges(std::move(charges)), m_interval(intervalMs)
    {
    }
    void start()
    {
        m_nam = new QNetworkAccessManager(this);
        m_timer = new QTimer(this);
        m_timer->setInterval(m_interval);
        connect(m_timer, &QTimer::timeout, this, [this] {
            if (m_charges.isEmpty()) {
                m_timer->stop();
                return;
            }
            const QString charge = m_charges.takeFirst();
            const QString ref = QStringLiteral("arrival-%1").arg(++m_sent);
            QNetworkRequest request(QUrl(m_base.toString() + QStringLiteral("/api/v1/actions")));
            request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
            request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
            const QJsonObject body{ { QStringLiteral("kind"), QStringLiteral("refund") },
                                    { QStringLiteral("target"), QJsonObject{ { QStringLiteral("charge"), charge } } },
                                    { QStringLiteral("amount"), 600 },
                                    { QStringLiteral("currency"), QStringLiteral("usd") },
                                    { QStringLiteral("reason"), QStringLiteral("requested_by_customer") },
                                    { QStringLiteral("business_reference"), ref },
                                    { QStringLiteral("client_reference"), ref } };
            QNetworkReply *reply = m_nam->post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
            connect(reply, &QNetworkReply::finished, this, [this, reply] {
                if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 201)
                    ++m_accepted;
                reply->deleteLater();
            });
        });
        m_timer->start();
    }
    // In the agents' thread, before it ends.
    void stop()
    {
        delete m_timer;
        delete m_nam;
        m_timer = nullptr;
        m_nam = nullptr;
    }
    int sent() const { return m_sent; }
    int accepted() const { return m_accepted; }

private:
    QUrl m_base;
    QString m_token;
    QStringList m_charges;
    int m_interval;
    QNetworkAccessManager *m_nam = nullptr;
    QTimer *m_timer = nullptr;
    int m_sent = 0;
    int m_accepted = 0;
};

// Processes events until `done` or the timeout; false on timeout. Sleeps while nothing happens
// (a tick every 5 ms wakes it to look again), so that the console's thread's CPU time is the
// console's own.
template <typename F>
bool waitFor(F done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    QTimer tick;
    tick.start(5);
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

bool press(Qt::Key key, Qt::KeyboardModifiers modifiers, int *keys)
{
    QWidget *target = QApplication::focusWidget();
    if (!target)
        return false;
    ++*keys;
    QTest::keyClick(target, key, modifiers);
    return true;
}

// The one row highlighted is `id`.
bool highlightedIs(QueueView *queue, const QString &id)
{
    const QStringList ids = queue->selectedActionIds();
    return ids.size() == 1 && ids.first() == id;
}

void print(const char *line)
{
    std::fputs(line, stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    cs::testsupport::installQuietOffscreen();
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption decisionsOption(QStringLiteral("decisions"), QStringLiteral("Decisions to make (default 50)."),
                                             QStringLiteral("N"), QStringLiteral("50"));
    const QCommandLineOption arrivalOption(QStringLiteral("arrival-ms"),
                                           QStringLiteral("An agent proposes every MS milliseconds (default 400)."),
                                           QStringLiteral("MS"), QStringLiteral("400"));
    parser.addOptions({ decisionsOption, arrivalOption });
    parser.process(app);
    const int decisions = qBound(1, parser.value(decisionsOption).toInt(), 50);
    const int baselineCount = 20;

    BackendProcess backend;
    if (!backend.start(100, { QStringLiteral("--sse-heartbeat-ms"), QStringLiteral("2000") })) {
        std::fprintf(stderr, "backend: %s\n", qPrintable(backend.error()));
        return 1;
    }
    const QStringList charges = backend.charges();
    if (charges.size() < 100) {
        std::fprintf(stderr, "paysim listed %lld charges, 100 needed\n", qlonglong(charges.size()));
        return 1;
    }

    // The baseline: what one decision asks of the backend, by plain HTTP (the action, its charge,
    // the approval, the next action's detail), on 20 proposals of their own.
    QList<double> apiMs;
    for (int i = 0; i < baselineCount; ++i) {
        const QString ref = QStringLiteral("baseline-%1").arg(i);
        const QString id = backend.propose(charges.at(50 + i), 700, ref, ref).value(QLatin1String("id")).toString();
        QElapsedTimer t;
        t.start();
        const auto detail = backend.get(QStringLiteral("ana"), QStringLiteral("/actions/") + id);
        backend.get(QStringLiteral("ana"), QStringLiteral("/charges/") + charges.at(50 + i));
        const auto approved = backend.post(QStringLiteral("ana"), QStringLiteral("/actions/%1/approvals").arg(id),
                                           { { QStringLiteral("note"), QString() } },
                                           detail.body.value(QLatin1String("state_version")).toInteger(),
                                           ApiClient::mintIdempotencyKey());
        backend.get(QStringLiteral("ana"), QStringLiteral("/actions/") + id);
        apiMs << double(t.nsecsElapsed()) / 1e6;
        if (approved.status != 200) {
            std::fprintf(stderr, "baseline approval: HTTP %d\n", approved.status);
            return 1;
        }
    }

    // The 50 proposals the approver clears, oldest first.
    QStringList proposed;
    for (int i = 0; i < decisions; ++i) {
        const QString ref = QStringLiteral("order-%1").arg(7000 + i);
        proposed << backend.propose(charges.at(i), 700 + i, ref, ref).value(QLatin1String("id")).toString();
    }

    QTemporaryDir dir;
    test::TestConsole console(backend.url(), backend.token(QStringLiteral("ana")), dir.filePath(QStringLiteral("console.ini")));
    MainWindow &window = *console.window;
    window.resize(1366, 768);
    window.show();
    window.start();
    QueueView *queue = window.queueView();
    ActionQueueModel *model = window.queueModel();
    QAction *approve = window.decisionAction(QStringLiteral("approve"));
    const auto ready = [&] {
        const QString current = queue->currentActionId();
        return !current.isEmpty() && queue->target() == current && window.currentActionId() == current
            && window.detailPane()->hasDetail() && window.detailPane()->detail().record.id == current
            && approve->isEnabled() && !window.decisions()->openDialog();
    };
    if (!waitFor([&] { return window.hasShownFirstPage() && ready(); }, 20000)) {
        std::fprintf(stderr, "the console did not show an action ready to approve\n");
        return 1;
    }
    queue->focusTable();

    // Arrivals: does any move the row in view on the screen? Checked as each row is inserted.
    int arrivals = 0;
    int moved = 0;
    QString heldId;
    int heldY = 0;
    QObject::connect(model, &QAbstractItemModel::rowsAboutToBeInserted, &app, [&] {
        heldId = queue->currentActionId();
        heldY = heldId.isEmpty() ? 0 : queue->table()->rowViewportPosition(model->rowOf(heldId));
    });
    QObject::connect(model, &QAbstractItemModel::rowsInserted, &app, [&] {
        if (heldId.isEmpty() || model->rowOf(heldId) < 0)
            return;
        queue->table()->doItemsLayout();
        if (queue->table()->rowViewportPosition(model->rowOf(heldId)) != heldY)
            ++moved;
    });
    QObject::connect(model, &ActionQueueModel::arrived, &app, [&] { ++arrivals; });
    QString lastApplied;
    QObject::connect(&window, &MainWindow::decisionApplied, &app, [&](const QString &, const QString &id) { lastApplied = id; });

    QThread agentThread;
    Agents agents(backend.url(), backend.token(QStringLiteral("agent8")), charges.mid(70, 30), parser.value(arrivalOption).toInt());
    agents.moveToThread(&agentThread);
    agentThread.start();
    QMetaObject::invokeMethod(&agents, [&agents] { agents.start(); });

    QList<double> consoleMs;
    QList<double> wallMs;
    QList<int> keystrokes;
    int actedInView = 0;
    int ofTheFifty = 0;
    QStringList failures;
    for (int i = 0; i < decisions; ++i) {
        int keys = 0;
        const QString inView = queue->currentActionId();
        const bool agrees = highlightedIs(queue, inView) && window.detailPane()->detail().record.id == inView;
        const qint64 awakeBefore = guiThreadCpuNs();
        QElapsedTimer wall;
        wall.start();
        lastApplied.clear();
        press(Qt::Key_A, Qt::ControlModifier | Qt::ShiftModifier, &keys);
        DecisionDialog *dialog = nullptr;
        // Ready for the next key: the dialog has the keyboard focus and its confirm button is enabled.
        if (!waitFor([&] {
                dialog = window.decisions()->openDialog();
                return dialog && dialog->confirmButton()->isEnabled() && QApplication::focusWidget()
                    && QApplication::focusWidget()->window() == dialog;
            }, 10000)) {
            failures << QStringLiteral("decision %1: no approve dialog ready").arg(i + 1);
            break;
        }
        press(Qt::Key_Return, Qt::ControlModifier, &keys);
        if (!waitFor([&] { return !lastApplied.isEmpty(); }, 10000)) {
            failures << QStringLiteral("decision %1: no answer").arg(i + 1);
            break;
        }
        // The console moves on by itself; a person would press Down until an undecided action shows.
        const QString decided = lastApplied;
        waitFor([&] { return ready() || i + 1 == decisions; }, 3000);
        while (i + 1 < decisions && !(ready() && ActionQueueModel::awaitsDecision(model->summary(model->rowOf(queue->currentActionId())), QStringLiteral("ana"))
                                      && queue->currentActionId() != decided)) {
            if (keys > 12)
                break;
            press(Qt::Key_Down, Qt::NoModifier, &keys);
            waitFor(ready, 3000);
        }
        wallMs << double(wall.nsecsElapsed()) / 1e6;
        consoleMs << double(guiThreadCpuNs() - awakeBefore) / 1e6;
        keystrokes << keys;
        if (agrees && decided == inView)
            ++actedInView;
        if (proposed.contains(decided))
            ++ofTheFifty;
    }
    QMetaObject::invokeMethod(&agents, [&agents] { agents.stop(); }, Qt::BlockingQueuedConnection);
    // The console at rest, for comparison: how much CPU over a second with nothing to do?
    const qint64 idleBefore = guiThreadCpuNs();
    QElapsedTimer idle;
    idle.start();
    waitFor([&] { return idle.elapsed() >= 1000; }, 2000);
    const double idleMs = double(guiThreadCpuNs() - idleBefore) / 1e6;
    agentThread.quit();
    agentThread.wait();

    double keysTotal = 0;
    int keysMax = 0;
    for (int k : std::as_const(keystrokes)) {
        keysTotal += k;
        keysMax = std::max(keysMax, k);
    }
    const int made = int(keystrokes.size());
    print("bench_approver: a scripted approver in the real console (offscreen, 1366x768) against countersignd + paysim");
    print(qPrintable(QStringLiteral("  decisions made:                        %1 (%2 of them on the %3 proposals cleared oldest first)")
                         .arg(made).arg(ofTheFifty).arg(decisions)));
    print(qPrintable(QStringLiteral("  acted on the action in view:           %1 of %2").arg(actedInView).arg(decisions)));
    print(qPrintable(QStringLiteral("  keystrokes per decision:               %1 mean, %2 max")
                         .arg(made ? keysTotal / made : 0, 0, 'f', 2).arg(keysMax)));
    print(qPrintable(QStringLiteral("  console time per decision (GUI CPU):   median %1 ms, p95 %2 ms, max %3 ms")
                         .arg(bench::median(consoleMs), 0, 'f', 1)
                         .arg(bench::percentile(consoleMs, 95), 0, 'f', 1)
                         .arg(bench::percentile(consoleMs, 100), 0, 'f', 1)));
    print(qPrintable(QStringLiteral("  wall time per decision:                median %1 ms, p95 %2 ms")
                         .arg(bench::median(wallMs), 0, 'f', 1)
                         .arg(bench::percentile(wallMs, 95), 0, 'f', 1)));
    print(qPrintable(QStringLiteral("  baseline, the API calls of one decision by plain HTTP: median %1 ms (console wall / API: %2x)")
                         .arg(bench::median(apiMs), 0, 'f', 1)
                         .arg(bench::median(apiMs) > 0 ? bench::median(wallMs) / bench::median(apiMs) : 0, 0, 'f', 1)));
    print(qPrintable(QStringLiteral("  arrivals while deciding:               %1 proposed (%2 accepted), %3 shown in the list; the row in view moved %4 time(s)")
                         .arg(agents.sent()).arg(agents.accepted()).arg(arrivals).arg(moved)));
    print(qPrintable(QStringLiteral("  the console at rest, CPU over 1 s:     %1 ms").arg(idleMs, 0, 'f', 1)));
    for (const QString &f : std::as_const(failures))
        print(qPrintable(QStringLiteral("  FAILED: ") + f));
    const bool goals = failures.isEmpty() && actedInView == decisions && keysMax <= 3
        && bench::percentile(consoleMs, 100) < 300 && moved == 0;
    print(goals ? "  goals (N of N in view, <= 3 keys, every decision < 300 ms console time, nothing moved): met"
                : "  goals (N of N in view, <= 3 keys, every decision < 300 ms console time, nothing moved): NOT met");
    window.close();
    backend.stop();
    return goals ? 0 : 1;
}
