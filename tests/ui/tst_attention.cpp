// Notifications (issue 17): what the AttentionNotifier decides deserves whose attention, the text
// and the throttling of its notices (an injected clock), the window title, and the main window's
// wiring (AttentionController): the title and status-bar count, the Settings menu's switch and
// interval remembered, a notice without a system tray (offscreen: no tray, no warning), and what
// clicking a notice opens. Issue 18: a refund that fails after COMPLETED (a settlement review
// item) waits for supervisors and admins — its count, its notice (the action read after the
// stream's "settlement" event, from a fake backend) and its filter.

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actionqueuemodel.h"
#include "ui/attentioncontroller.h"
#include "ui/attentionnotifier.h"
#include "ui/consolesettings.h"
#include "ui/consoletranslations.h"
#include "ui/mainwindow.h"
#include "ui/queueview.h"
#include "ui/trayindicator.h"
#include "tests/ui/settlementtestdata.h"

#include <QAction>
#include <QApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QLabel>
#include <QMenuBar>
#include <QSignalSpy>
#include <QRegularExpression>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

using namespace cs;
using Kind = AttentionNotifier::Kind;

Q_DECLARE_METATYPE(cs::ActionState)
Q_DECLARE_METATYPE(std::optional<cs::ActionState>)
Q_DECLARE_METATYPE(cs::Settlement)

namespace {

const QString Id = QStringLiteral("act_01JB7Q2W4V");

ActionChange change(const QString &id, ActionState state, const QString &event, qint64 version = 2)
{
    ActionChange c;
    c.seq = version;
    c.actionId = id;
    c.state = state;
    c.stateVersion = version;
    c.event = event;
    c.at = QDateTime::currentDateTimeUtc();
    return c;
}

ActionSummary row(const QString &id, ActionState state, const QString &reviewReason = QString())
{
    ActionSummary s;
    s.record.id = id;
    s.record.state = state;
    s.record.stateVersion = 1;
    s.record.amount = 4000;
    s.record.currency = QStringLiteral("usd");
    s.record.requestedBy = QStringLiteral("returns-agent");
    s.record.reviewReason = reviewReason;
    return s;
}

StateCounts stateCounts(qint64 pending, qint64 unknown, qint64 review, qint64 settlementReview = 0)
{
    StateCounts counts;
    counts.setSettlementReview(settlementReview);
    counts.setCount(ActionState::Pending, pending);
    counts.setCount(ActionState::ConfirmationUnknown, unknown);
    counts.setCount(ActionState::RequiresReview, review);
    counts.setCount(ActionState::Completed, 7);
    return counts;
}

ActionRecord completed(const QString &id, const QString &order)
{
    ActionRecord r;
    r.id = id;
    r.state = ActionState::Completed;
    r.amount = 4000;
    r.currency = QStringLiteral("usd");
    r.businessReference = order;
    return r;
}

// A COMPLETED action's settlement: "failed"/"canceled" with its review item `attention`, or a
// status still settling ("pending") or settled well ("succeeded").
Settlement settlement(const QString &status, Settlement::Attention attention = Settlement::Attention::None,
                      const QString &reason = QString())
{
    Settlement s;
    s.refundId = QStringLiteral("re_thursday");
    s.status = status;
    s.failureReason = reason;
    s.attention = attention;
    return s;
}

// What GET /actions/{id} answers for a COMPLETED refund whose refund failed afterwards.
QByteArray failedRefundDetail(const QString &id)
{
    const QJsonObject settlement{
        { QStringLiteral("action_id"), id },
        { QStringLiteral("refund_id"), QStringLiteral("re_thursday") },
        { QStringLiteral("status"), QStringLiteral("failed") },
        { QStringLiteral("failure_reason"), QStringLiteral("lost_or_stolen_card") },
        { QStringLiteral("started_at"), QStringLiteral("2026-12-01T09:00:05.000Z") },
        { QStringLiteral("confirmed_at"), QStringLiteral("2026-12-03T14:12:00.000Z") },
        { QStringLiteral("confirmed_by"), QStringLiteral("webhook") },
        { QStringLiteral("settled_at"), QStringLiteral("2026-12-03T14:12:00.000Z") },
        { QStringLiteral("checks"), 1 },
        { QStringLiteral("attention"), QStringLiteral("open") },
        { QStringLiteral("attention_since"), QStringLiteral("2026-12-03T14:12:00.000Z") },
    };
    const QJsonObject detail = cs::test::completedRefundDetail(id, settlement, QStringLiteral("2026-12-03T14:12:00.000Z"));
    return QJsonDocument(detail).toJson(QJsonDocument::Compact);
}

// A backend that answers GET /api/v1/actions/{id} with failedRefundDetail and anything else 404,
// counting the reads of actions.
struct FakeBackend
{
    QTcpServer server;
    int actionReads = 0;
    FakeBackend()
    {
        server.listen(QHostAddress::LocalHost);
        QObject::connect(&server, &QTcpServer::newConnection, &server, [this] {
            while (QTcpSocket *socket = server.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    const QByteArray request = socket->peek(socket->bytesAvailable());
                    if (!request.contains("\r\n\r\n"))
                        return; // the headers are not complete yet
                    socket->readAll();
                    const QByteArray path = request.split(' ').value(1);
                    const qsizetype at = path.indexOf("/actions/act_");
                    QByteArray status = "404 Not Found";
                    QByteArray body = R"({"type":"about:blank","title":"not found","status":404})";
                    if (at >= 0) {
                        ++actionReads;
                        status = "200 OK";
                        body = failedRefundDetail(QString::fromLatin1(path.mid(at + 9)));
                    }
                    socket->write("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nETag: \"7\"\r\n"
                                  "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
                    socket->disconnectFromHost();
                });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort())); }
};

// A clock the test moves.
struct FakeClock
{
    qint64 now = 1'000'000;
    std::function<qint64()> function()
    {
        return [this] { return now; };
    }
};

} // namespace

