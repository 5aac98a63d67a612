// What a person must see is on screen: every dialog and the main window, opened with the worst
// realistic content (a 2,000-character justification, every warning at once, 40 facts, 30
// look-ups, long German strings) at their default size on the offscreen screens of 1366×768 and
// 1920×1080, in English and German. It fails when
//   - a visible word-wrapped label is shorter than its heightForWidth (its last lines cut off);
//   - a visible label, button or tab is narrower than its text, or a widget's visible region is
//     cut by an ancestor that does not scroll;
//   - text is elided outside the allowed places (table cells, whose whole text is then in the
//     tooltip) — a label with "…" inside must carry the whole text in its tooltip;
//   - a dialog or any of its buttons lies off the screen;
//   - a dialog's warnings do not show first, whole, without scrolling;
//   - a table shows fewer than five rows (or all of them, when it has fewer).
// The screens come from the offscreen platform's configuration (a JSON file written by main()); the
// fonts are DejaVu (scripts/install-deps.sh installs fonts-dejavu-core).
#include "models/actiondetail.h"
#include "models/bulkdecisionmodel.h"
#include "models/executionpause.h"
#include "models/followupplan.h"
#include "models/lookuptablemodel.h"
#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "ui/actiondetailpane.h"
#include "ui/approvedialog.h"
#include "ui/bulkdecisiondialog.h"
#include "ui/chargestoryview.h"
#include "ui/connectiondialog.h"
#include "ui/decisiondialog.h"
#include "ui/consolesettings.h"
#include "ui/consoletranslations.h"
#include "ui/discrepancyclosedialog.h"
#include "ui/followupdialog.h"
#include "ui/lookupdialog.h"
#include "ui/mainwindow.h"
#include "ui/pausedialog.h"
#include "ui/reconciledialog.h"
#include "ui/rejectdialog.h"
#include "ui/resumedialog.h"
#include "ui/settlementclosedialog.h"
#include "ui/warninglist.h"

#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QFontInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyleOptionViewItem>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QTimer>
#include <QTranslator>

#include <functional>
#include <memory>

using namespace cs;
using namespace Qt::Literals::StringLiterals;

