#pragma once

#include "models/providerlookup.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

namespace cs {

// One line of an evidence list: a look-up, or failed look-ups of one kind folded together.
// A fold is never evidence: only FOUND and NOT_FOUND look-ups decide.
struct LookupEntry
{
    ProviderLookup lookup;  // the look-up; for a fold, the newest one it folds
    int count = 1;          // 1 for a look-up, 2 or more for a fold
    QDateTime first;        // the oldest time on the line (== lookup.at for one look-up)
    QDateTime last;         // the newest
    int httpStatus = 0;     // the HTTP status; 0 when no HTTP answer came
    QList<int> seqs;        // every seq on the line, oldest first
    QList<QDateTime> times; // their times, in the same order
    QList<ProviderLookup::Method> methods; // every method on the line, once each, oldest first
    QStringList askedBy;    // everyone who asked, once each, oldest first

    bool isFold() const { return count > 1; }
    // FOUND or NOT_FOUND: the look-ups a reconciliation can rest on.
    bool decides() const { return lookup.result != ProviderLookup::Result::Error; }
    // Stays the same while the line exists: "#<seq>" for a look-up, the kind of failure for a fold.
    QString key() const;

    friend bool operator==(const LookupEntry &, const LookupEntry &) = default;
};

// The look-ups of one action as evidence lists show them: the deciding ones (FOUND, NOT_FOUND)
// first, newest first; then the failed ones (ERROR), newest first, where every failure of one
// kind — the same HTTP status, or with no HTTP answer the same error text — is folded into one
// line, consecutive or not. A kind that failed once stays a look-up. Ties in time go to the higher
// seq. Pure.
QList<LookupEntry> orderLookups(const QList<ProviderLookup> &lookups);

// The entry of the kind of failure `lookup` is, in `entries`; nullptr when there is none.
const LookupEntry *failureEntryOf(const QList<LookupEntry> &entries, const ProviderLookup &lookup);

} // namespace cs