class TestAttention : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    void decisions_data();
    void decisions();
    void noticeText_data();
    void noticeText();
    void changesWithinTheIntervalCollapse();
    void oneActionIsReportedOncePerState();
    void aResyncReportsWhatRoseUnseen();
    void roleChangeDropsWhatWaited();
    void countsFollowTheRole_data();
    void countsFollowTheRole();
    void windowTitle_data();
    void windowTitle();
    void noticesOffDropsThem();
    void badIntervalIsRefused();
    void trayIconCarriesTheCount();

    void windowTitleAndStatusShowTheCounts();
    void settingSwitchTurnsDesktopNoticesOff();
    void intervalChoiceIsRemembered();
    void withoutTrayNoticesGoToTheStatusBar();
    void clickingANoticeOpensItsFilter();

    void settlementDecisions_data();
    void settlementDecisions();
    void settlementNoticeText_data();
    void settlementNoticeText();
    void aFailedRefundIsReportedOnce();
    void failedRefundsCollapseWithTheRest();
    void aResyncReportsFailedRefundsUnseen();
    void aFailedRefundReachesTheWindow();

private:
    struct Console
    {
        QTemporaryDir dir;
        ApiClient client;
        EventStreamClient events;
        std::unique_ptr<ConsoleSettings> settings;
        std::unique_ptr<MainWindow> window;
        FakeClock clock;
        explicit Console(const QString &ini = QString())
        {
            client.setBaseUrl(QUrl(QStringLiteral("http://127.0.0.1:9")));
            settings = std::make_unique<ConsoleSettings>(ini.isEmpty() ? dir.filePath(QStringLiteral("console.ini")) : ini);
            window = std::make_unique<MainWindow>(&client, &events, settings.get());
            window->attention()->notifier()->setClock(clock.function());
        }
        AttentionController *attention() const { return window->attention(); }
        void signIn(const QString &role) { emit window->identityKnown(QStringLiteral("someone"), role); }
    };
};

void TestAttention::initTestCase()
{
    qRegisterMetaType<AttentionNotifier::Notice>();
    qRegisterMetaType<AttentionNotifier::Counts>();
    // English's plural forms ("1 refund failed", "2 refunds failed"), as the console loads them.
    QVERIFY(installConsoleTranslations(QLocale(QLocale::English, QLocale::UnitedStates)).console);
}

// role × (what the console knew of the action) × event → news for this user or not.
void TestAttention::decisions_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<std::optional<ActionState>>("known"); // the state the console saw before
    QTest::addColumn<ActionState>("state");
    QTest::addColumn<QString>("event");
    QTest::addColumn<bool>("news");

    using S = ActionState;
    const std::optional<S> none;
    const QString proposed = QStringLiteral("proposed");
    const QString changed = QStringLiteral("state_changed");

    QTest::newRow("approver: a new proposal waits for approval") << "approver" << none << S::Pending << proposed << true;
    QTest::newRow("approver: a quorum's signature on a known action is not new") << "approver" << std::optional(S::Pending) << S::Pending << "approved" << false;
    QTest::newRow("approver: an unseen action's signature is not new") << "approver" << none << S::Pending << "approved" << false;
    QTest::newRow("approver: REQUIRES_REVIEW is not theirs") << "approver" << std::optional(S::ConfirmationUnknown) << S::RequiresReview << changed << false;
    QTest::newRow("approver: CONFIRMATION_UNKNOWN is not theirs") << "approver" << std::optional(S::Executing) << S::ConfirmationUnknown << changed << false;
    QTest::newRow("supervisor: EXECUTING -> CONFIRMATION_UNKNOWN") << "supervisor" << std::optional(S::Executing) << S::ConfirmationUnknown << changed << true;
    QTest::newRow("supervisor: CONFIRMATION_UNKNOWN -> REQUIRES_REVIEW") << "supervisor" << std::optional(S::ConfirmationUnknown) << S::RequiresReview << changed << true;
    QTest::newRow("supervisor: a changed resubmission of a PENDING action") << "supervisor" << std::optional(S::Pending) << S::RequiresReview << "resubmission_conflict" << true;
    QTest::newRow("supervisor: a look-up on an action already in review") << "supervisor" << std::optional(S::RequiresReview) << S::RequiresReview << "lookup_recorded" << false;
    QTest::newRow("supervisor: a look-up on an unseen action in review") << "supervisor" << none << S::RequiresReview << "lookup_recorded" << false;
    QTest::newRow("supervisor: an unseen action's transition into review") << "supervisor" << none << S::RequiresReview << changed << true;
    QTest::newRow("supervisor: an unseen action recovered into unknown") << "supervisor" << none << S::ConfirmationUnknown << "recovered" << true;
    QTest::newRow("supervisor: a proposal is not theirs") << "supervisor" << none << S::Pending << proposed << false;
    QTest::newRow("supervisor: COMPLETED asks nothing") << "supervisor" << std::optional(S::ConfirmationUnknown) << S::Completed << changed << false;
    QTest::newRow("admin: a new proposal") << "admin" << none << S::Pending << proposed << true;
    QTest::newRow("admin: into review") << "admin" << std::optional(S::ConfirmationUnknown) << S::RequiresReview << changed << true;
    QTest::newRow("agent: a proposal asks nothing") << "agent" << none << S::Pending << proposed << false;
    QTest::newRow("agent: review asks nothing") << "agent" << std::optional(S::ConfirmationUnknown) << S::RequiresReview << changed << false;
    QTest::newRow("auditor: review asks nothing") << "auditor" << std::optional(S::ConfirmationUnknown) << S::RequiresReview << changed << false;
    QTest::newRow("nobody signed in: nothing") << "" << none << S::Pending << proposed << false;
}