namespace {

const QDateTime Now = QDateTime::currentDateTimeUtc();

QString iso(const QDateTime &t)
{
    return t.toString(Qt::ISODateWithMs);
}

// The longest words the agent may send: 2,000 characters, the API's limit.
QString longJustification()
{
    QString text;
    const QString sentence = QStringLiteral("The customer returned the parcel with both items unused; the warehouse "
                                            "scanned return RMA-7994 and confirmed the original packaging. ");
    while (text.size() + sentence.size() <= 2000)
        text += sentence;
    return text.trimmed();
}

QJsonObject lookupJson(int seq, const QDateTime &at, const QString &result, int http, const QString &excerpt,
                       const QString &object = QString(), const QString &status = QString(), qint64 amount = 0)
{
    return QJsonObject{ { u"action_id"_s, u"act_worstcase0000000000000001"_s }, { u"seq"_s, seq }, { u"method"_s, u"list_by_metadata"_s },
                        { u"asked_by"_s, seq % 3 == 0 ? u"sue"_s : u"reconciler"_s }, { u"at"_s, iso(at) }, { u"result"_s, result },
                        { u"provider_object_id"_s, object }, { u"status"_s, status }, { u"amount"_s, amount },
                        { u"currency"_s, amount ? u"usd"_s : u""_s }, { u"http_status"_s, http }, { u"excerpt"_s, excerpt } };
}

// GET /actions/{id} of a refund with everything at once: the longest reasons, 40 facts, every
// charge warning, two possible duplicates, dual control, 30 look-ups (29 errors, then the one that
// decides), a review reason with the provider's raw answer, permissions for everything.
ActionDetail worstDetail(const QString &state)
{
    QJsonObject facts;
    for (int i = 1; i <= 40; ++i)
        facts.insert(QStringLiteral("fact_%1_%2").arg(i, 2, 10, QLatin1Char('0')).arg(QString(12, QLatin1Char('k'))),
                     QStringLiteral("value %1: the customer wrote that the parcel came back on the third try").arg(i));
    // A changed resubmission: the Payload diff tab shows too.
    const QJsonObject stored{ { u"amount"_s, 19900 }, { u"currency"_s, u"usd"_s }, { u"reason"_s, u"requested_by_customer"_s } };
    QJsonObject changed = stored;
    changed.insert(u"amount"_s, 20400);
    const QJsonArray conflicts{ QJsonObject{ { u"seq"_s, 1 }, { u"submitted_by"_s, u"returns-bot-with-a-long-name"_s },
                                             { u"at"_s, iso(Now.addSecs(-1800)) }, { u"stored_payload"_s, stored },
                                             { u"conflicting_payload"_s, changed } } };
    QJsonArray attempts;
    for (int i = 1; i <= 6; ++i)
        attempts.append(QJsonObject{ { u"action_id"_s, u"act_worstcase0000000000000001"_s }, { u"seq"_s, i },
                                     { u"idempotency_key"_s, u"csk_worstcase_v1"_s }, { u"request_fingerprint"_s, QString(64, QLatin1Char('f')) },
                                     { u"executor"_s, u"exec-eu-west-1-instance-7"_s }, { u"started_at"_s, iso(Now.addSecs(-3900 + 30 * i)) },
                                     { u"finished_at"_s, iso(Now.addSecs(-3890 + 30 * i)) }, { u"outcome"_s, u"unknown"_s },
                                     { u"http_status"_s, 0 }, { u"error_code"_s, u"timeout"_s }, { u"provider_request_id"_s, u""_s },
                                     { u"provider_object_id"_s, u""_s }, { u"replayed"_s, false },
                                     { u"error_excerpt"_s, u"no answer within 10 s (the connection was reset by the peer)"_s } });
    QJsonArray lookups;
    for (int i = 1; i <= 29; ++i)
        lookups.append(lookupJson(i, Now.addSecs(-3600 + 60 * i), u"ERROR"_s, 503,
                                  QStringLiteral(R"({ "error": { "message": "The service is temporarily unavailable; try again later", "type": "api_error" } })")));
    lookups.append(lookupJson(30, Now.addSecs(-60), u"FOUND"_s, 200, QString(), u"re_3QeWorstCase2Lm9xYz"_s, u"succeeded"_s, 19900));
    const QJsonObject refunded{ { u"id"_s, u"re_outside0000000000000001"_s }, { u"amount"_s, 3000 }, { u"status"_s, u"succeeded"_s },
                                { u"created"_s, iso(Now.addDays(-3)) }, { u"action_id"_s, u""_s } };
    const QJsonObject refunded2{ { u"id"_s, u"re_inside00000000000000002"_s }, { u"amount"_s, 4500 }, { u"status"_s, u"pending"_s },
                                 { u"created"_s, iso(Now.addSecs(-7200)) }, { u"action_id"_s, u"act_other000000000000000001"_s } };
    const QJsonObject snapshot{ { u"target_type"_s, u"charge"_s }, { u"target_id"_s, u"ch_3QeWorstCase0Kx8ab12"_s },
                                { u"charge_id"_s, u"ch_3QeWorstCase0Kx8ab12"_s }, { u"payment_intent_id"_s, u"pi_3QeWorstCase0Kx8cd34"_s },
                                { u"asked_by"_s, u"proposal"_s }, { u"read_at"_s, iso(Now.addSecs(-300)) }, { u"result"_s, u"FOUND"_s },
                                { u"http_status"_s, 200 }, { u"excerpt"_s, u""_s }, { u"amount"_s, 19900 }, { u"amount_captured"_s, 19900 },
                                { u"amount_refunded"_s, 7500 }, { u"currency"_s, u"usd"_s }, { u"created"_s, iso(Now.addDays(-212)) },
                                { u"payment_method_brand"_s, u"mastercard"_s }, { u"payment_method_last4"_s, u"4444"_s },
                                { u"disputed"_s, true }, { u"refunds"_s, QJsonArray{ refunded, refunded2 } }, { u"seq"_s, 4 } };
    QJsonArray warnings;
    for (const QString &code : { u"disputed"_s, u"over_half"_s, u"past_refund_window"_s, u"refunds_made"_s, u"exceeds_remaining"_s })
        warnings.append(QJsonObject{ { u"code"_s, code }, { u"text"_s, u"(the server's English sentence)"_s } });
    const QJsonObject reservation{ { u"action_id"_s, u"act_other000000000000000001"_s }, { u"amount"_s, 4500 },
                                   { u"requested_by"_s, u"returns-bot-with-a-long-name"_s }, { u"state"_s, u"EXECUTING"_s },
                                   { u"approved"_s, true } };
    const QJsonObject budget{ { u"known"_s, true }, { u"charge_id"_s, u"ch_3QeWorstCase0Kx8ab12"_s }, { u"currency"_s, u"usd"_s },
                              { u"captured"_s, 19900 }, { u"refunded_at_provider"_s, 7500 }, { u"reserved"_s, 4500 },
                              { u"available"_s, 7900 }, { u"reservations"_s, QJsonArray{ reservation } }, { u"read_at"_s, iso(Now) },
                              { u"snapshot_seq"_s, 4 }, { u"stage"_s, u"approval"_s }, { u"requested"_s, 19900 },
                              { u"requested_currency"_s, u"usd"_s }, { u"fits"_s, false } };
    const auto window = [](int days) {
        return QJsonObject{ { u"since"_s, iso(Now.addDays(-days)) }, { u"count"_s, 412 }, { u"rejected"_s, 37 }, { u"rejected_share"_s, 0.09 },
                            { u"sent_to_review"_s, 12 }, { u"sent_to_review_share"_s, 0.03 },
                            { u"totals"_s, QJsonArray{ QJsonObject{ { u"currency"_s, u"usd"_s }, { u"count"_s, 300 }, { u"amount"_s, 123456789 } },
                                                    QJsonObject{ { u"currency"_s, u"eur"_s }, { u"count"_s, 80 }, { u"amount"_s, 9876543 } },
                                                    QJsonObject{ { u"currency"_s, u"gbp"_s }, { u"count"_s, 32 }, { u"amount"_s, 4567890 } } } } };
    };
    const auto duplicate = [](const QString &id, const QString &same, int minutes) {
        return QJsonObject{ { u"id"_s, id }, { u"state"_s, u"COMPLETED"_s }, { u"state_version"_s, 5 }, { u"target"_s, QJsonObject{ { u"charge"_s, u"ch_3QeWorstCase0Kx8ab12"_s } } },
                            { u"amount"_s, 4500 }, { u"currency"_s, u"usd"_s }, { u"reason"_s, u"requested_by_customer"_s },
                            { u"business_reference"_s, u"order-8841277-return-and-exchange"_s }, { u"requested_by"_s, u"returns-bot-with-a-long-name"_s },
                            { u"approval_version"_s, 1 }, { u"created_at"_s, iso(Now.addSecs(-60 * minutes)) },
                            { u"updated_at"_s, iso(Now.addSecs(-60 * minutes)) }, { u"attempt_count"_s, 1 },
                            { u"last_event_at"_s, iso(Now.addSecs(-60 * minutes)) }, { u"relation"_s, u"possible_duplicate"_s },
                            { u"same"_s, same }, { u"sentence"_s, u"(the server's English sentence)"_s } };
    };
    const QJsonObject allowed{ { u"allowed"_s, true }, { u"reason"_s, u""_s } };
    const QJsonObject json{
        { u"id"_s, u"act_worstcase0000000000000001"_s }, { u"kind"_s, u"refund"_s }, { u"state"_s, state }, { u"state_version"_s, 12 },
        { u"target"_s, QJsonObject{ { u"charge"_s, u"ch_3QeWorstCase0Kx8ab12"_s } } }, { u"amount"_s, 19900 }, { u"currency"_s, u"usd"_s },
        { u"reason"_s, u"requested_by_customer"_s }, { u"business_reference"_s, u"order-8841277-return-and-exchange"_s },
        { u"provider"_s, u"paysim"_s }, { u"provider_account"_s, u"acct_eu_returns"_s }, { u"idempotency_key"_s, u"csk_worstcase_v1"_s },
        { u"request_fingerprint"_s, QString(64, QLatin1Char('f')) }, { u"approval_version"_s, 1 },
        { u"requested_by"_s, u"returns-bot-with-a-long-name"_s }, { u"client_reference"_s, u"return-8841277-take-2"_s },
        { u"parent_id"_s, u""_s },
        { u"review_reason"_s, QStringLiteral(R"(lookup failed: HTTP 503 { "error": { "message": "The service is temporarily unavailable; try again later", "type": "api_error" } })") },
        { u"key_window_ends_at"_s, iso(Now.addSecs(3600)) }, { u"created_at"_s, iso(Now.addSecs(-4000)) },
        { u"updated_at"_s, iso(Now.addSecs(-60)) }, { u"justification"_s, longJustification() },
        { u"context_url"_s, u"https://returns.example.com/rma/7994?customer=8841277&view=full&tab=history&with=notes-and-photos-of-the-parcel-as-received"_s },
        { u"facts"_s, facts }, { u"attempts"_s, attempts }, { u"lookups"_s, lookups }, { u"approvals"_s, QJsonArray{} },
        { u"reconciliations"_s, QJsonArray{} }, { u"audit"_s, QJsonArray{} }, { u"conflicts"_s, conflicts },
        { u"related"_s, QJsonObject{ { u"parent"_s, QJsonValue::Null }, { u"follow_ups"_s, QJsonArray{} },
                                  { u"possible_duplicates"_s, QJsonArray{ duplicate(u"act_dup000000000000000000001"_s, u"business_reference"_s, 45),
                                                                       duplicate(u"act_dup000000000000000000002"_s, u"charge"_s, 3000) } } } },
        { u"charge"_s, QJsonObject{ { u"snapshot"_s, snapshot }, { u"budget"_s, budget }, { u"warnings"_s, warnings } } },
        { u"requester_record"_s, QJsonObject{ { u"requested_by"_s, u"returns-bot-with-a-long-name"_s }, { u"today"_s, window(0) }, { u"week"_s, window(7) } } },
        { u"approvals_required"_s, 3 }, { u"approval_rule"_s, QJsonObject{ { u"policy_version"_s, 7 }, { u"rule_id"_s, u"large-refunds-need-three"_s } } },
        { u"approvals_given"_s, QJsonArray{ QJsonObject{ { u"approver"_s, u"ana"_s }, { u"signed_at"_s, iso(Now.addSecs(-600)) } } } },
        { u"permissions"_s, QJsonObject{ { u"approve"_s, allowed }, { u"reject"_s, allowed }, { u"lookup"_s, allowed }, { u"reconcile"_s, allowed },
                                      { u"follow_up"_s, allowed }, { u"close_settlement"_s, allowed }, { u"close_discrepancy"_s, allowed } } },
    };
    QString error;
    std::optional<ActionDetail> detail = ActionDetail::fromJson(json, &error);
    if (!detail)
        qFatal("worstDetail: %s", qPrintable(error));
    return *detail;
}

bool scrolls(const QWidget *w)
{
    const auto *area = w->parentWidget() ? qobject_cast<const QAbstractScrollArea *>(w->parentWidget()) : nullptr;
    return area && area->viewport() == w;
}

QString nameOf(const QWidget *w)
{
    QString name = QString::fromLatin1(w->metaObject()->className());
    if (!w->objectName().isEmpty())
        name += QLatin1Char('#') + w->objectName();
    return name;
}

QString plainText(const QLabel *label)
{
    if (label->textFormat() == Qt::PlainText)
        return label->text();
    QTextDocument doc;
    doc.setHtml(label->text());
    return doc.toPlainText();
}

// The problems of one window as it shows now, on `screen`.
QStringList layoutProblems(QWidget *window, const QRect &screen)
{
    QStringList problems;
    const QRect frame = window->frameGeometry();
    if (!screen.contains(window->geometry()))
        problems << QStringLiteral("the window %1 lies outside the screen %2 (it needs at least %3)")
                        .arg(QDebug::toString(frame), QDebug::toString(screen), QDebug::toString(window->minimumSizeHint()));
    const QList<QWidget *> widgets = window->findChildren<QWidget *>();
    for (QWidget *w : widgets) {
        if (!w->isVisibleTo(window) || w->width() <= 0 || w->height() <= 0)
            continue;
        const QString name = nameOf(w);
        // Cut by an ancestor that does not scroll.
        QRect visible(w->mapTo(window, QPoint(0, 0)), w->size());
        const QRect whole = visible;
        bool inScroll = false;
        for (QWidget *p = w->parentWidget(); p && p != window; p = p->parentWidget()) {
            if (scrolls(p)) {
                inScroll = true;
                break;
            }
            visible &= QRect(p->mapTo(window, QPoint(0, 0)), p->size());
        }
        if (!inScroll)
            visible &= window->rect();
        const bool carriesText = qobject_cast<QLabel *>(w) || qobject_cast<QAbstractButton *>(w) || qobject_cast<QTabBar *>(w);
        if (carriesText && visible != whole && !inScroll)
            problems << QStringLiteral("%1 is cut: %2 of %3 shows").arg(name, QDebug::toString(visible.size()), QDebug::toString(whole.size()));
        if (auto *label = qobject_cast<QLabel *>(w); label && !label->text().isEmpty()) {
            const QString text = plainText(label);
            if (label->wordWrap()) {
                const int needed = label->heightForWidth(label->width());
                if (needed > label->height() + 1)
                    problems << QStringLiteral("%1 is %2 px high, its text needs %3: \"%4\"")
                                    .arg(name).arg(label->height()).arg(needed).arg(text.left(80));
            } else if (label->sizeHint().width() > label->width() + 1) {
                problems << QStringLiteral("%1 is %2 px wide, its text needs %3: \"%4\"")
                                .arg(name).arg(label->width()).arg(label->sizeHint().width()).arg(text.left(80));
            }
            const int ellipsis = text.indexOf(QChar(0x2026));
            if (ellipsis >= 0 && ellipsis < text.trimmed().size() - 1 && label->toolTip().isEmpty())
                problems << QStringLiteral("%1 elides without a tooltip: \"%2\"").arg(name, text.left(80));
        }
        if (auto *button = qobject_cast<QAbstractButton *>(w); button && !button->text().isEmpty()
            && button->sizeHint().width() > button->width() + 1)
            problems << QStringLiteral("%1 \"%2\" is %3 px wide, its text needs %4")
                            .arg(name, button->text()).arg(button->width()).arg(button->sizeHint().width());
        if (auto *tabs = qobject_cast<QTabBar *>(w)) {
            for (int i = 0; i < tabs->count(); ++i) {
                if (!tabs->isTabVisible(i))
                    continue;
                const QRect r = tabs->tabRect(i);
                const int needed = tabs->fontMetrics().horizontalAdvance(tabs->tabText(i).remove(QLatin1Char('&')));
                if (r.right() > tabs->width() || r.width() < needed)
                    problems << QStringLiteral("%1: tab \"%2\" does not show whole").arg(name, tabs->tabText(i));
            }
        }
        if (auto *table = qobject_cast<QTableView *>(w); table && table->model()) {
            // Room for five rows, or for all of them in a table sized to its rows.
            const int rows = table->model()->rowCount();
            const int rowHeight = std::max(1, table->verticalHeader()->defaultSectionSize());
            const int room = table->viewport()->height() / rowHeight;
            const bool fitted = table->sizePolicy().verticalPolicy() == QSizePolicy::Fixed && room >= rows;
            if (room < 5 && !fitted)
                problems << QStringLiteral("%1 has room for %2 rows (%3 to show; at least five, or all)").arg(name).arg(room).arg(rows);
            // A cell may elide (ids in narrow columns) only with its whole text in the tooltip.
            QHeaderView *header = table->horizontalHeader();
            QStyleOptionViewItem option;
            option.font = table->font();
            option.fontMetrics = table->fontMetrics();
            for (int row = 0; row < std::min(rows, 40); ++row) {
                for (int c = 0; c < table->model()->columnCount(); ++c) {
                    if (header->isSectionHidden(c) || table->columnWidth(c) <= 0)
                        continue;
                    const QModelIndex cell = table->model()->index(row, c);
                    const QString text = cell.data(Qt::DisplayRole).toString();
                    if (text.isEmpty() || table->wordWrap())
                        continue;
                    const int needed = table->itemDelegateForIndex(cell)->sizeHint(option, cell).width();
                    if (needed > table->columnWidth(c) + 1 && cell.data(Qt::ToolTipRole).toString().isEmpty())
                        problems << QStringLiteral("%1: cell (%2, \"%3\") elides \"%4\" without a tooltip")
                                        .arg(name).arg(row)
                                        .arg(table->model()->headerData(c, Qt::Horizontal).toString(), text.left(60));
                }
            }
            for (int c = 0; c < table->model()->columnCount() && header->isVisible(); ++c) {
                if (header->isSectionHidden(c) || header->sectionSize(c) <= 0)
                    continue;
                const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
                const int needed = header->fontMetrics().horizontalAdvance(title) + 8;
                const int right = header->sectionViewportPosition(c) + header->sectionSize(c);
                if (header->sectionSize(c) < needed && right <= header->viewport()->width())
                    problems << QStringLiteral("%1: column \"%2\" is %3 px, its title needs %4")
                                    .arg(name, title).arg(header->sectionSize(c)).arg(needed);
            }
        }
    }
    // Buttons on the screen (a dialog's confirm and cancel above all).
    for (QAbstractButton *b : window->findChildren<QAbstractButton *>()) {
        if (!b->isVisibleTo(window) || qobject_cast<QTabBar *>(b->parentWidget()))
            continue;
        const QRect global(b->mapToGlobal(QPoint(0, 0)), b->size());
        if (!screen.contains(global))
            problems << QStringLiteral("%1 \"%2\" lies off the screen").arg(nameOf(b), b->text());
    }
    // A dialog's warnings first and whole, without scrolling.
    if (auto *warnings = window->findChild<WarningList *>(QStringLiteral("dialogWarnings")); warnings && warnings->isVisibleTo(window)) {
        auto *body = window->findChild<QScrollArea *>(QStringLiteral("dialogBody"));
        const QRect inViewport(warnings->mapTo(body->viewport(), QPoint(0, 0)), warnings->size());
        if (body->verticalScrollBar()->value() != 0 || !body->viewport()->rect().contains(inViewport))
            problems << QStringLiteral("the warnings do not show whole at the top: %1 in a viewport of %2")
                            .arg(QDebug::toString(inViewport), QDebug::toString(body->viewport()->rect()));
    }
    return problems;
}

} // namespace

