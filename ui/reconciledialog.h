#pragma once

#include "ui/decisiondialog.h"

class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QTableView;

namespace cs {

class LookupTableModel;

// Confirm what happened at the provider for a REQUIRES_REVIEW action: committed or not
// committed, with the provider lookup that is the evidence and a note. Refuses without evidence:
// `committed` needs a FOUND lookup with status succeeded or pending; `not committed` a NOT_FOUND
// lookup (or FOUND failed/canceled) taken after the last attempt started. "Look up now" asks the
// provider again without leaving the dialog.
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
    int m_selectedSeq = 0;
};

} // namespace cs
