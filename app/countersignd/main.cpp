// countersignd: the Countersign backend (docs/API.md). Parses a subcommand, wires the ledger, the
// provider adapter and the REST API, and runs. All logic lives in cs_server and cs_api.
//
//   countersignd serve --db FILE|URI [--listen 127.0.0.1:8470] --provider stripe|paysim
//                      --provider-url URL --provider-key-file FILE [--policy FILE] ...
//   countersignd user add NAME --role ROLE [--expires WHEN] --db FILE|URI   (prints the new token as its last word)
//   countersignd user token rotate NAME [--expires WHEN] --db FILE|URI      (likewise)
//   countersignd user disable|enable NAME --db FILE|URI
//   countersignd user list --db FILE|URI
//   countersignd audit verify --db FILE|URI
//   countersignd export actions|history ... --db FILE|URI --format csv|json --to FILE|-  (docs/EXPORT.md)
//   countersignd backup --to FILE --db FILE [--force]                     (a live SQLite ledger)
//   countersignd migrate --db FILE|URI
//   countersignd migrate --from FILE --to URI                             (SQLite -> PostgreSQL)
// URI: postgresql://USER@HOST:PORT/DBNAME; its password from --db-password-file FILE or libpq's
// own sources (PGPASSFILE, ~/.pgpass), never on the command line.
#include "lifecycle/configfile.h"
#include "lifecycle/logformat.h"
#include "lifecycle/servicenotify.h"
#include "lifecycle/terminationsignals.h"
#include "server/api/apiserver.h"
#include "server/api/auththrottle.h"
#include "server/api/policyservice.h"
#include "server/api/servertls.h"
#include "server/api/userstore.h"
#include "server/api/webhookhandler.h"
#include "server/executionconfig.h"
#include "server/executor.h"
#include "server/exportcommand.h"
#include "server/ledger/ledger.h"
#include "server/ledger/ledgerbackup.h"
#include "server/ledger/ledgercheck.h"
#include "server/ledger/ledgerconnections.h"
#include "server/ledger/ledgercopy.h"
#include "server/ledger/ledgerwitness.h"
#include "server/mcp/httptransport.h"
#include "server/stripeclient.h"
#include "server/webhookreceiver.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QHostAddress>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSocketNotifier>
#include <QJsonDocument>
#include <QTextStream>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace {

// SIGHUP with --policy: the handler only writes a byte into a socketpair (async-signal-safe); a
// QSocketNotifier on the main thread reloads the policy file.
int g_hangupFds[2] = {-1, -1};

void onHangup(int)
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(g_hangupFds[0], &byte, 1);
}

// Reloads the --policy file on every SIGHUP; a file that does not load keeps the version in force
// and says why on stderr. Null when the socketpair cannot be made (then SIGHUP keeps its default).
std::unique_ptr<QSocketNotifier> reloadPolicyOnHangup(cs::PolicyService *policy)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_hangupFds) != 0)
        return nullptr;
    auto notifier = std::make_unique<QSocketNotifier>(g_hangupFds[1], QSocketNotifier::Read);
    QObject::connect(notifier.get(), &QSocketNotifier::activated, notifier.get(), [policy] {
        char byte = 0;
        [[maybe_unused]] const ssize_t read = ::read(g_hangupFds[1], &byte, 1);
        const auto loaded = policy->reload(QStringLiteral("SIGHUP"));
        if (const auto *invalid = std::get_if<cs::PolicyParser::Error>(&loaded))
            cs::LogFormat::say(QtWarningMsg, QStringLiteral("countersignd"),
                               QStringLiteral("SIGHUP: --policy %1 not reloaded: %2; the version in force stays")
                                   .arg(policy->file(), invalid->toString()));
        else
            cs::LogFormat::say(QtInfoMsg, QStringLiteral("countersignd"),
                               QStringLiteral("SIGHUP: policy version %1 in force")
                                   .arg(std::get<std::shared_ptr<const cs::Policy>>(loaded)->version));
    });
    struct sigaction action = {};
    action.sa_handler = onHangup;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGHUP, &action, nullptr);
    return notifier;
}

int fail(const QString &message, int code = 2)
{
    cs::LogFormat::say(QtCriticalMsg, QStringLiteral("countersignd"), message);
    return code;
}

QStringList subArguments(const QStringList &arguments, int skip)
{
    QStringList rest = arguments.mid(1 + skip);
    rest.prepend(arguments.constFirst());
    return rest;
}

const QCommandLineOption &dbOption()
{
    static const QCommandLineOption option(
        QStringLiteral("db"),
        QStringLiteral("The ledger: a SQLite file, or a PostgreSQL database as a libpq URI"
                       " postgresql://USER@HOST:PORT/DBNAME[?sslmode=...] (no password in it)."),
        QStringLiteral("FILE|URI"));
    return option;
}

const QCommandLineOption &passwordFileOption()
{
    static const QCommandLineOption option(
        QStringLiteral("db-password-file"),
        QStringLiteral("PostgreSQL: a file (mode 0600) whose first line is the password; without it libpq's own"
                       " sources (PGPASSFILE, ~/.pgpass)."),
        QStringLiteral("FILE"));
    return option;
}

const QCommandLineOption &witnessOption()
{
    static const QCommandLineOption option(
        QStringLiteral("witness"),
        QStringLiteral("The witness of the ledger's audit head (docs/OPERATIONS.md, \"The ledger's integrity\"); default FILE.witness"
                       " beside a SQLite ledger, none for PostgreSQL unless given."),
        QStringLiteral("FILE"));
    return option;
}

// --witness, or FILE.witness beside a SQLite ledger; "" for a PostgreSQL ledger without one.
QString witnessPathOf(const QCommandLineParser &parser)
{
    if (parser.isSet(witnessOption()))
        return parser.value(witnessOption());
    const QString db = parser.value(dbOption());
    return cs::LedgerLocation::isUri(db) ? QString() : cs::LedgerWitness::defaultPathFor(db);
}

// Exit status of a ledger refused as damaged or behind its witness (serve, check, audit verify).
constexpr int ExitLedgerRefused = 3;

// --db and --db-password-file, for every subcommand that opens a ledger.
QList<QCommandLineOption> ledgerOptions()
{
    return {dbOption(), passwordFileOption()};
}

