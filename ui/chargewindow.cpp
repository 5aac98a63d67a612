#include "ui/chargewindow.h"
#include "models/chargeactionmodel.h"
#include "models/chargerefundmodel.h"
#include "models/chargesortfiltermodel.h"
#include "models/decisioncontext.h"
#include "models/displayformat.h"
#include "ui/budgetbar.h"
#include "ui/chargerefunddelegate.h"
#include "ui/queueitemdelegate.h"
#include "ui/statepalette.h"

#include <QAction>
#include <QCheckBox>
#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace cs {

namespace {

QString code(const QString &text)
{
    return QStringLiteral("<code>%1</code>").arg(text.toHtmlEscaped());
}

QString swatch(const QColor &color)
{
    return QStringLiteral("<span style=\"color:%1\">\u25a0</span>&nbsp;").arg(color.name());
}

QLabel *sectionTitle(QWidget *parent, const QString &objectName)
{
    auto *label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::RichText);
    return label;
}

} // namespace

ChargeWindow::ChargeWindow(QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_actions(new ChargeActionModel(this))
    , m_refunds(new ChargeRefundModel(this))
    , m_actionProxy(new ChargeSortFilterModel(this))
    , m_refundProxy(new ChargeSortFilterModel(this))
{
    setObjectName(QStringLiteral("chargeWindow"));
    setAccessibleName(tr("Charge view"));
    setWindowTitle(tr("Charge \u2014 Countersign"));
    m_actionProxy->setSourceModel(m_actions);
    m_refundProxy->setSourceModel(m_refunds);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(14, 12, 14, 10);
    layout->setSpacing(8);

    // The header: which charge, disputed or not, then its facts.
    auto *titleRow = new QHBoxLayout;
    titleRow->setSpacing(10);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("chargeTitle"));
    m_title->setTextFormat(Qt::RichText);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_dispute = new QLabel(this);
    m_dispute->setObjectName(QStringLiteral("chargeDispute"));
    titleRow->addWidget(m_title);
    titleRow->addWidget(m_dispute);
    titleRow->addStretch(1);
    layout->addLayout(titleRow);
    m_subtitle = new QLabel(this);
    m_subtitle->setObjectName(QStringLiteral("chargeSubtitle"));
    m_subtitle->setTextFormat(Qt::RichText);
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_subtitle);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("chargeActivity"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    layout->addWidget(m_status);

    m_facts = new QLabel(this);
    m_facts->setObjectName(QStringLiteral("chargeFacts"));
    m_facts->setWordWrap(true);
    m_facts->setTextFormat(Qt::RichText);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_facts);

    // The budget: the bar, its legend in words.
    auto *budgetTitle = sectionTitle(this, QStringLiteral("budgetTitle"));
    budgetTitle->setText(tr("<b>Refund budget</b>"));
    layout->addSpacing(2);
    layout->addWidget(budgetTitle);
    m_bar = new BudgetBar(this);
    m_bar->setAccessibleName(tr("Refund budget"));
    layout->addWidget(m_bar);
    m_budgetText = new QLabel(this);
    m_budgetText->setObjectName(QStringLiteral("budgetText"));
    m_budgetText->setWordWrap(true);
    m_budgetText->setTextFormat(Qt::RichText);
    m_budgetText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_budgetText);

    // Refunds nobody made through Countersign: said where nobody can miss it.
    m_outside = new QFrame(this);
    m_outside->setObjectName(QStringLiteral("outsideRefunds"));
    m_outside->setFrameShape(QFrame::StyledPanel);
    auto *outsideLayout = new QHBoxLayout(m_outside);
    outsideLayout->setContentsMargins(10, 6, 10, 6);
    m_outsideText = new QLabel(m_outside);
    m_outsideText->setObjectName(QStringLiteral("outsideText"));
    m_outsideText->setWordWrap(true);
    m_outsideText->setTextFormat(Qt::RichText);
    outsideLayout->addWidget(m_outsideText);
    layout->addWidget(m_outside);

    // The two lists, one above the other.
    auto *lists = new QSplitter(Qt::Vertical, this);
    lists->setObjectName(QStringLiteral("chargeLists"));
    lists->setChildrenCollapsible(false);
    auto *actionBox = new QWidget(lists);
    auto *actionLayout = new QVBoxLayout(actionBox);
    actionLayout->setContentsMargins(0, 4, 0, 0);
    actionLayout->setSpacing(4);
    auto *actionHead = new QHBoxLayout;
    m_actionTitle = sectionTitle(actionBox, QStringLiteral("actionsTitle"));
    m_hideRejected = new QCheckBox(tr("&Hide rejected"), actionBox);
    m_hideRejected->setObjectName(QStringLiteral("hideRejected"));
    m_hideRejected->setToolTip(tr("Rejected actions hold nothing of the charge"));
    actionHead->addWidget(m_actionTitle, 1);
    actionHead->addWidget(m_hideRejected);
    actionLayout->addLayout(actionHead);
    m_actionView = makeTable(QStringLiteral("chargeActionTable"), tr("Actions in Countersign on this charge"));
    m_actionView->setModel(m_actionProxy);
    m_actionView->setItemDelegate(new QueueItemDelegate(ChargeActionModel::StateColumn,
                                                        { ChargeActionModel::IdColumn, ChargeActionModel::AmountColumn }, m_actionView));
    m_actionView->setToolTip(tr("Double-click (or Enter) to select the action in the queue"));
    const int actionWidths[] = { 250, 170, 100, 120, 150, 160 };
    for (int c = 0; c < ChargeActionModel::ColumnCount; ++c)
        m_actionView->setColumnWidth(c, actionWidths[c]);
    actionLayout->addWidget(m_actionView);
    auto *refundBox = new QWidget(lists);
    auto *refundLayout = new QVBoxLayout(refundBox);
    refundLayout->setContentsMargins(0, 4, 0, 0);
    refundLayout->setSpacing(4);
    m_refundTitle = sectionTitle(refundBox, QStringLiteral("refundsTitle"));
    refundLayout->addWidget(m_refundTitle);
    m_refundView = makeTable(QStringLiteral("chargeRefundTable"), tr("Refunds at the provider"));
    m_refundView->setModel(m_refundProxy);
    m_refundView->setItemDelegate(new ChargeRefundDelegate(m_refundView));
    const int refundWidths[] = { 250, 100, 100, 150, 250 };
    for (int c = 0; c < ChargeRefundModel::ColumnCount; ++c)
        m_refundView->setColumnWidth(c, refundWidths[c]);
    refundLayout->addWidget(m_refundView);
    lists->addWidget(actionBox);
    lists->addWidget(refundBox);
    layout->addWidget(lists, 1);

    // The last read and Refresh.
    auto *bottom = new QHBoxLayout;
    m_lastRead = new QLabel(this);
    m_lastRead->setObjectName(QStringLiteral("lastRead"));
    m_lastRead->setWordWrap(true);
    m_lastRead->setTextFormat(Qt::RichText);
    m_refresh = new QPushButton(QIcon(QStringLiteral(":/icons/refresh.svg")), QString(), this);
    m_refresh->setObjectName(QStringLiteral("refreshChargeButton"));
    auto *close = new QPushButton(tr("Close"), this);
    close->setObjectName(QStringLiteral("closeChargeButton"));
    bottom->addWidget(m_lastRead, 1);
    bottom->addWidget(m_refresh);
    bottom->addWidget(close);
    layout->addLayout(bottom);

    auto *refreshKey = new QAction(this);
    refreshKey->setShortcuts({ QKeySequence::Refresh, QKeySequence(QStringLiteral("Ctrl+R")) });
    refreshKey->setShortcutContext(Qt::WindowShortcut);
    addAction(refreshKey);
    auto *closeKey = new QAction(this);
    closeKey->setShortcut(QKeySequence::Cancel);
    closeKey->setShortcutContext(Qt::WindowShortcut);
    addAction(closeKey);
    connect(refreshKey, &QAction::triggered, m_refresh, &QPushButton::click);
    connect(closeKey, &QAction::triggered, this, &QWidget::close);
    connect(close, &QPushButton::clicked, this, &QWidget::close);
    connect(m_refresh, &QPushButton::clicked, this, [this] {
        if (m_refresh->isEnabled())
            emit refreshRequested();
    });
    connect(m_actionView, &QTableView::activated, this, [this](const QModelIndex &index) {
        emit actionActivated(index.data(ChargeActionModel::ActionIdRole).toString());
    });
    connect(m_hideRejected, &QCheckBox::toggled, m_actionProxy, &ChargeSortFilterModel::setHideRejected);
    connect(m_hideRejected, &QCheckBox::toggled, this, &ChargeWindow::render);
    m_ages.setInterval(15000);
    connect(&m_ages, &QTimer::timeout, this, &ChargeWindow::renderStatus);
    m_ages.start();

    setTabOrder(m_actionView, m_hideRejected);
    setTabOrder(m_hideRejected, m_refundView);
    setTabOrder(m_refundView, m_refresh);
    setTabOrder(m_refresh, close);
    resize(1000, 760);
    render();
}