void TestAttention::decisions()
{
    QFETCH(QString, role);
    QFETCH(std::optional<ActionState>, known);
    QFETCH(ActionState, state);
    QFETCH(QString, event);
    QFETCH(bool, news);

    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(role);
    if (known)
        notifier.noteKnown({ row(Id, *known) });
    QSignalSpy notices(&notifier, &AttentionNotifier::noticeReady);
    QVERIFY(notices.isValid());

    QCOMPARE(notifier.noteChange(change(Id, state, event)), news);
    QCOMPARE(notifier.waiting(), news ? 1 : 0);
    clock.now += AttentionNotifier::SettleMs;
    notifier.poll();
    QCOMPARE(notices.size(), news ? 1 : 0);
}

void TestAttention::noticeText_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<ActionState>("state");
    QTest::addColumn<bool>("rowKnown");
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("text");

    // Words for people: the amount (and order) rather than the id; the server's reason, which may
    // hold the provider's raw answer (noticeText's row has one), stays in the detail.
    QTest::newRow("review, in words") << "supervisor" << ActionState::RequiresReview << true << "Review needed"
                                      << QStringLiteral("A refund of 40.00 USD needs a person to decide what happened; nothing is sent again until then.");
    QTest::newRow("review, row not read") << "supervisor" << ActionState::RequiresReview << false << "Review needed"
                                          << Id + QStringLiteral(" needs review");
    QTest::newRow("unknown with its amount") << "supervisor" << ActionState::ConfirmationUnknown << true << "Outcome unknown"
                                             << QStringLiteral("Whether a refund of 40.00 USD went through is not known yet; Countersign is finding out.");
    QTest::newRow("unknown, row not read") << "admin" << ActionState::ConfirmationUnknown << false << "Outcome unknown"
                                           << QStringLiteral("Whether ") + Id + QStringLiteral(" went through is not known yet");
    QTest::newRow("approval with amount and agent") << "approver" << ActionState::Pending << true << "Approval awaited"
                                                    << QStringLiteral("A refund of 40.00 USD awaits approval, requested by returns-agent");
    QTest::newRow("approval, row not read") << "admin" << ActionState::Pending << false << "Approval awaited"
                                            << Id + QStringLiteral(" awaits approval");
}

void TestAttention::noticeText()
{
    QFETCH(QString, role);
    QFETCH(ActionState, state);
    QFETCH(bool, rowKnown);
    QFETCH(QString, title);
    QFETCH(QString, text);

    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(role);
    const ActionSummary shown
        = row(Id, state, QStringLiteral("lookup failed: HTTP 503 { \"error\": { \"message\": \"unavailable\" } }"));
    notifier.setRowLookup([&](const QString &id) -> std::optional<ActionSummary> {
        if (rowKnown && id == Id)
            return shown;
        return std::nullopt;
    });
    QSignalSpy notices(&notifier, &AttentionNotifier::noticeReady);
    QVERIFY(notices.isValid());

    QVERIFY(notifier.noteChange(change(Id, state, state == ActionState::Pending ? QStringLiteral("proposed")
                                                                                 : QStringLiteral("state_changed"))));
    notifier.poll();
    QCOMPARE(notices.size(), 0); // not before the settle time: the row may still be on its way
    clock.now += AttentionNotifier::SettleMs;
    notifier.poll();
    QCOMPARE(notices.size(), 1);
    const auto notice = notices.at(0).at(0).value<AttentionNotifier::Notice>();
    QCOMPARE(notice.title, title);
    QCOMPARE(notice.text, text);
    QCOMPARE(notice.actionId, Id);
}

void TestAttention::changesWithinTheIntervalCollapse()
{
    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(QStringLiteral("admin"));
    QVERIFY(notifier.setIntervalSeconds(30));
    QSignalSpy notices(&notifier, &AttentionNotifier::noticeReady);
    QVERIFY(notices.isValid());

    // Two into review within the settle time: one notice for both.
    QVERIFY(notifier.noteChange(change(QStringLiteral("act_a"), ActionState::RequiresReview, QStringLiteral("state_changed"))));
    clock.now += 400;
    QVERIFY(notifier.noteChange(change(QStringLiteral("act_b"), ActionState::RequiresReview, QStringLiteral("state_changed"))));
    clock.now += AttentionNotifier::SettleMs - 400;
    notifier.poll();
    QCOMPARE(notices.size(), 1);
    auto notice = notices.at(0).at(0).value<AttentionNotifier::Notice>();
    QCOMPARE(notice.text, QStringLiteral("2 new to review"));
    QVERIFY(notice.actionId.isEmpty());
    QCOMPARE(notice.kind, std::optional(Kind::Review));

    // Within the next 30 s: a proposal and another review wait, and come together once it passed.
    clock.now += 2000;
    QVERIFY(notifier.noteChange(change(QStringLiteral("act_c"), ActionState::Pending, QStringLiteral("proposed"))));
    clock.now += 5000;
    QVERIFY(notifier.noteChange(change(QStringLiteral("act_d"), ActionState::RequiresReview, QStringLiteral("state_changed"))));
    clock.now += 5000;
    notifier.poll();
    QCOMPARE(notices.size(), 1);
    QCOMPARE(notifier.waiting(), 2);
    clock.now += 30000 - 12000 - 1;
    notifier.poll();
    QCOMPARE(notices.size(), 1); // one millisecond early
    clock.now += 1;
    notifier.poll();
    QCOMPARE(notices.size(), 2);
    notice = notices.at(1).at(0).value<AttentionNotifier::Notice>();
    QCOMPARE(notice.text, QStringLiteral("1 new to review \u00b7 1 new to approve"));
    QVERIFY(!notice.kind); // mixed: clicking it opens the queue
    QCOMPARE(notifier.waiting(), 0);
}

