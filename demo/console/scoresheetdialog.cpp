#include "demo/console/scoresheetdialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace cs {

namespace {

enum Column { Decision, Action, Judgement, Decided, Expected, Why, ColumnCount };

QString taskName(const QString &task)
{
    if (task == u"approve")
        return ScoreSheetDialog::tr("Approve or reject");
    if (task == u"reconcile")
        return ScoreSheetDialog::tr("Reconcile");
    if (task == u"follow_up")
        return ScoreSheetDialog::tr("Follow up");
    return task;
}

} // namespace

ScoreSheetDialog::ScoreSheetDialog(const demo::ScoreSheet &sheet, QWidget *parent)
    : QDialog(parent), m_sheet(sheet)
{
    setWindowTitle(tr("Exercise score sheet"));
    setObjectName(QStringLiteral("scoreSheetDialog"));
    auto *layout = new QVBoxLayout(this);
    m_score = new QLabel(this);
    m_score->setObjectName(QStringLiteral("scoreLabel"));
    QFont big = m_score->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    m_score->setFont(big);
    m_score->setText(tr("%1 of %n decision(s) right", nullptr, sheet.total()).arg(sheet.right()));
    layout->addWidget(m_score);

    m_table = new QTableWidget(int(sheet.decisions().size()), ColumnCount, this);
    m_table->setObjectName(QStringLiteral("scoreTable"));
    m_table->setHorizontalHeaderLabels({tr("Decision"), tr("Action"), tr("Judgement"), tr("What you did"), tr("What was right"),
                                        tr("Why")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(true);
    m_table->verticalHeader()->hide();
    int row = 0;
    for (const demo::ExerciseDecision &d : sheet.decisions()) {
        const auto set = [&](int column, const QString &text) {
            auto *item = new QTableWidgetItem(text);
            item->setToolTip(text);
            item->setData(Qt::UserRole, d.actionId);
            m_table->setItem(row, column, item);
        };
        set(Decision, tr("%1\n%2. %3").arg(taskName(d.task)).arg(d.scenarioId).arg(d.scenarioTitle));
        set(Action, d.actionId);
        set(Judgement, d.right ? tr("RIGHT") : tr("WRONG"));
        m_table->item(row, Judgement)->setForeground(d.right ? QColor(0x1b, 0x7a, 0x2e) : QColor(0xb0, 0x1e, 0x1e));
        QFont bold = m_table->font();
        bold.setBold(true);
        m_table->item(row, Judgement)->setFont(bold);
        set(Decided, d.decided);
        set(Expected, d.right ? QString() : d.expected);
        set(Why, d.explanation);
        ++row;
    }
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(Decision, 230);
    m_table->setColumnWidth(Action, 215);
    m_table->setColumnWidth(Judgement, 90);
    m_table->setColumnWidth(Decided, 320);
    m_table->setColumnWidth(Expected, 170);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableWidget::itemActivated, this,
            [this](QTableWidgetItem *item) { emit actionActivated(item->data(Qt::UserRole).toString()); });

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *exportButton = buttons->addButton(tr("&Export…"), QDialogButtonBox::ActionRole);
    exportButton->setObjectName(QStringLiteral("exportScoreSheet"));
    connect(exportButton, &QPushButton::clicked, this, &ScoreSheetDialog::exportAsked);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(1480, 560);
    // Row heights follow the wrapped text once the columns have their final widths.
    connect(m_table->horizontalHeader(), &QHeaderView::sectionResized, m_table, &QTableWidget::resizeRowsToContents);
    m_table->resizeRowsToContents();
    m_table->setFocus();
}

void ScoreSheetDialog::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    // Once laid out, the stretched last column has its width: the rows fit their wrapped text.
    QTimer::singleShot(0, m_table, &QTableWidget::resizeRowsToContents);
}

bool ScoreSheetDialog::exportTo(const QString &fileName, QString *error) const
{
    return m_sheet.save(fileName, error);
}

void ScoreSheetDialog::exportAsked()
{
    // open(), not exec(): no nested event loop on the GUI thread.
    auto *files = new QFileDialog(this, tr("Export the score sheet"), QString(), tr("CSV (*.csv);;JSON (*.json);;Text (*.txt)"));
    files->setObjectName(QStringLiteral("scoreSheetFileDialog"));
    files->setAcceptMode(QFileDialog::AcceptSave);
    files->setDefaultSuffix(QStringLiteral("csv"));
    files->selectFile(tr("score-sheet.csv"));
    files->setAttribute(Qt::WA_DeleteOnClose);
    connect(files, &QFileDialog::fileSelected, this, [this](const QString &fileName) {
        QString error;
        if (!exportTo(fileName, &error)) {
            auto *box = new QMessageBox(QMessageBox::Warning, tr("Export the score sheet"),
                                        tr("Could not write %1: %2").arg(fileName, error), QMessageBox::Ok, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        }
    });
    files->open();
}

} // namespace cs
