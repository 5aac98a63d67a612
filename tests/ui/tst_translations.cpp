// The console in German (issue 17): resources/translations/countersign_de.ts is complete, and the
// main window, the dialogs reachable from it and the demo console's menus and docks, built under
// the German translation against a real countersignd and paysim, show no English source text.
//
// Two nets catch an untranslated string. The walk reads every text a person can see (labels,
// buttons, menus and actions, tool and status tips, placeholders, window titles, tab titles, item
// views' headers and cells, accessible names) and compares it with the English sources of the .ts
// (placeholders stand for anything, accelerators and markup are dropped). The MissRecorder, a
// translator asked last, records every message of the console's own contexts that no .qm knew:
// a new tr() string nobody has run lupdate for, or a context lupdate files differently from the code.

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "demo/console/democontroller.h"
#include "demo/demostack.h"
#include "models/actionqueuemodel.h"
#include "models/audittablemodel.h"
#include "models/chargerefundmodel.h"
#include "models/lookuptablemodel.h"
#include "models/settlementhistorymodel.h"
#include "tests/client/backendprocess.h"
#include "tests/support/quietoffscreen.h"
#include "tests/ui/testconsole.h"
#include "ui/actiondetailpane.h"
#include "ui/bulkdecisioncontroller.h"
#include "ui/chargecontroller.h"
#include "ui/chargewindow.h"
#include "ui/consolesettings.h"
#include "ui/consoletranslations.h"
#include "ui/decisioncontroller.h"
#include "ui/decisiondialog.h"
#include "ui/executioncontroller.h"
#include "ui/executiondialog.h"
#include "ui/exportcontroller.h"
#include "ui/mainwindow.h"
#include "ui/queueview.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractProxyModel>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMutex>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocumentFragment>
#include <QTextEdit>
#include <QTimer>
#include <QTranslator>
#include <QXmlStreamReader>

using namespace cs;
using cs::test::TestConsole;
using cs::test::child;
using namespace std::chrono_literals;

namespace {

// Asked last (installed first): records what the console's own contexts asked for and no .qm knew.
class MissRecorder : public QTranslator
{
public:
    bool isEmpty() const override { return false; }
    QString translate(const char *context, const char *source, const char *disambiguation, int n) const override
    {
        Q_UNUSED(disambiguation);
        Q_UNUSED(n);
        const QByteArray ctx(context);
        if (source && *source && (ctx.startsWith("cs::") || ctx == "main")) {
            QMutexLocker lock(&m_mutex);
            m_misses.insert(QString::fromUtf8(ctx) + QStringLiteral(": ") + QString::fromUtf8(source));
        }
        return QString();
    }
    QStringList misses() const
    {
        QMutexLocker lock(&m_mutex);
        QStringList list(m_misses.cbegin(), m_misses.cend());
        list.sort();
        return list;
    }

private:
    mutable QMutex m_mutex;
    mutable QSet<QString> m_misses;
};

// "&Approve…" -> "Approve…", "<b>Lookup</b><br>x" -> "Lookup\nx"; "&&" stays one "&".
QString plain(QString text)
{
    static const QRegularExpression accelerator(QStringLiteral("&(?!(?:nbsp|amp|lt|gt|quot|#\\d+);)(.)"));
    text.replace(accelerator, QStringLiteral("\\1"));
    if (text.contains(QLatin1Char('<')) && Qt::mightBeRichText(text))
        text = QTextDocumentFragment::fromHtml(text).toPlainText();
    text.replace(QChar::Nbsp, QLatin1Char(' '));
    return text;
}

QStringList linesOf(const QString &text)
{
    QStringList lines;
    const QString p = plain(text);
    lines << p.simplified();
    const QStringList parts = p.split(QRegularExpression(QStringLiteral("[\\n\\x{2029}\\x{2028}]")), Qt::SkipEmptyParts);
    if (parts.size() > 1)
        for (const QString &line : parts)
            lines << line.simplified();
    lines.removeAll(QString());
    return lines;
}

const QRegularExpression &placeholder()
{
    static const QRegularExpression re(QStringLiteral("%L?(?:\\d|n)"));
    return re;
}

// The English sources of countersign_de.ts whose German differs, as texts and as patterns.
struct Catalogue
{
    QSet<QString> texts;
    QList<QPair<QRegularExpression, QString>> patterns; // the pattern, and the source it came from
    int messages = 0;
    QStringList problems; // unfinished, obsolete, empty or placeholder-changing translations

