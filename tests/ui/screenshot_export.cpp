// File → Export (issue 17) for docs/screenshot-export.png: a real countersignd (with paysim behind
// it) holds 1,200 refunds in four currencies; the console, signed in as a supervisor with the
// "All" filter, exports them to CSV. The picture is taken once the first page of 200 is written:
// the main window with the progress dialog (its count, its bar and Cancel) where the console put
// it. Then the export runs to its end and the status bar's message is printed.
//
// Why the dialog is painted onto the window's picture: under bare Xvfb there is no window manager,
// so nothing draws the dialog's title bar and window.grab() shows the main window alone. The
// strip above the dialog is its own windowTitle(); the dialog is its own grab().
//
// Usage: screenshot_export --out FILE [--window-size 1440x900]

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actionexportjob.h"
#include "models/actionqueuemodel.h"
#include "tests/client/backendprocess.h"
#include "ui/consolesettings.h"
#include "ui/exportcontroller.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDate>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QPainter>
#include <QProgressDialog>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>

#include <algorithm>

namespace {

[[noreturn]] void fail(const QString &message)
{
    QTextStream(stderr) << "screenshot_export: " << message << Qt::endl;
    std::exit(1);
}

// Runs the event loop until `done` holds (a script, not the console: waiting is fine here).
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

// The main window's picture with the dialog painted where it is, under a title strip.
QImage withDialog(QWidget *window, QWidget *dialog)
{
    QImage image = window->grab().toImage();
    const QImage inside = dialog->grab().toImage();
    const int titleHeight = 28;
    QPoint at = dialog->geometry().topLeft() - window->geometry().topLeft();
    at.setY(qMax(titleHeight, at.y()));
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    const QRect frame(at.x() - 1, at.y() - titleHeight - 1, inside.width() + 2, inside.height() + titleHeight + 2);
    for (int i = 1; i <= 10; ++i) // a soft shadow
        p.fillRect(frame.adjusted(-i, -i + 4, i, i + 4), QColor(0, 0, 0, 6));
    p.fillRect(frame, QColor(0x9c, 0xa3, 0xaf));
    p.fillRect(QRect(at.x(), at.y() - titleHeight, inside.width(), titleHeight), QColor(0xe5, 0xe7, 0xeb));
    QFont title = QApplication::font();
    title.setBold(true);
    p.setFont(title);
    p.setPen(QColor(0x11, 0x18, 0x27));
    p.drawText(QRect(at.x() + 10, at.y() - titleHeight, inside.width() - 20, titleHeight), Qt::AlignVCenter,
               dialog->windowTitle());
    p.drawImage(at, inside);
    return image;
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption outOption(QStringLiteral("out"), QStringLiteral("The PNG to write."), QStringLiteral("FILE"));
    const QCommandLineOption sizeOption(QStringLiteral("window-size"), QStringLiteral("Window size."), QStringLiteral("WxH"),
                                        QStringLiteral("1440x900"));
    parser.addOptions({ outOption, sizeOption });
    parser.process(app);
    if (!parser.isSet(outOption))
        fail(QStringLiteral("--out is required"));
    const QStringList size = parser.value(sizeOption).split(QLatin1Char('x'));
    if (size.size() != 2 || size.at(0).toInt() < 400 || size.at(1).toInt() < 300)
        fail(QStringLiteral("--window-size expects WxH, e.g. 1440x900"));

    BackendProcess backend;
    if (!backend.start(0, { QStringLiteral("--sse-poll-ms"), QStringLiteral("100") },
                       { QStringLiteral("returns-agent:agent"), QStringLiteral("billing-agent:agent"),
                         QStringLiteral("support-agent:agent") }))
        fail(backend.error());
    // One charge per refund (no possible duplicates), in four currencies.
    const int total = 1200;
    const struct { const char *currency; int share; } currencies[] = { { "usd", 4 }, { "eur", 2 }, { "gbp", 1 }, { "jpy", 1 } };
    for (const auto &c : currencies) {
        QJsonArray amounts;
        for (int i = 0; i < total * c.share / 8; ++i)
            amounts.append(30'000 + (i * 7919) % 20'000);
        backend.paysimAdmin("POST", QStringLiteral("/_sim/charges"),
                            QJsonObject{ { QStringLiteral("amounts"), amounts },
                                         { QStringLiteral("currency"), QLatin1String(c.currency) } });
    }
    struct Charge { QString id; QString currency; };
    QList<Charge> made;
    for (const QJsonValue &v : backend.paysimAdmin("GET", QStringLiteral("/_sim/charges")).body.value(QLatin1String("data")).toArray())
        made.append({ v.toObject().value(QLatin1String("id")).toString(), v.toObject().value(QLatin1String("currency")).toString() });
    if (made.size() < total)
        fail(QStringLiteral("paysim made %1 charges").arg(made.size()));
    std::stable_sort(made.begin(), made.end(), [](const Charge &a, const Charge &b) { return a.id < b.id; }); // mixed currencies

    const QString agents[] = { QStringLiteral("returns-agent"), QStringLiteral("billing-agent"), QStringLiteral("support-agent") };
    for (int i = 0; i < total; ++i) {
        const Charge &c = made.at(i);
        const qint64 amount = c.currency == u"jpy" ? 500 + (i * 37) % 9000 : 599 + (i * 137) % 24000;
        const QString order = QStringLiteral("order-%1").arg(4001 + i);
        const QJsonObject action = backend.propose(c.id, amount, order + QStringLiteral("-refund"), order,
                                                   agents[i % 3], c.currency);
        if (!action.value(QLatin1String("id")).toString().startsWith(QLatin1String("act_")))
            fail(QStringLiteral("could not propose %1").arg(order));
        if (i % 9 == 4)
            backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(action.value(QLatin1String("id")).toString()),
                         QJsonObject{ { QStringLiteral("reason"), QStringLiteral("duplicate") } }, 1);
    }