// *exitCode: what a command that cannot open it exits with (3: refused as damaged, 2 otherwise).
bool openLedger(cs::Ledger &ledger, const QCommandLineParser &parser, QString *error,
                cs::Ledger::Options options = {}, int *exitCode = nullptr)
{
    if (!parser.isSet(dbOption())) {
        *error = QStringLiteral("--db FILE|URI is required");
        return false;
    }
    options.passwordFile = parser.value(passwordFileOption());
    const cs::LedgerError opened = ledger.open(parser.value(dbOption()), options);
    if (!opened.ok()) {
        *error = QStringLiteral("cannot open the ledger: ") + opened.toString();
        if (exitCode)
            *exitCode = opened.code() == cs::LedgerError::Code::Damaged ? ExitLedgerRefused : 2;
        return false;
    }
    return true;
}


// --expires: "30d", "12h", a date (2027-01-31: that day 00:00 UTC), an ISO 8601 time with an
// offset, or "never".
bool parseExpiry(const QString &text, const QDateTime &now, cs::UserStore::Expiry *expiry, QString *error)
{
    expiry->given = true;
    expiry->at.reset();
    if (text == u"never")
        return true;
    static const QRegularExpression relative(QStringLiteral("^([1-9][0-9]{0,4})([dh])$"));
    if (const QRegularExpressionMatch m = relative.match(text); m.hasMatch()) {
        const qint64 n = m.captured(1).toLongLong();
        expiry->at = m.captured(2) == u"d" ? now.addDays(n) : now.addSecs(n * 3600);
        return true;
    }
    QDateTime at = QDateTime::fromString(text, Qt::ISODate);
    if (text.size() == 10)
        at = QDateTime(QDate::fromString(text, Qt::ISODate), QTime(0, 0), Qt::UTC);
    if (!at.isValid() || (text.size() != 10 && at.timeSpec() == Qt::LocalTime)) {
        *error = QStringLiteral("--expires expects 30d, 12h, a date (2027-01-31), a time with an offset"
                                " (2027-01-31T12:00:00Z) or never");
        return false;
    }
    expiry->at = at.toUTC();
    return true;
}

QString timeOrDash(const std::optional<QDateTime> &time)
{
    return time ? cs::toWireTime(*time) : QStringLiteral("-");
}

int runUser(const QStringList &arguments)
{
    // "user token rotate NAME": the verb is "rotate", after one more word.
    const bool tokenVerb = arguments.value(2) == u"token";
    const QString verb = tokenVerb ? QStringLiteral("token ") + arguments.value(3) : arguments.value(2);
    const QString usage = QStringLiteral(
        "usage: countersignd user add NAME --role ROLE [--expires 30d|DATE|never] --db FILE|URI\n"
        "       countersignd user token rotate NAME [--expires 30d|DATE|never] --db FILE|URI\n"
        "       countersignd user disable NAME --db FILE|URI | user enable NAME --db FILE|URI\n"
        "       countersignd user list --db FILE|URI\n"
        "       (a URI's password: --db-password-file FILE)");
    QCommandLineParser parser;
    parser.setApplicationDescription(usage);
    parser.addHelpOption();
    const QCommandLineOption role(QStringLiteral("role"), QStringLiteral("agent, approver, supervisor, auditor or admin."),
                                  QStringLiteral("ROLE"));
    const QCommandLineOption expires(
        QStringLiteral("expires"),
        QStringLiteral("When the token stops working: 30d, 12h, 2027-01-31 (00:00 UTC), 2027-01-31T12:00:00Z or never "
                       "(add: never by default; rotate: the old token's lifetime from now)."),
        QStringLiteral("WHEN"));
    parser.addOptions(ledgerOptions() + QList<QCommandLineOption>{role, expires});
    parser.addPositionalArgument(QStringLiteral("name"), QStringLiteral("The user's name."));
    parser.process(subArguments(arguments, tokenVerb ? 3 : 2));

    const QStringList verbs = {QStringLiteral("add"), QStringLiteral("list"), QStringLiteral("token rotate"),
                               QStringLiteral("disable"), QStringLiteral("enable")};
    const qsizetype names = verb == u"list" ? 0 : 1;
    if (!verbs.contains(verb) || parser.positionalArguments().size() != names)
        return fail(usage);
    cs::UserStore::Expiry expiry;
    if (parser.isSet(expires)) {
        QString expiryError;
        if (verb != u"add" && verb != u"token rotate")
            return fail(QStringLiteral("--expires is for user add and user token rotate"));
        if (!parseExpiry(parser.value(expires), QDateTime::currentDateTimeUtc(), &expiry, &expiryError))
            return fail(expiryError);
    }
    std::optional<cs::Role> parsedRole;
    if (verb == u"add") {
        parsedRole = cs::roleFromWire(parser.value(role));
        if (!parsedRole)
            return fail(QStringLiteral("--role must be agent, approver, supervisor, auditor or admin"));
    }

    cs::Ledger ledger;
    QString error;
    int exitCode = 2;
    if (!openLedger(ledger, parser, &error, {}, &exitCode))
        return fail(error, exitCode);
    cs::UserStore users(&ledger.database());
    QTextStream out(stdout);
    if (verb == u"list") {
        const auto all = users.users();
        if (!all.ok())
            return fail(all.error().toString(), 1);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        out << "NAME ROLE STATE CREATED TOKEN_CREATED EXPIRES LAST_USED" << Qt::endl;
        for (const cs::UserStore::Record &user : *all) {
            out << user.user.name << ' ' << cs::toWire(user.user.role) << ' ' << user.state(now) << ' '
                << cs::toWireTime(user.user.createdAt) << ' ' << cs::toWireTime(user.tokenCreatedAt) << ' '
                << timeOrDash(user.expiresAt) << ' ' << timeOrDash(user.lastUsedAt) << Qt::endl;
        }
        return 0;
    }
    const QString name = parser.positionalArguments().constFirst();
    if (verb == u"disable" || verb == u"enable") {
        if (const cs::LedgerError changed = users.setDisabled(name, verb == u"disable"); !changed.ok())
            return fail(changed.message(), 1);
        out << "user " << name << ' ' << verb << 'd' << Qt::endl;
        return 0;
    }
    const auto token = verb == u"add" ? users.addUser(name, *parsedRole, expiry) : users.rotateToken(name, expiry);
    if (!token.ok())
        return fail(token.error().message(), 1);
    // The token is shown once; only its SHA-256 is stored. Its last word is the token.
    if (verb == u"add")
        out << "user " << name << " (" << cs::toWire(*parsedRole) << ") added";
    else
        out << "user " << name << " has a new token (the old one no longer works)";
    if (expiry.at)
        out << ", expires " << cs::toWireTime(*expiry.at);
    out << "; bearer token: " << *token << Qt::endl;
    return 0;
}