void TestAttention::oneActionIsReportedOncePerState()
{
    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(QStringLiteral("supervisor"));
    // The stream sends each audit event with the action's state when it is sent: a burst carries
    // the same state several times, and its first event need not be the transition.
    QVERIFY(!notifier.noteChange(change(Id, ActionState::ConfirmationUnknown, QStringLiteral("attempt_started"), 4)));
    QVERIFY(notifier.noteChange(change(Id, ActionState::ConfirmationUnknown, QStringLiteral("state_changed"), 4)));
    QVERIFY(!notifier.noteChange(change(Id, ActionState::ConfirmationUnknown, QStringLiteral("state_changed"), 4)));
    QCOMPARE(notifier.waiting(), 1);
    QVERIFY(notifier.noteChange(change(Id, ActionState::RequiresReview, QStringLiteral("lookup_recorded"), 5)));
    QVERIFY(!notifier.noteChange(change(Id, ActionState::RequiresReview, QStringLiteral("lookup_recorded"), 6)));
    QVERIFY(!notifier.noteChange(change(Id, ActionState::RequiresReview, QStringLiteral("state_changed"), 6)));
    QCOMPARE(notifier.waiting(), 2);
}

void TestAttention::aResyncReportsWhatRoseUnseen()
{
    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(QStringLiteral("supervisor"));
    notifier.setCounts(stateCounts(4, 1, 2));
    QSignalSpy notices(&notifier, &AttentionNotifier::noticeReady);
    QVERIFY(notices.isValid());

    notifier.setCounts(stateCounts(4, 1, 3)); // an ordinary refresh: the event says what it was
    QCOMPARE(notifier.waiting(), 0);
    notifier.noteResync();
    QVERIFY(notifier.noteChange(change(Id, ActionState::RequiresReview, QStringLiteral("state_changed"))));
    notifier.setCounts(stateCounts(9, 1, 6)); // 3 more, one of them by the event above
    QCOMPARE(notifier.waiting(), 3);
    clock.now += AttentionNotifier::SettleMs;
    notifier.poll();
    QCOMPARE(notices.size(), 1);
    QCOMPARE(notices.at(0).at(0).value<AttentionNotifier::Notice>().text, QStringLiteral("3 new to review"));
    notifier.setCounts(stateCounts(9, 1, 8)); // no resync pending: counts alone say nothing
    QCOMPARE(notifier.waiting(), 0);
}

void TestAttention::roleChangeDropsWhatWaited()
{
    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(QStringLiteral("approver"));
    QVERIFY(notifier.noteChange(change(Id, ActionState::Pending, QStringLiteral("proposed"))));
    notifier.setRole(QStringLiteral("auditor"));
    QCOMPARE(notifier.waiting(), 0);
}

void TestAttention::countsFollowTheRole_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<qint64>("review");
    QTest::addColumn<qint64>("unknown");
    QTest::addColumn<qint64>("approval");
    QTest::addColumn<qint64>("settlement");
    // Counts: 5 PENDING, 2 CONFIRMATION_UNKNOWN, 3 REQUIRES_REVIEW, 4 refunds failed after COMPLETED.
    QTest::newRow("approver") << "approver" << qint64(0) << qint64(0) << qint64(5) << qint64(0);
    QTest::newRow("supervisor") << "supervisor" << qint64(3) << qint64(2) << qint64(0) << qint64(4);
    QTest::newRow("admin") << "admin" << qint64(3) << qint64(2) << qint64(5) << qint64(4);
    QTest::newRow("agent") << "agent" << qint64(0) << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("auditor") << "auditor" << qint64(0) << qint64(0) << qint64(0) << qint64(0);
}

void TestAttention::countsFollowTheRole()
{
    QFETCH(QString, role);
    QFETCH(qint64, review);
    QFETCH(qint64, unknown);
    QFETCH(qint64, approval);
    QFETCH(qint64, settlement);
    AttentionNotifier notifier;
    QSignalSpy changed(&notifier, &AttentionNotifier::countsChanged);
    QVERIFY(changed.isValid());
    notifier.setCounts(stateCounts(5, 2, 3, 4)); // before the role is known: nothing is theirs yet
    QCOMPARE(notifier.counts().total(), 0);
    notifier.setRole(role);
    QCOMPARE(notifier.counts().of(Kind::Review), review);
    QCOMPARE(notifier.counts().of(Kind::Unknown), unknown);
    QCOMPARE(notifier.counts().of(Kind::Approval), approval);
    QCOMPARE(notifier.counts().of(Kind::Settlement), settlement);
    QCOMPARE(notifier.counts().total(), review + unknown + approval + settlement);
    QCOMPARE(changed.size(), review + unknown + approval + settlement > 0 ? 1 : 0);
}

void TestAttention::windowTitle_data()
{
    QTest::addColumn<qint64>("review");
    QTest::addColumn<qint64>("unknown");
    QTest::addColumn<qint64>("approval");
    QTest::addColumn<qint64>("settlement");
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("title");
    const QString b = QStringLiteral("http://127.0.0.1:8470");
    const qint64 o = 0;
    QTest::newRow("nothing waits") << o << o << o << o << b << "Countersign \u2014 http://127.0.0.1:8470";
    QTest::newRow("review and approval") << qint64(3) << o << qint64(2) << o << b
                                         << "Countersign \u2014 3 to review \u00b7 2 to approve \u2014 http://127.0.0.1:8470";
    QTest::newRow("all three") << qint64(1) << qint64(4) << qint64(1) << o << b
                               << "Countersign \u2014 1 to review \u00b7 4 unconfirmed \u00b7 1 to approve \u2014 http://127.0.0.1:8470";
    QTest::newRow("all four") << qint64(1) << qint64(4) << qint64(1) << qint64(2) << b
                              << "Countersign \u2014 1 to review \u00b7 4 unconfirmed \u00b7 2 refunds failed \u00b7 1 to approve \u2014 http://127.0.0.1:8470";
    QTest::newRow("one refund failed") << o << o << o << qint64(1) << b
                                       << "Countersign \u2014 1 refund failed \u2014 http://127.0.0.1:8470";
    QTest::newRow("approval only, no backend") << o << o << qint64(7) << o << QString() << "Countersign \u2014 7 to approve";
    QTest::newRow("nothing, no backend") << o << o << o << o << QString() << "Countersign";
}

