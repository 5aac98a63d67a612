#include "ui/chargestoryview.h"
#include "models/displayformat.h"
#include "models/chargewarnings.h"
#include "models/refundstatus.h"
#include "ui/budgetbar.h"
#include "ui/statepalette.h"

#include <QCoreApplication>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

namespace cs {

namespace {

// Warnings that say the refund may pay twice or cannot be checked: the critical icon.
bool isSevere(const QString &code)
{
    return code == QLatin1String("disputed") || code == QLatin1String("exceeds_remaining")
        || code == QLatin1String("no_provider_view") || code == QLatin1String("read_failed");
}

QString who(const QString &askedBy)
{
    return askedBy == QLatin1String("proposal") ? QCoreApplication::translate("cs::ChargeStoryView", "when proposed") : QCoreApplication::translate("cs::ChargeStoryView", "by %1").arg(askedBy);
}

// A provider's refund status in words ("succeeded", "pending", …).
QString statusWords(const QString &status)
{
    switch (refundStatusFromWire(status)) {
    case RefundStatus::Pending: return QCoreApplication::translate("cs::ChargeStoryView", "pending");
    case RefundStatus::RequiresAction: return QCoreApplication::translate("cs::ChargeStoryView", "waiting for an action at the provider");
    case RefundStatus::Succeeded: return QCoreApplication::translate("cs::ChargeStoryView", "succeeded");
    case RefundStatus::Failed: return QCoreApplication::translate("cs::ChargeStoryView", "failed");
    case RefundStatus::Canceled: return QCoreApplication::translate("cs::ChargeStoryView", "canceled");
    case RefundStatus::Unrecognised: break;
    }
    return status;
}

qint64 countedRefunds(const ChargeSnapshot &s)
{
    return s.result == ChargeSnapshot::Result::Found ? s.amountCaptured - refundableRemaining(s) : 0;
}

// One warning in the console's words, from the charge as read and the amount asked for. The
// server decides which warnings apply (its codes); unknown codes keep the server's sentence.
QString warningWords(const ChargeView::Warning &w, const ChargeView &view, const QDateTime &now)
{
    const ChargeSnapshot &s = view.snapshot;
    const QString cur = s.currency;
    if (w.code == QLatin1String("no_provider_view")) {
        if (s.result == ChargeSnapshot::Result::NotFound)
            return QCoreApplication::translate("cs::ChargeStoryView", "No view of the charge: the provider does not know %1, so its amount, age, refunds and disputes "
                      "are unchecked.").arg(s.targetId);
        return s.httpStatus > 0
            ? QCoreApplication::translate("cs::ChargeStoryView", "No view of the charge: the provider could not be read (HTTP %1), so its amount, age, refunds and "
                 "disputes are unchecked.").arg(s.httpStatus)
            : QCoreApplication::translate("cs::ChargeStoryView", "No view of the charge: the provider did not answer, so its amount, age, refunds and disputes are "
                 "unchecked.");
    }
    if (w.code == QLatin1String("disputed"))
        return QCoreApplication::translate("cs::ChargeStoryView", "The customer disputed this charge: a refund now may pay them twice.");
    if (w.code == QLatin1String("over_half") && s.amountCaptured > 0) {
        const QString asked = display::money(view.requested, cur);
        const QString captured = display::money(s.amountCaptured, cur);
        if (view.requested == s.amountCaptured)
            return QCoreApplication::translate("cs::ChargeStoryView", "%1 is the whole captured amount of the charge.").arg(asked);
        if (view.requested > s.amountCaptured)
            return QCoreApplication::translate("cs::ChargeStoryView", "%1 is more than the charge's captured %2.").arg(asked, captured);
        return QCoreApplication::translate("cs::ChargeStoryView", "%1 is more than half of the charge's captured %2.").arg(asked, captured);
    }
    if (w.code == QLatin1String("past_refund_window") && s.created.isValid()) {
        const qint64 days = s.created.daysTo(now);
        return QCoreApplication::translate("cs::ChargeStoryView", "The charge is %1 days old, past the %2-day card refund window: the provider may refuse the refund.")
            .arg(days)
            .arg(CardRefundWindowDays);
    }
    if (w.code == QLatin1String("refunds_made")) {
        QStringList lines;
        for (const ChargeSnapshot::Refund &r : s.refunds) {
            QString line = display::money(r.amount, cur) + QLatin1Char(' ') + statusWords(r.status);
            if (r.created.isValid())
                line += QLatin1String(", ") + display::relative(r.created, now);
            line += r.actionId.isEmpty() ? QCoreApplication::translate("cs::ChargeStoryView", " (made outside Countersign)") : QCoreApplication::translate("cs::ChargeStoryView", " (through Countersign)");
            lines << line;
        }
        if (lines.isEmpty())
            return QCoreApplication::translate("cs::ChargeStoryView", "Already refunded %1 of %2.").arg(display::money(s.amountRefunded, cur), display::money(s.amountCaptured, cur));
        return QCoreApplication::translate("cs::ChargeStoryView", "Already refunded %1 of %2: %3.")
            .arg(display::money(std::max(s.amountRefunded, countedRefunds(s)), cur), display::money(s.amountCaptured, cur),
                 lines.join(QLatin1String("; ")));
    }
    if (w.code == QLatin1String("exceeds_remaining"))
        return QCoreApplication::translate("cs::ChargeStoryView", "%1 asked, more than the %2 the provider says is left (captured %3 \u2212 refunded %4).")
            .arg(display::money(view.requested, cur), display::money(refundableRemaining(s), cur),
                 display::money(s.amountCaptured, cur), display::money(countedRefunds(s), cur));
    return w.text;
}

} // namespace

QList<WarningLine> ChargeStoryView::warningLines(const ChargeView &view, const QDateTime &now)
{
    QList<WarningLine> lines;
    for (const ChargeView::Warning &w : view.warnings)
        lines.append({ w.code, warningWords(w, view, now), isSevere(w.code) });
    return lines;
}

ChargeStoryView::ChargeStoryView(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("chargeStoryView"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("chargeStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    m_warnings = new WarningList(this);
    m_warnings->setObjectName(QStringLiteral("chargeWarnings"));
    layout->addWidget(m_warnings);

    m_story = new QLabel(this);
    m_story->setObjectName(QStringLiteral("chargeStory"));
    m_story->setWordWrap(true);
    m_story->setTextFormat(Qt::RichText);
    m_story->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_story);

    m_bar = new BudgetBar(this);
    layout->addWidget(m_bar);
    m_budgetText = new QLabel(this);
    m_budgetText->setObjectName(QStringLiteral("budgetText"));
    m_budgetText->setWordWrap(true);
    m_budgetText->setTextFormat(Qt::RichText);
    m_budgetText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_budgetText);
    render();
}

void ChargeStoryView::setView(const std::optional<ChargeView> &view)
{
    m_view = view;
    m_read = ReadState::Idle;
    m_failure.clear();
    render();
}

void ChargeStoryView::setReading()
{
    m_read = ReadState::Reading;
    render();
}

void ChargeStoryView::setReadFailed(const QString &why)
{
    m_read = ReadState::Failed;
    m_failure = why;
    render();
}

void ChargeStoryView::setWarningsShown(bool shown)
{
    m_warningsShown = shown;
    m_warnings->setVisible(shown && !m_lines.isEmpty());
}

QStringList ChargeStoryView::warningCodes() const
{
    QStringList codes;
    for (const WarningLine &w : m_lines)
        codes << w.code;
    return codes;
}

QStringList ChargeStoryView::warningTexts() const
{
    QStringList texts;
    for (const WarningLine &w : m_lines)
        texts << w.text;
    return texts;
}

void ChargeStoryView::render()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const QPalette pal = palette();
    const QString muted = StatePalette::mutedText(pal).name(QColor::HexArgb);

