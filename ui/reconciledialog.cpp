#include "ui/reconciledialog.h"
#include "models/displayformat.h"
#include "models/lookuptablemodel.h"
#include "models/refundstatus.h"
#include "models/reviewexplanation.h"
#include "ui/detailsdisclosure.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTableView>
#include <QVBoxLayout>

namespace cs {

ReconcileDialog::ReconcileDialog(const ActionDetail &detail, QWidget *parent)
    : DecisionDialog(QStringLiteral("reconcile"), detail, parent)
    , m_lookups(new LookupTableModel(this))
{
    setObjectName(QStringLiteral("reconcileDialog"));
    setTitleFor(tr("Confirm a reconciliation"));
    setMinimumWidth(760);

    m_reviewDetails = new DetailsDisclosure(this);
    m_reviewDetails->setObjectName(QStringLiteral("reviewDetails"));
    fieldsLayout()->addWidget(m_reviewDetails);
    connect(m_reviewDetails, &DetailsDisclosure::expandedChanged, this, [this] { contentGrew(); });

    auto *outcomeLabel = new QLabel(tr("<b>What happened at the provider?</b>"), this);
    fieldsLayout()->addWidget(outcomeLabel);
    auto *outcomeRow = new QHBoxLayout;
    m_committed = new QRadioButton(tr("&Committed \u2014 the refund exists"), this);
    m_committed->setObjectName(QStringLiteral("committedRadio"));
    setFirstInput(m_committed);
    m_notCommitted = new QRadioButton(tr("&Not committed \u2014 no refund exists"), this);
    m_notCommitted->setObjectName(QStringLiteral("notCommittedRadio"));
    auto *group = new QButtonGroup(this);
    group->addButton(m_committed);
    group->addButton(m_notCommitted);
    outcomeRow->addWidget(m_committed);
    outcomeRow->addWidget(m_notCommitted);
    outcomeRow->addStretch(1);
    fieldsLayout()->addLayout(outcomeRow);

    auto *evidenceRow = new QHBoxLayout;
    auto *evidenceLabel = new QLabel(tr("<b>&Evidence</b> \u2014 the provider lookup that shows it:"), this);
    m_lookupButton = new QPushButton(tr("Look up now"), this);
    m_lookupButton->setObjectName(QStringLiteral("dialogLookupButton"));
    m_lookupButton->setToolTip(tr("Ask the provider again; the answer appears in this list"));
    evidenceRow->addWidget(evidenceLabel, 1);
    evidenceRow->addWidget(m_lookupButton);
    fieldsLayout()->addLayout(evidenceRow);

    m_evidence = new QTableView(this);
    m_evidence->setObjectName(QStringLiteral("evidenceView"));
    m_evidence->setAccessibleName(tr("Evidence lookup"));
    m_evidence->setModel(m_lookups);
    m_evidence->verticalHeader()->hide();
    m_evidence->horizontalHeader()->setStretchLastSection(true);
    m_evidence->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_evidence->setSelectionMode(QAbstractItemView::SingleSelection);
    m_evidence->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_evidence->setTabKeyNavigation(false); // Tab goes on to the note; the arrows choose
    m_evidence->setMinimumHeight(130);
    m_evidence->hideColumn(LookupTableModel::HttpStatusColumn);
    const int widths[] = { 34, 140, 120, 90, 90, 190, 80, 100, 50 };
    for (int c = 0; c < LookupTableModel::ColumnCount; ++c)
        m_evidence->setColumnWidth(c, widths[c]);
    // A folded row's span and words ("12 look-ups failed (HTTP 503)") and the method are read whole.
    m_evidence->horizontalHeader()->setSectionResizeMode(LookupTableModel::AtColumn, QHeaderView::ResizeToContents);
    m_evidence->horizontalHeader()->setSectionResizeMode(LookupTableModel::ResultColumn, QHeaderView::ResizeToContents);
    m_evidence->horizontalHeader()->setSectionResizeMode(LookupTableModel::MethodColumn, QHeaderView::ResizeToContents);
    evidenceLabel->setBuddy(m_evidence);
    fieldsLayout()->addWidget(m_evidence);

    m_note = addTextField(tr("N&ote (required):"), QStringLiteral("note"), QStringLiteral("noteEdit"), tr("Reconciliation note"), 64);

    setConfirmText(tr("Confirm reconciliation"));
    // Before the first refresh: it preselects the evidence.
    connect(m_evidence->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QModelIndexList rows = m_evidence->selectionModel()->selectedRows();
        m_selectedSeq = rows.isEmpty() ? 0 : rows.first().data(LookupTableModel::SeqRole).toInt();
        refresh();
        updateConfirm();
    });
    refresh();
    updateConfirm();

