#include "models/lookupsummary.h"

#include <algorithm>

namespace cs {

namespace {

bool newerFirst(const ProviderLookup &a, const ProviderLookup &b)
{
    if (a.at != b.at)
        return a.at > b.at;
    return a.seq > b.seq;
}

// Two failures are of one kind when they got the same HTTP status; with no HTTP answer, the same
// error text (a timeout is not a refused connection).
QString failureKind(const ProviderLookup &lookup)
{
    return lookup.httpStatus != 0 ? QString::number(lookup.httpStatus)
                                  : QStringLiteral("0 ") + lookup.excerpt.trimmed();
}

LookupEntry single(const ProviderLookup &lookup)
{
    LookupEntry e;
    e.lookup = lookup;
    e.first = e.last = lookup.at;
    e.httpStatus = lookup.httpStatus;
    e.seqs = { lookup.seq };
    e.times = { lookup.at };
    e.methods = { lookup.method };
    e.askedBy = { lookup.askedBy };
    return e;
}

// `failures` newest first, all of one kind.
LookupEntry fold(const QList<ProviderLookup> &failures)
{
    LookupEntry e = single(failures.first());
    e.count = int(failures.size());
    e.first = failures.last().at;
    e.seqs.clear();
    e.times.clear();
    e.methods.clear();
    e.askedBy.clear();
    for (auto it = failures.crbegin(); it != failures.crend(); ++it) {
        e.seqs.append(it->seq);
        e.times.append(it->at);
        if (!e.methods.contains(it->method))
            e.methods.append(it->method);
        if (!e.askedBy.contains(it->askedBy))
            e.askedBy.append(it->askedBy);
    }
    return e;
}

} // namespace

QString LookupEntry::key() const
{
    if (!isFold())
        return QStringLiteral("#%1").arg(lookup.seq);
    return QStringLiteral("failed ") + failureKind(lookup);
}

QList<LookupEntry> orderLookups(const QList<ProviderLookup> &lookups)
{
    QList<ProviderLookup> sorted = lookups;
    std::stable_sort(sorted.begin(), sorted.end(), newerFirst);

    QList<LookupEntry> entries;
    QList<QString> kinds;                   // in order of each kind's newest failure
    QList<QList<ProviderLookup>> failures;  // per kind, newest first
    for (const ProviderLookup &l : std::as_const(sorted)) {
        if (l.result != ProviderLookup::Result::Error) {
            entries.append(single(l));
            continue;
        }
        const QString kind = failureKind(l);
        qsizetype at = kinds.indexOf(kind);
        if (at < 0) {
            at = kinds.size();
            kinds.append(kind);
            failures.append(QList<ProviderLookup>());
        }
        failures[at].append(l);
    }
    for (const QList<ProviderLookup> &ofKind : std::as_const(failures))
        entries.append(ofKind.size() == 1 ? single(ofKind.first()) : fold(ofKind));
    return entries;
}

const LookupEntry *failureEntryOf(const QList<LookupEntry> &entries, const ProviderLookup &lookup)
{
    if (lookup.result != ProviderLookup::Result::Error)
        return nullptr;
    const QString kind = failureKind(lookup);
    for (const LookupEntry &e : entries) {
        if (!e.decides() && failureKind(e.lookup) == kind)
            return &e;
    }
    return nullptr;
}

} // namespace cs
