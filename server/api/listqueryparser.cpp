#include "server/api/listqueryparser.h"

#include <QCryptographicHash>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace cs {

namespace {

// The list's `sort` values: a key, descending with a leading "-".
const QList<std::pair<QString, ActionReader::SortKey>> &sortKeys()
{
    static const QList<std::pair<QString, ActionReader::SortKey>> keys = {
        {QStringLiteral("created_at"), ActionReader::SortKey::CreatedAt},
        {QStringLiteral("amount"), ActionReader::SortKey::Amount},
        {QStringLiteral("attempt_count"), ActionReader::SortKey::AttemptCount},
        {QStringLiteral("last_event_at"), ActionReader::SortKey::LastEventAt},
    };
    return keys;
}

// What a cursor is only valid for: the filters and the order.
QString filterFingerprint(const QList<ActionState> &states, const QString &text, const QString &requestedBy,
                          const QString &sort)
{
    QStringList names;
    for (ActionState state : states)
        names << toWire(state);
    names.sort();
    const QByteArray raw = (names.join(u',') + u'\n' + text + u'\n' + requestedBy + u'\n' + sort).toUtf8();
    return QString::fromLatin1(QCryptographicHash::hash(raw, QCryptographicHash::Sha256).toHex().left(16));
}

// "c3.<currency>.<sort value>.<created_at ms>.<filters>.<id>" (cursorAfter), or the "c2" of
// earlier versions, which has no currency: still read for every order but amount, whose position
// it cannot give since amount sorts by currency first.
bool decodeCursor(const QString &cursor, ActionReader::ListQuery *into, QString *filters)
{
    const auto decoded = QByteArray::fromBase64Encoding(cursor.toLatin1(), QByteArray::Base64UrlEncoding
                                                                               | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return false;
    const QString text = QString::fromUtf8(*decoded);
    QStringList parts = text.split(u'.');
    if (parts.size() >= 6 && parts.at(0) == u"c3") {
        into->cursorCurrency = parts.takeAt(1);
        static const QRegularExpression code(QStringLiteral("\\A[a-z]{3}\\z"));
        if (!code.match(into->cursorCurrency).hasMatch())
            return false;
    } else if (parts.size() < 5 || parts.at(0) != u"c2" || into->sort == ActionReader::SortKey::Amount) {
        return false;
    }
    bool sortOk = false;
    bool createdOk = false;
    into->cursorSortValue = parts.at(1).toLongLong(&sortOk);
    into->cursorCreatedAtMs = parts.at(2).toLongLong(&createdOk);
    *filters = parts.at(3);
    into->cursorId = parts.mid(4).join(u'.');
    return sortOk && createdOk && !into->cursorId.isEmpty();
}

// Each parameter at most once, and only the known ones.
void checkNames(const QUrlQuery &query, QList<FieldError> *errors)
{
    static const QStringList known = {QStringLiteral("state"), QStringLiteral("q"), QStringLiteral("requested_by"),
                                      QStringLiteral("cursor"), QStringLiteral("limit"), QStringLiteral("sort"),
                                      QStringLiteral("settlement"), QStringLiteral("discrepancy"),
                                      QStringLiteral("awaiting")};
    QSet<QString> seen;
    for (const auto &item : query.queryItems(QUrl::FullyDecoded)) {
        if (!known.contains(item.first))
            errors->append({item.first, QStringLiteral("is not a known parameter")});
        else if (seen.contains(item.first))
            errors->append({item.first, QStringLiteral("may be given only once")});
        seen.insert(item.first);
    }
}

// `queue` is PENDING, CONFIRMATION_UNKNOWN and REQUIRES_REVIEW; a state named twice is refused,
// one reached twice (through queue) is kept once.
void parseStates(const QString &value, QList<ActionState> *states, QList<FieldError> *errors)
{
    QSet<QString> distinct;
    for (const QString &name : value.split(u',')) {
        if (distinct.contains(name)) {
            errors->append({QStringLiteral("state"), QStringLiteral("\"%1\" is given twice").arg(name)});
            continue;
        }
        distinct.insert(name);
        QList<ActionState> named;
        if (name == u"queue")
            named = {ActionState::Pending, ActionState::ConfirmationUnknown, ActionState::RequiresReview};
        else if (const auto state = stateFromWire(name))
            named = {*state};
        else
            errors->append({QStringLiteral("state"),
                            QStringLiteral("\"%1\" is not a state (PENDING, EXECUTING, CONFIRMATION_UNKNOWN,"
                                           " COMPLETED, REJECTED, REQUIRES_REVIEW) or queue").arg(name)});
        for (ActionState state : std::as_const(named)) {
            if (!states->contains(state))
                states->append(state);
        }
    }
}

bool hasControlCharacter(const QString &text)
{
    return std::any_of(text.cbegin(), text.cend(), [](QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; });
}

} // namespace

std::variant<ListQueryParser::Parsed, Problem> ListQueryParser::parse(const QUrlQuery &query, const User &user)
{
    const auto has = [&](const QString &name) { return query.hasQueryItem(name); };
    const auto value = [&](const QString &name) { return query.queryItemValue(name, QUrl::FullyDecoded); };
    const QString requestedBy = value(QStringLiteral("requested_by"));
    if (user.role == Role::Agent && has(QStringLiteral("requested_by")) && requestedBy != user.name)
        return Problem(QStringLiteral("forbidden"),
                       QStringLiteral("an agent may only list its own actions (requested_by=%1)").arg(user.name));

    QList<FieldError> errors;
    checkNames(query, &errors);
    Parsed parsed;
    ActionReader::ListQuery &list = parsed.query;
    if (has(QStringLiteral("state")))
        parseStates(value(QStringLiteral("state")), &list.states, &errors);
    if (has(QStringLiteral("q"))) {
        list.text = value(QStringLiteral("q"));
        if (list.text.isEmpty() || list.text.size() > 200)
            errors.append({QStringLiteral("q"), QStringLiteral("must be 1 to 200 characters")});
        else if (hasControlCharacter(list.text))
            // U+0000 ended the search's pattern early in SQLite and matched every action (issue 34).
            errors.append({QStringLiteral("q"), QStringLiteral("must not contain control characters (U+0000 to U+001F, U+007F)")});
    }
    if (has(QStringLiteral("requested_by"))) {
        list.requestedBy = requestedBy;
        if (list.requestedBy.isEmpty() || list.requestedBy.size() > 255)
            errors.append({QStringLiteral("requested_by"), QStringLiteral("must be 1 to 255 characters")});
        else if (hasControlCharacter(list.requestedBy))
            errors.append({QStringLiteral("requested_by"),
                           QStringLiteral("must not contain control characters (U+0000 to U+001F, U+007F)")});
    }
    if (user.role == Role::Agent)
        list.requestedBy = user.name;
    if (has(QStringLiteral("settlement"))) {
        if (value(QStringLiteral("settlement")) == u"review")
            list.settlementReview = true;
        else
            errors.append({QStringLiteral("settlement"),
                           QStringLiteral("must be \"review\": the COMPLETED actions whose refund failed or was"
                                          " canceled afterwards and whose review item is open")});
    }
    if (has(QStringLiteral("discrepancy"))) {
        if (value(QStringLiteral("discrepancy")) == u"open")
            list.discrepancyOpen = true;
        else
            errors.append({QStringLiteral("discrepancy"),
                           QStringLiteral("must be \"open\": the final actions the provider contradicts (two refunds"
                                          " for one action, …) whose discrepancy is not closed")});
    }
    if (has(QStringLiteral("awaiting"))) {
        if (value(QStringLiteral("awaiting")) == u"decision")
            list.awaitingDecision = true;
        else
            errors.append({QStringLiteral("awaiting"),
                           QStringLiteral("must be \"decision\": leaves out the PENDING actions already approved and"
                                          " queued for the executor")});
    }
    if (has(QStringLiteral("limit"))) {
        bool ok = false;
        const QString text = value(QStringLiteral("limit"));
        const int limit = text.toInt(&ok);
        static const QRegularExpression digits(QStringLiteral("\\A[0-9]{1,3}\\z"));
        if (!ok || !digits.match(text).hasMatch() || limit < 1 || limit > 200)
            errors.append({QStringLiteral("limit"), QStringLiteral("must be an integer from 1 to 200")});
        else
            list.limit = limit;
    }
    QString sort = QStringLiteral("-created_at");
    if (has(QStringLiteral("sort"))) {
        sort = value(QStringLiteral("sort"));
        const bool descending = sort.startsWith(u'-');
        const QString name = descending ? sort.mid(1) : sort;
        const auto known = std::find_if(sortKeys().begin(), sortKeys().end(),
                                        [&](const auto &entry) { return entry.first == name; });
        if (known == sortKeys().end()) {
            errors.append({QStringLiteral("sort"),
                           QStringLiteral("must be created_at, amount, attempt_count or last_event_at, with a"
                                          " leading - for descending order")});
        } else {
            list.sort = known->second;
            list.descending = descending;
        }
    }
    QString scope = list.requestedBy;
    if (list.settlementReview)
        scope += QStringLiteral("\nsettlement=review");
    if (list.discrepancyOpen)
        scope += QStringLiteral("\ndiscrepancy=open");
    if (list.awaitingDecision)
        scope += QStringLiteral("\nawaiting=decision");
    parsed.filters = filterFingerprint(list.states, list.text, scope, sort);
    if (has(QStringLiteral("cursor"))) {
        const QString cursor = value(QStringLiteral("cursor"));
        QString cursorFilters;
        if (cursor.isEmpty() || cursor.size() > 512 || !decodeCursor(cursor, &list, &cursorFilters))
            errors.append({QStringLiteral("cursor"), QStringLiteral("is not a cursor this server issued")});
        else if (cursorFilters != parsed.filters)
            errors.append({QStringLiteral("cursor"), QStringLiteral("was issued for other filters or another sort")});
        else
            list.afterCursor = true;
    }
    if (!errors.isEmpty())
        return Problem(QStringLiteral("invalid_parameter"), QStringLiteral("invalid query parameters")).withErrors(errors);
    return parsed;
}

// "c3.<currency>.<sort value>.<created_at ms>.<filters>.<id>", base64url: the row's currency
// whatever the order (only amount's reads it); the id last (ids have no dots, but nothing here
// relies on it).
QString ListQueryParser::cursorAfter(const ActionReader::Summary &last, const QString &filters)
{
    const QString raw = QStringLiteral("c3.%1.%2.%3.%4.%5")
                            .arg(last.record.currency)
                            .arg(last.sortValue)
                            .arg(last.record.createdAt.toMSecsSinceEpoch())
                            .arg(filters, last.record.id);
    return QString::fromLatin1(raw.toUtf8().toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

} // namespace cs
