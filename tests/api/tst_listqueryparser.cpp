// The query string of GET /actions (server/api/listqueryparser.h): one row per accepted and per
// refused case, with the exact problem code and field errors the API answers; and the cursor,
// which only the filters and order it was issued under accept.
#include "server/api/listqueryparser.h"

#include <QJsonArray>
#include <QTest>

using namespace cs;

Q_DECLARE_METATYPE(cs::Role)

class TestListQueryParser : public QObject
{
    Q_OBJECT

private slots:
    void acceptedQuery_data();
    void acceptedQuery();
    void refusedQuery_data();
    void refusedQuery();
    void cursor_data();
    void cursor();
    void cursorRoundTrip();
    void awaitingDecision_data();
    void awaitingDecision();
    void cursorOfEarlierVersion_data();
    void cursorOfEarlierVersion();
};

namespace {

User user(Role role, const QString &name = QStringLiteral("ana"))
{
    User u;
    u.name = name;
    u.role = role;
    return u;
}

QUrlQuery queryOf(const QString &text)
{
    return QUrlQuery(text);
}

QStringList wireStates(const QList<ActionState> &states)
{
    QStringList names;
    for (ActionState state : states)
        names << toWire(state);
    return names;
}

QStringList fieldErrors(const Problem &problem)
{
    QStringList out;
    for (const QJsonValue &error : problem.toJson(QString()).value(QLatin1String("errors")).toArray()) {
        const QJsonObject e = error.toObject();
        out << e.value(QLatin1String("field")).toString() + QLatin1String(": ") + e.value(QLatin1String("message")).toString();
    }
    return out;
}

ActionReader::Summary lastRow()
{
    ActionReader::Summary row;
    row.record.id = QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa");
    row.record.currency = QStringLiteral("jpy");
    row.record.createdAt = QDateTime::fromMSecsSinceEpoch(1764543515123, Qt::UTC);
    row.sortValue = 4000;
    return row;
}

QString filtersOf(const QString &query, const User &caller)
{
    return std::get<ListQueryParser::Parsed>(ListQueryParser::parse(queryOf(query), caller)).filters;
}

QString cursorFor(const QString &issuedUnder, const User &caller)
{
    return ListQueryParser::cursorAfter(lastRow(), filtersOf(issuedUnder, caller));
}

QString base64Url(const QString &raw)
{
    return QString::fromLatin1(raw.toUtf8().toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

} // namespace

void TestListQueryParser::acceptedQuery_data()
{
    using Sort = ActionReader::SortKey;
    QTest::addColumn<QString>("query");
    QTest::addColumn<Role>("role");
    QTest::addColumn<QStringList>("states");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("requestedBy");
    QTest::addColumn<int>("sort");
    QTest::addColumn<bool>("descending");
    QTest::addColumn<int>("limit");

    const QStringList none;
    const QStringList queue{QStringLiteral("PENDING"), QStringLiteral("CONFIRMATION_UNKNOWN"), QStringLiteral("REQUIRES_REVIEW")};
    const QString nobody;
    const int createdAt = int(Sort::CreatedAt);
    QTest::newRow("nothing: newest first, 50, everyone's") << QString() << Role::Approver << none << QString() << nobody << createdAt << true << 50;
    QTest::newRow("one state") << QStringLiteral("state=PENDING") << Role::Approver << QStringList{QStringLiteral("PENDING")} << QString() << nobody << createdAt << true << 50;
    QTest::newRow("states in the order given")
        << QStringLiteral("state=COMPLETED,REJECTED") << Role::Approver << QStringList{QStringLiteral("COMPLETED"), QStringLiteral("REJECTED")}
        << QString() << nobody << createdAt << true << 50;
    QTest::newRow("queue is three states") << QStringLiteral("state=queue") << Role::Approver << queue << QString() << nobody << createdAt << true << 50;
    QTest::newRow("queue and one of its states: kept once")
        << QStringLiteral("state=PENDING,queue") << Role::Approver << queue << QString() << nobody << createdAt << true << 50;
    QTest::newRow("q") << QStringLiteral("q=order-1042") << Role::Auditor << none << QStringLiteral("order-1042") << nobody << createdAt << true << 50;
    QTest::newRow("q decoded") << QStringLiteral("q=ord%20er") << Role::Auditor << none << QStringLiteral("ord er") << nobody << createdAt << true << 50;
    QTest::newRow("q of 200 characters") << QStringLiteral("q=") + QString(200, u'x') << Role::Auditor << none << QString(200, u'x') << nobody << createdAt << true << 50;
    QTest::newRow("requested_by") << QStringLiteral("requested_by=agent-7") << Role::Supervisor << none << QString() << QStringLiteral("agent-7") << createdAt << true << 50;
    QTest::newRow("an agent: its own, unasked") << QString() << Role::Agent << none << QString() << QStringLiteral("ana") << createdAt << true << 50;
    QTest::newRow("an agent naming itself") << QStringLiteral("requested_by=ana") << Role::Agent << none << QString() << QStringLiteral("ana") << createdAt << true << 50;
    QTest::newRow("limit 1") << QStringLiteral("limit=1") << Role::Admin << none << QString() << nobody << createdAt << true << 1;
    QTest::newRow("limit 200") << QStringLiteral("limit=200") << Role::Admin << none << QString() << nobody << createdAt << true << 200;
    QTest::newRow("limit with a leading zero") << QStringLiteral("limit=007") << Role::Admin << none << QString() << nobody << createdAt << true << 7;
    QTest::newRow("sort created_at ascending") << QStringLiteral("sort=created_at") << Role::Admin << none << QString() << nobody << createdAt << false << 50;
    QTest::newRow("sort -amount") << QStringLiteral("sort=-amount") << Role::Admin << none << QString() << nobody << int(Sort::Amount) << true << 50;
    QTest::newRow("sort attempt_count") << QStringLiteral("sort=attempt_count") << Role::Admin << none << QString() << nobody << int(Sort::AttemptCount) << false << 50;
    QTest::newRow("sort -last_event_at") << QStringLiteral("sort=-last_event_at") << Role::Admin << none << QString() << nobody << int(Sort::LastEventAt) << true << 50;
    QTest::newRow("everything at once")
        << QStringLiteral("state=REQUIRES_REVIEW&q=ch_1&requested_by=bot&limit=10&sort=amount") << Role::Auditor
        << QStringList{QStringLiteral("REQUIRES_REVIEW")} << QStringLiteral("ch_1") << QStringLiteral("bot") << int(Sort::Amount) << false << 10;
}

void TestListQueryParser::acceptedQuery()
{
    QFETCH(QString, query);
    QFETCH(Role, role);
    QFETCH(QStringList, states);
    QFETCH(QString, text);
    QFETCH(QString, requestedBy);
    QFETCH(int, sort);
    QFETCH(bool, descending);
    QFETCH(int, limit);

    const auto parsed = ListQueryParser::parse(queryOf(query), user(role));
    if (const auto *refused = std::get_if<Problem>(&parsed))
        QFAIL(qPrintable(fieldErrors(*refused).join(u'\n')));
    const ActionReader::ListQuery &list = std::get<ListQueryParser::Parsed>(parsed).query;
    QCOMPARE(wireStates(list.states), states);
    QCOMPARE(list.text, text);
    QCOMPARE(list.requestedBy, requestedBy);
    QCOMPARE(int(list.sort), sort);
    QCOMPARE(list.descending, descending);
    QCOMPARE(list.limit, limit);
    QVERIFY(!list.afterCursor);
    QCOMPARE(std::get<ListQueryParser::Parsed>(parsed).filters.size(), 16);
}

void TestListQueryParser::refusedQuery_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<Role>("role");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QStringList>("errors");

    const QString invalid = QStringLiteral("invalid_parameter");
    const QString notState = QStringLiteral("\" is not a state (PENDING, EXECUTING, CONFIRMATION_UNKNOWN, COMPLETED, REJECTED,"
                                            " REQUIRES_REVIEW) or queue");
    const QString limit = QStringLiteral("limit: must be an integer from 1 to 200");
    const QString sort = QStringLiteral("sort: must be created_at, amount, attempt_count or last_event_at, with a leading"
                                        " - for descending order");
    const QString notCursor = QStringLiteral("cursor: is not a cursor this server issued");

    QTest::newRow("an agent naming another agent: 403 before anything else")
        << QStringLiteral("requested_by=bob&limit=0") << Role::Agent << QStringLiteral("forbidden") << QStringList();
    QTest::newRow("an agent with an empty requested_by")
        << QStringLiteral("requested_by=") << Role::Agent << QStringLiteral("forbidden") << QStringList();
    const QString control = QStringLiteral(": must not contain control characters (U+0000 to U+001F, U+007F)");
    QTest::newRow("q=%00 (it matched every action)") << QStringLiteral("q=%00") << Role::Admin << invalid
                                                     << QStringList{QStringLiteral("q") + control};
    QTest::newRow("q with a NUL inside") << QStringLiteral("q=order%00-1042") << Role::Admin << invalid
                                         << QStringList{QStringLiteral("q") + control};
    QTest::newRow("q with a line feed") << QStringLiteral("q=a%0Ab") << Role::Admin << invalid
                                        << QStringList{QStringLiteral("q") + control};
    QTest::newRow("requested_by with a NUL") << QStringLiteral("requested_by=agent-7%00") << Role::Admin << invalid
                                             << QStringList{QStringLiteral("requested_by") + control};
    QTest::newRow("unknown parameter") << QStringLiteral("page=2") << Role::Admin << invalid
                                       << QStringList{QStringLiteral("page: is not a known parameter")};
    QTest::newRow("a parameter twice") << QStringLiteral("limit=5&limit=6") << Role::Admin << invalid
                                       << QStringList{QStringLiteral("limit: may be given only once")};
    QTest::newRow("unknown state") << QStringLiteral("state=DONE") << Role::Admin << invalid
                                   << QStringList{QStringLiteral("state: \"DONE") + notState};
    QTest::newRow("lowercase state") << QStringLiteral("state=pending") << Role::Admin << invalid
                                     << QStringList{QStringLiteral("state: \"pending") + notState};
    QTest::newRow("empty state") << QStringLiteral("state=") << Role::Admin << invalid
                                 << QStringList{QStringLiteral("state: \"") + notState};
    QTest::newRow("a state twice") << QStringLiteral("state=PENDING,PENDING") << Role::Admin << invalid
                                   << QStringList{QStringLiteral("state: \"PENDING\" is given twice")};
    QTest::newRow("queue twice") << QStringLiteral("state=queue,queue") << Role::Admin << invalid
                                 << QStringList{QStringLiteral("state: \"queue\" is given twice")};
    QTest::newRow("empty q") << QStringLiteral("q=") << Role::Admin << invalid
                             << QStringList{QStringLiteral("q: must be 1 to 200 characters")};
    QTest::newRow("q of 201 characters") << QStringLiteral("q=") + QString(201, u'x') << Role::Admin << invalid
                                         << QStringList{QStringLiteral("q: must be 1 to 200 characters")};
    QTest::newRow("empty requested_by") << QStringLiteral("requested_by=") << Role::Admin << invalid
                                        << QStringList{QStringLiteral("requested_by: must be 1 to 255 characters")};
    QTest::newRow("requested_by of 256 characters") << QStringLiteral("requested_by=") + QString(256, u'a') << Role::Admin << invalid
                                                    << QStringList{QStringLiteral("requested_by: must be 1 to 255 characters")};
    QTest::newRow("limit 0") << QStringLiteral("limit=0") << Role::Admin << invalid << QStringList{limit};
    QTest::newRow("limit 201") << QStringLiteral("limit=201") << Role::Admin << invalid << QStringList{limit};
    QTest::newRow("limit negative") << QStringLiteral("limit=-1") << Role::Admin << invalid << QStringList{limit};
    QTest::newRow("limit with a sign") << QStringLiteral("limit=%2B5") << Role::Admin << invalid << QStringList{limit};
    QTest::newRow("limit of four digits") << QStringLiteral("limit=0050") << Role::Admin << invalid << QStringList{limit};
    QTest::newRow("limit not a number") << QStringLiteral("limit=ten") << Role::Admin << invalid << QStringList{limit};
    QTest::newRow("limit empty") << QStringLiteral("limit=") << Role::Admin << invalid << QStringList{limit};
    QTest::newRow("unknown sort") << QStringLiteral("sort=state") << Role::Admin << invalid << QStringList{sort};
    QTest::newRow("sort with +") << QStringLiteral("sort=%2Bamount") << Role::Admin << invalid << QStringList{sort};
    QTest::newRow("sort --amount") << QStringLiteral("sort=--amount") << Role::Admin << invalid << QStringList{sort};
    QTest::newRow("empty cursor") << QStringLiteral("cursor=") << Role::Admin << invalid << QStringList{notCursor};
    QTest::newRow("cursor not base64url") << QStringLiteral("cursor=%2B%2F%3D") << Role::Admin << invalid << QStringList{notCursor};
    QTest::newRow("cursor of another version")
        << QStringLiteral("cursor=") + QString::fromLatin1(QByteArray("c1.1.2.abc.act_x").toBase64(QByteArray::Base64UrlEncoding))
        << Role::Admin << invalid << QStringList{notCursor};
    QTest::newRow("cursor without an id")
        << QStringLiteral("cursor=") + QString::fromLatin1(QByteArray("c2.1.2.abc.").toBase64(QByteArray::Base64UrlEncoding))
        << Role::Admin << invalid << QStringList{notCursor};
    QTest::newRow("cursor with a non-numeric position")
        << QStringLiteral("cursor=") + QString::fromLatin1(QByteArray("c2.x.2.abc.act_x").toBase64(QByteArray::Base64UrlEncoding))
        << Role::Admin << invalid << QStringList{notCursor};
    QTest::newRow("cursor with an upper-case currency")
        << QStringLiteral("cursor=") + base64Url(QStringLiteral("c3.USD.1.2.abc.act_x")) << Role::Admin << invalid
        << QStringList{notCursor};
    QTest::newRow("cursor without its currency")
        << QStringLiteral("cursor=") + base64Url(QStringLiteral("c3..1.2.abc.act_x")) << Role::Admin << invalid
        << QStringList{notCursor};
    QTest::newRow("cursor with a currency of four letters")
        << QStringLiteral("cursor=") + base64Url(QStringLiteral("c3.usdx.1.2.abc.act_x")) << Role::Admin << invalid
        << QStringList{notCursor};
    QTest::newRow("cursor of 513 characters") << QStringLiteral("cursor=") + QString(513, u'A') << Role::Admin << invalid
                                              << QStringList{notCursor};
    QTest::newRow("every problem at once, in parameter order")
        << QStringLiteral("page=1&state=NOPE&q=&limit=0&sort=x") << Role::Admin << invalid
        << QStringList{QStringLiteral("page: is not a known parameter"), QStringLiteral("state: \"NOPE") + notState,
                       QStringLiteral("q: must be 1 to 200 characters"), limit, sort};
}

void TestListQueryParser::refusedQuery()
{
    QFETCH(QString, query);
    QFETCH(Role, role);
    QFETCH(QString, code);
    QFETCH(QStringList, errors);

    const auto parsed = ListQueryParser::parse(queryOf(query), user(role));
    QVERIFY(std::holds_alternative<Problem>(parsed));
    const Problem &problem = std::get<Problem>(parsed);
    QCOMPARE(problem.code(), code);
    QCOMPARE(problem.status(), code == u"forbidden" ? 403 : 400);
    QCOMPARE(fieldErrors(problem), errors);
}

void TestListQueryParser::cursor_data()
{
    QTest::addColumn<QString>("issuedUnder");
    QTest::addColumn<QString>("usedUnder");
    QTest::addColumn<bool>("accepted");

    QTest::newRow("the same filters") << QStringLiteral("state=PENDING&sort=amount") << QStringLiteral("state=PENDING&sort=amount") << true;
    QTest::newRow("the same filters in another order")
        << QStringLiteral("q=ch&state=PENDING") << QStringLiteral("state=PENDING&q=ch") << true;
    QTest::newRow("states in another order") << QStringLiteral("state=PENDING,REJECTED") << QStringLiteral("state=REJECTED,PENDING") << true;
    QTest::newRow("queue and its three states") << QStringLiteral("state=queue")
                                                << QStringLiteral("state=PENDING,CONFIRMATION_UNKNOWN,REQUIRES_REVIEW") << true;
    QTest::newRow("another limit") << QStringLiteral("limit=5") << QStringLiteral("limit=20") << true;
    QTest::newRow("the default sort spelt out") << QString() << QStringLiteral("sort=-created_at") << true;
    QTest::newRow("another sort") << QStringLiteral("sort=amount") << QStringLiteral("sort=-amount") << false;
    QTest::newRow("another state") << QStringLiteral("state=PENDING") << QStringLiteral("state=REJECTED") << false;
    QTest::newRow("a state more") << QStringLiteral("state=PENDING") << QStringLiteral("state=PENDING,REJECTED") << false;
    QTest::newRow("another q") << QStringLiteral("q=ch_1") << QStringLiteral("q=ch_2") << false;
    QTest::newRow("q dropped") << QStringLiteral("q=ch_1") << QString() << false;
    QTest::newRow("another requested_by") << QStringLiteral("requested_by=a") << QStringLiteral("requested_by=b") << false;
    QTest::newRow("awaiting=decision both times")
        << QStringLiteral("state=queue&awaiting=decision&sort=-amount") << QStringLiteral("awaiting=decision&sort=-amount&state=queue")
        << true;
    QTest::newRow("awaiting=decision dropped") << QStringLiteral("state=queue&awaiting=decision") << QStringLiteral("state=queue")
                                               << false;
    QTest::newRow("awaiting=decision added") << QStringLiteral("state=queue") << QStringLiteral("state=queue&awaiting=decision")
                                             << false;
}

void TestListQueryParser::cursor()
{
    QFETCH(QString, issuedUnder);
    QFETCH(QString, usedUnder);
    QFETCH(bool, accepted);

    const User caller = user(Role::Auditor);
    QUrlQuery query = queryOf(usedUnder);
    query.addQueryItem(QStringLiteral("cursor"), cursorFor(issuedUnder, caller));
    const auto parsed = ListQueryParser::parse(query, caller);
    if (!accepted) {
        QVERIFY(std::holds_alternative<Problem>(parsed));
        QCOMPARE(std::get<Problem>(parsed).code(), QStringLiteral("invalid_parameter"));
        QCOMPARE(fieldErrors(std::get<Problem>(parsed)),
                 QStringList{QStringLiteral("cursor: was issued for other filters or another sort")});
        return;
    }
    QVERIFY(std::holds_alternative<ListQueryParser::Parsed>(parsed));
    QVERIFY(std::get<ListQueryParser::Parsed>(parsed).query.afterCursor);
}

// The position a cursor carries comes back out exactly; an agent's cursor is tied to its name.
void TestListQueryParser::cursorRoundTrip()
{
    const QString cursor = cursorFor(QStringLiteral("sort=amount"), user(Role::Agent, QStringLiteral("bot-1")));
    QVERIFY(!cursor.contains(u'='));
    QUrlQuery query(QStringLiteral("sort=amount"));
    query.addQueryItem(QStringLiteral("cursor"), cursor);
    const auto parsed = ListQueryParser::parse(query, user(Role::Agent, QStringLiteral("bot-1")));
    QVERIFY(std::holds_alternative<ListQueryParser::Parsed>(parsed));
    const ActionReader::ListQuery &list = std::get<ListQueryParser::Parsed>(parsed).query;
    QVERIFY(list.afterCursor);
    QCOMPARE(list.cursorCurrency, QStringLiteral("jpy")); // amount sorts by currency first
    QCOMPARE(list.cursorSortValue, qint64(4000));
    QCOMPARE(list.cursorCreatedAtMs, qint64(1764543515123));
    QCOMPARE(list.cursorId, lastRow().record.id);

    const auto other = ListQueryParser::parse(query, user(Role::Agent, QStringLiteral("bot-2")));
    QVERIFY(std::holds_alternative<Problem>(other));
}

void TestListQueryParser::awaitingDecision_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<bool>("accepted");
    QTest::addColumn<bool>("awaiting");

