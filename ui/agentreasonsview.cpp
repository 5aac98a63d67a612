#include "ui/agentreasonsview.h"
#include "models/factstablemodel.h"
#include "ui/statepalette.h"

#include <QDesktopServices>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

namespace cs {

namespace {

// A 2,048-character address would widen any dialog: the label shows its start, the tooltip all.
constexpr int ShownUrlLength = 90;

} // namespace

AgentReasonsView::AgentReasonsView(QWidget *parent)
    : QWidget(parent)
    , m_facts(new FactsTableModel(this))
{
    setObjectName(QStringLiteral("agentReasons"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);

    m_empty = new QLabel(tr("The agent gave no reasons."), this);
    m_empty->setObjectName(QStringLiteral("noReasonsLabel"));
    QPalette muted = m_empty->palette();
    muted.setColor(QPalette::WindowText, StatePalette::mutedText(palette()));
    m_empty->setPalette(muted);
    QFont italic = m_empty->font();
    italic.setItalic(true);
    m_empty->setFont(italic);
    layout->addWidget(m_empty);

    // The agent is untrusted input: its words are plain text, never markup.
    m_justification = new QLabel(this);
    m_justification->setObjectName(QStringLiteral("justificationLabel"));
    m_justification->setAccessibleName(tr("The agent's justification"));
    m_justification->setTextFormat(Qt::PlainText);
    m_justification->setWordWrap(true);
    m_justification->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    layout->addWidget(m_justification);

    m_context = new QLabel(this);
    m_context->setObjectName(QStringLiteral("contextUrlLabel"));
    m_context->setAccessibleName(tr("Context (ticket or conversation)"));
    m_context->setWordWrap(true);
    m_context->setOpenExternalLinks(false); // openLink() checks the scheme first
    connect(m_context, &QLabel::linkActivated, this, &AgentReasonsView::openLink);
    layout->addWidget(m_context);

    m_factsView = new QTableView(this);
    m_factsView->setObjectName(QStringLiteral("factsTable"));
    m_factsView->setAccessibleName(tr("The agent's facts"));
    m_factsView->setModel(m_facts);
    m_factsView->verticalHeader()->hide();
    m_factsView->horizontalHeader()->setStretchLastSection(true);
    m_factsView->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_factsView->setColumnWidth(FactsTableModel::FactColumn, 160);
    m_factsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_factsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_factsView->setTabKeyNavigation(false); // Tab goes on to the next control, not cell by cell
    m_factsView->setShowGrid(false);
    m_factsView->setAlternatingRowColors(true);
    m_factsView->setWordWrap(false);
    m_factsView->setTextElideMode(Qt::ElideRight);
    m_factsView->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_factsView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_factsView->verticalHeader()->setDefaultSectionSize(m_factsView->fontMetrics().height() + 8);
    m_factsView->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    layout->addWidget(m_factsView);

    setRecord(ActionRecord());
}

bool AgentReasonsView::isOpenableUrl(const QString &url)
{
    const QUrl parsed(url, QUrl::StrictMode);
    return parsed.isValid() && parsed.scheme() == u"https" && !parsed.host().isEmpty() && parsed.userInfo().isEmpty();
}

void AgentReasonsView::setRecord(const ActionRecord &record)
{
    m_empty->setVisible(!record.hasReasons());

    m_justification->setText(record.justification);
    m_justification->setVisible(!record.justification.isEmpty());

    const QString url = record.contextUrl;
    const QString shown = url.size() > ShownUrlLength ? url.left(ShownUrlLength) + QStringLiteral("\u2026") : url;
    if (url.isEmpty()) {
        m_context->clear();
        m_context->setToolTip(QString());
    } else if (isOpenableUrl(url)) {
        m_context->setTextFormat(Qt::RichText);
        m_context->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse
                                           | Qt::LinksAccessibleByKeyboard);
        m_context->setText(tr("Context: %1")
                               .arg(QStringLiteral("<a href=\"%1\">%2</a>")
                                        .arg(QUrl(url, QUrl::StrictMode).toString(QUrl::FullyEncoded).toHtmlEscaped(),
                                             shown.toHtmlEscaped())));
        m_context->setToolTip(tr("Opens %1 in the browser").arg(url));
    } else {
        // Not https: shown as text to read, never offered as something to open.
        m_context->setTextFormat(Qt::PlainText);
        m_context->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_context->setText(tr("Context (not a link: only https:// addresses open): %1").arg(shown));
        m_context->setToolTip(url);
    }
    m_context->setVisible(!url.isEmpty());

    m_facts->setFacts(record.facts);
    m_factsView->setVisible(!record.facts.isEmpty());
    fitFactsHeight();
}

void AgentReasonsView::openLink(const QString &link)
{
    if (!isOpenableUrl(link))
        return;
    const QUrl url(link, QUrl::StrictMode);
    QDesktopServices::openUrl(url);
    emit contextUrlOpened(url);
}

void AgentReasonsView::fitFactsHeight()
{
    // The whole table, no scroll bar: at most ten short facts.
    const int rows = m_facts->rowCount();
    const int height = m_factsView->horizontalHeader()->sizeHint().height()
        + rows * m_factsView->verticalHeader()->defaultSectionSize() + 2 * m_factsView->frameWidth();
    m_factsView->setFixedHeight(height);
}

} // namespace cs
