#pragma once

#include "models/actionstate.h"

#include <QDateTime>
#include <QJsonValue>
#include <QString>

#include <optional>

namespace cs::display {

// Text the console shows for domain values. Locale-independent where the text is evidence
// (amounts, keys, times); strings meant for people go through QCoreApplication::translate.

QString stateName(ActionState state);  // "Pending", "Requires review", ...
QString money(qint64 minorUnits, const QString &currency); // "40.00 USD", "−120.00 USD"; raw text if unknown
QString age(qint64 seconds);            // "42 s", "5 min", "3 h", "2 d"
QString relative(const QDateTime &then, const QDateTime &now); // "5 min ago", "just now"
QString time(const QDateTime &utc);     // local "2026-11-29 22:38:35"
QString preciseTime(const QDateTime &utc); // local "22:38:35.123"
QString isoTime(const QDateTime &utc);  // "2026-11-29T22:38:35.123Z" (tooltips)
// A later time beside an earlier one: local "13:19:40" when both fall on one local day, else as time().
QString timeAfter(const QDateTime &laterUtc, const QDateTime &earlierUtc);
// Local "13:18:22–13:19:40" within a day, else "2026-11-29 23:59:50–2026-11-30 00:00:10".
QString timeSpan(const QDateTime &firstUtc, const QDateTime &lastUtc);
QString duration(qint64 milliseconds);  // "120 ms", "3.4 s", "2 min 5 s", "23 h 59 min"
QString shortHash(const QString &hex);  // "3f2a9c…8b1d" for long hex strings and keys
QString yesNo(bool value);
// A rejection's reason (Approval::rejectionReasons(), issue 19) in the words the reject dialog
// lists: "Wrong amount", "Duplicate", "Not eligible", "Needs information", "Other"; the wire
// text itself for a reason this console does not know; empty for none.
QString rejectionReason(const QString &wire);
// A rejection as one line: "Wrong amount: the order total was 40.00" (the note after the reason;
// either alone when the other is empty).
QString rejectionText(const QString &wireReason, const QString &note);
// Who decided an approval: the approver's name, or for the policy's own approval (auto-approval,
// Approval::policyApprover()) "the policy (rule returns-small, v3)".
QString decider(const QString &decidedBy, const QString &ruleId, int policyVersion);
// A JSON value as a reviewer reads it: strings bare, integers without a fraction, true/false/null,
// arrays and objects as compact JSON; "\u2014" for an absent (undefined) value.
QString jsonValue(const QJsonValue &value);
// Parses "45", "45.5", "45.50" (major units, '.' or ',' as the decimal mark, at most the
// currency's minor digits) into minor units; nothing for anything else.
std::optional<qint64> parseAmount(const QString &text, const QString &currency);

} // namespace cs::display
