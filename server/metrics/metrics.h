#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QString>
#include <QStringList>

#include <initializer_list>
#include <vector>

namespace cs::metrics {

// Prometheus metrics of one countersignd process (docs/OPERATIONS.md, "Monitor"), rendered in the
// text exposition format 0.0.4 by GET /metrics.
//
// A family is declared once, as an object at namespace scope in the .cpp of the code it measures
// (`static metrics::Counter requests{"countersign_…_total", "help", {"route", "status"}};`), and
// registers itself with Registry::global() when the program starts, so that /metrics lists it
// (with its declared label values at zero, see Family::declare) before anything happened.
//
// Thread-safe: families may be updated from any thread (one mutex per family; an update is a
// hash look-up and an add, far below the cost of the things measured: a commit, an HTTP call).
// Label values are caller-chosen from small fixed sets (a route template, a state, a status
// class) — never ids, amounts or user input: every distinct value is a series kept for ever.

enum class Type { Counter, Gauge, Histogram };

// One family's samples, for rendering. Values are doubles as the format has them.
struct Sample
{
    QStringList labelValues;
    double value = 0;
    std::vector<double> bucketCounts; // histograms: cumulative count per upper bound
    double sum = 0;                   // histograms
    quint64 count = 0;                // histograms
};

// Writes families in the text format: # HELP, # TYPE, then one line per sample (histograms:
// _bucket{le=…} cumulative and ending at +Inf, _sum, _count). Label values and help are escaped
// as the format says (\\, \", \n). Used for the registered families and for the values
// /metrics computes when scraped (gauges read from the ledger).
class TextWriter
{
public:
    void family(const QString &name, const QString &help, Type type, const QStringList &labelNames,
                const QList<Sample> &samples, const std::vector<double> &bounds = {});
    // One gauge without labels.
    void gauge(const QString &name, const QString &help, double value);
    const QByteArray &text() const { return m_text; }

    static QByteArray formatValue(double value);
    static QByteArray escapeLabelValue(const QString &value);

private:
    QByteArray m_text;
};

class Family
{
public:
    Family(QString name, QString help, Type type, QStringList labelNames, std::vector<double> bounds = {});
    virtual ~Family();
    Q_DISABLE_COPY_MOVE(Family)

    const QString &name() const { return m_name; }
    // Makes the series exist (at zero) before its first update, so that a rate or an alert does not
    // start from an absent series.
    void declare(const QStringList &labelValues);
    void render(TextWriter &writer) const;
    // The current value of one series (a counter's or gauge's value, a histogram's count); 0 when
    // it does not exist. For tests and diagnostics.
    double value(const QStringList &labelValues = {}) const;

protected:
    struct Series
    {
        double value = 0;
        std::vector<quint64> buckets; // histograms: per bucket (not cumulative), last is +Inf
        double sum = 0;
        quint64 count = 0;
    };
    Series &series(const QStringList &labelValues); // m_mutex held
    void add(const QStringList &labelValues, double delta);
    void set(const QStringList &labelValues, double value);
    void observe(const QStringList &labelValues, double value);

    mutable QMutex m_mutex;

private:
    QString m_name;
    QString m_help;
    Type m_type;
    QStringList m_labelNames;
    std::vector<double> m_bounds;
    QHash<QStringList, Series> m_series;
    QList<QStringList> m_order; // series in the order they appeared, for a stable rendering
};

class Counter : public Family
{
public:
    Counter(QString name, QString help, QStringList labelNames = {});
    void inc(const QStringList &labelValues = {}, double by = 1) { add(labelValues, by); }
};

class Gauge : public Family
{
public:
    Gauge(QString name, QString help, QStringList labelNames = {});
    void set(const QStringList &labelValues, double value) { Family::set(labelValues, value); }
    void add(const QStringList &labelValues, double delta) { Family::add(labelValues, delta); }
};

class Histogram : public Family
{
public:
    // bounds: the buckets' upper bounds, ascending (+Inf is added).
    Histogram(QString name, QString help, QStringList labelNames, std::vector<double> bounds);
    void observe(const QStringList &labelValues, double value) { Family::observe(labelValues, value); }
    // Seconds buckets for latencies from a millisecond to a minute.
    static std::vector<double> latencyBounds();
};

// Every family of the process. Families register themselves (constructor) and unregister
// (destructor); render() writes them sorted by name.
class Registry
{
public:
    static Registry &global();
    void add(Family *family);
    void remove(Family *family);
    void render(TextWriter &writer) const;
    const Family *find(const QString &name) const;

private:
    mutable QMutex m_mutex;
    QList<Family *> m_families;
};

} // namespace cs::metrics
