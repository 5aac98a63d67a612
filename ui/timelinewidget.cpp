#include "ui/timelinewidget.h"
#include "models/attempttablemodel.h"
#include "models/displayformat.h"
#include "models/lookuptablemodel.h"
#include "models/refundstatus.h"
#include "models/settlementhistorymodel.h"
#include "ui/statepalette.h"

#include <QHelpEvent>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace cs {

namespace {

constexpr int LeftGutter = 96;
constexpr int RightMargin = 130; // room for the last labels
constexpr int TopMargin = 20; // a band for the markers' labels
constexpr int LaneHeight = 48;    // room for two label rows
constexpr int MinLaneHeight = 34; // one label row: the height when squeezed
constexpr int AxisHeight = 28;    // the axis 6 below the lanes, its tick and gap labels under it (to +27)
constexpr double LabelRowHeight = 13;
constexpr qint64 MergeMs = 300;           // times closer than this share a stop
constexpr qint64 BrokenGapMs = 10 * 60 * 1000; // gaps above 10 min are drawn broken

const TimelineWidget::Lane Lanes[] = { TimelineWidget::Lane::State, TimelineWidget::Lane::Decision,
                                       TimelineWidget::Lane::Attempt, TimelineWidget::Lane::Lookup };

} // namespace

TimelineWidget::TimelineWidget(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("timeline"));
    setAccessibleName(tr("Timeline of the action"));
    setMouseTracking(true);
    // Squeezable down to one label row per lane: a pane too short for everything still shows the axis.
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    setAutoFillBackground(false);
}

QSize TimelineWidget::sizeHint() const
{
    return QSize(900, TopMargin + 4 * LaneHeight + AxisHeight);
}

QSize TimelineWidget::minimumSizeHint() const
{
    return QSize(420, TopMargin + 4 * MinLaneHeight + AxisHeight);
}

void TimelineWidget::clear()
{
    m_marks.clear();
    m_stops.clear();
    m_hitBoxes.clear();
    m_empty = true;
    updateAccessibleDescription();
    update();
}