    QTemporaryDir dir;
    cs::ApiClient client;
    client.setBaseUrl(backend.url());
    client.setToken(backend.token(QStringLiteral("sue")));
    cs::EventStreamClient events;
    events.setBaseUrl(backend.url());
    events.setToken(backend.token(QStringLiteral("sue")));
    cs::ConsoleSettings settings(dir.filePath(QStringLiteral("console.ini")));
    settings.queueFilter = QStringLiteral("all");
    cs::MainWindow window(&client, &events, &settings);
    window.resize(size.at(0).toInt(), size.at(1).toInt());
    window.show();
    window.start();
    if (!waitUntil([&] { return window.hasShownFirstPage(); }, 30000))
        fail(QStringLiteral("the console did not show its queue within 30 s"));
    waitUntil([] { return false; }, 1500); // the counts, the first detail

    cs::ExportController *exports = window.exports();
    QString lastStatus;
    QObject::connect(exports, &cs::ExportController::statusMessage, &app, [&](const QString &m) { lastStatus = m; });
    const QString file = dir.filePath(QStringLiteral("countersign-actions-%1.csv").arg(QDate::currentDate().toString(Qt::ISODate)));
    if (!exports->startActionsExport(window.queueModel()->query(), file, cs::ExportFormat::Csv))
        fail(QStringLiteral("the export did not start"));
    QImage picture;
    // At the first page: what the dialog shows while the rest is read. The dialog is shown here
    // rather than after its 400 ms, which an export of this size on loopback may not last.
    QObject::connect(exports->actionsJob(), &cs::ActionExportJob::progress, &app, [&] {
        QProgressDialog *dialog = exports->progressDialog();
        if (!picture.isNull() || !dialog)
            return;
        dialog->show();
        picture = withDialog(&window, dialog);
    });
    bool finished = false;
    QObject::connect(exports, &cs::ExportController::exportFinished, &app, [&] { finished = true; });
    if (!waitUntil([&] { return finished; }, 60000))
        fail(QStringLiteral("the export did not finish within 60 s"));
    if (picture.isNull())
        fail(QStringLiteral("no progress was shown"));
    const QString path = parser.value(outOption);
    if (!picture.save(path))
        fail(QStringLiteral("could not save %1").arg(path));
    QTextStream(stdout) << "saved " << path << "\nstatus bar: " << lastStatus << Qt::endl;
    return 0;
}