// What the ledger whose chain ends at head says against the witness at path: printed; false
// when it is behind (or the witness is unreadable).
bool reportWitness(cs::Ledger &ledger, cs::LedgerWitness::Head head, const QString &path, QTextStream &out)
{
    const auto stored = cs::LedgerWitness::read(path);
    // A serve running on the ledger may have committed (and advanced its witness) since the head
    // was read: the head is read again after the witness, never compared stale.
    if (stored.ok() && stored->has_value() && (*stored)->seq > head.seq) {
        if (const auto now = cs::LedgerCheck::headOf(ledger.database()); now.ok())
            head = *now;
    }
    if (!stored.ok()) {
        out << "witness " << path << ": " << stored.error().message() << Qt::endl;
        return false;
    }
    if (!stored->has_value()) {
        out << "witness " << path << ": none (serve makes it on its next start)" << Qt::endl;
        return true;
    }
    QString behind;
    const cs::LedgerError compared = ledger.database().read([&](QSqlDatabase &db) {
        const auto judged = cs::LedgerCheck::againstWitness(db, head, **stored);
        if (judged.ok())
            behind = *judged;
        return judged.ok() ? cs::LedgerError() : judged.error();
    });
    if (!compared.ok()) {
        out << "witness " << path << ": cannot compare: " << compared.message() << Qt::endl;
        return false;
    }
    if (!behind.isEmpty()) {
        out << "witness " << path << ": " << behind << Qt::endl;
        return false;
    }
    out << "witness " << path << ": ok (it saw seq " << (*stored)->seq << "; the ledger ends at seq " << head.seq << ")"
        << Qt::endl;
    return true;
}

int runAudit(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QString usage = QStringLiteral("countersignd audit verify --db FILE|URI [--db-password-file FILE] [--witness FILE]");
    parser.setApplicationDescription(usage);
    parser.addHelpOption();
    parser.addOptions(ledgerOptions() + QList<QCommandLineOption>{witnessOption()});
    parser.process(subArguments(arguments, 2));
    if (arguments.value(2) != u"verify")
        return fail(QStringLiteral("usage: ") + usage);
    cs::Ledger ledger;
    cs::Ledger::Options options;
    options.recoverExpiredLeasesOnOpen = false; // verifying must not write
    options.checkOnOpen = false;                // it reports a broken chain itself
    QString error;
    int exitCode = 2;
    if (!openLedger(ledger, parser, &error, options, &exitCode))
        return fail(error, exitCode);
    const auto verification = ledger.reader().verifyAudit();
    if (!verification.ok())
        return fail(verification.error().toString(), 1);
    QTextStream out(stdout);
    if (!verification->ok) {
        out << "audit log BROKEN at seq " << verification->firstBrokenSeq << ": " << verification->reason
            << " (" << verification->rowsChecked << " rows checked)" << Qt::endl;
        return 1;
    }
    out << "audit log ok: " << verification->rowsChecked << " rows, hash chain intact" << Qt::endl;
    // A chain cannot know its own end: only the witness can say the tail is there (issue 34).
    if (parser.isSet(witnessOption())
        && !reportWitness(ledger, {verification->lastSeq, verification->lastHash, {}}, parser.value(witnessOption()), out))
        return 1;
    return 0;
}

// check: the whole ledger (PRAGMA quick_check, the audit chain) and its witness; with
// --reset-witness, after a deliberate restore, the witness set to the ledger's head.
int runCheck(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QString usage = QStringLiteral("countersignd check --db FILE|URI [--witness FILE] [--reset-witness]");
    parser.setApplicationDescription(
        usage + QStringLiteral("\n\nChecks a ledger whole: every page and index entry (SQLite's PRAGMA quick_check), the audit"
                               " hash chain from its first row, and the chain's head against its witness. Exit status 0:"
                               " whole; 3: damaged, or behind its witness; 1: it could not be read. --reset-witness, only"
                               " after a deliberate restore (docs/OPERATIONS.md, \"SQLite: restore\") and only for a whole ledger,"
                               " records a witness_reset audit row and sets the witness to the ledger's head."));
    parser.addHelpOption();
    const QCommandLineOption resetWitness(QStringLiteral("reset-witness"),
                                          QStringLiteral("Set the witness to this ledger's head (after a restore)."));
    parser.addOptions(ledgerOptions() + QList<QCommandLineOption>{witnessOption(), resetWitness});
    parser.process(subArguments(arguments, 1));
    if (!parser.positionalArguments().isEmpty() || !parser.isSet(dbOption()))
        return fail(QStringLiteral("usage: ") + usage);
    cs::Ledger ledger;
    cs::Ledger::Options options;
    options.recoverExpiredLeasesOnOpen = false; // checking must not write
    options.checkOnOpen = false;                // the full check below reports what the bounded one would refuse
    options.migrate = false;                    // nor migrate: a damaged schema_version would rerun migrations
    QString error;
    int exitCode = 1;
    if (!openLedger(ledger, parser, &error, options, &exitCode))
        return fail(error, exitCode == ExitLedgerRefused ? ExitLedgerRefused : 1);
    QElapsedTimer clock;
    clock.start();
    const auto checked = cs::LedgerCheck::full(ledger.database());
    if (!checked.ok())
        return fail(QStringLiteral("cannot check the ledger: ") + checked.error().toString(), 1);
    const cs::LedgerCheck::Result &result = *checked;
    QTextStream out(stdout);
    if (!result.ok) {
        out << "ledger DAMAGED: " << result.problem << Qt::endl;
        return ExitLedgerRefused;
    }
    if (ledger.database().engine() == cs::sql::Engine::Sqlite)
        out << "pages: quick_check ok" << Qt::endl;
    out << "audit chain: ok, " << result.chain.rowsChecked << " rows, head seq " << result.head.seq << Qt::endl;
    const QString witnessPath = witnessPathOf(parser);
    if (parser.isSet(resetWitness)) {
        if (witnessPath.isEmpty())
            return fail(QStringLiteral("--reset-witness: a PostgreSQL ledger has a witness only with --witness FILE"));
        // What the restore cost, said before it is accepted: the rows the witness saw and the
        // ledger no longer has.
        reportWitness(ledger, result.head, witnessPath, out);
        const auto head = cs::LedgerCheck::resetWitness(ledger.database(), witnessPath, QStringLiteral("countersignd check"));
        if (!head.ok())
            return fail(QStringLiteral("cannot reset the witness: ") + head.error().toString(), 1);
        out << "witness " << witnessPath << ": reset to seq " << head->seq << " (a witness_reset audit row records it)"
            << Qt::endl;
        out << "ledger whole (" << clock.elapsed() << " ms)" << Qt::endl;
        return 0;
    }
    if (!witnessPath.isEmpty() && !reportWitness(ledger, result.head, witnessPath, out))
        return ExitLedgerRefused;
    out << "ledger whole (" << clock.elapsed() << " ms)" << Qt::endl;
    return 0;
}