    // The source an English text shown on screen is, or an empty string.
    QString englishSourceOf(const QString &line) const
    {
        if (texts.contains(line))
            return line;
        for (const auto &[pattern, source] : patterns)
            if (pattern.match(line).hasMatch())
                return source;
        return QString();
    }
};

QStringList placeholdersOf(const QString &text)
{
    QStringList found;
    for (auto it = placeholder().globalMatch(text); it.hasNext();)
        found << it.next().captured();
    found.sort();
    return found;
}

Catalogue readCatalogue(const QString &path)
{
    Catalogue c;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        c.problems << QStringLiteral("cannot open %1").arg(path);
        return c;
    }
    QXmlStreamReader xml(&file);
    QString context, source, type;
    QStringList forms;
    bool numerus = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            if (xml.name() == QLatin1String("name"))
                context = xml.readElementText();
            else if (xml.name() == QLatin1String("message")) {
                numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
                forms.clear();
                type.clear();
            } else if (xml.name() == QLatin1String("source"))
                source = xml.readElementText();
            else if (xml.name() == QLatin1String("translation")) {
                type = xml.attributes().value(QLatin1String("type")).toString();
                if (!numerus)
                    forms << xml.readElementText();
            } else if (xml.name() == QLatin1String("numerusform"))
                forms << xml.readElementText();
        } else if (xml.isEndElement() && xml.name() == QLatin1String("message")) {
            ++c.messages;
            const QString where = context + QStringLiteral(": ") + source;
            if (!type.isEmpty())
                c.problems << QStringLiteral("%1 (%2)").arg(where, type);
            if (forms.isEmpty() || forms.contains(QString()) || (numerus && forms.size() < 2))
                c.problems << QStringLiteral("%1 (no translation)").arg(where);
            for (const QString &form : std::as_const(forms))
                if (!form.isEmpty() && placeholdersOf(form) != placeholdersOf(source))
                    c.problems << QStringLiteral("%1 (placeholders differ: %2)").arg(where, form);
            const QString text = plain(source).simplified();
            if (forms.size() == 1 && plain(forms.first()).simplified() == text)
                continue; // the same in both languages ("OK", "Status", "%1 (%2)", "&Demo" and "De&mo")
            if (!text.contains(placeholder())) {
                c.texts.insert(text);
                continue;
            }
            // Only a pattern with two words of its own: "#%1 %2" would match anything, and "agent %1"
            // the role switcher's "agent (refund-bot)" (a role is a wire name).
            const QStringList literal = text.split(placeholder());
            static const QRegularExpression word(QStringLiteral("[A-Za-z]{2,}"));
            int words = 0;
            for (auto it = word.globalMatch(literal.join(QLatin1Char(' '))); it.hasNext(); it.next())
                ++words;
            if (words < 2)
                continue;
            QStringList escaped;
            for (const QString &part : literal)
                escaped << QRegularExpression::escape(part);
            c.patterns.append({ QRegularExpression(QLatin1Char('^') + escaped.join(QStringLiteral("(.+)")) + QLatin1Char('$'),
                                                   QRegularExpression::DotMatchesEverythingOption),
                                source });
        }
    }
    if (xml.hasError())
        c.problems << QStringLiteral("%1: %2").arg(path, xml.errorString());
    return c;
}

struct Shown
{
    QString where;
    QString text;
};

QString nameOf(const QObject *o)
{
    QString name = QString::fromLatin1(o->metaObject()->className());
    if (!o->objectName().isEmpty())
        name += QLatin1Char('#') + o->objectName();
    return name;
}

void addAction(QAction *a, const QString &where, QList<Shown> &out)
{
    const QString w = where + QStringLiteral(" > action ") + nameOf(a);
    for (const QString &t : { a->text(), a->iconText(), a->toolTip(), a->statusTip(), a->whatsThis() })
        if (!t.isEmpty())
            out.append({ w, t });
}