class TestLayout : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void dialogs_data();
    void dialogs();
    void mainWindow_data();
    void mainWindow();
    void bannersNeverMoveTheTabsUnderThePointer();

private:
    void setLanguage(const QString &language);
    QScreen *screenOfSize(const QSize &size);
    QStringList check(QWidget *window, QScreen *screen, const QString &picture = QString());
};

void TestLayout::initTestCase()
{
    // The sizes are measured in the fonts scripts/install-deps.sh installs (fonts-dejavu-core): with
    // another font the figures would not be the ones CI checks.
    const QString family = QFontInfo(QApplication::font()).family();
    QVERIFY2(family.startsWith(QLatin1String("DejaVu Sans")), qPrintable(QStringLiteral("the console's font is %1, not DejaVu Sans "
                                                                                        "(bash scripts/install-deps.sh)").arg(family)));
}

void TestLayout::setLanguage(const QString &language)
{
    for (QTranslator *t : qApp->findChildren<QTranslator *>()) {
        QCoreApplication::removeTranslator(t);
        delete t;
    }
    const ConsoleTranslations installed = installConsoleTranslations(QLocale(language == QLatin1String("de") ? u"de_DE"_s : u"en_US"_s));
    if (language == QLatin1String("de"))
        QVERIFY(installed.console);
}