void TestAttention::windowTitle()
{
    QFETCH(qint64, review);
    QFETCH(qint64, unknown);
    QFETCH(qint64, approval);
    QFETCH(qint64, settlement);
    QFETCH(QString, backend);
    QFETCH(QString, title);
    AttentionNotifier::Counts counts;
    counts.n = { review, unknown, approval, settlement };
    QCOMPARE(AttentionNotifier::windowTitle(counts, backend), title);
}

void TestAttention::noticesOffDropsThem()
{
    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(QStringLiteral("approver"));
    QSignalSpy notices(&notifier, &AttentionNotifier::noticeReady);
    QVERIFY(notices.isValid());
    QVERIFY(notifier.noteChange(change(QStringLiteral("act_a"), ActionState::Pending, QStringLiteral("proposed"))));
    notifier.setNoticesEnabled(false); // drops what waits
    QVERIFY(notifier.noteChange(change(QStringLiteral("act_b"), ActionState::Pending, QStringLiteral("proposed"))));
    QCOMPARE(notifier.waiting(), 0);
    clock.now += 60000;
    notifier.poll();
    QCOMPARE(notices.size(), 0);
    notifier.setNoticesEnabled(true);
    QVERIFY(notifier.noteChange(change(QStringLiteral("act_c"), ActionState::Pending, QStringLiteral("proposed"))));
    clock.now += AttentionNotifier::SettleMs;
    notifier.poll();
    QCOMPARE(notices.size(), 1);
}

void TestAttention::badIntervalIsRefused()
{
    AttentionNotifier notifier;
    QVERIFY(notifier.setIntervalSeconds(60));
    QVERIFY(!notifier.setIntervalSeconds(-1));
    QVERIFY(!notifier.setIntervalSeconds(AttentionNotifier::MaxIntervalSeconds + 1));
    QCOMPARE(notifier.intervalSeconds(), 60);
}

void TestAttention::trayIconCarriesTheCount()
{
    const QImage plain = TrayIndicator::iconWithCount(0).pixmap(32, 32).toImage();
    const QImage three = TrayIndicator::iconWithCount(3).pixmap(32, 32).toImage();
    QVERIFY(!plain.isNull());
    QCOMPARE(three.size(), plain.size());
    // The badge (top right) is red; the plain shield has none there.
    const QColor badge = three.pixelColor(three.width() - 5, 9);
    QVERIFY2(badge.red() > 150 && badge.green() < 90, qPrintable(badge.name()));
    QVERIFY(plain.pixelColor(plain.width() - 5, 9) != badge);
    QVERIFY(TrayIndicator::iconWithCount(3).pixmap(32, 32).toImage() != TrayIndicator::iconWithCount(12).pixmap(32, 32).toImage());
}

// ---- the main window's wiring (offscreen, no backend) ----------------------------------------

void TestAttention::windowTitleAndStatusShowTheCounts()
{
    Console console;
    QCOMPARE(console.window->windowTitle(), QStringLiteral("Countersign \u2014 http://127.0.0.1:9"));
    console.signIn(QStringLiteral("supervisor"));
    emit console.window->queueModel()->countsChanged(stateCounts(6, 1, 3));
    QCOMPARE(console.window->windowTitle(),
             QStringLiteral("Countersign \u2014 3 to review \u00b7 1 unconfirmed \u2014 http://127.0.0.1:9"));
    QToolButton *button = console.attention()->statusButton();
    QVERIFY(!button->isHidden());
    QCOMPARE(button->text(), QStringLiteral("3 to review \u00b7 1 unconfirmed"));

    console.signIn(QStringLiteral("auditor"));
    QCOMPARE(console.window->windowTitle(), QStringLiteral("Countersign \u2014 http://127.0.0.1:9"));
    QVERIFY(button->isHidden());
}

void TestAttention::settingSwitchTurnsDesktopNoticesOff()
{
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("console.ini"));
    {
        Console console(ini);
        QAction *toggle = console.window->findChild<QAction *>(QStringLiteral("noticesAction"));
        QVERIFY(toggle);
        QVERIFY(toggle->isChecked()); // on by default
        // The switch is in the Settings menu.
        auto *menu = console.window->menuBar()->findChild<QMenu *>(QStringLiteral("settingsMenu"));
        QVERIFY(menu);
        QVERIFY(menu->actions().contains(toggle));

        console.signIn(QStringLiteral("approver"));
        QSignalSpy shown(console.attention(), &AttentionController::noticeShown);
        QVERIFY(shown.isValid());
        toggle->trigger(); // off
        QVERIFY(!toggle->isChecked());
        emit console.events.actionChanged(change(QStringLiteral("act_a"), ActionState::Pending, QStringLiteral("proposed")));
        console.clock.now += 60000;
        console.attention()->notifier()->poll();
        QCOMPARE(shown.size(), 0);
        QVERIFY(console.attention()->noticeLabel()->isHidden());
    }
    {
        Console again(ini); // remembered
        QAction *toggle = again.window->findChild<QAction *>(QStringLiteral("noticesAction"));
        QVERIFY(!toggle->isChecked());
        QVERIFY(!again.attention()->notifier()->noticesEnabled());
        again.signIn(QStringLiteral("approver"));
        QSignalSpy shown(again.attention(), &AttentionController::noticeShown);
        QVERIFY(shown.isValid());
        toggle->trigger(); // on again
        emit again.events.actionChanged(change(QStringLiteral("act_b"), ActionState::Pending, QStringLiteral("proposed")));
        again.clock.now += AttentionNotifier::SettleMs;
        again.attention()->notifier()->poll();
        QCOMPARE(shown.size(), 1);
    }
}

