#include "ui/bulkdecisiondialog.h"
#include "models/bulkdecisionmodel.h"
#include "ui/rejectdialog.h"
#include "ui/dialogparts.h"
#include "ui/statepalette.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace cs {

BulkDecisionDialog::BulkDecisionDialog(const QString &kind, QWidget *parent)
    : QDialog(parent)
    , m_kind(kind)
    , m_model(new BulkDecisionModel(this))
{
    const bool approve = kind == QLatin1String("approve");
    // Approving sends money: a refund with warnings goes with the others only when ticked.
    m_model->setTicksNeeded(approve);
    setObjectName(QStringLiteral("bulkDecisionDialog"));
    setWindowTitle(approve ? tr("Approve selected refunds") : tr("Reject selected refunds"));
    setWindowModality(Qt::WindowModal);
    setMinimumSize(960, 520);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(18, 16, 18, 14);
    layout->setSpacing(10);

    m_description = new QLabel(this);
    m_description->setObjectName(QStringLiteral("descriptionLabel"));
    m_description->setWordWrap(true);
    m_description->setTextFormat(Qt::RichText);
    layout->addWidget(m_description);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("bulkTable"));
    m_table->setAccessibleName(tr("The selected actions"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTabKeyNavigation(false); // Tab goes on to the next control, not cell by cell
    m_table->setShowGrid(false);
    m_table->setAlternatingRowColors(true);
    // The result (a problem's title and detail) wraps; ids keep both ends.
    m_table->setWordWrap(true);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setMinimumSectionSize(m_table->fontMetrics().height() + 10);
    const int widths[] = { 130, 110, 210, 92, 300, 220 };
    for (int c = 0; c < BulkDecisionModel::ResultColumn; ++c) {
        const QString title = m_model->headerData(c, Qt::Horizontal).toString();
        m_table->setColumnWidth(c, std::max(widths[c], m_table->fontMetrics().horizontalAdvance(title) + 24));
    }
    layout->addWidget(m_table, 1);
    m_table->installEventFilter(this);

    m_totals = new QLabel(this);
    m_totals->setObjectName(QStringLiteral("bulkTotals"));
    m_totals->setWordWrap(true);
    m_totals->setTextFormat(Qt::RichText);
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_totals);

    if (!approve) {
        auto *label = new QLabel(tr("&Reason for all of them (required, each agent sees it):"), this);
        m_reason = new QComboBox(this);
        m_reason->setObjectName(QStringLiteral("reasonCombo"));
        m_reason->setAccessibleName(tr("Rejection reason"));
        RejectDialog::addReasons(m_reason);
        label->setBuddy(m_reason);
        layout->addWidget(label);
        layout->addWidget(m_reason);
        connect(m_reason, &QComboBox::currentIndexChanged, this, &BulkDecisionDialog::updateState);
    }
    auto *noteLabel = new QLabel(approve ? tr("&Note for all of them (optional, kept with each approval):")
                                         : tr("&Note for all of them (required for Other, kept with each rejection):"),
                                 this);
    m_note = new QPlainTextEdit(this);
    m_note->setObjectName(QStringLiteral("noteEdit"));
    m_note->setAccessibleName(approve ? tr("Approval note") : tr("Rejection note"));
    m_note->setTabChangesFocus(true);
    m_note->setFixedHeight(60);
    noteLabel->setBuddy(m_note);
    layout->addWidget(noteLabel);
    layout->addWidget(m_note);
    connect(m_note, &QPlainTextEdit::textChanged, this, &BulkDecisionDialog::updateState);

    m_blocking = dialogparts::blockingLabel(this);
    layout->addWidget(m_blocking);

    m_status = dialogparts::statusLabel(this, true);
    layout->addWidget(m_status);

    // Buttons that come and go stay out of a QDialogButtonBox: Qt 6.4's shows every button it
    // holds again whenever it lays them out.
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    m_retry = new QPushButton(tr("Retry failed"), this);
    m_retry->setObjectName(QStringLiteral("retryFailedButton"));
    m_confirm = new QPushButton(approve ? tr("Approve") : tr("Reject"), this);
    m_confirm->setObjectName(QStringLiteral("confirmButton"));
    m_close = new QPushButton(tr("Cancel"), this);
    m_close->setObjectName(QStringLiteral("closeButton"));
    for (QPushButton *button : { m_retry, m_confirm, m_close }) {
        button->setAutoDefault(false);
        buttons->addWidget(button);
    }
    // As in the decision dialogs: Enter on the focused Approve or Reject presses it; anywhere
    // else handleEnter keeps a plain Enter for the note.
    m_confirm->setDefault(true);
    layout->addLayout(buttons);
    connect(m_confirm, &QPushButton::clicked, this, [this] {
        if (!m_confirmed && blockingReason().isEmpty())
            emit confirmed();
    });
    connect(m_retry, &QPushButton::clicked, this, &BulkDecisionDialog::retryRequested);
    connect(m_close, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &BulkDecisionDialog::updateState);
    connect(m_model, &QAbstractItemModel::modelReset, this, &BulkDecisionDialog::updateState);
    updateState();
    // The keyboard starts where the input is, not in the list above it.
    if (m_reason)
        m_reason->setFocus();
    else
        m_note->setFocus();
}

