#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace cs {

// Which parts of a search text are worth asking the trigram index (actions_search, migration 4).
//
// Under FTS5's trigram tokenizer a quoted string matches rows containing it as a substring, and
// the lookup reads the index entry of every trigram of the string. A trigram that occurs in
// nearly every row ("ord", "rd-" and "d-0" when every order reference reads "ord-0…", "act" in
// every action id) narrows nothing but costs the most to read: the index's work for a string is
// about the summed length of its trigrams' posting lists, on FTS5 as on a pg_trgm GIN index.
// TrigramSample estimates each trigram's share of the ledger from a sample drawn across the whole
// ledger (ActionReader::refreshTrigramSample()); trigramMatchExpression() leaves out the trigrams
// in more than kCommonPercent of it (on PostgreSQL the GIN index is asked for postgresRuns()
// alike). The candidates are then a superset of the rows that contain the whole text, so the
// caller must still apply the exact condition (ActionReader applies the LIKE predicate to every
// candidate): the expression decides only how fast the answer comes, never what it is.
class TrigramSample
{
public:
    // Below this many sampled rows nothing is judged common (the index is small and cheap then).
    static constexpr int kMinimumRows = 50;

    // rows: one entry per sampled action, the texts of its searched columns.
    void reset(const QList<QStringList> &rows);

    int rows() const { return m_rows; }
    // How many sampled rows contain the trigram (three code points; case is ignored) in some column.
    int rowsContaining(const QString &trigram) const;
    // A trigram in more than this share of the ledger's rows is common: its posting list costs
    // more to read than the candidates it removes (on 10^6 actions, 5 % is 50,000 entries).
    static constexpr int kCommonPercent = 5;

    // In more than kCommonPercent of the sampled rows, with at least kMinimumRows sampled.
    bool isCommon(const QString &trigram) const;

private:
    QHash<quint64, int> m_rowsContaining; // trigram key (trigramKey()) → rows
    int m_rows = 0;
};

// The text's trigrams, lower case, in order (code points, so a character outside the BMP is one).
QStringList trigramsOf(const QString &text);

// The maximal runs of the lower-cased text (three code points or more) none of whose trigrams is
// common, in order — or the whole lower-cased text when every trigram is common.
QStringList uncommonRuns(const QString &text, const TrigramSample &sample);

// The FTS5 MATCH expression for a search of `text` (three code points or more): the maximal runs
// of the lower-cased text none of whose trigrams is common, each as an FTS5 string, joined by
// AND — or the whole text as one string when every trigram is common (nothing better to ask).
// "ord-0500000" with "ord", "rd-", "d-0" and "-05" common gives "\"0500000\"".
QString trigramMatchExpression(const QString &text, const TrigramSample &sample);

// PostgreSQL: uncommonRuns() without the characters at either end of a run that are neither a
// letter nor a digit, when three code points or more remain. pg_trgm keeps only letters and
// digits and pads each word with blanks, so "-0500000" is asked as "  0" and " 05" (every word
// that begins with 0, with 05) besides "050"…; "0500000" (a substring, so still a superset of
// the rows) has only the digits' trigrams. Inner separators are kept: they are part of the text.
QStringList postgresRuns(const QString &text, const TrigramSample &sample);

// text as one FTS5 string literal (double quotes doubled).
QString ftsString(const QString &text);

// PostgreSQL: the one text that actions_search's pg_trgm GIN index holds per action (migration
// 8), the five searched columns lowercased and joined by U+001F, so that one index scan answers
// for all five. Its trigrams are a superset of each column's (plus some across a separator), so
// `postgresSearchDocument() LIKE '%run%'` yields a superset of the rows with a column containing
// the run; the caller applies the exact per-column condition. An index and a query use this
// expression, character for character, or the planner cannot match them.
QString postgresSearchDocument();

} // namespace cs
