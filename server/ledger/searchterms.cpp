#include "server/ledger/searchterms.h"

#include <algorithm>
#include <vector>

namespace cs {

namespace {

QString fromUcs4(const QList<uint> &codePoints, qsizetype from, qsizetype count)
{
    return QString::fromUcs4(reinterpret_cast<const char32_t *>(codePoints.constData() + from), count);
}

// Three code points (21 bits each) in one integer: the sample holds no strings.
quint64 trigramKey(const uint *codePoints)
{
    return (quint64(codePoints[0]) << 42) | (quint64(codePoints[1]) << 21) | quint64(codePoints[2]);
}

} // namespace

void TrigramSample::reset(const QList<QStringList> &rows)
{
    m_rowsContaining.clear();
    m_rows = int(rows.size());
    std::vector<quint64> keys;
    for (const QStringList &columns : rows) {
        keys.clear();
        for (const QString &column : columns) {
            const QList<uint> codePoints = column.toLower().toUcs4();
            for (qsizetype i = 0; i + 3 <= codePoints.size(); ++i)
                keys.push_back(trigramKey(codePoints.constData() + i));
        }
        // A row counts once per trigram, whichever columns hold it.
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        for (quint64 key : keys)
            ++m_rowsContaining[key];
    }
}

int TrigramSample::rowsContaining(const QString &trigram) const
{
    const QList<uint> codePoints = trigram.toLower().toUcs4();
    return codePoints.size() == 3 ? m_rowsContaining.value(trigramKey(codePoints.constData())) : 0;
}

bool TrigramSample::isCommon(const QString &trigram) const
{
    return m_rows >= kMinimumRows && qint64(rowsContaining(trigram)) * 100 > qint64(m_rows) * kCommonPercent;
}

QStringList trigramsOf(const QString &text)
{
    const QList<uint> codePoints = text.toLower().toUcs4();
    QStringList trigrams;
    for (qsizetype i = 0; i + 3 <= codePoints.size(); ++i)
        trigrams << fromUcs4(codePoints, i, 3);
    return trigrams;
}

QStringList uncommonRuns(const QString &text, const TrigramSample &sample)
{
    const QList<uint> codePoints = text.toLower().toUcs4();
    const QStringList trigrams = trigramsOf(text);
    QStringList runs;
    qsizetype runStart = -1; // first trigram of the current run of uncommon ones
    for (qsizetype i = 0; i <= trigrams.size(); ++i) {
        const bool keep = i < trigrams.size() && !sample.isCommon(trigrams.at(i));
        if (keep && runStart < 0)
            runStart = i;
        if (!keep && runStart >= 0) {
            // Trigrams runStart..i-1 cover code points runStart..i+1.
            runs << fromUcs4(codePoints, runStart, i - runStart + 2);
            runStart = -1;
        }
    }
    if (runs.isEmpty())
        runs << text.toLower();
    return runs;
}

QStringList postgresRuns(const QString &text, const TrigramSample &sample)
{
    QStringList runs;
    for (const QString &run : uncommonRuns(text, sample)) {
        const QList<uint> codePoints = run.toUcs4();
        qsizetype from = 0;
        qsizetype to = codePoints.size();
        while (from < to && !QChar::isLetterOrNumber(char32_t(codePoints.at(from))))
            ++from;
        while (to > from && !QChar::isLetterOrNumber(char32_t(codePoints.at(to - 1))))
            --to;
        runs << (to - from >= 3 ? fromUcs4(codePoints, from, to - from) : run);
    }
    return runs;
}

QString trigramMatchExpression(const QString &text, const TrigramSample &sample)
{
    QStringList parts;
    for (const QString &run : uncommonRuns(text, sample))
        parts << ftsString(run);
    return parts.join(QStringLiteral(" AND "));
}

QString ftsString(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString postgresSearchDocument()
{
    return QStringLiteral("LOWER(id || chr(31) || target_id || chr(31) || business_reference || chr(31) || requested_by"
                          " || chr(31) || client_reference)");
}

} // namespace cs
