// Notifications (issue 17) for docs/screenshot-notifications.png: a real countersignd (with paysim
// behind it) holds a few PENDING refunds and one in REQUIRES_REVIEW; the console, signed in as the
// admin (who both approves and reviews), shows them; then, live, two PENDING refunds are resubmitted
// changed (they enter REQUIRES_REVIEW) and a new one is proposed, within a second: one collapsed
// notice. The picture is the window once the notice is shown, under a band that shows the window
// title and the tray icon the console set.
//
// Why a band: under bare Xvfb there is no window manager to draw the title and no system tray to
// hold the icon or show a desktop notification; window.grab() shows the inside of the window
// only. The band's title is windowTitle() and its icons TrayIndicator::iconWithCount(), the very
// strings and pixmaps the console hands to the window manager and the tray.
//
// Usage: screenshot_notifications --out FILE [--window-size 1440x900]

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "tests/client/backendprocess.h"
#include "ui/attentioncontroller.h"
#include "ui/consolesettings.h"
#include "ui/mainwindow.h"
#include "ui/trayindicator.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QPainter>
#include <QSystemTrayIcon>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>

namespace {

[[noreturn]] void fail(const QString &message)
{
    QTextStream(stderr) << "screenshot_notifications: " << message << Qt::endl;
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

QImage withBand(const QImage &window, const QString &title, const QString &trayToolTip, qint64 count, bool trayShown)
{
    const int band = 112;
    QImage image(window.width(), window.height() + band, QImage::Format_ARGB32);
    image.fill(QColor(0xf3, 0xf4, 0xf6));
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    QFont label = QApplication::font();
    label.setPixelSize(13);
    QFont strong = label;
    strong.setBold(true);
    QFont small = label;
    small.setPixelSize(12);

    const int x = 16;
    p.setPen(QColor(0x55, 0x5b, 0x66));
    p.setFont(label);
    p.drawText(QRect(x, 10, 110, 24), Qt::AlignVCenter, QStringLiteral("Window title"));
    p.setPen(QColor(0x11, 0x18, 0x27));
    p.setFont(strong);
    p.drawText(QRect(x + 120, 10, window.width() - 150, 24), Qt::AlignVCenter, title);

    p.setPen(QColor(0x55, 0x5b, 0x66));
    p.setFont(label);
    p.drawText(QRect(x, 44, 110, 32), Qt::AlignVCenter, QStringLiteral("Tray icon"));
    const QIcon icon = cs::TrayIndicator::iconWithCount(count);
    p.drawPixmap(x + 120, 48, icon.pixmap(22, 22));
    p.drawPixmap(x + 152, 40, icon.pixmap(40, 40));
    p.setPen(QColor(0x11, 0x18, 0x27));
    p.drawText(QRect(x + 204, 44, window.width() - 240, 32), Qt::AlignVCenter,
               QStringLiteral("tooltip: %1").arg(trayToolTip));

    p.setPen(QColor(0x6b, 0x72, 0x80));
    p.setFont(small);
    p.drawText(QRect(x, 82, window.width() - 2 * x, 22), Qt::AlignVCenter,
               trayShown ? QStringLiteral("Drawn from the console's own title string and tray icon.")
                         : QStringLiteral("Drawn from the console's own title string and tray icon: under bare Xvfb there is no "
                                          "window manager and no system tray, so the desktop notification is not shown; the "
                                          "console shows it in the status bar (bottom right, beside the count)."));
    p.setPen(QColor(0xd1, 0xd5, 0xdb));
    p.drawLine(0, band - 1, window.width(), band - 1);
    p.drawImage(0, band, window);
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
    if (!backend.start(8, { QStringLiteral("--sse-poll-ms"), QStringLiteral("100") },
                       { QStringLiteral("returns-agent:agent"), QStringLiteral("billing-agent:agent") }))
        fail(backend.error());
    const QStringList charges = backend.charges();
    if (charges.size() < 8)
        fail(QStringLiteral("paysim made %1 charges").arg(charges.size()));

    // Before the console opens: four PENDING, one of them resubmitted changed (REQUIRES_REVIEW).
    struct Proposal { int charge; qint64 amount; const char *order; const char *agent; };
    const Proposal before[] = {
        { 0, 4000, "order-1042", "returns-agent" }, { 1, 8900, "order-1121", "billing-agent" },
        { 2, 2599, "order-1133", "returns-agent" }, { 3, 12500, "order-1138", "billing-agent" },
        { 4, 1899, "order-1140", "returns-agent" },
    };
    for (const Proposal &p : before) {
        const QString order = QString::fromLatin1(p.order);
        if (backend.propose(charges.at(p.charge), p.amount, order + QStringLiteral("-refund"), order,
                            QString::fromLatin1(p.agent)).value(QLatin1String("id")).toString().isEmpty())
            fail(QStringLiteral("could not propose %1").arg(order));
    }
    backend.resubmitChanged(charges.at(4), 2899, QStringLiteral("order-1140-refund"), QStringLiteral("order-1140"),
                            QStringLiteral("returns-agent"));

    QTemporaryDir dir;
    cs::ApiClient client;
    client.setBaseUrl(backend.url());
    client.setToken(backend.token(QStringLiteral("root")));
    cs::EventStreamClient events;
    events.setBaseUrl(backend.url());
    events.setToken(backend.token(QStringLiteral("root")));
    cs::ConsoleSettings settings(dir.filePath(QStringLiteral("console.ini")));
    settings.queueFilter = QStringLiteral("queue");
    cs::MainWindow window(&client, &events, &settings);
    window.resize(size.at(0).toInt(), size.at(1).toInt());
    window.show();
    window.start();
    if (!waitUntil([&] { return window.hasShownFirstPage() && events.state() == cs::EventStreamClient::State::Live; }, 30000))
        fail(QStringLiteral("the console did not show its queue and go live within 30 s"));
    waitUntil([] { return false; }, 1500); // the counts, the first detail

    // Live: two PENDING refunds resubmitted changed (into REQUIRES_REVIEW) and a new proposal.
    bool noticed = false;
    QObject::connect(window.attention(), &cs::AttentionController::noticeShown, &app, [&] { noticed = true; });
    backend.resubmitChanged(charges.at(1), 9900, QStringLiteral("order-1121-refund"), QStringLiteral("order-1121"),
                            QStringLiteral("billing-agent"));
    backend.resubmitChanged(charges.at(3), 13500, QStringLiteral("order-1138-refund"), QStringLiteral("order-1138"),
                            QStringLiteral("billing-agent"));
    backend.propose(charges.at(5), 5600, QStringLiteral("order-1150-refund"), QStringLiteral("order-1150"),
                    QStringLiteral("returns-agent"));
    if (!waitUntil([&] { return noticed; }, 20000))
        fail(QStringLiteral("no notice within 20 s"));
    waitUntil([] { return false; }, 1200); // the counts refresh after the events, the last paint

    cs::AttentionController *attention = window.attention();
    const QImage picture = withBand(window.grab().toImage(), window.windowTitle(), attention->tray()->toolTip(),
                                    attention->notifier()->counts().total(), attention->tray()->isShown());
    const QString path = parser.value(outOption);
    if (!picture.save(path))
        fail(QStringLiteral("could not save %1").arg(path));
    QTextStream(stdout) << "saved " << path << "  title: " << window.windowTitle() << "  notice: "
                        << attention->lastNotice().text << "  tray: " << (attention->tray()->isShown() ? "yes" : "none")
                        << Qt::endl;
    return 0;
}
