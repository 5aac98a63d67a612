#include "ui/actiondetailpane.h"
#include "models/approvaltablemodel.h"
#include "models/attempttablemodel.h"
#include "models/audittablemodel.h"
#include "models/displayformat.h"
#include "models/lookuptablemodel.h"
#include "models/reconciliationtablemodel.h"
#include "models/relatedactionmodel.h"
#include "models/reviewexplanation.h"
#include "ui/agentreasonsview.h"
#include "ui/chargestoryview.h"
#include "ui/detailsdisclosure.h"
#include "ui/payloaddiffwidget.h"
#include "ui/settlementview.h"
#include "ui/discrepancybanner.h"
#include "ui/statepalette.h"
#include "ui/timelinewidget.h"

#include <QAction>
#include <QEvent>
#include <QFormLayout>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QSplitter>
#include <QStackedLayout>
#include <QStyledItemDelegate>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace cs {

namespace {

class MonospaceColumnsDelegate : public QStyledItemDelegate
{
public:
    MonospaceColumnsDelegate(QList<int> columns, QObject *parent)
        : QStyledItemDelegate(parent), m_columns(std::move(columns)) {}
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (m_columns.contains(index.column())) {
            QFont mono = StatePalette::monospaceFont();
            mono.setPointSizeF(option->font.pointSizeF());
            option->font = mono;
        }
    }
private:
    QList<int> m_columns;
};

QString chipStyle(ActionState state, const QPalette &palette)
{
    const StatePalette::Chip chip = StatePalette::stateChip(state, palette);
    return QStringLiteral("QLabel { background: %1; color: %2; border: 1px solid %3; border-radius: 10px; "
                          "padding: 2px 10px; font-weight: 600; }")
        .arg(chip.fill.name(), chip.text.name(), chip.border.name(QColor::HexArgb));
}

} // namespace