void TestAttention::intervalChoiceIsRemembered()
{
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("console.ini"));
    {
        Console console(ini);
        QCOMPARE(console.attention()->notifier()->intervalSeconds(), AttentionNotifier::DefaultIntervalSeconds);
        QAction *minute = console.window->findChild<QAction *>(QStringLiteral("noticeInterval60Action"));
        QVERIFY(minute);
        QVERIFY(!minute->isChecked());
        minute->trigger();
        QVERIFY(minute->isChecked());
        QCOMPARE(console.attention()->notifier()->intervalSeconds(), 60);
    }
    {
        Console again(ini);
        QCOMPARE(again.attention()->notifier()->intervalSeconds(), 60);
        QVERIFY(again.window->findChild<QAction *>(QStringLiteral("noticeInterval60Action"))->isChecked());
    }
}

void TestAttention::withoutTrayNoticesGoToTheStatusBar()
{
    QVERIFY(!QSystemTrayIcon::isSystemTrayAvailable()); // offscreen
    QTest::failOnWarning(QRegularExpression(QStringLiteral(".*")));
    Console console;
    QVERIFY(!console.attention()->tray()->isShown());
    console.signIn(QStringLiteral("supervisor"));
    QSignalSpy shown(console.attention(), &AttentionController::noticeShown);
    QVERIFY(shown.isValid());
    emit console.window->queueModel()->countsChanged(stateCounts(0, 0, 1));
    QCOMPARE(console.attention()->tray()->count(), 1);
    QCOMPARE(console.attention()->tray()->toolTip(), QStringLiteral("Countersign: 1 to review"));
    emit console.events.actionChanged(change(Id, ActionState::RequiresReview, QStringLiteral("state_changed")));
    console.clock.now += AttentionNotifier::SettleMs;
    console.attention()->notifier()->poll();
    QCOMPARE(shown.size(), 1);
    QCOMPARE(shown.at(0).at(1).toBool(), false); // not on the desktop: there is no tray
    QVERIFY(!console.attention()->noticeLabel()->isHidden());
    QCOMPARE(console.attention()->noticeLabel()->text(), Id + QStringLiteral(" needs review"));
    QCOMPARE(console.window->statusBar()->currentMessage(), QString()); // left to the window's own messages
}

void TestAttention::clickingANoticeOpensItsFilter()
{
    Console console;
    console.signIn(QStringLiteral("admin"));
    QueueView *queue = console.window->queueView();
    QCOMPARE(queue->filter(), QueueView::Filter::Queue);
    auto *notifier = console.attention()->notifier();
    emit console.events.actionChanged(change(QStringLiteral("act_a"), ActionState::RequiresReview, QStringLiteral("state_changed")));
    emit console.events.actionChanged(change(QStringLiteral("act_b"), ActionState::RequiresReview, QStringLiteral("state_changed")));
    console.clock.now += AttentionNotifier::SettleMs;
    notifier->poll();
    QCOMPARE(console.attention()->lastNotice().kind, std::optional(Kind::Review));
    console.attention()->openLastNotice();
    QCOMPARE(queue->filter(), QueueView::Filter::Review);

    // The status button opens what waits: one kind, its filter; several, the queue.
    emit console.window->queueModel()->countsChanged(stateCounts(2, 0, 0));
    console.attention()->openWaiting();
    QCOMPARE(queue->filter(), QueueView::Filter::Pending);
    emit console.window->queueModel()->countsChanged(stateCounts(2, 0, 1));
    console.window->findChild<QAction *>(QStringLiteral("showWaitingAction"))->trigger();
    QCOMPARE(queue->filter(), QueueView::Filter::Queue);
}

// ---- issue 18: a refund that failed after COMPLETED ------------------------------------------

// role × what the action's settlement turned out to be → whether the stream's "settlement" event
// makes the console read the action, and whether its settlement is news for this user.
void TestAttention::settlementDecisions_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<Settlement>("read");
    QTest::addColumn<bool>("asks");
    QTest::addColumn<bool>("news");
    using A = Settlement::Attention;
    const Settlement failed = settlement(QStringLiteral("failed"), A::Open, QStringLiteral("lost_or_stolen_card"));
    QTest::newRow("supervisor: failed after COMPLETED") << "supervisor" << failed << true << true;
    QTest::newRow("supervisor: canceled after COMPLETED")
        << "supervisor" << settlement(QStringLiteral("canceled"), A::Open) << true << true;
    QTest::newRow("admin: failed after COMPLETED") << "admin" << failed << true << true;
    QTest::newRow("supervisor: pending -> succeeded is no work") << "supervisor" << settlement(QStringLiteral("succeeded")) << true << false;
    QTest::newRow("supervisor: still pending") << "supervisor" << settlement(QStringLiteral("pending")) << true << false;
    QTest::newRow("supervisor: decided already (closed)")
        << "supervisor" << settlement(QStringLiteral("failed"), A::Closed, QStringLiteral("declined")) << true << false;
    QTest::newRow("supervisor: decided already (followed up)")
        << "supervisor" << settlement(QStringLiteral("failed"), A::FollowedUp, QStringLiteral("declined")) << true << false;
    QTest::newRow("approver: not theirs") << "approver" << failed << false << false;
    QTest::newRow("agent: not theirs") << "agent" << failed << false << false;
    QTest::newRow("auditor: not theirs") << "auditor" << failed << false << false;
}