void TimelineWidget::setDetail(const ActionDetail &d)
{
    m_marks.clear();
    m_currency = d.record.currency;
    const QPalette pal = palette();

    // A point in time on a lane (everything but an attempt's bar).
    const auto point = [this](Lane lane, const QDateTime &at, const QString &label, const QString &tooltip,
                              const QColor &color, bool dashed = false) {
        Mark m;
        m.lane = lane;
        m.start = m.end = at;
        m.label = label;
        m.tooltip = tooltip;
        m.color = color;
        m.dashed = dashed;
        m_marks.append(m);
    };

    // States: every audited state change (the first is the proposal).
    for (const AuditEvent &e : d.audit) {
        const QString after = e.after.value(QLatin1String("state")).toString();
        const QString before = e.before.value(QLatin1String("state")).toString();
        if (after.isEmpty() || after == before || !e.at.isValid())
            continue;
        const std::optional<ActionState> state = stateFromWire(after);
        point(Lane::State, e.at,
              e.event == QLatin1String("proposed") ? tr("proposed") : (state ? display::stateName(*state) : after),
              tr("%1 \u2192 %2 (%3, by %4)\n%5\n%6")
                  .arg(before.isEmpty() ? QStringLiteral("\u2014") : before, after, e.event, e.actor, e.reason,
                       display::isoTime(e.at)),
              state ? StatePalette::stateChip(*state, pal).text : pal.color(QPalette::Text));
    }
    if (m_marks.isEmpty())
        point(Lane::State, d.record.createdAt, tr("proposed"),
              tr("Proposed by %1 at %2").arg(d.record.requestedBy, display::isoTime(d.record.createdAt)),
              StatePalette::stateChip(ActionState::Pending, pal).text);

    // Human decisions and caught conflicts.
    for (const Approval &a : d.approvals) {
        const bool approved = a.decision == Approval::Decision::Approved;
        const QString rejectedLabel = a.rejectionReason.isEmpty()
            ? tr("rejected")
            : tr("rejected: %1").arg(display::rejectionReason(a.rejectionReason));
        point(Lane::Decision, a.decidedAt, approved ? tr("approved v%1").arg(a.version) : rejectedLabel,
              approved ? tr("Approval v%1 by %2 at %3\nkey %4\nsigns %5")
                             .arg(a.version)
                             .arg(display::decider(a.decidedBy, a.ruleId, a.policyVersion), display::isoTime(a.decidedAt),
                                  a.idempotencyKey,
                                  a.approvedFingerprint)
                       : tr("Rejected by %1 at %2: %3")
                             .arg(a.decidedBy, display::isoTime(a.decidedAt),
                                  display::rejectionText(a.rejectionReason, a.note)),
              StatePalette::stateChip(approved ? ActionState::Completed : ActionState::Rejected, pal).text);
        // Approval expiry (docs/POLICY.md): the approval stopped counting unsent; its key was never used.
        if (a.expiredAt.isValid())
            point(Lane::Decision, a.expiredAt, tr("v%1 expired").arg(a.version),
                  tr("Approval v%1 by %2 expired unsent at %3 (it counted until %4); key %5 was never used:"
                     " the action needs approval again")
                      .arg(a.version)
                      .arg(display::decider(a.decidedBy, a.ruleId, a.policyVersion), display::isoTime(a.expiredAt),
                           display::isoTime(a.expiresAt), a.idempotencyKey),
                  StatePalette::stateChip(ActionState::Pending, pal).text, true);
    }
    for (const Reconciliation &r : d.reconciliations) {
        const bool committed = r.outcome == Reconciliation::Outcome::Committed;
        point(Lane::Decision, r.decidedAt, committed ? tr("reconciled: committed") : tr("reconciled: not committed"),
              tr("Reconciled by %1 at %2 on lookup #%3: %4")
                  .arg(r.decidedBy, display::isoTime(r.decidedAt)).arg(r.evidenceLookupSeq).arg(r.note),
              StatePalette::stateChip(committed ? ActionState::Completed : ActionState::Rejected, pal).text);
    }
    for (const PayloadConflict &c : d.conflicts)
        point(Lane::Decision, c.at, tr("changed payload #%1").arg(c.seq),
              tr("%1 resubmitted a changed payload under the same reference at %2").arg(c.submittedBy, display::isoTime(c.at)),
              StatePalette::stateChip(ActionState::RequiresReview, pal).text);

    // Attempts as bars.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const Attempt &a : d.attempts) {
        Mark m;
        m.lane = Lane::Attempt;
        m.start = a.startedAt;
        m.end = a.finishedAt.isValid() ? a.finishedAt : now;
        QString status = a.httpStatus == 0 ? tr("no answer") : QString::number(a.httpStatus);
        m.label = tr("#%1 %2 \u00b7 %3").arg(a.seq).arg(AttemptTableModel::outcomeName(a.outcome), status);
        if (a.replayed)
            m.label += tr(" \u00b7 replayed");
        m.tooltip = tr("Attempt #%1 by %2\nstarted %3\nfinished %4\noutcome %5, HTTP %6%7\nkey %8\nfingerprint %9")
                        .arg(a.seq).arg(a.executor, display::isoTime(a.startedAt),
                                         a.finishedAt.isValid() ? display::isoTime(a.finishedAt) : tr("not yet"),
                                         AttemptTableModel::outcomeName(a.outcome), status,
                                         a.errorExcerpt.isEmpty() ? QString() : QStringLiteral("\n") + a.errorExcerpt,
                                         a.idempotencyKey, a.requestFingerprint);
        m.color = StatePalette::attemptColor(a.outcome, pal);
        m_marks.append(m);
    }

    for (const ProviderLookup &l : d.lookups) {
        QString news = LookupTableModel::resultName(l.result);
        if (l.result == ProviderLookup::Result::Found)
            news += QStringLiteral(" \u00b7 ") + l.status;
        point(Lane::Lookup, l.at, tr("#%1 %2").arg(l.seq).arg(news), LookupTableModel::describe(l),
              StatePalette::lookupColor(l.result, pal));
        m_marks.last().seq = l.seq;
        m_marks.last().news = news;
        m_marks.last().webhook = l.method == ProviderLookup::Method::Webhook;
    }

    // Issue 18: the refund after COMPLETED — pending while it settles, then succeeded, failed or
    // canceled — on the state lane; a decision on a failed one on the decisions lane; the next
    // scheduled look-up as a marker.
    bool settling = false;
    if (const std::optional<Settlement> &s = d.settlement) {
        for (const SettlementChange &c : s->history) {
            if ((c.fromStatus.isEmpty() && c.toStatus == QLatin1String("succeeded")) || c.fromStatus == c.toStatus)
                continue; // completed as succeeded (COMPLETED says it), or confirmed unchanged
            const bool returned = provesNotCommitted(c.toStatus);
            const ActionState tone = returned ? ActionState::RequiresReview
                : (c.toStatus == QLatin1String("succeeded") ? ActionState::Completed : ActionState::ConfirmationUnknown);
            point(Lane::State, c.at,
                  c.failureReason.isEmpty() ? tr("refund %1").arg(c.toStatus)
                                            : tr("refund %1: %2").arg(c.toStatus, c.failureReason),
                  tr("Refund %1: %2 \u2192 %3 at %4\nlearned from %5 (%6)%7")
                      .arg(s->refundId, c.fromStatus.isEmpty() ? QStringLiteral("\u2014") : c.fromStatus, c.toStatus,
                           display::isoTime(c.at), SettlementHistoryModel::sourceName(c.source), c.evidence,
                           c.failureReason.isEmpty() ? QString() : tr("\nfailure reason: %1").arg(c.failureReason)),
                  StatePalette::stateChip(tone, pal).text);
        }
        if (s->attention == Settlement::Attention::Closed && s->resolvedAt.isValid())
            point(Lane::Decision, s->resolvedAt, tr("closed without re-sending"),
                  tr("The failed refund was closed by %1 at %2 without re-sending: %3")
                      .arg(s->resolvedBy, display::isoTime(s->resolvedAt), s->resolutionNote),
                  StatePalette::stateChip(ActionState::Rejected, pal).text);
        else if (s->attention == Settlement::Attention::FollowedUp && s->resolvedAt.isValid())
            point(Lane::Decision, s->resolvedAt, tr("re-proposed as %1").arg(s->followUpId),
                  tr("The failed refund was re-proposed by %1 at %2 as follow-up %3, with its own approval and key")
                      .arg(s->resolvedBy, display::isoTime(s->resolvedAt), s->followUpId),
                  StatePalette::stateChip(ActionState::Pending, pal).text);
        settling = !s->isSettled();
        if (settling && s->nextCheckAt.isValid())
            point(Lane::Marker, s->nextCheckAt, tr("next check"),
                  tr("The next scheduled look-up of refund %1 (%2); a webhook event may settle it sooner")
                      .arg(s->refundId, display::isoTime(s->nextCheckAt)),
                  StatePalette::stateChip(ActionState::ConfirmationUnknown, pal).text, true);
    }

    if (d.keyWindowEndsAt.isValid())
        point(Lane::Marker, d.keyWindowEndsAt, d.keyWindowEndsAt > now ? tr("key window ends") : tr("key window ended"),
              tr("Same-key retries stop at %1 (the provider's key window minus a safety margin); after it only "
                 "lookups and human reconciliation.").arg(display::isoTime(d.keyWindowEndsAt)),
              StatePalette::stateChip(ActionState::ConfirmationUnknown, pal).text, true);
    if (!isTerminal(d.record.state) || settling)
        point(Lane::Marker, now, tr("now"), display::isoTime(now), QColor(), true);

    m_empty = false;
    buildStops();
    updateAccessibleDescription();
    update();
}