ActionDetailPane::ActionDetailPane(QWidget *parent)
    : QWidget(parent)
    , m_attempts(new AttemptTableModel(this))
    , m_lookups(new LookupTableModel(this))
    , m_approvals(new ApprovalTableModel(this))
    , m_reconciliations(new ReconciliationTableModel(this))
    , m_audit(new AuditTableModel(this))
    , m_related(new RelatedActionModel(this))
{
    setObjectName(QStringLiteral("actionDetailPane"));
    auto *stack = new QStackedLayout(this);

    m_placeholder = new QLabel(tr("Select an action in the queue."), this);
    m_placeholder->setObjectName(QStringLiteral("detailPlaceholder"));
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    stack->addWidget(m_placeholder);

    m_content = new QWidget(this);
    stack->addWidget(m_content);
    auto *layout = new QVBoxLayout(m_content);
    layout->setContentsMargins(12, 8, 8, 4);
    layout->setSpacing(8);

    // Header.
    auto *titleRow = new QHBoxLayout;
    m_title = new QLabel(m_content);
    m_title->setObjectName(QStringLiteral("detailTitle"));
    QFont titleFont = font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.35);
    titleFont.setWeight(QFont::DemiBold);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stateChip = new QLabel(m_content);
    m_stateChip->setObjectName(QStringLiteral("detailState"));
    titleRow->addWidget(m_title);
    titleRow->addSpacing(8);
    titleRow->addWidget(m_stateChip);
    titleRow->addStretch(1);
    layout->addLayout(titleRow);

    m_subtitle = new QLabel(m_content);
    m_subtitle->setObjectName(QStringLiteral("detailSubtitle"));
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_subtitle);

    m_buttonRow = new QWidget(m_content);
    auto *buttons = new QHBoxLayout(m_buttonRow);
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->setSpacing(6);
    buttons->addStretch(1);
    layout->addWidget(m_buttonRow);


    // Below the buttons, above the tabs: why a button is off, and the banners. Their height changes
    // with the action's news; settleBannerZone() keeps that from moving the tabs under the pointer.
    m_bannerZone = new QWidget(m_content);
    m_bannerZone->setObjectName(QStringLiteral("bannerZone"));
    auto *zone = new QVBoxLayout(m_bannerZone);
    zone->setContentsMargins(0, 0, 0, 0);
    zone->setSpacing(8);
    m_reasons = new QLabel(m_bannerZone);
    m_reasons->setObjectName(QStringLiteral("permissionReasons"));
    m_reasons->setWordWrap(true);
    m_reasons->setTextFormat(Qt::RichText);
    zone->addWidget(m_reasons);

    m_reviewBanner = new QFrame(m_bannerZone);
    m_reviewBanner->setObjectName(QStringLiteral("reviewBanner"));
    m_reviewBanner->setFrameShape(QFrame::StyledPanel);
    auto *bannerLayout = new QVBoxLayout(m_reviewBanner);
    bannerLayout->setContentsMargins(10, 6, 10, 6);
    bannerLayout->setSpacing(2);
    m_reviewText = new QLabel(m_reviewBanner);
    m_reviewText->setObjectName(QStringLiteral("reviewReason"));
    m_reviewText->setWordWrap(true);
    m_reviewText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bannerLayout->addWidget(m_reviewText);
    // The server's reason and the provider's answer as given, for whoever needs them.
    m_reviewDetails = new DetailsDisclosure(m_reviewBanner);
    m_reviewDetails->setObjectName(QStringLiteral("reviewDetails"));
    bannerLayout->addWidget(m_reviewDetails);
    zone->addWidget(m_reviewBanner);

    // Issue 18: a refund the provider accepted and then failed or canceled. The customer was told
    // it was done; nothing resends it by itself, so the banner carries the two decisions.
    m_settlementBanner = new QFrame(m_bannerZone);
    m_settlementBanner->setObjectName(QStringLiteral("settlementBanner"));
    m_settlementBanner->setFrameShape(QFrame::StyledPanel);
    auto *settlementLayout = new QVBoxLayout(m_settlementBanner);
    settlementLayout->setContentsMargins(10, 8, 10, 8);
    settlementLayout->setSpacing(6);
    m_settlementText = new QLabel(m_settlementBanner);
    m_settlementText->setObjectName(QStringLiteral("settlementReviewText"));
    m_settlementText->setWordWrap(true);
    m_settlementText->setTextFormat(Qt::RichText);
    m_settlementText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    settlementLayout->addWidget(m_settlementText);
    auto *settlementButtons = new QHBoxLayout;
    settlementButtons->setSpacing(6);
    settlementButtons->addStretch(1);
    settlementLayout->addLayout(settlementButtons);
    m_settlementBanner->setVisible(false);
    zone->addWidget(m_settlementBanner);

    // Issue 33: the provider holds two refunds for this action (or one that contradicts it).
    m_discrepancyBanner = new DiscrepancyBanner(m_bannerZone);
    zone->addWidget(m_discrepancyBanner);

    layout->addWidget(m_bannerZone);
    m_bannerRelease = new QTimer(this);
    m_bannerRelease->setInterval(250);
    connect(m_bannerRelease, &QTimer::timeout, this, [this] { settleBannerZone(true, pointerOnControls(), m_bannerHeld); });

    // Tabs above the timeline.
    m_splitter = new QSplitter(Qt::Vertical, m_content);
    m_splitter->setObjectName(QStringLiteral("detailSplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_tabs = new QTabWidget(m_splitter);
    m_tabs->setObjectName(QStringLiteral("detailTabs"));
    m_tabs->setDocumentMode(true);

    // Overview: the record.
    auto *overviewScroll = new QScrollArea(m_tabs);
    overviewScroll->setWidgetResizable(true);
    overviewScroll->setFrameShape(QFrame::NoFrame);
    auto *overview = new QWidget(overviewScroll);
    auto *overviewLayout = new QVBoxLayout(overview);
    overviewLayout->setContentsMargins(8, 10, 8, 10);
    overviewLayout->setSpacing(8);
    // Issue 18: what the refund did after the provider accepted it, first: for a COMPLETED action
    // it is the newest news (and the reason a supervisor opened it from "Refund failed").
    auto *settlementTitle = new QLabel(tr("<b>Settlement</b> \u2014 the refund at the provider after it was accepted"),
                                       overview);
    settlementTitle->setObjectName(QStringLiteral("settlementTitle"));
    m_settlementTitle = settlementTitle;
    overviewLayout->addWidget(settlementTitle);
    m_settlementView = new SettlementView(overview);
    connect(m_settlementView, &SettlementView::actionActivated, this, &ActionDetailPane::relatedActionActivated);
    overviewLayout->addWidget(m_settlementView);
    settlementTitle->setVisible(false);
    // The agent's reasons first: what an approver reads before the record's mechanics.
    auto *reasonsTitle = new QLabel(tr("<b>The agent's reasons</b>"), overview);
    reasonsTitle->setObjectName(QStringLiteral("reasonsTitle"));
    overviewLayout->addWidget(reasonsTitle);
    m_reasonsView = new AgentReasonsView(overview);
    overviewLayout->addWidget(m_reasonsView);
    // The charge's story and budget as last read (the approve dialog reads it afresh).
    // Its link opens the charge view (issue 17): every action on the charge, the provider's refunds.
    auto *chargeTitle = new QLabel(tr("<b>The charge</b> &nbsp; <a href=\"#charge\">Show everything on this charge\u2026</a>"),
                                   overview);
    chargeTitle->setObjectName(QStringLiteral("chargeTitle"));
    chargeTitle->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    chargeTitle->setToolTip(tr("The charge view: its actions in Countersign, the provider's refunds, its budget (Ctrl+Shift+G)"));
    connect(chargeTitle, &QLabel::linkActivated, this, [this] {
        if (m_hasDetail)
            emit chargeRequested(m_detail.record.targetId);
    });
    overviewLayout->addSpacing(4);
    overviewLayout->addWidget(chargeTitle);
    m_chargeView = new ChargeStoryView(overview);
    overviewLayout->addWidget(m_chargeView);
    auto *form = new QFormLayout;
    overviewLayout->addLayout(form);
    overviewLayout->addStretch(1);
    form->setContentsMargins(0, 6, 0, 0);
    form->setHorizontalSpacing(18);
    form->setVerticalSpacing(7);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
    // Words for people here; the identifiers (keys, fingerprint, ids, minor units) are in Evidence.
    addField(form, QStringLiteral("fieldOrder"), tr("Order"));
    addField(form, QStringLiteral("fieldAmount"), tr("Amount"));
    addField(form, QStringLiteral("fieldTarget"), tr("Target"), true);
    addField(form, QStringLiteral("fieldReason"), tr("Refund reason"));
    addField(form, QStringLiteral("fieldProvider"), tr("Provider"));
    addField(form, QStringLiteral("fieldApproval"), tr("Approval version"));
    addField(form, QStringLiteral("fieldState"), tr("State"));
    addField(form, QStringLiteral("fieldRequestedBy"), tr("Requested by"));
    addField(form, QStringLiteral("fieldParent"), tr("Adjusts"), true);
    addField(form, QStringLiteral("fieldCreated"), tr("Proposed"));
    addField(form, QStringLiteral("fieldUpdated"), tr("Last change"));
    addField(form, QStringLiteral("fieldKeyWindow"), tr("Key window ends"));
    overviewScroll->setWidget(overview);
    m_tabs->addTab(overviewScroll, tr("Overview"));

    // Evidence: the identifiers, then attempts over look-ups; each table with room for at least
    // five rows, the page scrolls.
    auto *evidence = new QScrollArea(m_tabs);
    evidence->setObjectName(QStringLiteral("evidencePage"));
    evidence->setWidgetResizable(true);
    evidence->setFrameShape(QFrame::NoFrame);
    auto *evidenceContent = new QWidget(evidence);
    auto *evidenceLayout = new QVBoxLayout(evidenceContent);
    evidenceLayout->setContentsMargins(4, 6, 4, 6);
    evidenceLayout->setSpacing(6);
    evidence->setWidget(evidenceContent);
    auto *identifiersTitle = new QLabel(tr("<b>Identifiers</b> \u2014 what the backend and the provider know this refund by"),
                                        evidenceContent);
    evidenceLayout->addWidget(identifiersTitle);
    auto *identifiers = new QFormLayout;
    identifiers->setHorizontalSpacing(18);
    identifiers->setVerticalSpacing(5);
    identifiers->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
    evidenceLayout->addLayout(identifiers);
    addField(identifiers, QStringLiteral("fieldId"), tr("Action"), true, evidenceContent);
    addField(identifiers, QStringLiteral("fieldMinorUnits"), tr("Amount in minor units"), true, evidenceContent);
    addField(identifiers, QStringLiteral("fieldKey"), tr("Idempotency key"), true, evidenceContent);
    addField(identifiers, QStringLiteral("fieldFingerprint"), tr("Request fingerprint"), true, evidenceContent);
    addField(identifiers, QStringLiteral("fieldStateVersion"), tr("State version (ETag)"), true, evidenceContent);
    addField(identifiers, QStringLiteral("fieldClientReference"), tr("Client reference"), true, evidenceContent);
    auto makeSection = [&](const QString &title, QTableView *table) {
        auto *label = new QLabel(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()), evidenceContent);
        evidenceLayout->addSpacing(6);
        evidenceLayout->addWidget(label);
        table->setParent(evidenceContent);
        fitRows(table);
        evidenceLayout->addWidget(table);
    };
    QTableView *attemptView = makeTable(QStringLiteral("attemptTable"), tr("Attempt history"));
    attemptView->setModel(m_attempts);
    attemptView->setItemDelegate(new MonospaceColumnsDelegate(
        { AttemptTableModel::KeyColumn, AttemptTableModel::FingerprintColumn, AttemptTableModel::ProviderObjectColumn },
        attemptView));
    const int attemptWidths[] = { 34, 96, 230, 130, 100, 56, 70, 72, 200, 160 };
    for (int c = 0; c < AttemptTableModel::ColumnCount; ++c)
        attemptView->setColumnWidth(c, attemptWidths[c]);
    makeSection(tr("Attempt history \u2014 every request sent to the provider"), attemptView);
    QTableView *lookupView = makeTable(QStringLiteral("lookupTable"), tr("Provider lookups"));
    lookupView->setModel(m_lookups);
    lookupView->setItemDelegate(new MonospaceColumnsDelegate(
        { LookupTableModel::ProviderObjectColumn, LookupTableModel::AmountColumn }, lookupView));
    const int lookupWidths[] = { 34, 96, 120, 92, 92, 220, 84, 100, 56 };
    for (int c = 0; c < LookupTableModel::ColumnCount; ++c)
        lookupView->setColumnWidth(c, lookupWidths[c]);
    // A folded row's span and words ("12 look-ups failed (HTTP 503)") and the method are read whole.
    lookupView->horizontalHeader()->setSectionResizeMode(LookupTableModel::AtColumn, QHeaderView::ResizeToContents);
    lookupView->horizontalHeader()->setSectionResizeMode(LookupTableModel::ResultColumn, QHeaderView::ResizeToContents);
    lookupView->horizontalHeader()->setSectionResizeMode(LookupTableModel::MethodColumn, QHeaderView::ResizeToContents);
    makeSection(tr("Provider lookups \u2014 what the provider said when asked"), lookupView);
    evidenceLayout->addStretch(1);
    m_tabs->addTab(evidence, tr("Evidence"));

    QTableView *approvalView = makeTable(QStringLiteral("approvalTable"), tr("Approvals"));
    approvalView->setModel(m_approvals);
    approvalView->setItemDelegate(new MonospaceColumnsDelegate(
        { ApprovalTableModel::KeyColumn, ApprovalTableModel::FingerprintColumn }, approvalView));
    const int approvalWidths[] = { 60, 150, 110, 90, 220, 250, 140 };
    for (int c = 0; c < ApprovalTableModel::ColumnCount; ++c)
        approvalView->setColumnWidth(c, approvalWidths[c]);
    m_tabs->addTab(approvalView, tr("Approvals"));

    QTableView *reconciliationView = makeTable(QStringLiteral("reconciliationTable"), tr("Reconciliations"));
    reconciliationView->setModel(m_reconciliations);
    m_tabs->addTab(reconciliationView, tr("Reconciliations"));

    QTableView *auditView = makeTable(QStringLiteral("auditTable"), tr("Audit trail"));
    auditView->setModel(m_audit);
    const int auditWidths[] = { 60, 150, 100, 150, 260, 300 };
    for (int c = 0; c < AuditTableModel::ColumnCount; ++c)
        auditView->setColumnWidth(c, auditWidths[c]);
    m_tabs->addTab(auditView, tr("Audit"));

    m_relatedView = makeTable(QStringLiteral("relatedTable"), tr("Related actions"));
    m_relatedView->setModel(m_related);
    m_relatedView->setItemDelegate(new MonospaceColumnsDelegate({ RelatedActionModel::IdColumn, RelatedActionModel::AmountColumn }, m_relatedView));
    m_relatedView->setColumnWidth(RelatedActionModel::IdColumn, 250);
    m_relatedView->setToolTip(tr("Double-click (or Enter) to open the action"));
    connect(m_relatedView, &QTableView::activated, this, [this](const QModelIndex &index) {
        emit relatedActionActivated(index.data(RelatedActionModel::ActionIdRole).toString());
    });
    m_tabs->addTab(m_relatedView, tr("Related"));

    // In a page that scrolls: the side-by-side table keeps room for five fields.
    auto *diffScroll = new QScrollArea(m_tabs);
    diffScroll->setObjectName(QStringLiteral("diffPage"));
    diffScroll->setWidgetResizable(true);
    diffScroll->setFrameShape(QFrame::NoFrame);
    m_diff = new PayloadDiffWidget(diffScroll);
    diffScroll->setWidget(m_diff);
    m_diffPage = diffScroll;
    m_tabs->addTab(m_diffPage, tr("Payload diff"));

    m_splitter->addWidget(m_tabs);
    auto *timelineBox = new QWidget(m_splitter);
    auto *timelineLayout = new QVBoxLayout(timelineBox);
    timelineLayout->setContentsMargins(0, 4, 0, 0);
    timelineLayout->setSpacing(2);
    m_timelineTitle = new QLabel(timelineBox);
    m_timelineTitle->setObjectName(QStringLiteral("timelineTitle"));
    updateTimelineTitle();
    timelineLayout->addWidget(m_timelineTitle);
    m_timeline = new TimelineWidget(timelineBox);
    timelineLayout->addWidget(m_timeline);
    m_splitter->addWidget(timelineBox);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 0);
    layout->addWidget(m_splitter, 1);

    fitColumnsToTitles();
    stack->setCurrentWidget(m_placeholder);
}