    connect(m_committed, &QRadioButton::toggled, this, [this] { refresh(); updateConfirm(); });
    connect(m_notCommitted, &QRadioButton::toggled, this, [this] { refresh(); updateConfirm(); });
    connect(m_lookupButton, &QPushButton::clicked, this, &ReconcileDialog::lookupRequested);
}

bool ReconcileDialog::committedChosen() const
{
    return m_committed->isChecked();
}

bool ReconcileDialog::outcomeChosen() const
{
    return m_committed->isChecked() || m_notCommitted->isChecked();
}

int ReconcileDialog::evidenceLookupSeq() const
{
    return m_selectedSeq;
}

QString ReconcileDialog::note() const
{
    return m_note->toPlainText().trimmed();
}

void ReconcileDialog::setOutcome(bool committed)
{
    (committed ? m_committed : m_notCommitted)->setChecked(true);
}

bool ReconcileDialog::selectEvidence(int lookupSeq)
{
    const int row = lookupSeq > 0 ? m_lookups->rowOfSeq(lookupSeq) : -1;
    if (row < 0)
        return false;
    m_evidence->selectRow(row);
    return true;
}

void ReconcileDialog::offerNewestEvidence()
{
    // Each deciding look-up is offered once, while nothing is chosen: the person still chooses
    // the outcome, and a choice (or a draft's) is never replaced.
    if (m_lookups->rowCount() == 0 || !m_lookups->record(0).decides())
        return;
    const int newest = m_lookups->record(0).lookup.seq;
    if (newest <= m_offeredSeq)
        return;
    m_offeredSeq = newest;
    if (m_selectedSeq == 0)
        selectEvidence(newest);
}

void ReconcileDialog::setLookupRunning(bool running)
{
    m_lookupButton->setEnabled(!running && m_detail.permissions.lookup.allowed);
    m_lookupButton->setText(running ? tr("Looking up\u2026") : tr("Look up now"));
}

QString ReconcileDialog::evidenceProblem(const ActionDetail &detail, bool committed, int lookupSeq)
{
    const ProviderLookup *lookup = detail.lookup(lookupSeq);
    if (!lookup)
        return tr("Choose the lookup that is the evidence.");
    const bool found = lookup->result == ProviderLookup::Result::Found;
    if (committed) {
        if (found && provesCommitted(lookup->status))
            return QString();
        // "\u201c" "committed", split: lupdate 6.4 reads every hex digit after \u ("\u201cc").
        return tr("Lookup #%1 does not show a committed refund: \u201c" "committed\u201d needs a FOUND lookup with status "
                  "succeeded or pending.").arg(lookupSeq);
    }
    const bool showsNone = lookup->result == ProviderLookup::Result::NotFound
        || (found && provesNotCommitted(lookup->status));
    if (!showsNone)
        return tr("Lookup #%1 does not show that no refund exists: \u201cnot committed\u201d needs a NOT_FOUND lookup, "
                  "or a FOUND one with status failed or canceled.").arg(lookupSeq);
    QDateTime lastAttempt;
    for (const Attempt &a : detail.attempts)
        lastAttempt = qMax(lastAttempt, a.startedAt);
    if (lastAttempt.isValid() && lookup->at < lastAttempt)
        return tr("Lookup #%1 was taken before the last attempt started, so it cannot show that attempt did not "
                  "commit. Look up again.").arg(lookupSeq);
    return QString();
}

