#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <variant>

namespace cs::paysim {

// One fault-injection rule of POST /_sim/faults (docs/PAYSIM.md has the user's view).
//
// Matching: `method` ("*" or absent = any) and `path` (exact, or a prefix when it ends in "*")
// against each /v1 request. Every matching request increments `matched` (1 for the first).
// Firing: the rule is eligible on match number k when k >= nth, (k - nth) % every == 0 and
// (times == 0 || fired < times); an eligible rule then fires with `probability`, drawn from the
// simulator's seeded PRNG (only drawn when 0 < probability < 1). At most one fault applies per
// request: the first firing rule in list order. refund_settles is not a fault of the request but
// of the refund it creates: those rules are decided in a lane of their own (at most one of them
// per request, first in list order), so one can apply together with any other fault.
struct FaultRule
{
    enum class Kind {
        DropResponseAfterCommit,
        DelayBeforeCommit,
        DelayAfterCommit,
        Error500BeforeCommit,
        Error500AfterCommit,
        Outage503,
        ResetConnection,
        RateLimit429,
        IdempotencyError,
        LookupLag,
        ClockAdvance,
        ForcedError,
        RefundSettles,
    };

    QString id; // "flt_N", assigned by the engine
    QString method = QStringLiteral("*");
    QString path = QStringLiteral("*");
    int nth = 1;
    int times = 1; // 0 = unlimited
    int every = 1;
    double probability = 1.0;
    Kind kind = Kind::Outage503;
    qint64 delayMs = 0;
    qint64 advanceMs = 0;     // clock_advance (falls back to delayMs)
    bool afterCommit = false; // reset_connection: execute and commit first
    // forced_error:
    int status = 402;
    QString errorType = QStringLiteral("card_error");
    QString errorCode;
    QString errorMessage;
    QString errorParam;
    QString declineCode;
    bool save = true; // forced_error: save the answer under the Idempotency-Key
    // refund_settles: the refund is created pending and becomes settleTo after afterSeconds.
    qint64 afterSeconds = 0;
    QString settleTo;
    QString failureReason; // settleTo "failed" only; empty: Refund::defaultFailureReason()
    // Counters:
    int matched = 0;
    int fired = 0;

    bool matches(const QString &method, const QString &path) const;
    bool isSettlement() const { return kind == Kind::RefundSettles; }
    QJsonObject toJson() const;
    // Parses one rule; the error names the offending field.
    static std::variant<FaultRule, QString> fromJson(const QJsonObject &json);
    static QString kindName(Kind kind);
    static std::optional<Kind> kindFromName(const QString &name);
    static QStringList kindNames();
};

} // namespace cs::paysim