void addModel(const QAbstractItemView *view, const QString &where, QList<Shown> &out)
{
    const QAbstractItemModel *m = view->model();
    if (!m)
        return;
    for (int col = 0; col < m->columnCount(); ++col)
        for (int role : { int(Qt::DisplayRole), int(Qt::ToolTipRole) }) {
            const QString t = m->headerData(col, Qt::Horizontal, role).toString();
            if (!t.isEmpty())
                out.append({ where + QStringLiteral(" > header %1").arg(col), t });
        }
    // Data, not the console's words: the audit log's event names are wire names (like PENDING) and
    // its reasons the backend's own sentences; a refund's status is the provider's ("succeeded").
    const QAbstractItemModel *base = m; // behind a sorting proxy: the columns are the model's
    while (auto *proxy = qobject_cast<const QAbstractProxyModel *>(base))
        base = proxy->sourceModel();
    const bool audit = qobject_cast<const AuditTableModel *>(base);
    const bool lookups = qobject_cast<const LookupTableModel *>(base);
    const bool refunds = qobject_cast<const ChargeRefundModel *>(base);
    // Issue 18: a settlement's statuses, failure reasons and evidence are the provider's and the ledger's.
    const bool settlement = qobject_cast<const SettlementHistoryModel *>(base);
    const auto isData = [audit, lookups, refunds, settlement](int col) {
        return (audit && (col == AuditTableModel::EventColumn || col == AuditTableModel::ReasonColumn))
            || (lookups && col == LookupTableModel::StatusColumn) || (refunds && col == ChargeRefundModel::StatusColumn)
            || (settlement && (col == SettlementHistoryModel::ChangeColumn || col == SettlementHistoryModel::FailureReasonColumn
                               || col == SettlementHistoryModel::EvidenceColumn));
    };
    for (int row = 0; row < qMin(m->rowCount(), 40); ++row)
        for (int col = 0; col < m->columnCount(); ++col)
            if (!isData(col))
                for (int role : { int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::AccessibleTextRole) }) {
                const QVariant v = m->index(row, col).data(role);
                if (v.typeId() == QMetaType::QString && !v.toString().isEmpty())
                    out.append({ where + QStringLiteral(" > cell %1,%2").arg(row).arg(col), v.toString() });
            }
}

// Every text of every widget of the application, and of the actions they carry.
QList<Shown> everythingShown()
{
    QList<Shown> out;
    QSet<QAction *> actions;
    const QWidgetList widgets = QApplication::allWidgets();
    for (QWidget *w : widgets) {
        const QString where = (w->window() && w->window() != w ? nameOf(w->window()) + QStringLiteral(" > ") : QString()) + nameOf(w);
        const auto add = [&](const QString &t) {
            if (!t.isEmpty())
                out.append({ where, t });
        };
        if (w->isWindow())
            add(w->windowTitle());
        add(w->toolTip());
        add(w->statusTip());
        add(w->whatsThis());
        add(w->accessibleName());
        add(w->accessibleDescription());
        if (auto *l = qobject_cast<QLabel *>(w))
            add(l->text());
        if (auto *b = qobject_cast<QAbstractButton *>(w))
            add(b->text());
        if (auto *g = qobject_cast<QGroupBox *>(w))
            add(g->title());
        if (auto *e = qobject_cast<QLineEdit *>(w))
            add(e->placeholderText());
        if (auto *e = qobject_cast<QPlainTextEdit *>(w))
            add(e->placeholderText());
        if (auto *e = qobject_cast<QTextEdit *>(w)) {
            add(e->placeholderText());
            add(e->toPlainText());
        }
        if (auto *s = qobject_cast<QAbstractSpinBox *>(w))
            add(s->specialValueText());
        if (auto *d = qobject_cast<QDockWidget *>(w))
            add(d->windowTitle());
        if (auto *m = qobject_cast<QMenu *>(w))
            add(m->title());
        if (auto *bar = qobject_cast<QStatusBar *>(w))
            add(bar->currentMessage());
        if (auto *c = qobject_cast<QComboBox *>(w))
            for (int i = 0; i < c->count(); ++i)
                add(c->itemText(i));
        if (auto *t = qobject_cast<QTabBar *>(w))
            for (int i = 0; i < t->count(); ++i) {
                add(t->tabText(i));
                add(t->tabToolTip(i));
            }
        if (auto *v = qobject_cast<QAbstractItemView *>(w); v && !qobject_cast<QHeaderView *>(w)) // a header shows its view's model
            addModel(v, where, out);
        for (QAction *a : w->actions())
            actions.insert(a);
        for (QAction *a : w->findChildren<QAction *>(Qt::FindDirectChildrenOnly))
            actions.insert(a);
    }
    for (QAction *a : std::as_const(actions))
        addAction(a, QStringLiteral("actions"), out);
    return out;
}