QLabel *ActionDetailPane::addField(QFormLayout *form, const QString &objectName, const QString &label, bool monospace,
                                   QWidget *page)
{
    if (!page)
        page = m_reasonsView->parentWidget();
    auto *value = new QLabel(page);
    value->setObjectName(objectName);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    value->setWordWrap(true);
    value->setAccessibleName(label);
    if (monospace)
        value->setFont(StatePalette::monospaceFont());
    auto *caption = new QLabel(label + QLatin1Char(':'), page);
    caption->setBuddy(value);
    QPalette muted = caption->palette();
    muted.setColor(QPalette::WindowText, StatePalette::mutedText(palette()));
    caption->setPalette(muted);
    form->addRow(caption, value);
    m_fields.insert(objectName, value);
    return value;
}

QTableView *ActionDetailPane::makeTable(const QString &objectName, const QString &accessibleName)
{
    auto *view = new QTableView(m_tabs);
    view->setObjectName(objectName);
    view->setAccessibleName(accessibleName);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setTabKeyNavigation(false); // Tab goes on to the next control, not cell by cell
    view->setAlternatingRowColors(true);
    view->setShowGrid(false);
    view->setWordWrap(false);
    view->setTextElideMode(Qt::ElideMiddle); // keys and ids keep both ends
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 10);
    return view;
}