QScreen *TestLayout::screenOfSize(const QSize &size)
{
    for (QScreen *s : QGuiApplication::screens()) {
        if (s->geometry().size() == size)
            return s;
    }
    qFatal("no screen of %dx%d: the offscreen configuration was not read", size.width(), size.height());
}

QStringList TestLayout::check(QWidget *window, QScreen *screen, const QString &picture)
{
    // TST_LAYOUT_SHOTS=DIR: also save a picture of each window as the test sees it, named after the
    // data row (and `picture`): scripts/screenshots.sh takes docs/screenshot-*-1366.png from them.
    if (const QString dir = qEnvironmentVariable("TST_LAYOUT_SHOTS"); !dir.isEmpty())
        window->grab().save(QDir(dir).filePath(QString::fromLatin1(QTest::currentDataTag()) + picture + QStringLiteral(".png")));
    return layoutProblems(window, screen->availableGeometry());
}

using DialogMaker = std::function<QDialog *(QWidget *parent)>;
Q_DECLARE_METATYPE(DialogMaker)

void TestLayout::dialogs_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QSize>("screen");
    QTest::addColumn<DialogMaker>("make");
    const QList<QPair<const char *, DialogMaker>> dialogs = {
        { "approve", [](QWidget *p) {
             auto *d = new ApproveDialog(worstDetail(QStringLiteral("PENDING")), p);
             return d;
         } },
        { "approve-fresh-read", [](QWidget *p) {
             ActionDetail detail = worstDetail(QStringLiteral("PENDING"));
             const ChargeView view = *detail.charge;
             detail.charge.reset();
             auto *d = new ApproveDialog(detail, p);
             d->setChargeReading();
             QTimer::singleShot(0, d, [d, view] { d->setChargeRead(view); });
             return d;
         } },
        { "reject", [](QWidget *p) { return new RejectDialog(worstDetail(QStringLiteral("PENDING")), p); } },
        { "lookup", [](QWidget *p) {
             const ActionDetail detail = worstDetail(QStringLiteral("REQUIRES_REVIEW"));
             auto *d = new LookupDialog(detail, p);
             d->showResult(detail.lookups.first(), detail.record);
             return d;
         } },
        { "reconcile", [](QWidget *p) { return new ReconcileDialog(worstDetail(QStringLiteral("REQUIRES_REVIEW")), p); } },
        { "follow-up", [](QWidget *p) {
             const ActionDetail detail = worstDetail(QStringLiteral("COMPLETED"));
             return new FollowUpDialog(detail, FollowUpPlan::compute(detail), p);
         } },
        { "close-settlement", [](QWidget *p) { return new SettlementCloseDialog(worstDetail(QStringLiteral("COMPLETED")), p); } },
        { "close-discrepancy", [](QWidget *p) { return new DiscrepancyCloseDialog(worstDetail(QStringLiteral("COMPLETED")), p); } },
        { "pause", [](QWidget *p) { return new PauseDialog(p); } },
        { "resume", [](QWidget *p) {
             QList<ExecutionPause> pauses;
             for (int i = 0; i < 6; ++i) {
                 ExecutionPause pause;
                 pause.id = QStringLiteral("pau_%1").arg(i);
                 pause.scope = i % 2 ? ExecutionPause::Scope::Agent : ExecutionPause::Scope::All;
                 pause.agent = i % 2 ? QStringLiteral("returns-bot-with-a-long-name") : QString();
                 pause.reason = QStringLiteral("The provider reported an incident affecting refunds in the EU region; "
                                               "hold everything until their status page is green again (%1).").arg(i);
                 pause.pausedBy = QStringLiteral("sue");
                 pause.pausedAt = Now.addSecs(-600 * i);
                 pauses << pause;
             }
             return new ResumeDialog(pauses, p);
         } },
        { "bulk-approve", [](QWidget *p) {
             auto *d = new BulkDecisionDialog(QStringLiteral("approve"), p);
             QStringList ids;
             for (int i = 0; i < 12; ++i)
                 ids << QStringLiteral("act_bulk%1").arg(i, 20, 10, QLatin1Char('0'));
             d->model()->setActions(ids);
             const ActionDetail detail = worstDetail(QStringLiteral("PENDING"));
             QStringList warnings;
             for (const WarningLine &w : ApproveDialog::duplicateWarnings(detail, Now) + ChargeStoryView::warningLines(*detail.charge, Now))
                 warnings << w.text;
             for (int i = 0; i < ids.size(); ++i) {
                 ActionRecord r = detail.record;
                 r.id = ids.at(i);
                 r.amount = 1000 + 777 * i;
                 d->model()->setRecord(i, r);
                 d->model()->setContext(i, i % 3 ? QStringList() : warnings, r.justification);
                 d->model()->setStatus(i, BulkDecisionModel::Status::Ready);
             }
             return d;
         } },
        { "bulk-reject", [](QWidget *p) {
             auto *d = new BulkDecisionDialog(QStringLiteral("reject"), p);
             d->model()->setActions({ QStringLiteral("act_bulk1"), QStringLiteral("act_bulk2") });
             return d;
         } },
        { "connection", [](QWidget *p) { return new ConnectionDialog(p); } },
    };
    for (const char *language : { "en", "de" }) {
        for (const QSize &screen : { QSize(1366, 768), QSize(1920, 1080) }) {
            for (const auto &[name, make] : dialogs)
                QTest::addRow("%s-%s-%dx%d", name, language, screen.width(), screen.height())
                    << QString::fromLatin1(language) << screen << make;
        }
    }
}