void TimelineWidget::updateAccessibleDescription()
{
    QStringList lines;
    for (const Mark &m : std::as_const(m_marks))
        lines << QStringLiteral("%1: %2 %3").arg(laneName(m.lane), display::time(m.start), m.label);
    setAccessibleDescription(lines.join(QLatin1Char('\n')));
}

QString TimelineWidget::summary(const QList<const Mark *> &marks)
{
    if (marks.size() < 2)
        return QString();
    bool webhooks = true;
    for (const Mark *m : marks) {
        if (m->lane != Lane::Lookup || m->seq <= 0 || m->news != marks.first()->news)
            return QString();
        webhooks = webhooks && m->webhook;
    }
    const int n = int(marks.size());
    // Numbered in time order, so the first and the last name the run.
    const QString first = QString::number(marks.first()->seq);
    const QString last = QString::number(marks.last()->seq);
    return webhooks ? tr("#%1\u2013#%2 %3 (%n webhook event(s))", "lookups at one instant saying the same", n)
                          .arg(first, last, marks.first()->news)
                    : tr("#%1\u2013#%2 %3 (%n lookup(s))", "lookups at one instant saying the same", n)
                          .arg(first, last, marks.first()->news);
}

QString TimelineWidget::laneName(Lane lane) const
{
    switch (lane) {
    case Lane::State:
        return tr("State");
    case Lane::Decision:
        return tr("Decisions");
    case Lane::Attempt:
        return tr("Attempts");
    case Lane::Lookup:
        return tr("Lookups");
    case Lane::Marker:
        return tr("Marker");
    }
    return QString();
}