QTableView *ChargeWindow::makeTable(const QString &objectName, const QString &accessibleName)
{
    auto *view = new QTableView(this);
    view->setObjectName(objectName);
    view->setAccessibleName(accessibleName);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setTabKeyNavigation(false); // Tab goes on to the next control, not cell by cell
    view->setAlternatingRowColors(true);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder); // the backend's order until a header is clicked
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSortIndicatorShown(true);
    view->setWordWrap(false);
    return view;
}

void ChargeWindow::showLoading(const QString &chargeOrIntentId)
{
    m_targetId = chargeOrIntentId;
    m_overview.reset();
    m_activity = Activity::Loading;
    m_problem.clear();
    render();
}

void ChargeWindow::setOverview(const ChargeOverview &overview)
{
    m_targetId = overview.id;
    m_overview = overview;
    m_activity = Activity::Idle;
    m_problem.clear();
    render();
}

void ChargeWindow::setLoading()
{
    m_activity = Activity::Loading;
    m_problem.clear();
    renderStatus();
}

void ChargeWindow::setLookingUp()
{
    m_activity = Activity::LookingUp;
    m_problem.clear();
    renderStatus();
}

void ChargeWindow::setOffline(const QString &why)
{
    m_activity = Activity::Offline;
    m_problem = why;
    renderStatus();
}