void BulkDecisionDialog::setVisible(bool visible)
{
    // Unless sized by the caller: wide enough for the warnings and reasons, within the screen.
    if (visible && !m_fitted && !testAttribute(Qt::WA_Resized)) {
        m_fitted = true;
        const QWidget *anchor = parentWidget() ? parentWidget()->window() : this;
        if (const QScreen *screen = anchor->screen()) {
            const QRect available = screen->availableGeometry();
            resize(std::min(1280, available.width() - 16), std::min(760, available.height() - 48));
        }
    }
    QDialog::setVisible(visible);
}

void BulkDecisionDialog::done(int result)
{
    dialogparts::closeGivingKeyboardBack(this, [this, result] { QDialog::done(result); });
}

QString BulkDecisionDialog::reason() const
{
    return m_reason ? m_reason->currentData().toString() : QString();
}

QString BulkDecisionDialog::note() const
{
    return m_note->toPlainText().trimmed();
}

void BulkDecisionDialog::setConfirmed()
{
    m_confirmed = true;
    m_model->setTicksLocked(true);
    m_note->setReadOnly(true);
    if (m_reason)
        m_reason->setEnabled(false);
    updateState();
}

QString BulkDecisionDialog::blockingReason() const
{
    using Status = BulkDecisionModel::Status;
    if (m_model->count(Status::Checking) > 0)
        return tr("Reading each action's current state\u2026");
    if (m_model->count(Status::Ready) == 0)
        return tr("None of the selected actions can be decided by you now (see Skipped).");
    if (m_model->sendable() == 0)
        return tr("Each refund you can approve has warnings: tick the ones you approve despite them (Space in the "
                  "Warnings column).");
    if (m_reason && reason().isEmpty())
        return tr("Choose the reason for the rejections.");
    if (m_reason && reason() == u"other" && note().isEmpty())
        return tr("Write a note saying why: the reason is Other.");
    return QString();
}