QRectF TimelineWidget::laneRect(Lane lane) const
{
    int index = 0;
    for (Lane l : Lanes) {
        if (l == lane)
            break;
        ++index;
    }
    return QRectF(0, TopMargin + index * laneHeight(), width(), laneHeight());
}

double TimelineWidget::laneHeight() const
{
    return qBound(MinLaneHeight, (height() - TopMargin - AxisHeight) / 4, LaneHeight);
}

double TimelineWidget::lanesBottom() const
{
    return TopMargin + 4 * laneHeight();
}

void TimelineWidget::buildStops()
{
    m_stops.clear();
    QList<qint64> times;
    for (const Mark &m : std::as_const(m_marks)) {
        if (m.start.isValid())
            times << m.start.toMSecsSinceEpoch();
        if (m.end.isValid())
            times << m.end.toMSecsSinceEpoch();
    }
    std::sort(times.begin(), times.end());
    QList<qint64> merged;
    for (qint64 t : std::as_const(times)) {
        if (merged.isEmpty() || t - merged.last() > MergeMs)
            merged << t;
    }
    if (merged.isEmpty())
        return;

    // Weight of each gap: short gaps get room, long ones only a little more (log scale).
    QList<double> cumulative{ 0.0 };
    for (qsizetype i = 1; i < merged.size(); ++i) {
        const double gapSeconds = double(merged.at(i) - merged.at(i - 1)) / 1000.0;
        const double weight = 1.0 + 1.3 * std::log10(1.0 + gapSeconds);
        cumulative << cumulative.last() + qMin(weight, 7.0);
    }
    const double left = LeftGutter + 14;
    const double right = qMax(left + 10.0, double(width() - RightMargin));
    const double total = cumulative.last();
    for (qsizetype i = 0; i < merged.size(); ++i) {
        Stop stop;
        stop.ms = merged.at(i);
        stop.x = total > 0 ? left + (right - left) * cumulative.at(i) / total : (left + right) / 2;
        stop.gapBefore = i == 0 ? 0 : merged.at(i) - merged.at(i - 1);
        stop.brokenBefore = stop.gapBefore > BrokenGapMs;
        m_stops << stop;
    }
}

double TimelineWidget::xFor(const QDateTime &time) const
{
    if (m_stops.isEmpty() || !time.isValid())
        return LeftGutter;
    const qint64 t = time.toMSecsSinceEpoch();
    if (t <= m_stops.first().ms)
        return m_stops.first().x;
    for (qsizetype i = 1; i < m_stops.size(); ++i) {
        const Stop &a = m_stops.at(i - 1);
        const Stop &b = m_stops.at(i);
        if (t <= b.ms) {
            if (t - a.ms <= MergeMs)
                return a.x;
            const double f = double(t - a.ms) / double(b.ms - a.ms);
            return a.x + f * (b.x - a.x);
        }
    }
    return m_stops.last().x;
}

void TimelineWidget::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    buildStops();
}

void TimelineWidget::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        update();
    QWidget::changeEvent(event);
}

bool TimelineWidget::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        for (const HitBox &box : std::as_const(m_hitBoxes)) {
            if (box.rect.contains(help->pos())) {
                QToolTip::showText(help->globalPos(), box.tooltip, this);
                return true;
            }
        }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    return QWidget::event(event);
}