void ChargeWindow::setFailed(const QString &why)
{
    m_activity = Activity::Failed;
    m_problem = why;
    renderStatus();
}

void ChargeWindow::setCanLookUp(bool canLookUp)
{
    m_canLookUp = canLookUp;
    renderStatus();
}

void ChargeWindow::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        render();
}

void ChargeWindow::render()
{
    const QPalette pal = palette();
    const QString muted = StatePalette::mutedText(pal).name();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const ChargeOverview empty;
    const ChargeOverview &o = m_overview ? *m_overview : empty;
    const bool intentOnly = o.targetType == TargetType::PaymentIntent && o.chargeId.isEmpty();
    const QString shown = m_overview ? o.shownId() : m_targetId;

    setWindowTitle(shown.isEmpty() ? tr("Charge \u2014 Countersign") : tr("Charge %1 \u2014 Countersign").arg(shown));
    m_title->setText(QStringLiteral("<span style=\"font-size:15pt; font-weight:600\">%1</span>")
                         .arg(intentOnly ? tr("Payment intent %1").arg(code(shown)) : tr("Charge %1").arg(code(shown))));
    if (!o.paymentIntentId.isEmpty() && !intentOnly)
        m_subtitle->setText(QStringLiteral("<span style=\"color:%1\">%2</span>")
                                .arg(muted, tr("of payment intent %1").arg(code(o.paymentIntentId))));
    else
        m_subtitle->setText(QStringLiteral("<span style=\"color:%1\">%2</span>")
                                .arg(muted, intentOnly ? tr("its charge is not known yet: the provider has not been read") : tr("no payment intent")));

    // Disputed: a chip beside the title.
    const std::optional<ChargeSnapshot> &s = o.snapshot;
    const bool found = s && s->result == ChargeSnapshot::Result::Found;
    m_dispute->setVisible(found);
    if (found) {
        const StatePalette::Chip chip = StatePalette::stateChip(s->disputed ? ActionState::RequiresReview : ActionState::Completed, pal);
        m_dispute->setText(s->disputed ? tr("Disputed") : tr("Not disputed"));
        m_dispute->setStyleSheet(QStringLiteral("QLabel { background: %1; color: %2; border: 1px solid %3; border-radius: 9px; "
                                                "padding: 1px 9px; font-weight: 600; }")
                                     .arg(chip.fill.name(), chip.text.name(), chip.border.name(QColor::HexArgb)));
    }

    // The facts.
    QString facts;
    if (!m_overview) {
        facts.clear();
    } else if (!s) {
        facts = tr("The provider has not been asked about this charge yet.");
    } else if (s->result == ChargeSnapshot::Result::Found) {
        const QString row = QStringLiteral("<tr><td style=\"color:%1; padding-right:14px\">%2</td><td>%3</td></tr>");
        facts = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"1\">");
        facts += row.arg(muted, tr("Captured"), tr("<b>%1</b> of %2").arg(display::money(s->amountCaptured, s->currency),
                                                                           display::money(s->amount, s->currency)));
        facts += row.arg(muted, tr("Currency"), s->currency.toUpper().toHtmlEscaped());
        if (s->created.isValid())
            facts += row.arg(muted, tr("Purchased"), tr("%1 (%2)").arg(display::relative(s->created, now), display::time(s->created)));
        if (!s->paymentMethodBrand.isEmpty() || !s->paymentMethodLast4.isEmpty())
            facts += row.arg(muted, tr("Card"),
                             tr("%1 \u2022\u2022\u2022\u2022 %2")
                                 .arg((s->paymentMethodBrand.isEmpty() ? tr("card") : s->paymentMethodBrand).toHtmlEscaped(),
                                      (s->paymentMethodLast4.isEmpty() ? QStringLiteral("????") : s->paymentMethodLast4).toHtmlEscaped()));
        facts += row.arg(muted, tr("Dispute"),
                         s->disputed ? QStringLiteral("<b style=\"color:%1\">%2</b>").arg(StatePalette::warningText(pal).name(),
                                                                                         tr("disputed by the customer: a refund may pay twice"))
                                     : tr("none"));
        facts += QStringLiteral("</table>");
    } else if (s->result == ChargeSnapshot::Result::NotFound) {
        facts = tr("The provider did not find %1 (HTTP %2).").arg(code(s->targetId)).arg(s->httpStatus);
    } else {
        facts = tr("The provider did not answer about %1%2.")
                    .arg(code(s->targetId), s->excerpt.isEmpty() ? QString() : QStringLiteral(": ") + s->excerpt.toHtmlEscaped());
    }
    m_facts->setText(facts);
    m_facts->setVisible(!facts.isEmpty());

    // The budget: the bar, and its legend in the bar's colours.
    const ChargeBudget &b = o.budget;
    ChargeView barView;
    barView.budget = b;
    m_bar->setCharge(barView);
    const BudgetBar::Colors colors = BudgetBar::colors(pal);
    QString words;
    if (!m_overview) {
        words.clear();
    } else if (!b.known) {
        words = tr("<b>Budget not known</b>: the provider has not said what this charge can still refund. Nothing is refused "
                   "for it; the provider itself refuses a refund over what is left.");
    } else {
        const QString cur = b.currency;
        words = tr("%1refunded at the provider <b>%2</b> &nbsp;&nbsp; %3reserved in Countersign <b>%4</b> &nbsp;&nbsp; "
                   "%5<b>%6 left</b> &nbsp;&nbsp; <span style=\"color:%7\">of %8 captured</span>")
                    .arg(swatch(colors.refunded), display::money(b.refundedAtProvider, cur), swatch(colors.reserved),
                         display::money(b.reserved, cur), swatch(colors.left), display::money(qMax<qint64>(0, b.available()), cur),
                         muted, display::money(b.captured, cur));
        if (b.available() < 0)
            words += QStringLiteral("<br><b style=\"color:%1\">%2</b>")
                         .arg(StatePalette::warningText(pal).name(),
                              tr("Over-committed by %1: Countersign holds more than the provider says is left.")
                                  .arg(display::money(-b.available(), cur)));
        words += QStringLiteral("<br><span style=\"color:%1\">%2</span>")
                     .arg(muted, tr("What a new proposal may still ask for. Reserved: every action on the charge Countersign may "
                                    "still send (pending, in flight, unknown, under review, or completed but not yet in the "
                                    "provider's read)."));
    }
    m_budgetText->setText(words);
    m_budgetText->setVisible(!words.isEmpty());
    m_bar->setAccessibleDescription(m_budgetText->text());

    // Refunds made outside Countersign: listed by the read, or announced by the provider's webhooks
    // and not listed by any read yet (issue 18).
    const QList<ChargeSnapshot::Refund> outside = o.refundsMadeOutside();
    const QList<ProviderRefund> providerRefunds = o.providerRefunds();
    QStringList announced;
    for (const ProviderRefund &p : providerRefunds) {
        if (p.madeOutside() && !p.inRead)
            announced << QStringLiteral("%1 %2 %3").arg(code(p.refund.id), display::money(p.refund.amount, p.currency),
                                                        ChargeRefundModel::statusText(p).toHtmlEscaped());
    }
    m_outside->setVisible(!outside.isEmpty() || !announced.isEmpty());
    QStringList outsideLines;
    if (!announced.isEmpty())
        outsideLines << tr("\u26a0 <b>%n refund(s) not through Countersign \u2014 from a webhook</b> (%1): the provider's "
                           "webhooks announced them, made in its dashboard or by another system, and no read of the charge "
                           "lists them yet. The budget counts them once a read does.", nullptr, int(announced.size()))
                            .arg(announced.join(QStringLiteral(", ")));
    if (!outside.isEmpty()) {
        qint64 total = 0;
        QStringList ids;
        for (const ChargeSnapshot::Refund &r : outside) {
            if (r.counts())
                total += r.amount;
            ids << code(r.id);
        }
        const QString what = outside.size() == 1 ? tr("1 refund made outside Countersign")
                                                 : tr("%1 refunds made outside Countersign").arg(outside.size());
        outsideLines << tr("\u26a0 <b>%1</b> (%2: %3) \u2014 not approved in Countersign, and counted against what the "
                           "charge can still refund.")
                            .arg(what, display::money(total, s ? s->currency : QString()), ids.join(QStringLiteral(", ")));
    }
    if (!outsideLines.isEmpty()) {
        m_outsideText->setText(outsideLines.join(QStringLiteral("<br>")));
        m_outside->setStyleSheet(QStringLiteral("QFrame#outsideRefunds { background: %1; border: 1px solid %2; border-radius: 6px; }"
                                                " QFrame#outsideRefunds QLabel { color: %2; background: transparent; }")
                                     .arg(StatePalette::warningFill(pal).name(), StatePalette::warningText(pal).name()));
    }

    // The lists.
    m_actions->setOverview(o);
    m_refunds->setOverview(o);
    const int shownActions = m_actionProxy->rowCount();
    QString actionTitle = tr("<b>Actions in Countersign</b> (%1)").arg(o.actions.size());
    if (shownActions != o.actions.size())
        actionTitle += QStringLiteral(" <span style=\"color:%1\">%2</span>").arg(muted, tr("%1 shown").arg(shownActions));
    if (o.actionsTruncated)
        actionTitle += QStringLiteral(" <span style=\"color:%1\">%2</span>").arg(muted, tr("the newest 500; older ones are not listed"));
    m_actionTitle->setText(actionTitle);
    const qsizetype refunds = providerRefunds.size();
    const int events = int(o.unmatchedRefundEvents.size());
    const bool read = s && s->result == ChargeSnapshot::Result::Found;
    if (events > 0)
        m_refundTitle->setText(read ? tr("<b>Refunds at the provider</b> (%1) \u2014 as the read listed them, with what %n "
                                         "webhook event(s) since announced", nullptr, events).arg(refunds)
                                    : tr("<b>Refunds at the provider</b> (%1) \u2014 as %n webhook event(s) announced them; "
                                         "no read lists them", nullptr, events).arg(refunds));
    else
        m_refundTitle->setText(read ? tr("<b>Refunds at the provider</b> (%1) \u2014 as the read listed them").arg(refunds)
                                    : tr("<b>Refunds at the provider</b> \u2014 not known without a read"));
    renderStatus();
}