void TestAttention::settlementDecisions()
{
    QFETCH(QString, role);
    QFETCH(Settlement, read);
    QFETCH(bool, asks);
    QFETCH(bool, news);

    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(role);
    QSignalSpy toCheck(&notifier, &AttentionNotifier::settlementToCheck);
    QSignalSpy notices(&notifier, &AttentionNotifier::noticeReady);
    QVERIFY(toCheck.isValid() && notices.isValid());

    // The event itself is never news: its settlement must be read first.
    QVERIFY(!notifier.noteChange(change(Id, ActionState::Completed, QStringLiteral("settlement"), 9)));
    QCOMPARE(toCheck.size(), asks ? 1 : 0);
    if (asks)
        QCOMPARE(toCheck.at(0).at(0).toString(), Id);
    // Other events on a COMPLETED action ask for nothing.
    QVERIFY(!notifier.noteChange(change(Id, ActionState::Completed, QStringLiteral("settlement_closed"), 10)));
    QVERIFY(!notifier.noteChange(change(Id, ActionState::Completed, QStringLiteral("lookup_recorded"), 10)));
    QCOMPARE(toCheck.size(), asks ? 1 : 0);

    QCOMPARE(notifier.noteSettlement(completed(Id, QStringLiteral("order-4711")), read), news);
    QCOMPARE(notifier.waiting(), news ? 1 : 0);
    clock.now += AttentionNotifier::SettleMs;
    notifier.poll();
    QCOMPARE(notices.size(), news ? 1 : 0);
    if (news)
        QCOMPARE(notices.at(0).at(0).value<AttentionNotifier::Notice>().kind, std::optional(Kind::Settlement));
}

void TestAttention::settlementNoticeText_data()
{
    QTest::addColumn<QString>("order");
    QTest::addColumn<Settlement>("read");
    QTest::addColumn<QString>("text");
    using A = Settlement::Attention;
    QTest::newRow("with order and reason")
        << "order-4711" << settlement(QStringLiteral("failed"), A::Open, QStringLiteral("lost_or_stolen_card"))
        << "Refund re_thursday for order order-4711 failed after it was accepted (lost_or_stolen_card): the customer has "
           "not been refunded";
    QTest::newRow("without order") << "" << settlement(QStringLiteral("failed"), A::Open, QStringLiteral("declined"))
                                   << QStringLiteral("Refund re_thursday of ") + Id
                                          + QStringLiteral(" failed after it was accepted (declined): the customer has not been refunded");
    QTest::newRow("canceled, no reason") << "order-4711" << settlement(QStringLiteral("canceled"), A::Open)
                                         << "Refund re_thursday for order order-4711 failed after it was accepted (canceled): "
                                            "the customer has not been refunded";
    Settlement noRefund = settlement(QStringLiteral("failed"), A::Open, QStringLiteral("declined"));
    noRefund.refundId.clear();
    QTest::newRow("no refund id") << "order-4711" << noRefund
                                  << QStringLiteral("The refund of ") + Id
                                         + QStringLiteral(" failed after it was accepted (declined): the customer has not been refunded");
}

void TestAttention::settlementNoticeText()
{
    QFETCH(QString, order);
    QFETCH(Settlement, read);
    QFETCH(QString, text);
    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(QStringLiteral("supervisor"));
    QSignalSpy notices(&notifier, &AttentionNotifier::noticeReady);
    QVERIFY(notices.isValid());
    QVERIFY(notifier.noteSettlement(completed(Id, order), read));
    notifier.poll();
    QCOMPARE(notices.size(), 0); // the settle time, as for the others
    clock.now += AttentionNotifier::SettleMs;
    notifier.poll();
    QCOMPARE(notices.size(), 1);
    const auto notice = notices.at(0).at(0).value<AttentionNotifier::Notice>();
    QCOMPARE(notice.title, QStringLiteral("Refund failed"));
    QCOMPARE(notice.text, text);
    QCOMPARE(notice.actionId, Id);
    QCOMPARE(notice.kind, std::optional(Kind::Settlement));
}

void TestAttention::aFailedRefundIsReportedOnce()
{
    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(QStringLiteral("supervisor"));
    QSignalSpy toCheck(&notifier, &AttentionNotifier::settlementToCheck);
    QVERIFY(toCheck.isValid());
    const Settlement failed = settlement(QStringLiteral("failed"), Settlement::Attention::Open, QStringLiteral("declined"));
    QVERIFY(notifier.noteSettlement(completed(Id, QString()), failed));
    // The same item read again (a second "settlement" event of the same transaction): not news,
    // and its events are not even read any more.
    QVERIFY(!notifier.noteSettlement(completed(Id, QString()), failed));
    QVERIFY(!notifier.noteChange(change(Id, ActionState::Completed, QStringLiteral("settlement"), 9)));
    QCOMPARE(toCheck.size(), 0);
    QCOMPARE(notifier.waiting(), 1);

    // A row the queue read with its item open (the "Refund failed" filter) is known: not news.
    ActionSummary shown = row(QStringLiteral("act_shown"), ActionState::Completed);
    shown.settlementReview = true;
    notifier.noteKnown({ shown });
    QVERIFY(!notifier.noteChange(change(QStringLiteral("act_shown"), ActionState::Completed, QStringLiteral("settlement"), 9)));
    QVERIFY(!notifier.noteSettlement(completed(QStringLiteral("act_shown"), QString()), failed));
    QCOMPARE(toCheck.size(), 0);
    QCOMPARE(notifier.waiting(), 1);

    // Seen under another role, it is not news after the switch either.
    notifier.setRole(QStringLiteral("approver"));
    QVERIFY(!notifier.noteSettlement(completed(QStringLiteral("act_other"), QString()), failed));
    notifier.setRole(QStringLiteral("admin"));
    QVERIFY(!notifier.noteSettlement(completed(QStringLiteral("act_other"), QString()), failed));
    QCOMPARE(notifier.waiting(), 0);
}

