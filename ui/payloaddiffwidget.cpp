#include "ui/payloaddiffwidget.h"
#include "models/displayformat.h"
#include "models/payloaddiffmodel.h"
#include "ui/statepalette.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace cs {

namespace {

// Changed rows: a warm highlight behind the values and bold conflicting values.
class DiffDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        QFont mono = StatePalette::monospaceFont();
        mono.setPointSizeF(option->font.pointSizeF());
        option->font = mono;
        if (index.data(PayloadDiffModel::ChangedRole).toBool()) {
            option->backgroundBrush = StatePalette::changedFill(option->palette);
            if (index.column() != PayloadDiffModel::FieldColumn)
                option->font.setBold(true);
            if (index.column() == PayloadDiffModel::FieldColumn)
                option->text = QStringLiteral("\u25B6 ") + option->text;
        }
    }
};

} // namespace

PayloadDiffWidget::PayloadDiffWidget(QWidget *parent)
    : QWidget(parent)
    , m_model(new PayloadDiffModel(this))
{
    setObjectName(QStringLiteral("payloadDiff"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->setSpacing(8);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("diffSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    layout->addWidget(m_summary);

    m_chooser = new QComboBox(this);
    m_chooser->setObjectName(QStringLiteral("conflictChooser"));
    m_chooser->setAccessibleName(tr("Conflicting resubmission"));
    m_chooser->setVisible(false);
    layout->addWidget(m_chooser);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("diffTable"));
    m_table->setAccessibleName(tr("Stored and conflicting payload, side by side"));
    m_table->setModel(m_model);
    m_table->setItemDelegate(new DiffDelegate(m_table));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(PayloadDiffModel::StoredColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_table->setColumnWidth(PayloadDiffModel::FieldColumn, 190);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTabKeyNavigation(false); // Tab goes on to the next control, not cell by cell
    m_table->setShowGrid(true);
    m_table->setWordWrap(false);
    // Room for five fields (header, rows, a horizontal scroll bar) however small the page.
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height() + 5 * m_table->verticalHeader()->defaultSectionSize()
                              + 2 * m_table->frameWidth() + style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_table));
    layout->addWidget(m_table, 1);

    auto *explanation = new QLabel(tr("The stored action is unchanged: nothing is sent for a conflicting payload. "
                                      "If the customer is owed a different total, confirm what happened and propose a "
                                      "follow-up for the remainder."),
                                   this);
    explanation->setWordWrap(true);
    QPalette muted = explanation->palette();
    muted.setColor(QPalette::WindowText, StatePalette::mutedText(palette()));
    explanation->setPalette(muted);
    layout->addWidget(explanation);

    connect(m_chooser, &QComboBox::currentIndexChanged, this, &PayloadDiffWidget::showConflict);
}

void PayloadDiffWidget::setConflicts(const QList<PayloadConflict> &conflicts, const QString &actionId)
{
    const bool same = conflicts == m_conflicts && actionId == m_actionId;
    m_conflicts = conflicts;
    m_actionId = actionId;
    if (same)
        return;
    const QSignalBlocker blocker(m_chooser);
    m_chooser->clear();
    for (const PayloadConflict &c : conflicts)
        m_chooser->addItem(tr("#%1 by %2 at %3").arg(c.seq).arg(c.submittedBy, display::time(c.at)));
    m_chooser->setVisible(conflicts.size() > 1);
    m_chooser->setCurrentIndex(conflicts.isEmpty() ? -1 : int(conflicts.size()) - 1);
    showConflict(m_chooser->currentIndex());
}

void PayloadDiffWidget::showConflict(int index)
{
    if (index < 0 || index >= m_conflicts.size()) {
        m_model->setPayloads({}, {});
        m_summary->setText(tr("No changed resubmission was caught for this action."));
        return;
    }
    const PayloadConflict &c = m_conflicts.at(index);
    m_model->setPayloads(c.storedPayload, c.conflictingPayload);
    QStringList changed;
    for (const PayloadDiffModel::Row &row : m_model->rows()) {
        if (row.changed)
            changed << QStringLiteral("<b>%1</b>").arg(row.field.toHtmlEscaped());
    }
    m_summary->setText(tr("<b>Changed resubmission #%1</b> by %2 at %3, under the same client reference. "
                          "%n field(s) differ: %4.", nullptr, int(changed.size()))
                           .arg(c.seq)
                           .arg(c.submittedBy.toHtmlEscaped(), display::time(c.at), changed.join(QStringLiteral(", "))));
    m_table->resizeRowsToContents();
}

} // namespace cs