void ChargeWindow::renderStatus()
{
    const QPalette pal = palette();
    const QString muted = StatePalette::mutedText(pal).name();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const std::optional<ChargeSnapshot> snapshot = m_overview ? m_overview->snapshot : std::nullopt;
    const QString age = snapshot ? display::relative(snapshot->readAt, now) : QString();

    QString status;
    bool warning = false;
    switch (m_activity) {
    case Activity::Idle:
        break;
    case Activity::Loading:
        status = m_overview ? tr("Reloading\u2026 Shown meanwhile: what was recorded before.") : tr("Loading %1\u2026").arg(code(m_targetId));
        break;
    case Activity::LookingUp:
        status = tr("Looking the charge up at the provider now\u2026");
        break;
    case Activity::Offline:
        warning = true;
        status = m_overview ? tr("<b>Offline</b> \u2014 the backend does not answer (%1). Shown: what was recorded before; "
                                 "Refresh once it is back.").arg(m_problem.toHtmlEscaped())
                            : tr("<b>Offline</b> \u2014 the backend does not answer (%1). Nothing can be shown until it is back.")
                                  .arg(m_problem.toHtmlEscaped());
        break;
    case Activity::Failed:
        warning = true;
        status = tr("<b>Could not read the charge</b>: %1").arg(m_problem.toHtmlEscaped());
        break;
    }
    m_status->setText(status);
    m_status->setVisible(!status.isEmpty());
    m_status->setStyleSheet(warning ? QStringLiteral("QLabel#chargeActivity { background: %1; color: %2; border: 1px solid %2; "
                                                     "border-radius: 6px; padding: 6px 10px; }")
                                          .arg(StatePalette::warningFill(pal).name(), StatePalette::warningText(pal).name())
                                    : QStringLiteral("QLabel#chargeActivity { color: %1; }").arg(muted));

    if (!snapshot) {
        m_lastRead->setText(m_overview ? tr("Never read from the provider.") : QString());
    } else {
        const QString who = snapshot->askedBy == QLatin1String("proposal") ? tr("when an action was proposed")
                                                                           : tr("by %1").arg(snapshot->askedBy.toHtmlEscaped());
        m_lastRead->setText(tr("Last read from the provider <b>%1</b> %2 (%3).").arg(age, who, display::time(snapshot->readAt)));
    }
    m_lastRead->setToolTip(snapshot ? display::isoTime(snapshot->readAt) : QString());

    const bool busy = m_activity == Activity::Loading || m_activity == Activity::LookingUp;
    m_refresh->setText(m_canLookUp ? tr("&Look up now") : tr("&Reload"));
    m_refresh->setToolTip(m_canLookUp ? tr("Ask the provider for this charge now and record what it says (F5)")
                                      : tr("Read again what Countersign recorded (F5); your role may not ask the provider"));
    m_refresh->setEnabled(!busy && !m_targetId.isEmpty());
}

} // namespace cs