QString ReconcileDialog::inputProblem() const
{
    if (m_detail.lookups.isEmpty())
        return tr("There is no provider lookup yet. Look up the provider first: a reconciliation needs evidence.");
    if (!outcomeChosen())
        return tr("Choose what happened: committed or not committed.");
    if (const QString problem = evidenceProblem(m_detail, committedChosen(), m_selectedSeq); !problem.isEmpty())
        return problem;
    if (note().isEmpty())
        return tr("Write a note: what the evidence shows.");
    return QString();
}

void ReconcileDialog::setInputReadOnly(bool readOnly)
{
    m_committed->setEnabled(!readOnly);
    m_notCommitted->setEnabled(!readOnly);
    m_evidence->setEnabled(!readOnly);
    DecisionDialog::setInputReadOnly(readOnly); // the note
    m_lookupButton->setEnabled(!readOnly && m_detail.permissions.lookup.allowed);
}

QVariantMap ReconcileDialog::draft() const
{
    QVariantMap draft = DecisionDialog::draft(); // the note
    draft.insert(QStringLiteral("evidence"), m_selectedSeq);
    if (outcomeChosen())
        draft.insert(QStringLiteral("committed"), committedChosen());
    return draft;
}

void ReconcileDialog::restoreDraft(const QVariantMap &draft)
{
    DecisionDialog::restoreDraft(draft); // the note
    if (draft.contains(QStringLiteral("committed")))
        setOutcome(draft.value(QStringLiteral("committed")).toBool());
    selectEvidence(draft.value(QStringLiteral("evidence")).toInt());
}

void ReconcileDialog::refresh()
{
    const int keep = m_selectedSeq;
    m_lookups->setLookups(m_detail.lookups);
    if (keep > 0 && m_selectedSeq != keep)
        selectEvidence(keep);
    offerNewestEvidence();
    m_lookupButton->setEnabled(m_detail.permissions.lookup.allowed);

    const ActionRecord &r = m_detail.record;
    QString html = tr("<p style=\"font-size:large\"><b>Reconcile %1 on %2</b></p>")
                       .arg(display::money(r.amount, r.currency).toHtmlEscaped(), r.targetId.toHtmlEscaped());
    const bool review = r.state == ActionState::RequiresReview;
    const Explanation why = review ? ReviewExplanation::forAction(m_detail) : Explanation();
    if (review)
        html += tr("<p>Why it needs review: %1</p>").arg(why.sentence.toHtmlEscaped());
    m_reviewDetails->setDetails(why.details);
    const ProviderLookup *evidence = m_detail.lookup(m_selectedSeq);
    if (outcomeChosen() && evidence) {
        const bool committed = committedChosen();
        html += tr("<p>Confirming records <b>%1</b> on the evidence of lookup #%2 (%3) and moves the action from "
                   "REQUIRES_REVIEW to <b>%4</b>. %5</p>")
                    .arg(committed ? tr("committed") : tr("not committed"))
                    .arg(evidence->seq)
                    .arg(ReviewExplanation::forLookup(*evidence, r.provider).sentence.toHtmlEscaped(),
                         committed ? QStringLiteral("COMPLETED") : QStringLiteral("REJECTED"),
                         committed ? tr("Nothing is sent.")
                                   : tr("Nothing is sent; a follow-up can then propose a new refund if one is owed."));
    } else {
        html += tr("<p>Choose the outcome and the lookup that proves it. The action moves from REQUIRES_REVIEW to "
                   "COMPLETED (committed) or REJECTED (not committed); nothing is sent to the provider.</p>");
    }
    setDescription(html);
}

} // namespace cs
