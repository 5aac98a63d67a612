#pragma once

#include "ui/decisiondialog.h"

class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QTableView;

namespace cs {

class DetailsDisclosure;
class LookupTableModel;

// Confirm what happened at the provider for a REQUIRES_REVIEW action: committed or not
// committed, with the provider lookup that is the evidence and a note. Refuses without evidence:
// `committed` needs a FOUND lookup with status succeeded or pending; `not committed` a NOT_FOUND
// lookup (or FOUND failed/canceled) taken after the last attempt started. "Look up now" asks the
// provider again without leaving the dialog. The evidence list shows the deciding look-ups first
// (failures folded, models/lookupsummary.h) and opens on the newest deciding one chosen; why the
// action needs review is said in words (models/reviewexplanation.h), the raw reason under Details.
class ReconcileDialog : public DecisionDialog
{
    Q_OBJECT

public:
    explicit ReconcileDialog(const ActionDetail &detail, QWidget *parent = nullptr);

    bool committedChosen() const;
    bool outcomeChosen() const;
    int evidenceLookupSeq() const; // 0 when none is chosen
    QString note() const;
    void setOutcome(bool committed);
    bool selectEvidence(int lookupSeq);

    // Whether a lookup supports an outcome (the backend's rule, checked again there).
    static QString evidenceProblem(const ActionDetail &detail, bool committed, int lookupSeq);

    QVariantMap draft() const override;
    void restoreDraft(const QVariantMap &draft) override;
    void setLookupRunning(bool running);

signals:
    void lookupRequested();

protected:
    void refresh() override;
    QString inputProblem() const override;
    void setInputReadOnly(bool readOnly) override;

private:
    QRadioButton *m_committed;
    QRadioButton *m_notCommitted;
    LookupTableModel *m_lookups;
    QTableView *m_evidence;
    QPushButton *m_lookupButton;
    QPlainTextEdit *m_note;
    DetailsDisclosure *m_reviewDetails;
    int m_selectedSeq = 0;
    int m_offeredSeq = 0; // the newest deciding look-up already offered as the choice

    void offerNewestEvidence();
};

} // namespace cs