    QTest::newRow("absent: every action of the states") << QStringLiteral("state=queue") << true << false;
    QTest::newRow("decision") << QStringLiteral("state=queue&awaiting=decision") << true << true;
    QTest::newRow("decision without a state") << QStringLiteral("awaiting=decision") << true << true;
    QTest::newRow("decision with a search and an order")
        << QStringLiteral("awaiting=decision&q=199&sort=-amount") << true << true;
    QTest::newRow("empty") << QStringLiteral("awaiting=") << false << false;
    QTest::newRow("upper case") << QStringLiteral("awaiting=DECISION") << false << false;
    QTest::newRow("another value") << QStringLiteral("awaiting=approval") << false << false;
    QTest::newRow("twice") << QStringLiteral("awaiting=decision&awaiting=decision") << false << false;
}

// awaiting=decision: the one accepted value; anything else is 400 naming `awaiting`.
void TestListQueryParser::awaitingDecision()
{
    QFETCH(QString, query);
    QFETCH(bool, accepted);
    QFETCH(bool, awaiting);

    const auto parsed = ListQueryParser::parse(queryOf(query), user(Role::Approver));
    if (!accepted) {
        QVERIFY(std::holds_alternative<Problem>(parsed));
        const QStringList errors = fieldErrors(std::get<Problem>(parsed));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().startsWith(QLatin1String("awaiting: ")), qPrintable(errors.first()));
        return;
    }
    QVERIFY(std::holds_alternative<ListQueryParser::Parsed>(parsed));
    QCOMPARE(std::get<ListQueryParser::Parsed>(parsed).query.awaitingDecision, awaiting);
}

