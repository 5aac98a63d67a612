#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>

#include <chrono>

namespace cs {

// The provider's clock as one of its answers told it: the HTTP `Date` header (RFC 9110
// IMF-fixdate, whole seconds) and when that answer arrived by our wall clock. A real provider's
// Date follows its own clock, paysim's follows its simulated one.
struct ProviderClock
{
    QDateTime providerTime; // UTC; null when no answer carried a usable Date
    QDateTime receivedAt;   // UTC, our wall clock when the answer arrived

    bool isValid() const { return providerTime.isValid() && receivedAt.isValid(); }
    // The provider's time at `wallNow`: its Date plus what passed here since, plus one second for
    // the Date's truncation — never earlier than the provider's clock really is.
    QDateTime providerNow(const QDateTime &wallNow) const;
    // How far the provider's clock is ahead of ours (negative: behind), in ms; 0 when not valid.
    qint64 skewMs() const;

    // "Mon, 07 Dec 2026 14:38:37 GMT" → a reading; an empty or malformed header gives an invalid one.
    static ProviderClock fromHttpDate(const QByteArray &dateHeader, const QDateTime &receivedAt);
};

// Invariant 7 on both clocks (issue 33, DESIGN.md "Providers differ where the invariants live"):
// a same-key resend is allowed only while the first attempt's key is certainly still remembered by
// the provider — while `now < first attempt start + window - margin` holds on the ledger's clock
// AND on the provider's clock as its latest answer told it. The provider prunes keys by its own
// clock; ours may lag it. Without a reading of the provider's clock the window counts as closed:
// nothing may be resent on the strength of our clock alone.
//
// The first attempt's start is on the ledger's clock; comparing the provider's clock with it
// assumes the provider's clock was not behind ours by more than the margin when the key was first
// sent (docs/EXECUTION.md). A provider clock that runs ahead only closes the window earlier.
class KeyWindow
{
public:
    KeyWindow(const QDateTime &firstStart, std::chrono::milliseconds window, std::chrono::milliseconds margin);

    QDateTime end() const { return m_end; }

    struct Judgement
    {
        enum class Verdict {
            Open,            // inside the window on both clocks: a same-key resend is safe
            PassedOurs,      // our clock is past the window's end
            PassedProvider,  // the provider's clock is past it (ours may not be)
            ProviderUnknown, // no answer told the provider's clock: nothing may be resent on ours alone
        };
        Verdict verdict = Verdict::ProviderUnknown;
        bool open = false;
        QString why; // a sentence naming both clocks, for the audit trail
        // The window has ended on either clock: only look-ups and a human from now on.
        bool passed() const { return verdict == Verdict::PassedOurs || verdict == Verdict::PassedProvider; }
    };
    Judgement judge(const QDateTime &ledgerNow, const ProviderClock &provider,
                    const QDateTime &wallNow = QDateTime::currentDateTimeUtc()) const;

    // "first attempt at …, key window 86400 s minus margin 3600 s ends at …"
    QString describe() const;

private:
    QDateTime m_firstStart;
    std::chrono::milliseconds m_window;
    std::chrono::milliseconds m_margin;
    QDateTime m_end;
};

} // namespace cs
