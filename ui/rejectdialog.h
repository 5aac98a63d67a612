#pragma once

#include "ui/decisiondialog.h"

class QComboBox;
class QPlainTextEdit;

namespace cs {

// Reject a PENDING action with a reason from the short list (Approval::rejectionReasons()) and
// a note, required when the reason is "other": it becomes REJECTED and nothing is ever sent. No
// reason is preselected: the reviewer chooses one.
class RejectDialog : public DecisionDialog
{
    Q_OBJECT

public:
    explicit RejectDialog(const ActionDetail &detail, QWidget *parent = nullptr);

    // The short list's entries (their words, the wire name as item data) after a "Choose a
    // reason…" entry with empty data: also the bulk rejection's list.
    static void addReasons(QComboBox *combo);

    QString reason() const; // the wire name; empty until one is chosen
    QString note() const;

    QVariantMap draft() const override;
    void restoreDraft(const QVariantMap &draft) override;

protected:
    void refresh() override;
    QString inputProblem() const override;
    void setInputReadOnly(bool readOnly) override;

private:
    QComboBox *m_reason;
    QPlainTextEdit *m_note;
};

} // namespace cs