void TestListQueryParser::cursorOfEarlierVersion_data()
{
    QTest::addColumn<QString>("sort");
    QTest::addColumn<bool>("accepted");

    QTest::newRow("newest first") << QStringLiteral("-created_at") << true;
    QTest::newRow("attempt count") << QStringLiteral("attempt_count") << true;
    QTest::newRow("last event") << QStringLiteral("-last_event_at") << true;
    QTest::newRow("amount: no currency to continue from") << QStringLiteral("-amount") << false;
    QTest::newRow("amount ascending") << QStringLiteral("amount") << false;
}

// A "c2" cursor (before the amount order by currency) still pages every order but amount.
void TestListQueryParser::cursorOfEarlierVersion()
{
    QFETCH(QString, sort);
    QFETCH(bool, accepted);

    const User caller = user(Role::Auditor);
    const QString issuedUnder = QStringLiteral("state=queue&sort=") + sort;
    QUrlQuery query = queryOf(issuedUnder);
    query.addQueryItem(QStringLiteral("cursor"),
                       base64Url(QStringLiteral("c2.4000.1764543515123.%1.act_aaaaaaaaaaaaaaaaaaaaaaaa")
                                     .arg(filtersOf(issuedUnder, caller))));
    const auto parsed = ListQueryParser::parse(query, caller);
    if (!accepted) {
        QVERIFY(std::holds_alternative<Problem>(parsed));
        QCOMPARE(fieldErrors(std::get<Problem>(parsed)), QStringList{QStringLiteral("cursor: is not a cursor this server issued")});
        return;
    }
    QVERIFY(std::holds_alternative<ListQueryParser::Parsed>(parsed));
    const ActionReader::ListQuery &list = std::get<ListQueryParser::Parsed>(parsed).query;
    QVERIFY(list.afterCursor);
    QCOMPARE(list.cursorSortValue, qint64(4000));
    QCOMPARE(list.cursorCreatedAtMs, qint64(1764543515123));
    QCOMPARE(list.cursorId, QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa"));
}

QTEST_GUILESS_MAIN(TestListQueryParser)
#include "tst_listqueryparser.moc"
