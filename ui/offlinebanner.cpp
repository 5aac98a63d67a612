#include "ui/offlinebanner.h"
#include "ui/statepalette.h"

#include <QDateTime>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace cs {

OfflineBanner::OfflineBanner(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("offlineBanner"));
    setAccessibleName(tr("Backend unreachable"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 8);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("offlineText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_retry = new QPushButton(tr("Retry now"), this);
    m_retry->setObjectName(QStringLiteral("retryNowButton"));
    layout->addWidget(m_text, 1);
    layout->addWidget(m_retry);
    connect(m_retry, &QPushButton::clicked, this, [this] {
        if (m_restartOffer)
            emit restartRequested();
        else
            emit retryRequested();
    });
    m_clock.setInterval(1000);
    connect(&m_clock, &QTimer::timeout, this, &OfflineBanner::updateText);
    applyColours();
    hide();
}

void OfflineBanner::showOffline(const QString &backend, int pendingDecisions, const QString &problem)
{
    m_backend = backend;
    m_problem = problem;
    m_pending = pendingDecisions;
    if (!isVisible())
        m_since = QDateTime::currentSecsSinceEpoch();
    updateText();
    m_clock.start();
    show();
}

void OfflineBanner::setPendingDecisions(int count)
{
    m_pending = count;
    updateText();
}

void OfflineBanner::setRestartOffer(bool offer)
{
    m_restartOffer = offer;
    m_retry->setText(offer ? tr("Restart the backend") : tr("Retry now"));
    updateText();
}

void OfflineBanner::hideBanner()
{
    m_clock.stop();
    hide();
}

QString OfflineBanner::text() const
{
    return m_text->text();
}

void OfflineBanner::updateText()
{
    const qint64 seconds = QDateTime::currentSecsSinceEpoch() - m_since;
    QString html;
    if (m_problem.startsWith(QLatin1String("certificate not trusted"))) {
        html = tr("<b>Offline \u2014 the backend at %1 is refused: %2</b> (for %3 s). The console does not talk to a "
                  "backend whose certificate it cannot verify; start it with <code>--ca-file FILE</code> for a private "
                  "CA, or fix the backend's certificate. Open dialogs keep what you typed.")
                   .arg(m_backend.toHtmlEscaped(), m_problem.toHtmlEscaped())
                   .arg(seconds);
    } else if (m_restartOffer) {
        html = tr("<b>Offline \u2014 the demo's own backend has stopped or does not answer</b> (for %1 s). It does not "
                  "come back by itself: restart it to go on (its ledger is kept). The queue and details shown may be "
                  "out of date; decisions are off until it answers. Open dialogs keep what you typed.")
                   .arg(seconds);
    } else {
        html = tr("<b>Offline \u2014 the backend at %1 does not answer</b> (for %2 s). Reconnecting automatically; "
                  "the queue and details shown may be out of date, and decisions are off until it answers. Open "
                  "dialogs keep what you typed.")
                   .arg(m_backend.toHtmlEscaped())
                   .arg(seconds);
    }
    if (m_pending > 0)
        html += tr(" %n decision(s) will be sent again as the same request as soon as it answers, so none can "
                   "apply twice.", nullptr, m_pending);
    m_text->setText(html);
}

void OfflineBanner::applyColours()
{
    // From the parent's palette: our own is the style sheet's once it is set.
    const QPalette pal = parentWidget() ? parentWidget()->palette() : palette();
    const QString sheet = QStringLiteral("QFrame#offlineBanner { background: %1; border-bottom: 2px solid %2; } "
                                         "QFrame#offlineBanner QLabel { color: %2; }")
                              .arg(StatePalette::stateChip(ActionState::RequiresReview, pal).fill.name(),
                                   StatePalette::stateChip(ActionState::RequiresReview, pal).text.name());
    if (sheet != styleSheet())
        setStyleSheet(sheet);
}

void OfflineBanner::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        applyColours();
    QFrame::changeEvent(event);
}

} // namespace cs
