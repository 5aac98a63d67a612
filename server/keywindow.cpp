#include "server/keywindow.h"

#include "models/actionrecord.h"

#include <QLocale>

namespace cs {

QDateTime ProviderClock::providerNow(const QDateTime &wallNow) const
{
    if (!isValid())
        return {};
    return providerTime.addMSecs(std::max<qint64>(0, receivedAt.msecsTo(wallNow)) + 1000);
}

qint64 ProviderClock::skewMs() const
{
    return isValid() ? receivedAt.msecsTo(providerTime) : 0;
}

ProviderClock ProviderClock::fromHttpDate(const QByteArray &dateHeader, const QDateTime &receivedAt)
{
    ProviderClock clock;
    clock.receivedAt = receivedAt;
    const QString text = QString::fromLatin1(dateHeader).trimmed();
    if (!text.endsWith(QLatin1String(" GMT")))
        return clock;
    QDateTime parsed = QLocale::c().toDateTime(text.chopped(4), QStringLiteral("ddd, dd MMM yyyy hh:mm:ss"));
    if (!parsed.isValid())
        return clock;
    parsed.setTimeSpec(Qt::UTC);
    clock.providerTime = parsed;
    return clock;
}

KeyWindow::KeyWindow(const QDateTime &firstStart, std::chrono::milliseconds window, std::chrono::milliseconds margin)
    : m_firstStart(firstStart), m_window(window), m_margin(margin),
      m_end(firstStart.addMSecs(window.count() - margin.count()))
{
}

QString KeyWindow::describe() const
{
    return QStringLiteral("first attempt at %1, key window %2 s minus margin %3 s ends at %4")
        .arg(toWireTime(m_firstStart))
        .arg(double(m_window.count()) / 1000.0)
        .arg(double(m_margin.count()) / 1000.0)
        .arg(toWireTime(m_end));
}

KeyWindow::Judgement KeyWindow::judge(const QDateTime &ledgerNow, const ProviderClock &provider,
                                      const QDateTime &wallNow) const
{
    Judgement j;
    using Verdict = Judgement::Verdict;
    if (ledgerNow >= m_end) {
        j.verdict = Verdict::PassedOurs;
        j.why = QStringLiteral("the key window passed on our clock (%1; now %2)").arg(describe(), toWireTime(ledgerNow));
        return j;
    }
    if (!provider.isValid()) {
        j.verdict = Verdict::ProviderUnknown;
        j.why = QStringLiteral("the provider's clock is unknown (no answer carried a Date), so it cannot be told"
                               " whether the provider still remembers the key (%1)")
                    .arg(describe());
        return j;
    }
    const QDateTime theirs = provider.providerNow(wallNow);
    if (theirs >= m_end) {
        j.verdict = Verdict::PassedProvider;
        j.why = QStringLiteral("the key window passed on the provider's clock (its Date said %1, %2 s ahead of"
                               " ours; %3): it may have forgotten the key")
                    .arg(toWireTime(provider.providerTime))
                    .arg(double(provider.skewMs()) / 1000.0)
                    .arg(describe());
        return j;
    }
    j.verdict = Verdict::Open;
    j.open = true;
    j.why = QStringLiteral("inside the key window on both clocks (%1; our clock %2, the provider's %3)")
                .arg(describe(), toWireTime(ledgerNow), toWireTime(theirs));
    return j;
}

} // namespace cs