// Within one menu (or the menu bar) every accelerator letter is used once.
QStringList clashingAccelerators()
{
    QStringList clashes;
    static const QRegularExpression accel(QStringLiteral("&([^&\\s])"));
    for (QWidget *w : QApplication::allWidgets()) {
        if (!qobject_cast<QMenu *>(w) && !qobject_cast<QMenuBar *>(w))
            continue;
        QMap<QString, QString> seen;
        for (QAction *a : w->actions()) {
            if (a->isSeparator() || !a->isVisible())
                continue;
            const QString text = QString(a->text()).replace(QStringLiteral("&&"), QString());
            const QRegularExpressionMatch m = accel.match(text);
            if (!m.hasMatch())
                continue;
            const QString key = m.captured(1).toLower();
            if (seen.contains(key))
                clashes << QStringLiteral("%1: \"%2\" and \"%3\" both use %4").arg(nameOf(w), seen.value(key), a->text(), key);
            seen.insert(key, a->text());
        }
    }
    return clashes;
}

} // namespace

// verifyAllGerman() and out of the test function when it failed.
#define VERIFY_GERMAN(step)                                                                                                 \
    do {                                                                                                                    \
        verifyAllGerman(step);                                                                                              \
        if (QTest::currentTestFailed())                                                                                     \
            return;                                                                                                         \
    } while (false)

class TestTranslations : public QObject
{
    Q_OBJECT

private:
    MissRecorder m_misses;
    Catalogue m_catalogue;
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    QStringList m_charges;
    int m_next = 0;
    int m_textsChecked = 0;

    QString nextCharge() { return m_charges.at(m_next++ % m_charges.size()); }
    QString nextRef(const char *what) { return QStringLiteral("%1-%2").arg(QLatin1String(what)).arg(++m_next); }

    // Fails, naming each one, when a text on screen is an English source or the console asked for
    // a message no translation knew.
    void verifyAllGerman(const char *step)
    {
        // The recorder first: it names the context and the source.
        const QStringList misses = m_misses.misses();
        QVERIFY2(misses.isEmpty(), qPrintable(QStringLiteral("%1: no German for:\n  ").arg(QLatin1String(step))
                                              + misses.join(QStringLiteral("\n  "))));
        QStringList english;
        const QList<Shown> shown = everythingShown();
        for (const Shown &s : shown)
            for (const QString &line : linesOf(s.text)) {
                ++m_textsChecked;
                const QString source = m_catalogue.englishSourceOf(line);
                if (!source.isEmpty())
                    english << QStringLiteral("%1: \"%2\" (the source \"%3\")").arg(s.where, line, source);
            }
        english.removeDuplicates();
        QVERIFY2(english.isEmpty(), qPrintable(QStringLiteral("%1: English on screen:\n  ").arg(QLatin1String(step))
                                               + english.join(QStringLiteral("\n  "))));
        const QStringList clashes = clashingAccelerators();
        QVERIFY2(clashes.isEmpty(), qPrintable(QStringLiteral("%1: accelerators clash:\n  ").arg(QLatin1String(step))
                                               + clashes.join(QStringLiteral("\n  "))));
    }

    std::unique_ptr<TestConsole> open(const QString &user)
    {
        auto console = std::make_unique<TestConsole>(m_backend.url(), m_backend.token(user),
                                                 m_dir.filePath(user + QString::number(++m_next) + QStringLiteral(".ini")));
        console->showAndSignIn();
        return console;
    }