    // The read: when, by whom, and what is happening now.
    QString status;
    if (m_view) {
        const ChargeSnapshot &s = m_view->snapshot;
        status = tr("Read from the provider %1 (%2, %3).")
                     .arg(display::relative(s.readAt, now), who(s.askedBy), display::time(s.readAt));
    } else {
        status = tr("The provider has not been asked about this charge yet.");
    }
    if (m_read == ReadState::Reading)
        status = tr("Reading the charge from the provider now\u2026 ") + (m_view ? tr("Shown meanwhile: the read of %1.").arg(display::relative(m_view->snapshot.readAt, now)) : QString());
    m_status->setText(status);

    // Warnings first, prominent (or where the dialog shows them: setWarningsShown).
    QList<WarningLine> lines;
    if (m_read == ReadState::Failed)
        lines.append({ QStringLiteral("read_failed"),
                       m_view ? tr("The charge could not be read now: %1. Shown: the read of %2.")
                                    .arg(m_failure, display::relative(m_view->snapshot.readAt, now))
                              : tr("The charge could not be read now: %1.").arg(m_failure),
                       true });
    if (m_view)
        lines += warningLines(*m_view, now);
    const bool changed = lines != m_lines;
    m_lines = lines;
    m_warnings->setWarnings(lines);
    m_warnings->setVisible(m_warningsShown && !lines.isEmpty());
    if (changed)
        emit warningsChanged();

    if (!m_view) {
        m_story->clear();
        m_story->hide();
        m_bar->clear();
        m_budgetText->clear();
        m_budgetText->hide();
        return;
    }
    m_story->show();
    m_budgetText->show();
    const ChargeView &v = *m_view;
    const ChargeSnapshot &s = v.snapshot;