void BulkDecisionDialog::updateState()
{
    using Status = BulkDecisionModel::Status;
    const bool approve = m_kind == QLatin1String("approve");
    const int ready = m_model->sendable();
    int held = 0;
    for (int row = 0; row < m_model->rowCount(); ++row)
        held += m_model->isHeld(row) ? 1 : 0;
    const int skipped = m_model->count(Status::Skipped);
    const int toDecide = m_model->rowCount() - skipped;
    const QString refunds = toDecide == 1 ? tr("1 refund") : tr("%1 refunds").arg(toDecide);
    m_description->setText(
        (approve ? tr("<p style=\"font-size:large\"><b>Approve %1</b></p>").arg(refunds)
                 : tr("<p style=\"font-size:large\"><b>Reject %1</b></p>").arg(refunds))
        + (approve ? tr("<p>Each refund gets its <b>own approval</b> of the version you see, sent one request per refund. "
                        "<b>Nothing is sent to the provider now</b>: each waits, approved, until the executor sends it "
                        "\u2014 once.</p>")
                   : tr("<p>Each action gets its <b>own rejection</b>, sent one request per action with the version you "
                        "see, with the reason and note below. Each becomes <b>REJECTED</b>: nothing is ever sent to the "
                        "provider for it.</p>")));
    QString totals = tr("<b>Total:</b> %1 in %2").arg(m_model->totalsText().toHtmlEscaped(), refunds);
    if (skipped > 0)
        totals += tr(" &nbsp;\u00b7&nbsp; <b>%1 skipped</b> (not offered: see why in the list)").arg(skipped);
    if (held > 0)
        totals += tr(" &nbsp;\u00b7&nbsp; <b>%n with warnings not ticked</b>: held back, not approved with the others",
                     nullptr, held);
    m_totals->setText(totals);

    const int done = m_model->count(Status::Done);
    const int refused = m_model->count(Status::Refused);
    const int unknown = m_model->count(Status::Unknown);
    const int sending = m_model->count(Status::Sending);
    if (!m_confirmed) {
        m_status->clear();
    } else {
        QStringList parts;
        parts << tr("%n done", nullptr, done);
        if (refused > 0)
            parts << tr("<span style=\"color:%1\"><b>%n not done</b></span>", nullptr, refused)
                         .arg(StatePalette::stateChip(ActionState::RequiresReview, palette()).text.name());
        if (unknown > 0)
            parts << tr("<b>%n without an answer</b> (whether it was decided is unknown: Retry failed sends "
                        "the same request, so it cannot be decided twice)", nullptr, unknown);
        if (sending > 0)
            parts << tr("%n sending\u2026", nullptr, sending);
        m_status->setText(parts.join(QStringLiteral(" \u00b7 ")));
    }
    m_status->setVisible(m_confirmed);

    const QString blocking = m_confirmed ? QString() : blockingReason();
    m_blocking->setText(blocking);
    m_blocking->setVisible(!blocking.isEmpty());
    m_confirm->setVisible(!m_confirmed);
    m_confirm->setEnabled(!m_confirmed && blocking.isEmpty());
    m_confirm->setText(approve ? tr("Approve %n", nullptr, ready) : tr("Reject %n", nullptr, ready));
    const int failed = refused + unknown;
    m_retry->setVisible(m_confirmed && failed > 0);
    m_retry->setEnabled(failed > 0 && sending == 0 && m_model->count(Status::Checking) == 0);
    m_retry->setText(tr("Retry failed (%1)").arg(failed));
    m_close->setText(m_confirmed ? tr("Close") : tr("Cancel"));
}

bool BulkDecisionDialog::eventFilter(QObject *watched, QEvent *event)
{
    // Space ticks (or unticks) the current row's warnings, whichever cell of the row is current.
    if (watched == m_table && event->type() == QEvent::KeyPress
        && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Space && m_table->currentIndex().isValid()) {
        const QModelIndex cell = m_model->index(m_table->currentIndex().row(), BulkDecisionModel::WarningsColumn);
        if (m_model->flags(cell) & Qt::ItemIsUserCheckable) {
            const bool ticked = cell.data(Qt::CheckStateRole).value<Qt::CheckState>() == Qt::Checked;
            m_model->setData(cell, ticked ? Qt::Unchecked : Qt::Checked, Qt::CheckStateRole);
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

void BulkDecisionDialog::keyPressEvent(QKeyEvent *event)
{
    // Ctrl+Enter confirms (as in the single dialogs); a plain Enter belongs to the note.
    if (!dialogparts::handleEnter(event, m_confirm))
        QDialog::keyPressEvent(event);
}

} // namespace cs