void TestLayout::dialogs()
{
    QFETCH(QString, language);
    QFETCH(QSize, screen);
    QFETCH(DialogMaker, make);
    setLanguage(language);
    QScreen *s = screenOfSize(screen);
    QWidget parent;
    parent.setScreen(s);
    parent.setGeometry(QRect(s->availableGeometry().topLeft() + QPoint(20, 40), s->availableGeometry().size() - QSize(40, 80)));
    parent.show();
    QVERIFY(QTest::qWaitForWindowExposed(&parent));
    std::unique_ptr<QDialog> dialog(make(&parent));
    dialog->setAttribute(Qt::WA_DeleteOnClose, false);
    dialog->show();
    QVERIFY(QTest::qWaitForWindowExposed(dialog.get()));
    QTest::qWait(50); // a fresh read answers on the next turn of the event loop
    QCoreApplication::processEvents();
    // A decision dialog's title names what it acts on: the amount, the order and the agent.
    if (qobject_cast<DecisionDialog *>(dialog.get())) {
        for (const char *part : { "199.00 USD", "order-8841277-return-and-exchange", "returns-bot-with-a-long-name" })
            QVERIFY2(dialog->windowTitle().contains(QLatin1String(part)), qPrintable(dialog->windowTitle()));
    }
    const QStringList problems = check(dialog.get(), s);
    if (!problems.isEmpty())
        QFAIL(qPrintable(QStringLiteral("%1 problem(s) in %2 (%3x%4):\n  ")
                             .arg(problems.size())
                             .arg(dialog->objectName())
                             .arg(dialog->width())
                             .arg(dialog->height())
                         + problems.join(QStringLiteral("\n  "))));
}