    // The story.
    QString story;
    if (s.result == ChargeSnapshot::Result::Found) {
        const QString cur = s.currency;
        QStringList facts;
        facts << tr("<b>Captured %1</b> of %2").arg(display::money(s.amountCaptured, cur), display::money(s.amount, cur));
        if (s.created.isValid())
            facts << tr("purchased <b>%1</b> (%2)").arg(display::relative(s.created, now), display::time(s.created));
        if (!s.paymentMethodBrand.isEmpty() || !s.paymentMethodLast4.isEmpty())
            facts << tr("%1 \u2022\u2022\u2022\u2022 %2").arg(s.paymentMethodBrand.isEmpty() ? tr("card") : s.paymentMethodBrand,
                                                        s.paymentMethodLast4.isEmpty() ? QStringLiteral("????") : s.paymentMethodLast4);
        facts << (s.disputed ? tr("<b>disputed</b>") : tr("not disputed"));
        story = facts.join(QStringLiteral(" &nbsp;\u00b7&nbsp; "));
        story += QStringLiteral("<br>");
        if (s.refunds.isEmpty() && s.amountRefunded == 0) {
            story += tr("No refunds of this charge at the provider yet.");
        } else {
            QStringList refunds;
            for (const ChargeSnapshot::Refund &r : s.refunds) {
                refunds << tr("%1 %2 (%3)")
                               .arg(display::money(r.amount, cur), statusWords(r.status).toHtmlEscaped(),
                                    r.actionId.isEmpty() ? tr("made outside Countersign") : tr("through Countersign"));
            }
            story += tr("<b>Refunded already: %1</b>").arg(display::money(s.amountRefunded, cur));
            if (!refunds.isEmpty())
                story += QStringLiteral(" \u2014 ") + refunds.join(QStringLiteral("; "));
        }
        story += QStringLiteral("<br><span style=\"color:%1\">%2</span>")
                     .arg(muted, tr("Charge <code>%1</code>%2").arg(s.chargeId.toHtmlEscaped(),
                                                                     s.paymentIntentId.isEmpty() ? QString()
                                                                                                 : tr(" of payment intent <code>%1</code>").arg(s.paymentIntentId.toHtmlEscaped())));
    } else if (s.result == ChargeSnapshot::Result::NotFound) {
        story = tr("The provider did not find <code>%1</code> (HTTP %2).").arg(s.targetId.toHtmlEscaped()).arg(s.httpStatus);
    } else {
        story = tr("The provider did not answer about <code>%1</code>%2.")
                    .arg(s.targetId.toHtmlEscaped(), s.httpStatus > 0 ? tr(" (HTTP %1)").arg(s.httpStatus) : QString());
    }
    m_story->setText(story);
    // The provider's own words, for whoever wants them: not in the sentence.
    m_story->setToolTip(s.excerpt.isEmpty() ? QString() : tr("The provider answered: %1").arg(s.excerpt));

    // The budget, as a bar and in words.
    const ChargeBudget &b = v.budget;
    m_bar->setCharge(v);
    if (!b.known) {
        m_budgetText->setText(tr("<b>Budget not known</b>: the provider has not said what this charge can still refund. "
                                 "Nothing is refused for it; the provider itself refuses a refund over what is left."));
        return;
    }
    const QString cur = b.currency;
    QStringList holders;
    for (const ChargeBudget::Reservation &r : b.reservations)
        holders << tr("%1 by %2 (%3%4)")
                       .arg(display::money(r.amount, cur), r.requestedBy, display::stateName(r.state),
                            r.approved ? tr(", approved") : QString());
    const qint64 leftAfter = b.available() - v.requested;
    // Each term after the bar's colour for it: the words are the bar's legend.
    const BudgetBar::Colors colors = BudgetBar::colors(pal);
    const auto swatch = [](const QColor &color) {
        return QStringLiteral("<span style=\"color:%1\">\u25a0</span>&nbsp;").arg(color.name());
    };
    QString words = tr("<b>Budget</b>: captured %1 \u2212 %2refunded at the provider %3 \u2212 %4reserved in Countersign %5 "
                       "\u2212 %6<b>this action %7</b> = %8<b>%9 left</b>")
                        .arg(display::money(b.captured, cur), swatch(colors.refunded), display::money(b.refundedAtProvider, cur),
                             swatch(colors.reserved), display::money(b.reserved, cur),
                             swatch(v.fits ? colors.thisAction : colors.tooMuch), display::money(v.requested, v.requestedCurrency),
                             swatch(colors.left), display::money(leftAfter, cur));
    if (!holders.isEmpty())
        words += QStringLiteral("<br><span style=\"color:%1\">%2</span>")
                     .arg(muted, tr("Reserved by: %1").arg(holders.join(QStringLiteral("; ")).toHtmlEscaped()));
    if (!v.fits)
        words += QStringLiteral("<br><span style=\"color:%1\"><b>%2</b></span>")
                     .arg(StatePalette::warningText(pal).name(),
                          tr("This refund does not fit: only %1 can still be refunded.").arg(display::money(b.available(), cur)));
    m_budgetText->setText(words);
    m_bar->setAccessibleName(tr("Refund budget"));
    m_bar->setAccessibleDescription(m_budgetText->text());
}

} // namespace cs