    void select(TestConsole &c, const QString &id)
    {
        c.window->queueView()->apply(QueueView::Filter::All, QString());
        QTRY_VERIFY_WITH_TIMEOUT(c.window->queueModel()->rowOf(id) >= 0, 10000);
        c.window->selectAction(id);
        QTRY_VERIFY_WITH_TIMEOUT(c.window->detailPane()->hasDetail() && c.window->detailPane()->detail().record.id == id, 10000);
    }

    // Triggers `action`, which runs a modal dialog (exec()), checks the dialog and closes it.
    void verifyModal(QAction *action, const char *step)
    {
        QVERIFY(action);
        bool seen = false;
        QTimer::singleShot(0, this, [this, &seen, step] {
            QWidget *modal = QApplication::activeModalWidget();
            if (!modal)
                return;
            seen = true;
            verifyAllGerman(step);
            if (auto *dialog = qobject_cast<QDialog *>(modal))
                dialog->reject();
        });
        action->trigger();
        QVERIFY2(seen, step);
    }

    DecisionDialog *openDecision(TestConsole &c, const char *kind)
    {
        QAction *action = c.window->decisionAction(QString::fromLatin1(kind));
        if (!action || !QTest::qWaitFor([action] { return action->isEnabled(); }, 10000))
            return nullptr;
        action->trigger();
        return c.window->decisions()->openDialog();
    }

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
        QVERIFY(m_dir.isValid());
        QVERIFY(QCoreApplication::installTranslator(&m_misses));
        const ConsoleTranslations loaded = installConsoleTranslations(QLocale(QLocale::German, QLocale::Germany));
        QCOMPARE(loaded.language, QStringLiteral("de"));
        QVERIFY2(loaded.console, "the embedded :/i18n/countersign_de.qm did not load");
        QVERIFY2(loaded.qt, "no qtbase_de.qm in QLibraryInfo::TranslationsPath: install qt6-translations-l10n (scripts/install-deps.sh)");
        m_catalogue = readCatalogue(QStringLiteral(COUNTERSIGN_TS_FILE));
        QVERIFY(m_catalogue.messages > 500);
        QVERIFY2(m_backend.start(40), qPrintable(m_backend.error()));
        m_charges = m_backend.charges();
    }

    void cleanupTestCase()
    {
        qInfo("%d texts on screen checked against %d messages", m_textsChecked, m_catalogue.messages);
        m_backend.stop();
    }

    // The .ts as lupdate left it and a translator finished it: what lrelease would call unfinished,
    // obsolete or empty, and translations that lose or invent a placeholder.
    void theCatalogueIsComplete()
    {
        QVERIFY2(m_catalogue.problems.isEmpty(), qPrintable(m_catalogue.problems.join(QLatin1Char('\n'))));
        QVERIFY(m_catalogue.texts.size() + m_catalogue.patterns.size() > 400);
    }

    // English is the source; countersign_en.ts gives only its plural forms, all of them.
    void englishHasItsPluralForms()
    {
        const Catalogue english = readCatalogue(QStringLiteral(COUNTERSIGN_EN_TS_FILE));
        QVERIFY2(english.problems.isEmpty(), qPrintable(english.problems.join(QLatin1Char('\n'))));
        QVERIFY(english.messages > 10);
        QTranslator translator;
        QVERIFY(translator.load(QStringLiteral("countersign_en"), QStringLiteral(":/i18n")));
        QCOMPARE(translator.translate("cs::QueueView", "%n action(s)", nullptr, 1), QStringLiteral("%n action"));
        QCOMPARE(translator.translate("cs::QueueView", "%n action(s)", nullptr, 2), QStringLiteral("%n actions"));
        QCOMPARE(translator.translate("cs::QueueView", "Nothing here.", nullptr, -1), QString()); // the source itself
    }

    void languageFollowsTheLocale_data()
    {
        QTest::addColumn<QString>("locale");
        QTest::addColumn<QString>("language");
        QTest::newRow("de_DE: German") << QStringLiteral("de_DE") << QStringLiteral("de");
        QTest::newRow("de_CH: German") << QStringLiteral("de_CH") << QStringLiteral("de");
        QTest::newRow("de_AT: German") << QStringLiteral("de_AT") << QStringLiteral("de");
        QTest::newRow("en_US: English, the source") << QStringLiteral("en_US") << QString();
        QTest::newRow("en_GB: English") << QStringLiteral("en_GB") << QString();
        QTest::newRow("fr_FR: no French, English") << QStringLiteral("fr_FR") << QString();
        QTest::newRow("C: English") << QStringLiteral("C") << QString();
    }

    void languageFollowsTheLocale()
    {
        QFETCH(QString, locale);
        QFETCH(QString, language);
        QCOMPARE(consoleLanguages(), QStringList{ QStringLiteral("de") });
        QCOMPARE(chooseConsoleLanguage(QLocale(locale), consoleLanguages()), language);
    }

    void langOptionNamesALocale_data()
    {
        QTest::addColumn<QString>("lang");
        QTest::addColumn<bool>("known");
        QTest::addColumn<QString>("language");
        QTest::newRow("de") << QStringLiteral("de") << true << QStringLiteral("de");
        QTest::newRow("de_DE") << QStringLiteral("de_DE") << true << QStringLiteral("de");
        QTest::newRow("en") << QStringLiteral("en") << true << QString();
        QTest::newRow("nonsense is refused") << QStringLiteral("xx_nonsense") << false << QString();
    }

    void langOptionNamesALocale()
    {
        QFETCH(QString, lang);
        QFETCH(bool, known);
        QFETCH(QString, language);
        const std::optional<QLocale> locale = consoleLocale(lang);
        QCOMPARE(locale.has_value(), known);
        if (locale)
            QCOMPARE(chooseConsoleLanguage(*locale, consoleLanguages()), language);
        QVERIFY(consoleLocale(QStringLiteral("system")).has_value());
    }

    // countersign --lang with a language it does not know stops before any window, exit 2.
    void anUnknownLangIsRefused()
    {
        QProcess console;
        console.start(QStringLiteral(COUNTERSIGN_BIN), { QStringLiteral("--lang"), QStringLiteral("xx_nonsense") });
        QVERIFY(console.waitForFinished(30000));
        QCOMPARE(console.exitCode(), 2);
        QVERIFY(console.readAllStandardError().contains("--lang: unknown language xx_nonsense"));
    }

    void qtsOwnButtonsAreGerman()
    {
        QDialogButtonBox box(QDialogButtonBox::Cancel | QDialogButtonBox::Close);
        QCOMPARE(box.button(QDialogButtonBox::Cancel)->text(), QStringLiteral("Abbrechen"));
        QCOMPARE(box.button(QDialogButtonBox::Close)->text(), QStringLiteral("Schlie\u00dfen"));
    }

    // The approver's console: queue, detail pane with every tab, menus, the approve, reject and
    // bulk dialogs, File → Export (both), the connection profile, Help's two message boxes.
    void approverSeesOnlyGerman()
    {
        const QString first = m_backend.propose(nextCharge(), 4000, nextRef("de")).value(QLatin1String("id")).toString();
        const QString second = m_backend.propose(nextCharge(), 1250, nextRef("de"), QStringLiteral("order-7")).value(QLatin1String("id")).toString();
        QVERIFY(!first.isEmpty() && !second.isEmpty());
        auto c = open(QStringLiteral("ana"));
        select(*c, first);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(c->window->menuBar()->actions().first()->text(), QStringLiteral("&Datei"));
        VERIFY_GERMAN("main window");

        DecisionDialog *approve = openDecision(*c, "approve");
        QVERIFY(approve);
        QTRY_VERIFY_WITH_TIMEOUT(!child<QLabel>(approve, "chargeStatus")
                                     || !child<QLabel>(approve, "chargeStatus")->text().contains(QStringLiteral("wird jetzt")),
                                 10000);
        VERIFY_GERMAN("approve dialog");
        approve->done(QDialog::Rejected);
        QTRY_VERIFY(!c->window->decisions()->openDialog());

        DecisionDialog *reject = openDecision(*c, "reject");
        QVERIFY(reject);
        VERIFY_GERMAN("reject dialog");
        reject->done(QDialog::Rejected);
        QTRY_VERIFY(!c->window->decisions()->openDialog());

        // Several selected: the bulk dialog reads each action, offers some and skips others.
        QTableView *table = c->window->queueView()->table();
        table->selectAll();
        QAction *bulk = c->window->findChild<QAction *>(QStringLiteral("approveSelectedAction"));
        QVERIFY(bulk);
        QTRY_VERIFY(bulk->isEnabled());
        bulk->trigger();
        auto *bulkDialog = c->window->findChild<QDialog *>(QStringLiteral("bulkDecisionDialog"));
        QVERIFY(bulkDialog);
        QTRY_VERIFY_WITH_TIMEOUT(child<QPushButton>(bulkDialog, "confirmButton")->isEnabled(), 10000);
        VERIFY_GERMAN("bulk approve dialog");
        bulkDialog->reject();

        // File → Export, both: the file dialog (Qt's, with the console's filters), the export, its message.
        ExportController *exports = c->window->exports();
        for (QAction *a : { exports->exportActionsAction(), exports->exportHistoryAction() }) {
            QTRY_VERIFY(a->isEnabled());
            a->trigger();
            QFileDialog *files = exports->fileDialog();
            QVERIFY(files);
            VERIFY_GERMAN("export file dialog");
            const QString path = m_dir.filePath(QString::number(++m_next) + QStringLiteral(".csv"));
            files->selectFile(path);
            QVERIFY(QMetaObject::invokeMethod(files, "accept")); // protected in QFileDialog
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(path) && !exports->isExporting()
                                         && c->window->statusBar()->currentMessage().contains(QFileInfo(path).fileName()),
                                     15000);
            VERIFY_GERMAN("exported");
        }

        QAction *connection = c->window->findChild<QAction *>(QStringLiteral("connectionAction"));
        verifyModal(connection, "connection profile");
        QMenu *help = c->window->menuBar()->actions().last()->menu();
        QVERIFY(help);
        for (QAction *a : help->actions())
            if (!a->isSeparator())
                verifyModal(a, qPrintable(QStringLiteral("Help: ") + a->text()));
        QVERIFY(m_textsChecked > 1000);
    }

    // The supervisor's console: look up, reconcile and follow up an action that needs review;
    // the charge view; pause and resume execution.
    void supervisorSeesOnlyGerman()
    {
        const QString charge = nextCharge();
        const QString ref = nextRef("review");
        const QString id = m_backend.propose(charge, 4000, ref).value(QLatin1String("id")).toString();
        QCOMPARE(m_backend.resubmitChanged(charge, 4500, ref).status, 409);
        QVERIFY(m_backend.plantProviderRefund(charge, 4000, id));
        auto c = open(QStringLiteral("sue"));
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(c->window->detailPane()->detail().record.state, ActionState::RequiresReview);
        VERIFY_GERMAN("main window, an action to review");

        DecisionDialog *lookup = openDecision(*c, "lookup");
        QVERIFY(lookup);
        VERIFY_GERMAN("look-up dialog");
        QTest::mouseClick(lookup->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>(lookup, "lookupAnswer")->text().contains(QStringLiteral("40.00 USD")), 15000);
        VERIFY_GERMAN("look-up dialog, answered");
        QTest::mouseClick(lookup->cancelButton(), Qt::LeftButton);
        QTRY_VERIFY(!c->window->decisions()->openDialog());

        DecisionDialog *reconcile = openDecision(*c, "reconcile");
        QVERIFY(reconcile);
        VERIFY_GERMAN("reconcile dialog");
        child<QRadioButton>(reconcile, "committedRadio")->click();
        child<QTableView>(reconcile, "evidenceView")->selectRow(0);
        QTest::keyClicks(child<QPlainTextEdit>(reconcile, "noteEdit"), QStringLiteral("gefunden, 40.00"));
        QTRY_VERIFY(reconcile->confirmButton()->isEnabled());
        VERIFY_GERMAN("reconcile dialog, filled in");
        QTest::mouseClick(reconcile->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->decisions()->openDialog(), 10000);
        // Decided: the console moved on; back to it (it left the queue: shown under All).
        c->window->selectAction(id);
        QTRY_VERIFY_WITH_TIMEOUT(c->window->detailPane()->hasDetail() && c->window->detailPane()->detail().record.id == id
                                     && c->window->detailPane()->detail().record.state == ActionState::Completed,
                                 10000);
        VERIFY_GERMAN("main window, a reconciled action found under All");

        DecisionDialog *followUp = openDecision(*c, "follow_up");
        QVERIFY(followUp);
        QTest::keyClicks(child<QLineEdit>(followUp, "desiredTotalEdit"), QStringLiteral("45.00"));
        VERIFY_GERMAN("follow-up dialog");
        followUp->done(QDialog::Rejected);
        QTRY_VERIFY(!c->window->decisions()->openDialog());

        // Action → Show charge: the charge view, after a fresh read at the provider (its refund
        // made by this action, the budget).
        QTRY_VERIFY_WITH_TIMEOUT(c->window->showChargeAction()->isEnabled(), 10000);
        c->window->showChargeAction()->trigger();
        ChargeWindow *chargeView = c->window->charges()->window();
        QVERIFY(chargeView);
        QTRY_VERIFY_WITH_TIMEOUT(chargeView->isVisible() && chargeView->activity() == ChargeWindow::Activity::Idle, 10000);
        QTest::mouseClick(child<QPushButton>(chargeView, "refreshChargeButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(chargeView->activity() == ChargeWindow::Activity::Idle && chargeView->overview(), 15000);
        VERIFY_GERMAN("charge view");
        chargeView->close();

        ExecutionController *execution = c->window->execution();
        QTRY_VERIFY_WITH_TIMEOUT(execution->pauseAction()->isEnabled(), 10000);
        execution->pauseAction()->trigger();
        ExecutionDialog *pause = execution->openDialog();
        QVERIFY(pause);
        VERIFY_GERMAN("pause dialog");
        QTest::keyClicks(child<QPlainTextEdit>(pause, "reasonEdit"), QStringLiteral("Wartung beim Anbieter"));
        QTRY_VERIFY(pause->confirmButton()->isEnabled());
        QTest::mouseClick(pause->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(execution->resumeAction()->isEnabled(), 10000);
        VERIFY_GERMAN("execution paused");
        execution->resumeAction()->trigger();
        ExecutionDialog *resume = execution->openDialog();
        QVERIFY(resume);
        VERIFY_GERMAN("resume dialog");
        child<QListWidget>(resume, "pauseList")->setCurrentRow(0);
        QTRY_VERIFY(resume->confirmButton()->isEnabled());
        QTest::mouseClick(resume->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!execution->resumeAction()->isEnabled(), 10000);
        VERIFY_GERMAN("execution resumed");
    }

    // `countersign --demo`: the Demo and Scenarios menus, the role switcher, the narration, fault
    // injection and ground truth docks, on the demo's own stack.
    void demoConsoleSeesOnlyGerman()
    {
        demo::DemoStack::Options options;
        options.paysimPath = QStringLiteral(PAYSIM_BIN);
        options.countersigndPath = QStringLiteral(COUNTERSIGND_BIN);
        demo::DemoStack stack(options);
        QVERIFY2(stack.start(), qPrintable(stack.errorString()));
        ApiClient client;
        client.setBaseUrl(stack.backendUrl());
        EventStreamClient events;
        events.setBaseUrl(stack.backendUrl());
        ConsoleSettings settings(stack.dataDir() + QStringLiteral("/console.ini"));
        MainWindow window(&client, &events, &settings);
        DemoController controller(&stack, &window, &client, &events);
        window.resize(1400, 900);
        window.show();
        QSignalSpy identity(&window, &MainWindow::identityKnown);
        QVERIFY(identity.isValid());
        controller.start();
        QVERIFY(identity.wait(10000));
        QVERIFY(window.findChild<QMenu *>(QStringLiteral("scenariosMenu")));
        for (QDockWidget *dock : window.findChildren<QDockWidget *>())
            dock->show();
        QTRY_VERIFY_WITH_TIMEOUT(window.queueModel()->rowCount() > 0 || window.hasShownFirstPage(), 10000);
        VERIFY_GERMAN("demo console");
    }
};

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