void ActionDetailPane::fitRows(QTableView *table)
{
    // Room for five rows at least and twelve at most: the page scrolls, not the table, until then.
    const auto fit = [table] {
        const int rows = std::clamp(table->model() ? table->model()->rowCount() : 0, 5, 12);
        // The horizontal scroll bar comes and goes with the column widths: its room is kept.
        const int scrollBar = table->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, table);
        table->setFixedHeight(table->horizontalHeader()->sizeHint().height() + rows * table->verticalHeader()->defaultSectionSize()
                              + 2 * table->frameWidth() + scrollBar);
    };
    fit();
    if (QAbstractItemModel *model = table->model()) {
        connect(model, &QAbstractItemModel::rowsInserted, table, fit);
        connect(model, &QAbstractItemModel::rowsRemoved, table, fit);
        connect(model, &QAbstractItemModel::modelReset, table, fit);
    }
}

void ActionDetailPane::fitColumnsToTitles()
{
    // Never narrower than its title ("Entschieden von"); wider ones keep their width.
    for (QTableView *table : findChildren<QTableView *>()) {
        QHeaderView *header = table->horizontalHeader();
        if (!table->model())
            continue;
        for (int c = 0; c < table->model()->columnCount(); ++c) {
            const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
            const int needed = header->fontMetrics().horizontalAdvance(title) + 20;
            if (header->sectionResizeMode(c) == QHeaderView::Interactive && table->columnWidth(c) < needed)
                table->setColumnWidth(c, needed);
        }
    }
}

