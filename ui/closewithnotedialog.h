#pragma once

#include "ui/decisiondialog.h"

class QPlainTextEdit;

namespace cs {

// A decision that closes an attention item with a required note and sends nothing to the provider
// (a refund that failed after COMPLETED, issue 18; a discrepancy, issue 33): the note field
// (1–2000 characters, the backend's limit, kept in the drafts like every typed field) and the
// checks both make. Subclasses say what is closed and when there is nothing to close.
class CloseWithNoteDialog : public DecisionDialog
{
    Q_OBJECT

public:
    static constexpr int MaxNoteLength = 2000; // the backend's limit

    QString note() const;

protected:
    struct Texts
    {
        QString noteLabel;   // with its mnemonic
        QString placeholder; // an example note
        QString confirm;     // the confirm button
    };
    CloseWithNoteDialog(const QString &kind, const ActionDetail &detail, const Texts &texts, QWidget *parent);

    // Why there is nothing to close now (decided already, never opened); empty when there is.
    virtual QString whyNothingToClose() const = 0;
    // What the note must say, for an empty one.
    virtual QString whatTheNoteSays() const = 0;
    QString inputProblem() const final;

private:
    QPlainTextEdit *m_note;
};

} // namespace cs