// backup --to FILE: a checked copy of a live SQLite ledger (cs::LedgerBackup), with what it holds.
int runBackup(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QString usage = QStringLiteral("countersignd backup --to FILE --db FILE [--force]");
    parser.setApplicationDescription(
        usage + QStringLiteral("\n\nCopies a SQLite ledger, while countersignd serve keeps writing it, with SQLite's online"
                               " backup API: one read snapshot, so no transaction is copied in part. The copy is written"
                               " beside FILE, checked (integrity_check, schema version, audit chain) and only then renamed"
                               " to FILE: one standalone file, mode 0600. A PostgreSQL ledger: the message names"
                               " pg_dump and pg_restore."));
    parser.addHelpOption();
    const QCommandLineOption to(QStringLiteral("to"), QStringLiteral("The copy to write (refused if it exists, unless --force)."),
                                QStringLiteral("FILE"));
    const QCommandLineOption force(QStringLiteral("force"), QStringLiteral("Replace an existing FILE (only once the copy is checked)."));
    parser.addOptions(ledgerOptions() + QList<QCommandLineOption>{to, force});
    parser.process(subArguments(arguments, 1));
    if (!parser.positionalArguments().isEmpty() || !parser.isSet(to) || !parser.isSet(dbOption()))
        return fail(QStringLiteral("usage: ") + usage);
    cs::LedgerBackup::Options options;
    options.force = parser.isSet(force);
    options.removePartialOnSignal = true;
    const auto copied = cs::LedgerBackup::backup(parser.value(dbOption()), parser.value(to), options);
    if (!copied.ok())
        return fail(copied.error().message(), copied.error().code() == cs::LedgerError::Code::Invalid ? 2 : 1);
    QTextStream out(stdout);
    out << "backed up " << copied->source << " to " << copied->target << " (schema version " << copied->schemaVersion
        << ')' << Qt::endl;
    out << "  actions " << copied->actions << ", audit rows " << copied->auditRows << " (hash chain verified)"
        << (copied->auditHead.isEmpty() ? QString() : QStringLiteral(", head ") + copied->auditHead) << Qt::endl;
    out << "  " << copied->bytes << " bytes (" << copied->pages << " pages), integrity_check ok, journal mode delete,"
        << " mode 0600" << Qt::endl;
    out << "  " << QString::number(double(copied->elapsedMs) / 1000.0, 'f', 3) << " s in all; the ledger's read"
        << " snapshot was held " << QString::number(double(copied->snapshotMs) / 1000.0, 'f', 3) << " s" << Qt::endl;
    return 0;
}

// migrate --from FILE --to URI: the copy (cs::LedgerCopy), with what it copied and checked.
int runCopy(const QString &from, const QString &to, const QString &passwordFile)
{
    cs::LedgerCopy::Options options;
    options.passwordFile = passwordFile;
    options.progress = [](const QString &table, qint64 rows) {
        QTextStream(stderr) << "countersignd: copied " << table << " (" << rows << (rows == 1 ? " row)" : " rows)")
                            << Qt::endl;
    };
    const auto copied = cs::LedgerCopy::copy(from, to, options);
    if (!copied.ok())
        return fail(copied.error().message(), 1);
    QTextStream out(stdout);
    out << "copied " << copied->source << " (schema version " << copied->schemaVersion << ") into " << copied->target
        << (copied->createdSchema ? "" : " (its empty ledger schema)") << " in " << copied->elapsedMs << " ms" << Qt::endl;
    for (const cs::LedgerCopy::Table &table : copied->tables)
        out << "  " << table.name << ' ' << table.rows << " rows, sha256 " << table.digest << " on both sides" << Qt::endl;
    out << "audit chain verified on both sides: " << copied->auditRows << " rows"
        << (copied->auditHead.isEmpty() ? QString() : QStringLiteral(", last hash ") + copied->auditHead) << Qt::endl;
    return 0;
}

int runMigrate(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QString usage = QStringLiteral("countersignd migrate --db FILE|URI [--db-password-file FILE]\n"
                                         "       countersignd migrate --from FILE --to URI [--db-password-file FILE]");
    parser.setApplicationDescription(
        usage + QStringLiteral("\n\nThe first brings a ledger to the latest schema. The second copies a SQLite ledger"
                               " into an empty PostgreSQL database in one transaction and verifies the copy (audit"
                               " chain, row counts and a digest of every table) before it commits; stop the SQLite"
                               " instance first."));
    parser.addHelpOption();
    const QCommandLineOption from(QStringLiteral("from"), QStringLiteral("The SQLite ledger to copy (brought to the latest schema first)."),
                                  QStringLiteral("FILE"));
    const QCommandLineOption to(QStringLiteral("to"), QStringLiteral("An empty PostgreSQL database (libpq URI)."),
                                QStringLiteral("URI"));
    parser.addOptions(ledgerOptions() + QList<QCommandLineOption>{from, to});
    parser.process(subArguments(arguments, 1));
    if (parser.isSet(from) || parser.isSet(to)) {
        if (!parser.isSet(from) || !parser.isSet(to) || parser.isSet(dbOption()))
            return fail(QStringLiteral("usage: ") + usage);
        return runCopy(parser.value(from), parser.value(to), parser.value(passwordFileOption()));
    }
    cs::Ledger ledger;
    QString error;
    int exitCode = 2;
    if (!openLedger(ledger, parser, &error, {}, &exitCode))
        return fail(error, exitCode);
    QTextStream(stdout) << "ledger " << ledger.path() << " at schema version " << ledger.schemaVersion() << Qt::endl;
    return 0;
}

bool parseListen(const QString &text, QHostAddress *address, quint16 *port)
{
    const qsizetype colon = text.lastIndexOf(u':');
    if (colon <= 0)
        return false;
    bool ok = false;
    const uint value = text.mid(colon + 1).toUInt(&ok);
    if (!ok || value > 65535)
        return false;
    QString host = text.left(colon);
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    if (host == u"localhost")
        host = QStringLiteral("127.0.0.1");
    if (!address->setAddress(host))
        return false;
    *port = quint16(value);
    return true;
}