void TestLayout::mainWindow_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QSize>("screen");
    for (const char *language : { "en", "de" }) {
        for (const QSize &screen : { QSize(1366, 768), QSize(1920, 1080) })
            QTest::addRow("%s-%dx%d", language, screen.width(), screen.height()) << QString::fromLatin1(language) << screen;
    }
}

void TestLayout::mainWindow()
{
    QFETCH(QString, language);
    QFETCH(QSize, screen);
    setLanguage(language);
    QScreen *s = screenOfSize(screen);
    QTemporaryDir dir;
    ApiClient client;
    client.setBaseUrl(QUrl(QStringLiteral("http://127.0.0.1:9")));
    EventStreamClient events;
    events.setBaseUrl(QUrl(QStringLiteral("http://127.0.0.1:9")));
    ConsoleSettings settings(dir.filePath(QStringLiteral("console.ini")));
    MainWindow window(&client, &events, &settings);
    window.setScreen(s); // at its default size there: nothing saved, nothing asked for
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *pane = window.findChild<ActionDetailPane *>();
    QVERIFY(pane);
    auto *tabs = pane->findChild<QTabWidget *>();
    QVERIFY(tabs);
    for (const char *state : { "PENDING", "REQUIRES_REVIEW" }) {
        pane->setDetail(worstDetail(QString::fromLatin1(state)));
        // Every tab of the detail pane, as a person opens it.
        for (int tab = 0; tab < tabs->count(); ++tab) {
            if (!tabs->isTabVisible(tab))
                continue;
            tabs->setCurrentIndex(tab);
            QCoreApplication::processEvents();
            const QStringList problems = check(&window, s, QStringLiteral("-window-%1-%2").arg(QString::fromLatin1(state).toLower()).arg(tab));
            if (!problems.isEmpty())
                QFAIL(qPrintable(QStringLiteral("%1 problem(s) in the main window showing a %2 action, tab \"%3\":\n  ")
                                     .arg(problems.size())
                                     .arg(QString::fromLatin1(state), tabs->tabText(tab))
                                 + problems.join(QStringLiteral("\n  "))));
        }
    }
}

