#pragma once

#include "models/executionpause.h"
#include "ui/executiondialog.h"

class QListWidget;
class QPlainTextEdit;

namespace cs {

// Resume execution: choose one pause in force (what, who, when, why) and add an optional note.
// The list follows what is in force (setPauses(), live from ExecutionController): the choice is
// kept while its pause is listed; a pause resumed meanwhile by someone else drops out and the
// choice with it. OK stays disabled until a pause is chosen.
class ResumeDialog : public ExecutionDialog
{
    Q_OBJECT

public:
    static constexpr qsizetype kMaxNote = 2000;

    explicit ResumeDialog(const QList<ExecutionPause> &pauses, QWidget *parent = nullptr);

    void setPauses(const QList<ExecutionPause> &pauses);
    QString pauseId() const; // the chosen pause's id; empty until one is chosen
    QString note() const;    // trimmed
    QString inputProblem() const override;
    QListWidget *pauseList() const { return m_list; }

protected:
    void setInputReadOnly(bool readOnly) override;

private:
    QListWidget *m_list;
    QPlainTextEdit *m_note;
};

} // namespace cs