void ActionDetailPane::setDecisionActions(const QList<QPair<QAction *, QString>> &actions)
{
    m_decisionActions = actions;
    auto *layout = static_cast<QHBoxLayout *>(m_buttonRow->layout());
    int position = 0;
    for (const auto &[action, key] : actions) {
        auto *button = new QToolButton(m_buttonRow);
        button->setDefaultAction(action);
        button->setObjectName(action->objectName() + QStringLiteral("Button"));
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        button->setAutoRaise(false);
        button->setMinimumHeight(30);
        layout->insertWidget(position++, button);
    }
    updateReasons();
}

void ActionDetailPane::setSettlementActions(QAction *followUp, QAction *close)
{
    auto *row = static_cast<QHBoxLayout *>(m_settlementBanner->layout()->itemAt(1)->layout());
    const struct { QAction *action; const char *name; const char *text; } buttons[] = {
        { followUp, "settlementFollowUpButton", QT_TR_NOOP("Propose follow-up\u2026") },
        { close, "settlementCloseButton", QT_TR_NOOP("Close without re-sending\u2026") },
    };
    for (const auto &b : buttons) {
        auto *button = new QToolButton(m_settlementBanner);
        button->setObjectName(QString::fromLatin1(b.name));
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        button->setAutoRaise(false);
        button->setMinimumHeight(30);
        // Their own words here (the menu's say less), the action's state, shortcut and tooltip.
        button->setText(tr(b.text));
        button->setAccessibleName(tr(b.text));
        button->setIcon(b.action->icon());
        const auto sync = [button, action = b.action] {
            button->setEnabled(action->isEnabled());
            button->setToolTip(action->toolTip());
        };
        connect(b.action, &QAction::changed, button, sync);
        sync();
        connect(button, &QToolButton::clicked, b.action, &QAction::trigger);
        row->addWidget(button);
    }
}