// News of the shown action (here: it needs review, and its banner appears above the tabs) grows
// the room above the tabs only once the pointer has left them; the room does not
// shrink back while the same action is shown; another action starts afresh.
void TestLayout::bannersNeverMoveTheTabsUnderThePointer()
{
    setLanguage(QStringLiteral("en"));
    ActionDetailPane pane;
    pane.resize(760, 700);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    ActionDetail quiet = worstDetail(QStringLiteral("PENDING"));
    pane.setDetail(quiet);
    QCoreApplication::processEvents();
    auto *tabs = pane.findChild<QTabWidget *>(QStringLiteral("detailTabs"));
    QTabBar *bar = tabs->tabBar();
    const auto barTop = [bar] { return bar->mapTo(bar->window(), QPoint(0, 0)).y(); };
    const int before = barTop();

    ActionDetail news = worstDetail(QStringLiteral("REQUIRES_REVIEW")); // the same action, now to review
    QTest::mouseMove(bar, bar->tabRect(1).center());
    QTRY_VERIFY(bar->underMouse());
    pane.setDetail(news);
    QCoreApplication::processEvents();
    QCOMPARE(barTop(), before); // the pointer is on the tabs: they stay where they are
    QTest::mouseMove(pane.findChild<QLabel *>(QStringLiteral("detailTitle")), QPoint(5, 5));
    QTRY_VERIFY(!bar->underMouse());
    QTRY_VERIFY2(barTop() > before, qPrintable(QString::number(barTop()))); // then the reasons get their room
    QVERIFY(pane.findChild<QWidget *>(QStringLiteral("reviewBanner"))->isVisible());
    const int grown = barTop();

    pane.setDetail(quiet); // the banner goes: the room stays, nothing jumps up
    QCoreApplication::processEvents();
    QCOMPARE(barTop(), grown);

    ActionDetail other = quiet;
    other.record.id = QStringLiteral("act_another000000000000000001");
    pane.setDetail(other); // another action: as it needs
    QTRY_COMPARE(barTop(), before);
}

static void initResources()
{
    Q_INIT_RESOURCE(countersign);
}

int main(int argc, char *argv[])
{
    // Two screens side by side: the sizes of a small laptop and of a common desktop monitor.
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screens.json"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly))
        return 2;
    const auto screen = [](const QString &name, int x, int w, int h) {
        return QJsonObject{ { u"name"_s, name }, { u"x"_s, x }, { u"y"_s, 0 }, { u"width"_s, w }, { u"height"_s, h }, { u"logicalDpi"_s, 96 },
                            { u"logicalBaseDpi"_s, 96 }, { u"dpr"_s, 1 } };
    };
    file.write(QJsonDocument(QJsonObject{ { u"screens"_s, QJsonArray{ screen(u"laptop"_s, 0, 1366, 768), screen(u"desktop"_s, 1366, 1920, 1080) } } })
                   .toJson());
    file.close();
    qputenv("QT_QPA_PLATFORM", (u"offscreen:configfile="_s + config).toLocal8Bit());
    qputenv("QT_QPA_PLATFORMTHEME", "");
    QApplication app(argc, argv);
    initResources();
    TestLayout test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_layout.moc"