void TimelineWidget::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor muted = StatePalette::mutedText(pal);
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(StatePalette::isDark(pal) ? 110 : 70);

    p.fillRect(rect(), pal.color(QPalette::Base));
    m_hitBoxes.clear();
    m_shownLabels.clear();
    m_shownLabelRects.clear();
    m_axisLabels.clear();
    m_axisLabelRects.clear();

    QFont laneFont = font();
    laneFont.setWeight(QFont::DemiBold);
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.88);
    const QFontMetricsF fm(small);

    // Lanes.
    for (Lane lane : Lanes) {
        const QRectF r = laneRect(lane);
        p.setPen(Qt::NoPen);
        if (int(lane) % 2 == 1) {
            QColor band = pal.color(QPalette::AlternateBase);
            p.fillRect(r, band);
        }
        p.setPen(QPen(grid, 1));
        p.drawLine(QPointF(LeftGutter, r.bottom()), QPointF(width(), r.bottom()));
        p.setFont(laneFont);
        p.setPen(muted);
        p.drawText(QRectF(10, r.top(), LeftGutter - 14, 22), Qt::AlignLeft | Qt::AlignVCenter, laneName(lane));
    }
    p.setPen(QPen(grid, 1));
    p.drawLine(QPointF(LeftGutter, TopMargin), QPointF(LeftGutter, lanesBottom()));

    if (m_empty || m_stops.isEmpty()) {
        p.setPen(muted);
        p.drawText(rect(), Qt::AlignCenter, tr("Select an action to see its timeline."));
        return;
    }

    // Axis with ticks at the stops, and broken gaps. Tick labels first (at least 78 px apart, and
    // never over the widget's edge); then each gap's label ("≈ 23 h") on the same row under its
    // break, moved aside to the room between its neighbours' labels, or left out when there is
    // none (the break's mark stays, and the ticks either side give its length).
    const double axisY = lanesBottom() + 6;
    const double axisLabelTop = axisY + 5;
    p.setPen(QPen(muted, 1));
    p.drawLine(QPointF(LeftGutter + 4, axisY), QPointF(width() - 10, axisY));
    p.setFont(small);
    const auto axisLabelFree = [this](const QRectF &box) {
        if (box.left() < 0 || box.right() > width())
            return false;
        return std::none_of(m_axisLabelRects.cbegin(), m_axisLabelRects.cend(),
                            [&box](const QRectF &other) { return other.adjusted(-4, 0, 4, 0).intersects(box); });
    };
    double lastTickX = -1e9;
    QDate lastDate;
    for (const Stop &s : std::as_const(m_stops)) {
        if (s.x - lastTickX < 78)
            continue;
        const QDateTime t = QDateTime::fromMSecsSinceEpoch(s.ms, Qt::UTC).toLocalTime();
        QString label = t.toString(QStringLiteral("HH:mm:ss"));
        if (t.date() != lastDate) {
            // The month's name in the console's language (QDateTime::toString names it in English).
            label = QLocale().toString(t, tr("MMM d, HH:mm:ss", "date format of a timeline tick"));
        }
        const double w = fm.horizontalAdvance(label) + 2;
        const QRectF box(s.x - w / 2, axisLabelTop, w, 16);
        if (!axisLabelFree(box))
            continue; // the next one shown carries the date
        p.setPen(QPen(muted, 1));
        p.drawLine(QPointF(s.x, axisY), QPointF(s.x, axisY + 4));
        p.drawText(box, Qt::AlignCenter, label);
        m_axisLabels << label;
        m_axisLabelRects << box;
        lastDate = t.date();
        lastTickX = s.x;
    }
    const qsizetype tickLabels = m_axisLabelRects.size();
    for (qsizetype i = 1; i < m_stops.size(); ++i) {
        const Stop &s = m_stops.at(i);
        if (!s.brokenBefore)
            continue;
        const double mid = (m_stops.at(i - 1).x + s.x) / 2;
        p.fillRect(QRectF(mid - 5, axisY - 5, 10, 10), pal.color(QPalette::Base));
        p.setPen(QPen(muted, 1.2));
        p.drawLine(QPointF(mid - 6, axisY + 5), QPointF(mid - 2, axisY - 5));
        p.drawLine(QPointF(mid + 2, axisY + 5), QPointF(mid + 6, axisY - 5));
        const QString gap = QStringLiteral("\u2248 ") + display::duration(s.gapBefore);
        const double w = fm.horizontalAdvance(gap) + 2;
        // The room on the row around the break: between the nearest labels left and right of it.
        double roomLeft = 0;
        double roomRight = width();
        for (qsizetype j = 0; j < m_axisLabelRects.size(); ++j) {
            const QRectF &other = m_axisLabelRects.at(j);
            if (j >= tickLabels && other.top() != axisLabelTop)
                continue;
            if (other.center().x() <= mid)
                roomLeft = qMax(roomLeft, other.right() + 5);
            else
                roomRight = qMin(roomRight, other.left() - 5);
        }
        if (roomRight - roomLeft < w)
            continue;
        const double left = qBound(roomLeft, mid - w / 2, roomRight - w);
        const QRectF box(left, axisLabelTop, w, 16);
        if (!axisLabelFree(box))
            continue;
        p.setPen(muted);
        p.drawText(box, Qt::AlignCenter, gap);
        m_axisLabels << gap;
        m_axisLabelRects << box;
    }

    // Markers (key window end, now, next check) across every lane; their labels in the band above
    // the lanes, right of the line or left of it, else after the labels already there (elided).
    for (int i = 0; i < m_marks.size(); ++i) {
        const Mark &m = m_marks.at(i);
        if (m.lane != Lane::Marker)
            continue;
        const double x = xFor(m.start);
        const QColor c = m.color.isValid() ? m.color : muted;
        p.setPen(QPen(c, 1.4, Qt::DashLine));
        p.drawLine(QPointF(x, TopMargin), QPointF(x, axisY));
        p.setFont(small);
        const double w = fm.horizontalAdvance(m.label) + 8;
        QRectF box;
        for (const double left : { x + 3, x - w - 3 }) {
            if (axisLabelFree(QRectF(left, 3, w, 16))) {
                box = QRectF(left, 3, w, 16);
                break;
            }
        }
        QString shown = m.label;
        if (box.isNull()) {
            double left = x + 3;
            for (const QRectF &other : std::as_const(m_axisLabelRects)) {
                if (other.top() < 19 && other.right() + 4 > left && other.left() < left + w)
                    left = other.right() + 4;
            }
            shown = fm.elidedText(m.label, Qt::ElideRight, width() - 2 - left - 8);
            box = shown.isEmpty() ? QRectF(x - 4, 3, 0, 0) : QRectF(left, 3, fm.horizontalAdvance(shown) + 8, 16);
        }
        if (!shown.isEmpty()) {
            p.setPen(c);
            p.drawText(box, Qt::AlignCenter, shown);
            m_axisLabels << shown;
            m_axisLabelRects << box;
        }
        m_hitBoxes << HitBox{ QRectF(x - 4, TopMargin, 8, axisY - TopMargin).united(box), m.tooltip };
    }

    // Marks lane by lane. Points at (almost) the same x are drawn once with a joined label
    // ("proposed → Requires review"), lookups saying the same thing summarised ("#2–#4 FOUND ·
    // failed (3 webhook events)"). Labels take one of two rows inside the lane (one when the lane
    // is squeezed); a label is
    // elided where the next label on its row begins (and at the right edge), so labels never
    // overlap and every mark keeps at least its start ("#3…"); the tooltip has the full text.
    const int rows = laneHeight() >= 12 + 8 + 2 * LabelRowHeight ? 2 : 1;
    for (Lane lane : Lanes) {
        const QRectF r = laneRect(lane);
        const double lineY = r.top() + 12;
        struct Group
        {
            double x0 = 0;
            double x1 = 0;
            QColor color;
            QStringList labels;
            QStringList tooltips;
            QList<const Mark *> marks;
        };
        QList<Group> groups;
        for (const Mark &m : std::as_const(m_marks)) {
            if (m.lane != lane)
                continue;
            const double x0 = xFor(m.start);
            const double x1 = xFor(m.end);
            const QColor c = m.color.isValid() ? m.color : text;
            if (lane != Lane::Attempt && !groups.isEmpty() && std::abs(groups.last().x0 - x0) < 3) {
                groups.last().labels << m.label;
                groups.last().tooltips << m.tooltip;
                groups.last().marks << &m;
                groups.last().color = c;
                continue;
            }
            groups.append(Group{ x0, x1, c, { m.label }, { m.tooltip }, { &m } });
        }
        std::stable_sort(groups.begin(), groups.end(), [](const Group &a, const Group &b) { return a.x0 < b.x0; });

        // Pass 1: a row for each label (the first where it fits, else the one that frees first).
        struct Placed
        {
            QString label;
            double x = 0;
            int row = 0;
            double limit = 0;
        };
        QList<Placed> placed;
        double rowEnd[2] = { -1e9, rows > 1 ? -1e9 : 1e18 };
        for (const Group &g : std::as_const(groups)) {
            Placed pl;
            pl.label = summary(g.marks);
            if (pl.label.isEmpty())
                pl.label = g.labels.join(lane == Lane::State ? QStringLiteral(" \u2192 ") : QStringLiteral(", "));
            pl.x = lane == Lane::Attempt ? g.x0 : g.x0 - 6;
            const double w = fm.horizontalAdvance(pl.label) + 2;
            pl.row = -1;
            for (int row = 0; row < rows && pl.row < 0; ++row) {
                if (pl.x > rowEnd[row] + 6)
                    pl.row = row;
            }
            if (pl.row < 0)
                pl.row = rowEnd[0] <= rowEnd[1] ? 0 : 1;
            rowEnd[pl.row] = pl.x + w;
            pl.limit = double(width()) - 2 - pl.x;
            placed << pl;
        }
        // Pass 2: each label ends before the next one on its row starts.
        for (qsizetype i = 0; i < placed.size(); ++i) {
            for (qsizetype j = i + 1; j < placed.size(); ++j) {
                if (placed.at(j).row == placed.at(i).row) {
                    placed[i].limit = qMin(placed.at(i).limit, placed.at(j).x - 6 - placed.at(i).x);
                    break;
                }
            }
        }

        for (qsizetype i = 0; i < groups.size(); ++i) {
            const Group &g = groups.at(i);
            const Placed &pl = placed.at(i);
            const QColor &c = g.color;
            QRectF hit;
            if (lane == Lane::Attempt) {
                const QRectF bar(g.x0, lineY - 6, qMax(6.0, g.x1 - g.x0), 12);
                QPainterPath path;
                path.addRoundedRect(bar, 3, 3);
                QColor fill = c;
                fill.setAlpha(StatePalette::isDark(pal) ? 150 : 110);
                p.fillPath(path, fill);
                p.setPen(QPen(c, 1.2));
                p.drawPath(path);
                hit = bar;
            } else if (lane == Lane::Lookup) {
                QPainterPath diamond;
                diamond.moveTo(g.x0, lineY - 7);
                diamond.lineTo(g.x0 + 7, lineY);
                diamond.lineTo(g.x0, lineY + 7);
                diamond.lineTo(g.x0 - 7, lineY);
                diamond.closeSubpath();
                p.fillPath(diamond, c);
                hit = QRectF(g.x0 - 7, lineY - 7, 14, 14);
            } else {
                p.setPen(Qt::NoPen);
                p.setBrush(c);
                p.drawEllipse(QPointF(g.x0, lineY), 5.5, 5.5);
                p.setBrush(Qt::NoBrush);
                hit = QRectF(g.x0 - 6, lineY - 6, 12, 12);
            }
            p.setFont(small);
            const QString shown = pl.limit > 0 ? fm.elidedText(pl.label, Qt::ElideRight, pl.limit) : QString();
            QRectF labelRect(pl.x, lineY + 8 + pl.row * LabelRowHeight, 0, LabelRowHeight);
            if (!shown.isEmpty()) {
                labelRect.setWidth(fm.horizontalAdvance(shown) + 2);
                p.setPen(lane == Lane::State || lane == Lane::Decision ? c : text);
                p.drawText(labelRect, Qt::AlignLeft | Qt::AlignVCenter, shown);
                m_shownLabels << shown;
                m_shownLabelRects << labelRect;
            }
            QString tip = g.tooltips.join(QStringLiteral("\n\n"));
            if (shown != pl.label)
                tip = pl.label + QStringLiteral("\n\n") + tip;
            m_hitBoxes << HitBox{ hit.united(labelRect), tip };
        }
    }
}

} // namespace cs