int runServe(QCoreApplication &app, const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Runs the REST API, the executor and the reconciler on one ledger.\n"
        "Prints the URL it listens on as the first line of standard output."));
    parser.addHelpOption();
    const QCommandLineOption listen(QStringLiteral("listen"), QStringLiteral("Address to listen on (port 0: any free port)."),
                                    QStringLiteral("host:port"), QStringLiteral("127.0.0.1:8470"));
    const QCommandLineOption provider(QStringLiteral("provider"), QStringLiteral("Provider adapter: stripe or paysim."),
                                      QStringLiteral("name"), QStringLiteral("stripe"));
    const QCommandLineOption providerUrl(QStringLiteral("provider-url"), QStringLiteral("The provider's base URL."),
                                         QStringLiteral("URL"));
    const QCommandLineOption providerKeyFile(QStringLiteral("provider-key-file"),
                                             QStringLiteral("File holding the provider's secret key (sk_…)."),
                                             QStringLiteral("FILE"));
    const QCommandLineOption providerAccount(QStringLiteral("provider-account"),
                                             QStringLiteral("Account label stamped on every action."),
                                             QStringLiteral("label"), QString());
    const QCommandLineOption keyWindowHours(QStringLiteral("key-window-hours"),
                                            QStringLiteral("The provider's idempotency key window."),
                                            QStringLiteral("hours"), QStringLiteral("24"));
    const QCommandLineOption keyWindowMargin(QStringLiteral("key-window-margin-minutes"),
                                             QStringLiteral("Safety margin before the key window ends."),
                                             QStringLiteral("minutes"), QStringLiteral("60"));
    const QCommandLineOption heartbeat(QStringLiteral("sse-heartbeat-ms"),
                                       QStringLiteral("Silence before an event-stream heartbeat: the console counts a stream silent for 4 s as a backend gone or hung."),
                                       QStringLiteral("ms"), QStringLiteral("2000"));
    const QCommandLineOption poll(QStringLiteral("sse-poll-ms"), QStringLiteral("How often the audit log is polled for events while no change notification can reach this process (PostgreSQL: LISTEN lost); commits of this process wake the event stream at once."),
                                  QStringLiteral("ms"), QStringLiteral("150"));
    const QCommandLineOption webhookSecretFile(QStringLiteral("webhook-secret-file"),
                                               QStringLiteral("File holding the webhook signing secret (whsec_…)."),
                                               QStringLiteral("FILE"));
    const QCommandLineOption policyFile(QStringLiteral("policy"),
                                        QStringLiteral("The approval policy (JSON, docs/POLICY.md); reloaded on SIGHUP and by"
                                                       " POST /api/v1/policy/reload. A file that does not load stops the start."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption executionConfig(QStringLiteral("execution-config"),
                                             QStringLiteral("JSON file of executor/reconciler settings (ExecutionConfig)."),
                                             QStringLiteral("FILE"));
    const QCommandLineOption noExecutor(QStringLiteral("no-executor"),
                                        QStringLiteral("Run the API only: nothing is sent to the provider."));
    // The listener (docs/SECURITY.md, "The HTTP layer" and "TLS").
    const QCommandLineOption tlsCert(QStringLiteral("tls-cert"),
                                     QStringLiteral("PEM certificate chain (leaf first): serve HTTPS only (TLS 1.2+)."),
                                     QStringLiteral("FILE"));
    const QCommandLineOption tlsKey(QStringLiteral("tls-key"), QStringLiteral("PEM private key of --tls-cert (unencrypted)."),
                                    QStringLiteral("FILE"));
    const QCommandLineOption insecureListen(
        QStringLiteral("insecure-listen"),
        QStringLiteral("Allow plain HTTP on a non-loopback --listen address (tokens travel in clear text)."));
    const QCommandLineOption maxHeadBytes(QStringLiteral("max-head-bytes"),
                                          QStringLiteral("Largest request head (request line and headers): 431 above."),
                                          QStringLiteral("bytes"), QStringLiteral("16384"));
    const QCommandLineOption maxBodyBytes(QStringLiteral("max-body-bytes"),
                                          QStringLiteral("Largest request body (Content-Length): 413 above, before it is read."),
                                          QStringLiteral("bytes"), QStringLiteral("65536"));
    const QCommandLineOption headTimeout(QStringLiteral("head-timeout-ms"),
                                         QStringLiteral("A request's head, then its body, must each arrive within this: 408."),
                                         QStringLiteral("ms"), QStringLiteral("10000"));
    const QCommandLineOption idleTimeout(QStringLiteral("idle-timeout-ms"),
                                         QStringLiteral("An idle keep-alive connection is closed after this (event streams excepted)."),
                                         QStringLiteral("ms"), QStringLiteral("60000"));
    const QCommandLineOption maxConnections(QStringLiteral("max-connections"),
                                            QStringLiteral("Open connections in all, event streams included: 503 above."),
                                            QStringLiteral("n"), QStringLiteral("256"));
    const QCommandLineOption maxPerAddress(QStringLiteral("max-connections-per-address"),
                                           QStringLiteral("Open connections from one client address: 503 above."),
                                           QStringLiteral("n"), QStringLiteral("32"));
    const QCommandLineOption authFailureLimit(
        QStringLiteral("auth-failure-limit"),
        QStringLiteral("Refused tokens one client address may send within a minute before it gets 429 for a minute."),
        QStringLiteral("N"), QString::number(cs::AuthThrottle::Options().maxFailures));
    const QCommandLineOption mcpOrigin(
        QStringLiteral("mcp-allow-origin"),
        QStringLiteral("An Origin (scheme://host[:port]) whose browser pages may call /mcp, beside loopback origins; repeatable."),
        QStringLiteral("origin"));
    const QCommandLineOption mcpHost(
        QStringLiteral("mcp-allow-host"),
        QStringLiteral("A Host name /mcp answers beside localhost, 127.0.0.1, [::1] and the listen address when listening on "
                       "loopback (exactly those; not another 127.x); repeatable."),
        QStringLiteral("name"));
    const QCommandLineOption mcpSessions(QStringLiteral("mcp-max-sessions"),
                                         QStringLiteral("MCP sessions open at once over /mcp, for all users."), QStringLiteral("n"),
                                         QString::number(cs::HttpTransport::Options().maxSessions));
    const QCommandLineOption mcpPoll(QStringLiteral("mcp-poll-ms"),
                                     QStringLiteral("How often a waiting wait_for_decision sends progress and retries a failed read; "
                                                    "a commit that changes its action answers it at once."),
                                     QStringLiteral("ms"),
                                     QString::number(cs::HttpTransport::Options().pollIntervalMs));
    const QCommandLineOption logFormat(
        QStringLiteral("log-format"),
        QStringLiteral("text, or json: one JSON object per line on standard error (time, level, category, message, "
                       "action, pid) for log shippers (docs/OPERATIONS.md, \"Logs\")."),
        QStringLiteral("text|json"), QStringLiteral("text"));
    const QCommandLineOption configFile(
        QStringLiteral("config"),
        QStringLiteral("A config file of key = value lines named like these flags (e.g. /etc/countersign/countersignd.conf); "
                       "flags given here override it."),
        QStringLiteral("FILE"));
    const QList<QCommandLineOption> flags =
        ledgerOptions()
        + QList<QCommandLineOption>{witnessOption(), mcpOrigin, mcpHost, mcpSessions, mcpPoll, listen, provider, providerUrl, providerKeyFile,
                                    providerAccount, keyWindowHours, keyWindowMargin, heartbeat, poll, webhookSecretFile,
                                    policyFile, executionConfig, noExecutor, authFailureLimit, tlsCert, tlsKey, insecureListen,
                                    maxHeadBytes, maxBodyBytes, headTimeout, idleTimeout, maxConnections, maxPerAddress,
                                    logFormat};
    parser.addOptions(flags);
    parser.addOption(configFile);

    // --config first: its entries go in front of the command line's flags, which override them.
    std::optional<cs::ConfigFile> config;
    QStringList effective = arguments;
    {
        QCommandLineParser early;
        early.addOptions(flags);
        early.addOption(configFile);
        early.addHelpOption();
        early.parse(subArguments(arguments, 1));
        if (early.isSet(configFile) && !early.isSet(QStringLiteral("help"))) {
            QString configError;
            config = cs::ConfigFile::read(early.value(configFile), flags,
                                          {mcpOrigin.names().constFirst(), mcpHost.names().constFirst()}, &configError);
            if (!config)
                return fail(configError);
            effective = config->merged(arguments, 1, flags);
        }
    }
    parser.process(subArguments(effective, 1));
    // A bad value is named with the config file's line when it came from there.
    const auto fail = [&config](const QString &message, int code = 2) {
        return ::fail(config ? config->explain(message) : message, code);
    };
    const std::optional<cs::LogFormat::Style> logStyle = cs::LogFormat::parse(parser.value(logFormat));
    if (!logStyle)
        return fail(QStringLiteral("--log-format expects text or json"));
    cs::LogFormat::install(*logStyle);

    QHostAddress address;
    quint16 port = 0;
    if (!parseListen(parser.value(listen), &address, &port))
        return fail(QStringLiteral("--listen expects host:port, e.g. 127.0.0.1:8470"));
    if (parser.isSet(tlsCert) != parser.isSet(tlsKey))
        return fail(QStringLiteral("--tls-cert and --tls-key go together"));
    std::optional<QSslConfiguration> tls;
    if (parser.isSet(tlsCert)) {
        QString tlsError;
        tls = cs::loadServerTls(parser.value(tlsCert), parser.value(tlsKey), &tlsError);
        if (!tls)
            return fail(tlsError);
    }
    if (!address.isLoopback() && !tls && !parser.isSet(insecureListen))
        return fail(QStringLiteral("--listen %1 is not a loopback address: serve it with --tls-cert and --tls-key, "
                                   "or say --insecure-listen to send tokens over plain HTTP")
                        .arg(parser.value(listen)));
    cs::ConnectionGuard::Limits limits;
    const auto positive = [&parser](const QCommandLineOption &option, qint64 least, qint64 most, qint64 *out) {
        bool valid = false;
        *out = parser.value(option).toLongLong(&valid);
        return valid && *out >= least && *out <= most;
    };
    qint64 value = 0;
    if (!positive(maxHeadBytes, 1024, 1 << 20, &value))
        return fail(QStringLiteral("--max-head-bytes expects 1024 to 1048576"));
    limits.maxHeadBytes = value;
    if (!positive(maxBodyBytes, 1024, 64 << 20, &value))
        return fail(QStringLiteral("--max-body-bytes expects 1024 to 67108864"));
    const qint64 bodyLimit = value;
    if (!positive(headTimeout, 50, 3600000, &value))
        return fail(QStringLiteral("--head-timeout-ms expects 50 to 3600000"));
    limits.headTimeout = std::chrono::milliseconds(value);
    if (!positive(idleTimeout, 50, 86400000, &value))
        return fail(QStringLiteral("--idle-timeout-ms expects 50 to 86400000"));
    limits.idleTimeout = std::chrono::milliseconds(value);
    if (!positive(maxConnections, 1, 100000, &value))
        return fail(QStringLiteral("--max-connections expects 1 to 100000"));
    limits.maxConnections = int(value);
    if (!positive(maxPerAddress, 1, 100000, &value))
        return fail(QStringLiteral("--max-connections-per-address expects 1 to 100000"));
    limits.maxConnectionsPerAddress = int(value);
    const QString providerName = parser.value(provider);
    if (providerName != u"stripe" && providerName != u"paysim")
        return fail(QStringLiteral("--provider must be stripe or paysim"));
    bool ok = false;
    const double windowHours = parser.value(keyWindowHours).toDouble(&ok);
    if (!ok || windowHours <= 0)
        return fail(QStringLiteral("--key-window-hours expects a positive number"));
    const int marginMinutes = parser.value(keyWindowMargin).toInt(&ok);
    if (!ok || marginMinutes < 0)
        return fail(QStringLiteral("--key-window-margin-minutes expects a non-negative integer"));
    const int heartbeatMs = parser.value(heartbeat).toInt(&ok);
    if (!ok || heartbeatMs < 50)
        return fail(QStringLiteral("--sse-heartbeat-ms expects at least 50"));
    const int pollMs = parser.value(poll).toInt(&ok);
    if (!ok || pollMs < 10 || pollMs > 5000)
        return fail(QStringLiteral("--sse-poll-ms expects 10 to 5000"));
    const int failureLimit = parser.value(authFailureLimit).toInt(&ok);
    if (!ok || failureLimit < 1 || failureLimit > 1000000)
        return fail(QStringLiteral("--auth-failure-limit expects 1 to 1000000"));

    cs::ExecutionConfig execution;
    if (parser.isSet(executionConfig)) {
        QFile file(parser.value(executionConfig));
        if (!file.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("--execution-config: cannot read ") + file.fileName());
        QString configError;
        execution = cs::ExecutionConfig::fromJson(QJsonDocument::fromJson(file.readAll()).object(), &configError);
        if (!configError.isEmpty())
            return fail(QStringLiteral("--execution-config: ") + configError);
    }
    // The provider adapter. Without --provider-url the API runs without one: look-ups answer 503.
    std::unique_ptr<cs::StripeClient> providerClient;
    if (parser.isSet(providerUrl)) {
        cs::StripeClientConfig config;
        config.baseUrl = QUrl(parser.value(providerUrl), QUrl::StrictMode);
        config.name = providerName;
        QString keyError;
        const auto key = cs::StripeClient::readSecretKeyFile(parser.value(providerKeyFile), &keyError);
        if (!key)
            return fail(QStringLiteral("--provider-key-file: ") + keyError);
        config.secretKey = *key;
        // The adapter's deadlines are the executor's: ExecutionConfig sizes the lease from
        // request_timeout_ms (>= 2x + 1 s), so a POST must never outlive it. A look-up never
        // waits longer than a refund request either.
        config.requestTimeout = execution.requestTimeout;
        config.lookupTimeout = std::min(config.lookupTimeout, execution.requestTimeout);
        if (const QString invalid = config.validate(); !invalid.isEmpty())
            return fail(invalid);
        providerClient = std::make_unique<cs::StripeClient>(config);
    }

    // One key window for the executor, the reconciler and the API's key_window_ends_at.
    execution.keyWindow = std::chrono::milliseconds(qint64(windowHours * 3600 * 1000));
    execution.keyWindowMargin = std::chrono::minutes(marginMinutes);
    // Invariant 7 (issue 33): a window longer than the provider promises to keep a key would allow
    // a "same-key" resend that the provider treats as new. Stripe (and paysim) promise 24 h.
    if (const auto promised = cs::StripeClientConfig().keyRetention; execution.keyWindow > promised)
        return fail(QStringLiteral("--key-window-hours %1 is longer than the %2 h for which %3 promises to remember an"
                                   " idempotency key: a same-key resend after that could refund twice. Use at most %2"
                                   " (with --key-window-margin-minutes as the safety margin)")
                        .arg(parser.value(keyWindowHours))
                        .arg(double(promised.count()) / 3600000.0)
                        .arg(providerName));
    execution.instanceName = QStringLiteral("countersignd-%1").arg(QCoreApplication::applicationPid());

    QByteArray webhookSecret;
    if (parser.isSet(webhookSecretFile)) {
        QFile file(parser.value(webhookSecretFile));
        if (!file.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("--webhook-secret-file: cannot read ") + file.fileName());
        webhookSecret = file.readAll().trimmed();
        if (webhookSecret.isEmpty())
            return fail(QStringLiteral("--webhook-secret-file is empty"));
    }

    // Declared before the ledger: it outlives every write (LedgerDatabase::setWitness).
    cs::LedgerWitness witness;
    cs::Ledger ledger;
    QString error;
    int exitCode = 2;
    if (!openLedger(ledger, parser, &error, {}, &exitCode))
        return fail(error, exitCode);
    // A ledger behind the witness of its audit head lost acknowledged writes: not served (issue 34).
    if (const QString witnessPath = witnessPathOf(parser); !witnessPath.isEmpty()) {
        QString note;
        if (const cs::LedgerError attached = cs::LedgerCheck::attachWitness(ledger.database(), witness, witnessPath, &note);
            !attached.ok())
            return fail(attached.message(), attached.code() == cs::LedgerError::Code::Damaged
                                                    || attached.code() == cs::LedgerError::Code::Invalid
                                                ? ExitLedgerRefused
                                                : 1);
        if (!note.isEmpty())
            cs::LogFormat::say(QtInfoMsg, QStringLiteral("countersignd"), note);
    }
    const auto detachWitness = qScopeGuard([&ledger] { ledger.database().setWitness(nullptr); });
    // The whole ledger is checked once more in the background while it serves (the bounded check
    // at open reads its schema and its chain's tail): a damaged page anywhere, a chain broken
    // anywhere, and every write is refused from then on and readiness says why (issue 34).
    std::atomic<bool> stopFullCheck{false};
    std::thread fullCheck([&ledger, &stopFullCheck] {
        QElapsedTimer clock;
        clock.start();
        const auto checked = cs::LedgerCheck::full(ledger.database(), &stopFullCheck);
        ledger.database().releaseCurrentThread();
        if (!checked.ok() && stopFullCheck.load()) {
            return; // the service stopped first
        } else if (!checked.ok()) {
            cs::LogFormat::say(QtWarningMsg, QStringLiteral("countersignd"),
                               QStringLiteral("the ledger's full check could not run: ") + checked.error().toString());
        } else if (!checked->ok) {
            ledger.database().markDamaged(QStringLiteral("the ledger is damaged: ") + checked->problem);
            cs::LogFormat::say(QtCriticalMsg, QStringLiteral("countersignd"),
                               QStringLiteral("the ledger is DAMAGED (%1); nothing more is written and readiness fails:"
                                              " stop the service, `countersignd check --db`, restore (docs/OPERATIONS.md)")
                                   .arg(checked->problem));
        } else {
            cs::LogFormat::say(QtInfoMsg, QStringLiteral("countersignd"),
                               QStringLiteral("the ledger is whole: %1 audit rows checked in %2 ms")
                                   .arg(checked->chain.rowsChecked)
                                   .arg(clock.elapsed()));
        }
    });
    const auto joinFullCheck = qScopeGuard([&fullCheck, &stopFullCheck] {
        stopFullCheck.store(true);
        fullCheck.join();
    });
    ledger.reader().prepareSearch(); // the first search after a start has its trigram sample

    // The approval policy: recorded as a version in the ledger and in force before anything is served.
    std::unique_ptr<cs::PolicyService> policy;
    if (parser.isSet(policyFile)) {
        policy = std::make_unique<cs::PolicyService>(ledger.policies(), ledger.approvals(), parser.value(policyFile));
        const auto loaded = policy->reload(QStringLiteral("startup"));
        if (const auto *invalid = std::get_if<cs::PolicyParser::Error>(&loaded))
            return fail(QStringLiteral("--policy %1: %2").arg(parser.value(policyFile), invalid->toString()));
    }

    std::unique_ptr<cs::Executor> executor;
    if (providerClient) {
        if (!parser.isSet(noExecutor))
            executor = std::make_unique<cs::Executor>(cs::Reconciler::storesOf(ledger), *providerClient, execution);
    }
    std::unique_ptr<cs::WebhookReceiver> webhooks;
    if (!webhookSecret.isEmpty()) {
        cs::WebhookReceiver::Options webhookOptions;
        webhookOptions.secret = webhookSecret;
        webhooks = std::make_unique<cs::WebhookReceiver>(ledger.evidence(), ledger.reader(), webhookOptions);
    }

    cs::ApiServer::Options options;
    options.service.providerName = providerName;
    options.service.providerAccount = parser.value(providerAccount);
    options.service.keyWindow = std::chrono::milliseconds(qint64(windowHours * 3600 * 1000));
    options.service.keyWindowSafetyMargin = std::chrono::minutes(marginMinutes);
    options.events.heartbeatMs = heartbeatMs;
    options.events.changes.pollMs = pollMs;
    options.authThrottle.maxFailures = failureLimit;
    options.maxBodyBytes = bodyLimit;
    options.connections = limits;
    options.tls = tls;
    cs::Executor *executorPtr = executor.get();
    if (executorPtr)
        options.service.approved = [executorPtr] { executorPtr->wake(); };
    cs::ApiServer api(&ledger, providerClient.get(), options);
    if (cs::WebhookReceiver *receiver = webhooks.get()) {
        api.setWebhookHandler(cs::webhookHandlerFor(receiver));
    }
    api.setPolicyService(policy.get());
    cs::HttpTransport::Options mcpOptions;
    for (const QString &origin : parser.values(mcpOrigin)) {
        const QUrl url(origin, QUrl::StrictMode);
        if (!url.isValid() || (url.scheme() != u"http" && url.scheme() != u"https") || url.host().isEmpty()
            || !url.path().isEmpty())
            return fail(QStringLiteral("--mcp-allow-origin %1: expected scheme://host[:port], e.g. https://agents.example.com").arg(origin));
        mcpOptions.allowedOrigins.append(origin);
    }
    mcpOptions.allowedHosts = parser.values(mcpHost);
    if (!positive(mcpSessions, 1, 1000000, &value))
        return fail(QStringLiteral("--mcp-max-sessions expects 1 to 1000000"));
    mcpOptions.maxSessions = int(value);
    if (!positive(mcpPoll, 50, 60000, &value))
        return fail(QStringLiteral("--mcp-poll-ms expects 50 to 60000"));
    mcpOptions.pollIntervalMs = int(value);
    cs::HttpTransport mcp(&api, mcpOptions);
    std::unique_ptr<QSocketNotifier> hangup;
    if (policy)
        hangup = reloadPolicyOnHangup(policy.get());
    if (!api.listen(address, port, &error))
        return fail(error, 1);
    if (executor && !executor->start(&error))
        return fail(QStringLiteral("cannot start the executor: ") + error, 1);

    // SIGTERM drains: the API stops accepting and lets look-ups finish, then the executor lets
    // requests in flight finish and records them (bounded by the provider timeout).
    cs::TerminationSignals termination;
    QObject::connect(&termination, &cs::TerminationSignals::terminationRequested, &api, [&api, &app](int) {
        cs::ServiceNotify::stopping();
        api.drain();
        QTimer::singleShot(60000, &app, [&app] { app.exit(1); }); // drain took too long
    });
    QObject::connect(&api, &cs::ApiServer::drained, &app, [&executor, &app] {
        if (executor)
            executor->stop();
        app.quit();
    });

    // The address really bound, and its scheme; an unspecified address is said so, not dressed up
    // as 127.0.0.1.
    QTextStream(stdout) << api.baseUrl().toString() << Qt::endl; // endl flushes: launchers read this line
    if (!address.isLoopback()) {
        const bool any = address == QHostAddress::AnyIPv4 || address == QHostAddress::AnyIPv6 || address == QHostAddress::Any;
        cs::LogFormat::say(QtWarningMsg, QStringLiteral("countersignd"),
                           QStringLiteral("listening on %1 (%2)%3")
                               .arg(any ? QStringLiteral("every address of this host") : QStringLiteral("a network address"),
                                    api.baseUrl().toString(),
                                    tls ? QStringLiteral(", TLS only")
                                        : QStringLiteral(", plain HTTP: tokens travel in clear text (--insecure-listen)")));
    }
    // systemd (Type=notify): ready once the API listens and the executor runs.
    if (!cs::ServiceNotify::ready("listening on " + api.baseUrl().toString().toUtf8()))
        cs::LogFormat::say(QtWarningMsg, QStringLiteral("countersignd"),
                           QStringLiteral("NOTIFY_SOCKET is set but readiness could not be sent to it"));
    return app.exec();
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("countersignd"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COUNTERSIGN_VERSION));
    const QStringList arguments = QCoreApplication::arguments();
    const QString command = arguments.value(1);
    if (command == u"serve")
        return runServe(app, arguments);
    if (command == u"user")
        return runUser(arguments);
    if (command == u"audit")
        return runAudit(arguments);
    if (command == u"export")
        return cs::ExportCommand::run(arguments);
    if (command == u"migrate")
        return runMigrate(arguments);
    if (command == u"backup")
        return runBackup(arguments);
    if (command == u"check")
        return runCheck(arguments);
    if (command == u"--version") {
        QTextStream(stdout) << "countersignd " << COUNTERSIGN_VERSION << Qt::endl;
        return 0;
    }
    QTextStream(command == u"--help" || command == u"-h" ? stdout : stderr)
        << "usage: countersignd serve --db FILE|URI [--listen HOST:PORT] [--provider stripe|paysim --provider-url URL"
           " --provider-key-file FILE] [--tls-cert FILE --tls-key FILE] [--log-format text|json]\n"
           "       countersignd user add NAME --role agent|approver|supervisor|auditor|admin [--expires 30d|DATE] --db FILE|URI\n"
           "       countersignd user token rotate NAME [--expires 30d|DATE|never] --db FILE|URI\n"
           "       countersignd user disable|enable NAME --db FILE|URI\n"
           "       countersignd user list --db FILE|URI\n"
           "       countersignd audit verify --db FILE|URI [--witness FILE]\n"
           "       countersignd check --db FILE|URI [--witness FILE] [--reset-witness]\n"
           "       countersignd export actions --db FILE|URI [--state S]... [--search TEXT] [--since DATE] [--until DATE]\n"
           "                               --format csv|json --to FILE|-\n"
           "       countersignd export history ACTION_ID --db FILE|URI --format csv|json --to FILE|-\n"
           "       countersignd backup --to FILE --db FILE [--force]\n"
           "       countersignd migrate --db FILE|URI\n"
           "       countersignd migrate --from FILE --to URI\n"
           "FILE: a SQLite ledger. URI: postgresql://USER@HOST:PORT/DBNAME (its password from --db-password-file FILE\n"
           "or libpq's PGPASSFILE / ~/.pgpass, never on the command line).\n";
    return command == u"--help" || command == u"-h" ? 0 : 2;
}
