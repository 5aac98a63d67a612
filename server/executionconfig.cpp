#include "server/executionconfig.h"

namespace cs {

namespace {

using ms = std::chrono::milliseconds;

struct DurationField
{
    const char *name;
    ms ExecutionConfig::*member;
};

const DurationField kDurations[] = {
    {"request_timeout_ms", &ExecutionConfig::requestTimeout},
    {"lease_duration_ms", &ExecutionConfig::leaseDuration},
    {"idle_poll_ms", &ExecutionConfig::idlePoll},
    {"recovery_sweep_ms", &ExecutionConfig::recoverySweep},
    {"backoff_base_ms", &ExecutionConfig::backoffBase},
    {"backoff_max_ms", &ExecutionConfig::backoffMax},
    {"key_window_ms", &ExecutionConfig::keyWindow},
    {"key_window_margin_ms", &ExecutionConfig::keyWindowMargin},
    {"settlement_check_base_ms", &ExecutionConfig::settlementCheckBase},
    {"settlement_check_max_ms", &ExecutionConfig::settlementCheckMax},
};

struct IntField
{
    const char *name;
    int ExecutionConfig::*member;
};

const IntField kInts[] = {
    {"workers", &ExecutionConfig::workers},
    {"max_busy_retries", &ExecutionConfig::maxBusyRetries},
    {"max_reconcile_tries", &ExecutionConfig::maxReconcileTries},
    {"ambiguous_lookups", &ExecutionConfig::ambiguousLookups},
};

} // namespace

QString ExecutionConfig::validate() const
{
    if (workers < 1 || workers > 256)
        return QStringLiteral("workers must be between 1 and 256, not %1").arg(workers);
    if (requestTimeout.count() <= 0)
        return QStringLiteral("request_timeout_ms must be positive");
    if (leaseDuration < 2 * requestTimeout + ms(1000))
        return QStringLiteral("lease_duration_ms (%1) must be at least twice request_timeout_ms (%2) plus 1000, so a"
                              " slow answer is never recorded after the lease was lost")
            .arg(leaseDuration.count())
            .arg(requestTimeout.count());
    if (idlePoll.count() <= 0 || recoverySweep.count() <= 0)
        return QStringLiteral("idle_poll_ms and recovery_sweep_ms must be positive");
    if (maxBusyRetries < 0 || maxReconcileTries < 1 || ambiguousLookups < 1)
        return QStringLiteral("max_busy_retries must be >= 0, max_reconcile_tries and ambiguous_lookups >= 1");
    if (backoffBase.count() <= 0 || backoffMax < backoffBase)
        return QStringLiteral("backoff_base_ms must be positive and backoff_max_ms at least as large");
    if (settlementCheckBase.count() <= 0 || settlementCheckMax < settlementCheckBase)
        return QStringLiteral("settlement_check_base_ms must be positive and settlement_check_max_ms at least as large");
    if (keyWindowMargin.count() < 0 || keyWindow <= keyWindowMargin)
        return QStringLiteral("key_window_ms must exceed key_window_margin_ms (>= 0)");
    if (instanceName.trimmed().isEmpty())
        return QStringLiteral("instance_name must not be empty");
    return {};
}

ExecutionConfig ExecutionConfig::fromJson(const QJsonObject &json, QString *error)
{
    ExecutionConfig config;
    QString problem;
    for (const DurationField &field : kDurations) {
        const QJsonValue value = json.value(QLatin1String(field.name));
        if (value.isUndefined())
            continue;
        if (!value.isDouble() || value.toDouble() < 0) {
            problem = QStringLiteral("%1 must be a non-negative number of milliseconds").arg(QLatin1String(field.name));
            break;
        }
        config.*field.member = ms(value.toInteger());
    }
    for (const IntField &field : kInts) {
        const QJsonValue value = json.value(QLatin1String(field.name));
        if (value.isUndefined() || !problem.isEmpty())
            continue;
        if (!value.isDouble()) {
            problem = QStringLiteral("%1 must be a number").arg(QLatin1String(field.name));
            break;
        }
        config.*field.member = value.toInt();
    }
    const QJsonValue name = json.value(QLatin1String("instance_name"));
    if (problem.isEmpty() && !name.isUndefined())
        config.instanceName = name.toString();
    if (problem.isEmpty())
        problem = config.validate();
    if (error)
        *error = problem;
    return config;
}

QJsonObject ExecutionConfig::toJson() const
{
    QJsonObject json;
    for (const DurationField &field : kDurations)
        json.insert(QLatin1String(field.name), qint64((this->*field.member).count()));
    for (const IntField &field : kInts)
        json.insert(QLatin1String(field.name), this->*field.member);
    json.insert(QLatin1String("instance_name"), instanceName);
    return json;
}

} // namespace cs