void ActionDetailPane::setDiscrepancyAction(QAction *close)
{
    m_discrepancyBanner->setCloseAction(close);
}

void ActionDetailPane::showMessage(const QString &message)
{
    m_hasDetail = false;
    m_placeholder->setText(message);
    static_cast<QStackedLayout *>(layout())->setCurrentWidget(m_placeholder);
    m_timeline->clear();
    updateReasons();
}

void ActionDetailPane::setDetail(const ActionDetail &detail)
{
    const bool sameAction = m_hasDetail && detail.record.id == m_detail.record.id;
    // Before anything changes: where the pointer is and how much room the banners have; while the
    // same action is updated that room holds still (settleBannerZone decides what happens next).
    const bool pointerWasOnControls = sameAction && pointerOnControls();
    const int bannerRoom = m_bannerHeld > 0 ? m_bannerHeld : m_bannerZone->height();
    if (sameAction)
        m_bannerZone->setFixedHeight(bannerRoom);
    m_detail = detail;
    m_hasDetail = true;
    static_cast<QStackedLayout *>(layout())->setCurrentWidget(m_content);
    if (!sameAction) {
        // Another action: its tables start fresh (a reset, not a row-by-row diff).
        m_attempts->clear();
        m_lookups->clear();
        m_approvals->clear();
        m_reconciliations->clear();
        m_audit->clear();
        m_related->clear();
    }
    m_attempts->setRecords(detail.attempts);
    m_lookups->setLookups(detail.lookups);
    m_approvals->setRecords(detail.approvals);
    m_reconciliations->setRecords(detail.reconciliations);
    m_audit->setRecords(detail.audit);
    m_related->setDetail(detail);
    m_diff->setConflicts(detail.conflicts, detail.record.id);
    m_timeline->setDetail(detail);
    updateTimelineTitle();
    m_settlementView->setSettlement(detail.settlement);
    m_settlementTitle->setVisible(detail.settlement.has_value());
    updateHeader();
    updateOverview();
    updateReasons();
    updateTabTitles();
    settleBannerZone(sameAction, pointerWasOnControls, bannerRoom);
}

bool ActionDetailPane::pointerOnControls() const
{
    return m_tabs->tabBar()->underMouse() || m_buttonRow->underMouse();
}

void ActionDetailPane::settleBannerZone(bool sameAction, bool pointerOnControls, int shown)
{
    m_bannerZone->setMinimumHeight(0);
    m_bannerZone->setMaximumHeight(QWIDGETSIZE_MAX);
    if (!sameAction) {
        m_bannerHeld = 0;
        m_bannerRelease->stop();
        return;
    }
    // The height the banners and reasons need now.
    QLayout *zone = m_bannerZone->layout();
    const int width = m_bannerZone->width() > 0 ? m_bannerZone->width() : m_content->width();
    const int needed = zone->hasHeightForWidth() ? zone->totalHeightForWidth(width) : zone->totalSizeHint().height();
    // News of the same action never moves the tabs while the pointer is on them (a click would land
    // on another tab): growth waits until the pointer has left; shrinking leaves the room as it is.
    if (needed > shown && pointerOnControls) {
        m_bannerZone->setFixedHeight(shown);
        m_bannerHeld = shown;
        m_bannerRelease->start();
        return;
    }
    m_bannerRelease->stop();
    if (needed < shown) {
        m_bannerZone->setMinimumHeight(shown);
        m_bannerHeld = shown;
    } else {
        m_bannerHeld = 0;
    }
}

void ActionDetailPane::showTab(Tab tab)
{
    if (m_tabs->isTabVisible(tab))
        m_tabs->setCurrentIndex(tab);
}