void TestAttention::failedRefundsCollapseWithTheRest()
{
    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(QStringLiteral("supervisor"));
    QVERIFY(notifier.setIntervalSeconds(30));
    QSignalSpy notices(&notifier, &AttentionNotifier::noticeReady);
    QVERIFY(notices.isValid());
    const Settlement failed = settlement(QStringLiteral("failed"), Settlement::Attention::Open, QStringLiteral("declined"));

    QVERIFY(notifier.noteSettlement(completed(QStringLiteral("act_a"), QString()), failed));
    QVERIFY(notifier.noteSettlement(completed(QStringLiteral("act_b"), QString()), failed));
    clock.now += AttentionNotifier::SettleMs;
    notifier.poll();
    QCOMPARE(notices.size(), 1);
    auto notice = notices.at(0).at(0).value<AttentionNotifier::Notice>();
    QCOMPARE(notice.text, QStringLiteral("2 new failed refunds"));
    QCOMPARE(notice.kind, std::optional(Kind::Settlement));
    QVERIFY(notice.actionId.isEmpty());

    // Throttled like the others: within the interval it waits, then comes with a review.
    clock.now += 1000;
    QVERIFY(notifier.noteSettlement(completed(QStringLiteral("act_c"), QString()), failed));
    QVERIFY(notifier.noteChange(change(QStringLiteral("act_d"), ActionState::RequiresReview, QStringLiteral("state_changed"))));
    clock.now += 5000;
    notifier.poll();
    QCOMPARE(notices.size(), 1);
    clock.now += 30000 - 6000;
    notifier.poll();
    QCOMPARE(notices.size(), 2);
    notice = notices.at(1).at(0).value<AttentionNotifier::Notice>();
    QCOMPARE(notice.text, QStringLiteral("1 new to review \u00b7 1 new failed refund"));
    QVERIFY(!notice.kind);
}

void TestAttention::aResyncReportsFailedRefundsUnseen()
{
    AttentionNotifier notifier;
    FakeClock clock;
    notifier.setClock(clock.function());
    notifier.setRole(QStringLiteral("supervisor"));
    notifier.setCounts(stateCounts(0, 0, 0, 1));
    QSignalSpy notices(&notifier, &AttentionNotifier::noticeReady);
    QVERIFY(notices.isValid());
    notifier.noteResync();
    notifier.setCounts(stateCounts(0, 0, 0, 3)); // two opened while the stream was away
    QCOMPARE(notifier.waiting(), 2);
    clock.now += AttentionNotifier::SettleMs;
    notifier.poll();
    QCOMPARE(notices.size(), 1);
    QCOMPARE(notices.at(0).at(0).value<AttentionNotifier::Notice>().text, QStringLiteral("2 new failed refunds"));
}

// The main window: the count in the title, the status bar and the tray; the stream's "settlement"
// event read from the backend and shown as a notice; clicking it and Ctrl+Shift+N open the
// "Refund failed" filter.
void TestAttention::aFailedRefundReachesTheWindow()
{
    FakeBackend backend;
    QVERIFY(backend.server.isListening());
    Console console;
    console.client.setBaseUrl(backend.url());
    console.client.setToken(QStringLiteral("t"));
    console.signIn(QStringLiteral("supervisor"));
    QSignalSpy shown(console.attention(), &AttentionController::noticeShown);
    QVERIFY(shown.isValid());

    emit console.window->queueModel()->countsChanged(stateCounts(3, 0, 0, 1));
    QCOMPARE(console.window->windowTitle(), QStringLiteral("Countersign \u2014 1 refund failed \u2014 ") + backend.url().toDisplayString());
    QToolButton *button = console.attention()->statusButton();
    QVERIFY(!button->isHidden());
    QCOMPARE(button->text(), QStringLiteral("1 refund failed"));
    QCOMPARE(console.attention()->tray()->count(), 1);
    QCOMPARE(console.attention()->tray()->toolTip(), QStringLiteral("Countersign: 1 refund failed"));

    const QString id = QStringLiteral("act_thursday0000000000000001");
    emit console.events.actionChanged(change(id, ActionState::Completed, QStringLiteral("settlement"), 9));
    QTRY_COMPARE(console.attention()->notifier()->waiting(), 1); // once the action was read
    QVERIFY(backend.actionReads >= 1); // the queue may read the row as well
    console.clock.now += AttentionNotifier::SettleMs;
    console.attention()->notifier()->poll();
    QCOMPARE(shown.size(), 1);
    QCOMPARE(console.attention()->noticeLabel()->toolTip(),
             QStringLiteral("Refund re_thursday for order order-4711 failed after it was accepted (lost_or_stolen_card): "
                            "the customer has not been refunded"));

    QueueView *queue = console.window->queueView();
    QCOMPARE(queue->filter(), QueueView::Filter::Queue);
    console.attention()->openLastNotice();
    QCOMPARE(queue->filter(), QueueView::Filter::RefundFailed);
    queue->apply(QueueView::Filter::Queue, QString());
    console.window->findChild<QAction *>(QStringLiteral("showWaitingAction"))->trigger();
    QCOMPARE(queue->filter(), QueueView::Filter::RefundFailed); // the only kind waiting

    // An approver's console does not even read the action.
    console.signIn(QStringLiteral("approver"));
    QSignalSpy toCheck(console.attention()->notifier(), &AttentionNotifier::settlementToCheck);
    QVERIFY(toCheck.isValid());
    emit console.events.actionChanged(change(QStringLiteral("act_thursday0000000000000002"), ActionState::Completed,
                                             QStringLiteral("settlement"), 9));
    QCOMPARE(toCheck.size(), 0);
    QCOMPARE(console.window->windowTitle(), QStringLiteral("Countersign \u2014 3 to approve \u2014 ") + backend.url().toDisplayString());
}

QTEST_MAIN(TestAttention)
#include "tst_attention.moc"
