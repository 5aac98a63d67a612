#include "server/metrics/metrics.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace cs::metrics {

// --- TextWriter ------------------------------------------------------------------------------

QByteArray TextWriter::formatValue(double value)
{
    if (std::isnan(value))
        return QByteArrayLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QByteArrayLiteral("+Inf") : QByteArrayLiteral("-Inf");
    // Integers as integers (counts), anything else in the shortest form that reads back exactly.
    if (value == std::floor(value) && std::fabs(value) < 9.0e15)
        return QByteArray::number(static_cast<qint64>(value));
    return QString::number(value, 'g', QLocale::FloatingPointShortest).toLatin1();
}

QByteArray TextWriter::escapeLabelValue(const QString &value)
{
    QByteArray out;
    const QByteArray utf8 = value.toUtf8();
    out.reserve(utf8.size());
    for (const char c : utf8) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

namespace {

QByteArray escapeHelp(const QString &help)
{
    QByteArray out;
    for (const char c : help.toUtf8()) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

QByteArray labels(const QStringList &names, const QStringList &values, const QByteArray &extraName = {},
                  const QByteArray &extraValue = {})
{
    QByteArray out;
    for (qsizetype i = 0; i < names.size(); ++i) {
        out += out.isEmpty() ? "{" : ",";
        out += names.at(i).toUtf8() + "=\"" + TextWriter::escapeLabelValue(values.value(i)) + '"';
    }
    if (!extraName.isEmpty()) {
        out += out.isEmpty() ? "{" : ",";
        out += extraName + "=\"" + extraValue + '"';
    }
    if (!out.isEmpty())
        out += '}';
    return out;
}

const char *typeName(Type type)
{
    switch (type) {
    case Type::Counter:
        return "counter";
    case Type::Gauge:
        return "gauge";
    case Type::Histogram:
        return "histogram";
    }
    return "untyped";
}

} // namespace

void TextWriter::family(const QString &name, const QString &help, Type type, const QStringList &labelNames,
                        const QList<Sample> &samples, const std::vector<double> &bounds)
{
    const QByteArray n = name.toUtf8();
    m_text += "# HELP " + n + ' ' + escapeHelp(help) + '\n';
    m_text += "# TYPE " + n + ' ' + typeName(type) + '\n';
    for (const Sample &s : samples) {
        if (type != Type::Histogram) {
            m_text += n + labels(labelNames, s.labelValues) + ' ' + formatValue(s.value) + '\n';
            continue;
        }
        for (size_t i = 0; i <= bounds.size(); ++i) {
            const QByteArray le = i < bounds.size() ? formatValue(bounds[i]) : QByteArrayLiteral("+Inf");
            const double cumulative = i < s.bucketCounts.size() ? s.bucketCounts[i] : double(s.count);
            m_text += n + "_bucket" + labels(labelNames, s.labelValues, "le", le) + ' ' + formatValue(cumulative) + '\n';
        }
        m_text += n + "_sum" + labels(labelNames, s.labelValues) + ' ' + formatValue(s.sum) + '\n';
        m_text += n + "_count" + labels(labelNames, s.labelValues) + ' ' + formatValue(double(s.count)) + '\n';
    }
}

void TextWriter::gauge(const QString &name, const QString &help, double value)
{
    family(name, help, Type::Gauge, {}, {Sample{{}, value, {}, 0, 0}});
}

// --- Family ----------------------------------------------------------------------------------

Family::Family(QString name, QString help, Type type, QStringList labelNames, std::vector<double> bounds)
    : m_name(std::move(name)), m_help(std::move(help)), m_type(type), m_labelNames(std::move(labelNames)),
      m_bounds(std::move(bounds))
{
    Registry::global().add(this);
}

Family::~Family()
{
    Registry::global().remove(this);
}

Family::Series &Family::series(const QStringList &labelValues)
{
    auto it = m_series.find(labelValues);
    if (it == m_series.end()) {
        Series fresh;
        if (m_type == Type::Histogram)
            fresh.buckets.assign(m_bounds.size() + 1, 0);
        it = m_series.insert(labelValues, fresh);
        m_order.append(labelValues);
    }
    return it.value();
}

void Family::declare(const QStringList &labelValues)
{
    QMutexLocker lock(&m_mutex);
    series(labelValues);
}

void Family::add(const QStringList &labelValues, double delta)
{
    QMutexLocker lock(&m_mutex);
    series(labelValues).value += delta;
}

void Family::set(const QStringList &labelValues, double value)
{
    QMutexLocker lock(&m_mutex);
    series(labelValues).value = value;
}

void Family::observe(const QStringList &labelValues, double value)
{
    // The first bucket whose upper bound holds the value (le is "less than or equal").
    const size_t bucket = size_t(std::lower_bound(m_bounds.begin(), m_bounds.end(), value) - m_bounds.begin());
    QMutexLocker lock(&m_mutex);
    Series &s = series(labelValues);
    ++s.buckets[bucket];
    s.sum += value;
    ++s.count;
}

double Family::value(const QStringList &labelValues) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_series.constFind(labelValues);
    if (it == m_series.constEnd())
        return 0;
    return m_type == Type::Histogram ? double(it->count) : it->value;
}

void Family::render(TextWriter &writer) const
{
    QList<Sample> samples;
    {
        QMutexLocker lock(&m_mutex);
        samples.reserve(m_order.size());
        for (const QStringList &key : m_order) {
            const Series &s = m_series[key];
            Sample sample{key, s.value, {}, s.sum, s.count};
            if (m_type == Type::Histogram) {
                quint64 running = 0;
                for (const quint64 n : s.buckets) {
                    running += n;
                    sample.bucketCounts.push_back(double(running));
                }
            }
            samples.append(sample);
        }
    }
    writer.family(m_name, m_help, m_type, m_labelNames, samples, m_bounds);
}

Counter::Counter(QString name, QString help, QStringList labelNames)
    : Family(std::move(name), std::move(help), Type::Counter, std::move(labelNames))
{
}

Gauge::Gauge(QString name, QString help, QStringList labelNames)
    : Family(std::move(name), std::move(help), Type::Gauge, std::move(labelNames))
{
}

Histogram::Histogram(QString name, QString help, QStringList labelNames, std::vector<double> bounds)
    : Family(std::move(name), std::move(help), Type::Histogram, std::move(labelNames), std::move(bounds))
{
}

std::vector<double> Histogram::latencyBounds()
{
    return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

// --- Registry --------------------------------------------------------------------------------

Registry &Registry::global()
{
    static Registry registry;
    return registry;
}

void Registry::add(Family *family)
{
    QMutexLocker lock(&m_mutex);
    m_families.append(family);
}

void Registry::remove(Family *family)
{
    QMutexLocker lock(&m_mutex);
    m_families.removeOne(family);
}

const Family *Registry::find(const QString &name) const
{
    QMutexLocker lock(&m_mutex);
    for (const Family *family : m_families) {
        if (family->name() == name)
            return family;
    }
    return nullptr;
}

void Registry::render(TextWriter &writer) const
{
    QList<Family *> families;
    {
        QMutexLocker lock(&m_mutex);
        families = m_families;
    }
    std::sort(families.begin(), families.end(), [](const Family *a, const Family *b) { return a->name() < b->name(); });
    for (const Family *family : families)
        family->render(writer);
}

} // namespace cs::metrics
