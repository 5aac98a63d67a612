#pragma once

#include "models/actiondetail.h"

#include <QColor>
#include <QDateTime>
#include <QList>
#include <QWidget>

namespace cs {

// A picture of one action's life: state changes, human decisions, attempts (as bars from start
// to finish, coloured by outcome), provider lookups (coloured by result), the end of the
// provider's key window and now, on one time axis. Seconds and days share the axis: gaps are
// compressed logarithmically and long ones are drawn broken ("≈ 23 h"), so a timeout of ten
// seconds and a key window of a day are both readable. Painted with QPainter from the palette,
// so it follows light and dark themes. Hovering a mark shows its details. Labels never overlap:
// marks at one instant share a label (lookups saying the same are summarised), a label is elided
// where the next begins (its full text in the tooltip), the gaps' "≈ 23 h" sit on the axis among
// the ticks, and the lanes shrink (one label row instead of two) when the widget is given less
// height than it asks for, so the axis stays visible.
class TimelineWidget : public QWidget
{
    Q_OBJECT

public:
    enum class Lane { State, Decision, Attempt, Lookup, Marker };

    struct Mark
    {
        Lane lane = Lane::State;
        QDateTime start;
        QDateTime end;        // == start for points; later for attempt bars
        QString label;
        QString tooltip;
        QColor color;         // resolved at paint time when invalid (palette text)
        bool dashed = false;  // markers: key window end, now
        // Lookups: the number and what it said without it ("FOUND · failed"), so that several
        // at one instant saying the same are labelled once ("#2–#4 FOUND · failed (3 …)").
        int seq = 0;
        QString news;
        bool webhook = false;
    };

    explicit TimelineWidget(QWidget *parent = nullptr);

    void setDetail(const ActionDetail &detail);
    void clear();
    const QList<Mark> &marks() const { return m_marks; }
    // The mark labels as last painted (possibly elided), for tests.
    const QStringList &shownLabels() const { return m_shownLabels; }
    const QList<QRectF> &shownLabelRects() const { return m_shownLabelRects; }
    // The axis's tick and gap labels and the markers' labels as last painted, for tests.
    const QStringList &axisLabels() const { return m_axisLabels; }
    const QList<QRectF> &axisLabelRects() const { return m_axisLabelRects; }
    // The x of a time on the current width (for tests).
    double xFor(const QDateTime &time) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool event(QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    struct Stop
    {
        qint64 ms;
        double x;
        bool brokenBefore; // a long gap precedes this stop
        qint64 gapBefore;
    };
    struct HitBox
    {
        QRectF rect;
        QString tooltip;
    };

    void buildStops();
    QRectF laneRect(Lane lane) const;
    double laneHeight() const;
    double lanesBottom() const;
    QString laneName(Lane lane) const;
    void updateAccessibleDescription();
    // One label for lookups at one instant that say the same ("#2–#4 FOUND · failed (3 webhook
    // events)"); "" when the marks are not such lookups.
    static QString summary(const QList<const Mark *> &marks);

    QList<Mark> m_marks;
    QList<Stop> m_stops;
    QList<HitBox> m_hitBoxes;
    QStringList m_shownLabels;
    QList<QRectF> m_shownLabelRects;
    QStringList m_axisLabels;
    QList<QRectF> m_axisLabelRects;
    bool m_empty = true;
    QString m_currency;
};

} // namespace cs