void ActionDetailPane::updateHeader()
{
    const ActionRecord &r = m_detail.record;
    m_title->setText(tr("%1 refund \u00b7 %2").arg(display::money(r.amount, r.currency), r.targetId));
    m_stateChip->setText(display::stateName(r.state));
    m_stateChip->setStyleSheet(chipStyle(r.state, palette()));
    m_stateChip->setAccessibleName(tr("State: %1").arg(display::stateName(r.state)));
    QStringList bits;
    if (!r.businessReference.isEmpty())
        bits << tr("order %1").arg(r.businessReference);
    bits << tr("requested by %1").arg(r.requestedBy);
    bits << tr("proposed %1").arg(display::relative(r.createdAt, QDateTime::currentDateTimeUtc()));
    if (!r.parentId.isEmpty())
        bits << tr("follow-up of %1").arg(r.parentId);
    m_subtitle->setText(bits.join(QStringLiteral("  \u00b7  ")));

    updateSettlementBanner();
    m_discrepancyBanner->setDetail(m_detail);
    const bool review = r.state == ActionState::RequiresReview || r.state == ActionState::ConfirmationUnknown;
    m_reviewBanner->setVisible(review);
    if (review) {
        const QPalette pal = palette();
        m_reviewBanner->setStyleSheet(QStringLiteral("QFrame#reviewBanner { background: %1; border: 1px solid %2; border-radius: 6px; }"
                                                     " QLabel, QToolButton { color: %2; }")
                                          .arg(StatePalette::warningFill(pal).name(), StatePalette::warningText(pal).name()));
        if (r.state == ActionState::RequiresReview)
        {
            const Explanation why = ReviewExplanation::forAction(m_detail);
            m_reviewText->setText(tr("<b>Requires review.</b> %1 Nothing will be sent again: look up the provider, then "
                                     "confirm what happened with a lookup as evidence.")
                                      .arg(why.sentence.toHtmlEscaped()));
            m_reviewDetails->setDetails(why.details);
        }
        else {
            m_reviewText->setText(tr("<b>Confirmation unknown.</b> A request may have reached the provider; its answer was "
                                     "lost. The reconciler retries with the same key inside the key window and looks the "
                                     "refund up; a lookup can settle it now."));
            m_reviewDetails->setDetails(QString());
        }
    }
}

void ActionDetailPane::updateSettlementBanner()
{
    const std::optional<Settlement> &s = m_detail.settlement;
    const bool open = s && s->needsReview() && m_detail.record.state == ActionState::Completed;
    m_settlementBanner->setVisible(open);
    if (!open)
        return;
    const StatePalette::Chip chip = StatePalette::stateChip(ActionState::RequiresReview, palette());
    m_settlementBanner->setStyleSheet(QStringLiteral("QFrame#settlementBanner { background: %1; border: 1px solid %2; "
                                                     "border-radius: 6px; } QLabel { color: %3; }")
                                          .arg(chip.fill.name(), chip.border.name(QColor::HexArgb), chip.text.name()));
    const QDateTime when = s->settledAt.isValid() ? s->settledAt : s->attentionSince;
    const QString reason = s->failureReason.isEmpty() ? QString() : tr(" (%1)").arg(s->failureReason.toHtmlEscaped());
    const QString text = s->status == QLatin1String("canceled")
        ? tr("<b>Refund canceled after it was accepted.</b> The provider accepted refund <code>%1</code>, then reported it "
             "canceled on %2%3. <b>The customer has NOT been refunded.</b> Nothing is re-sent by itself: propose it again "
             "as a follow-up (a new refund with its own approval and key), or close it with a note.")
        : tr("<b>Refund failed after it was accepted.</b> The provider accepted refund <code>%1</code>, then reported it "
             "failed on %2%3. <b>The customer has NOT been refunded.</b> Nothing is re-sent by itself: propose it again "
             "as a follow-up (a new refund with its own approval and key), or close it with a note.");
    m_settlementText->setText(text.arg(s->refundId.toHtmlEscaped(), display::time(when).toHtmlEscaped(), reason));
}

void ActionDetailPane::updateOverview()
{
    const ActionRecord &r = m_detail.record;
    const auto set = [this](const char *name, const QString &text) {
        m_fields.value(QString::fromLatin1(name))->setText(text.isEmpty() ? QStringLiteral("\u2014") : text);
    };
    m_reasonsView->setRecord(r);
    set("fieldId", r.id);
    set("fieldTarget", toWire(r.targetType) + QStringLiteral("  ") + r.targetId);
    set("fieldOrder", r.businessReference);
    set("fieldAmount", display::money(r.amount, r.currency));
    set("fieldMinorUnits", QStringLiteral("%1 (%2)").arg(r.amount).arg(r.currency));
    set("fieldStateVersion", QString::number(r.stateVersion));
    set("fieldReason", r.reason);
    set("fieldProvider", r.providerAccount.isEmpty() ? r.provider : r.provider + QStringLiteral(" / ") + r.providerAccount);
    set("fieldKey", r.idempotencyKey.isEmpty() ? tr("none yet \u2014 minted by the approval") : r.idempotencyKey);
    set("fieldFingerprint", r.requestFingerprint);
    QString approval = r.approvalVersion == 0 ? tr("not approved") : tr("v%1").arg(r.approvalVersion);
    for (const Approval &a : m_detail.approvals) {
        if (a.version != r.approvalVersion || a.decision != Approval::Decision::Approved)
            continue;
        // Approval expiry (docs/POLICY.md): when it stops counting unsent, or that it did.
        if (a.expiredAt.isValid())
            approval = tr("v%1 expired unsent %2 — needs approval again").arg(a.version).arg(display::time(a.expiredAt));
        else if (a.expiresAt.isValid() && r.state == ActionState::Pending)
            approval += QStringLiteral("  ·  ") + tr("expires %1 unless sent").arg(display::time(a.expiresAt));
    }
    if (const Quorum &q = m_detail.quorum; q.isDualControl())
        approval += QStringLiteral("  \u00b7  ") + tr("%1 (rule %2, policy v%3)").arg(q.describe(), q.ruleId).arg(q.policyVersion);
    set("fieldApproval", approval);
    set("fieldState", display::stateName(r.state));
    if (m_detail.requesterRecord)
        set("fieldRequestedBy", tr("%1\ntoday: %2\n7 days: %3")
                                    .arg(r.requestedBy, RequesterRecord::describe(m_detail.requesterRecord->today),
                                         RequesterRecord::describe(m_detail.requesterRecord->week)));
    else
        set("fieldRequestedBy", r.requestedBy);
    m_chargeView->setView(m_detail.charge);
    set("fieldClientReference", r.clientReference);
    set("fieldParent", r.parentId);
    set("fieldCreated", display::time(r.createdAt));
    set("fieldUpdated", display::time(r.updatedAt));
    set("fieldKeyWindow", m_detail.keyWindowEndsAt.isValid() ? display::time(m_detail.keyWindowEndsAt)
                                                             : tr("not started (no attempt yet)"));
}

void ActionDetailPane::updateReasons()
{
    if (!m_hasDetail) {
        m_reasons->clear();
        return;
    }
    const Permissions &p = m_detail.permissions;
    const QHash<QString, const PermissionEntry *> entries{
        { QStringLiteral("approve"), &p.approve }, { QStringLiteral("reject"), &p.reject },
        { QStringLiteral("lookup"), &p.lookup },   { QStringLiteral("reconcile"), &p.reconcile },
        { QStringLiteral("follow_up"), &p.followUp },
    };
    QStringList lines;
    for (const auto &[action, key] : std::as_const(m_decisionActions)) {
        const PermissionEntry *entry = entries.value(key);
        if (entry && !entry->allowed && !entry->reason.isEmpty())
            lines << QStringLiteral("<b>%1</b>: %2").arg(action->iconText().toHtmlEscaped(), entry->reason.toHtmlEscaped());
    }
    const QColor muted = StatePalette::mutedText(palette());
    m_reasons->setText(lines.isEmpty() ? QString()
                                       : QStringLiteral("<span style=\"color:%1\">%2</span>")
                                             .arg(muted.name(QColor::HexArgb), lines.join(QStringLiteral(" &nbsp;\u00b7&nbsp; "))));
    m_reasons->setVisible(!lines.isEmpty());
}

void ActionDetailPane::updateTimelineTitle()
{
    // The settlement's marks (issue 18) are on the timeline only when the action has one.
    m_timelineTitle->setText(m_hasDetail && m_detail.settlement
                                 ? tr("<b>Timeline</b> \u2014 attempts, lookups, state changes, the end of the key window "
                                      "and the refund's settlement")
                                 : tr("<b>Timeline</b> \u2014 attempts, lookups, state changes and the end of the key window"));
}

void ActionDetailPane::updateTabTitles()
{
    const auto title = [](const QString &name, qsizetype n) {
        return n > 0 ? QStringLiteral("%1 (%2)").arg(name).arg(n) : name;
    };
    m_tabs->setTabText(EvidenceTab, title(tr("Evidence"), m_detail.attempts.size() + m_detail.lookups.size()));
    m_tabs->setTabText(ApprovalsTab, title(tr("Approvals"), m_detail.approvals.size()));
    m_tabs->setTabText(ReconciliationsTab, title(tr("Reconciliations"), m_detail.reconciliations.size()));
    m_tabs->setTabText(AuditTab, title(tr("Audit"), m_detail.audit.size()));
    m_tabs->setTabText(RelatedTab, title(tr("Related"), m_detail.followUps.size() + (m_detail.parent ? 1 : 0)));
    m_tabs->setTabText(DiffTab, title(tr("Payload diff"), m_detail.conflicts.size()));
    m_tabs->setTabVisible(DiffTab, !m_detail.conflicts.isEmpty());
}

QByteArray ActionDetailPane::splitterState() const
{
    return m_splitter->saveState();
}

void ActionDetailPane::restoreSplitterState(const QByteArray &state)
{
    if (!state.isEmpty())
        m_splitter->restoreState(state);
}

void ActionDetailPane::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange && m_hasDetail) {
        updateHeader();
        updateReasons();
        m_timeline->setDetail(m_detail);
    }
    QWidget::changeEvent(event);
}

} // namespace cs
