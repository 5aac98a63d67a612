#pragma once

#include "models/executionpause.h"
#include "ui/executiondialog.h"

class QButtonGroup;
class QLineEdit;
class QPlainTextEdit;
class QRadioButton;

namespace cs {

// Pause execution (docs/API.md, "Pausing execution"): everything, one agent's actions or one
// provider account's, with a required reason. Nothing new it covers is claimed until it is
// resumed; what is in flight finishes. OK stays disabled until the input is complete: a scope,
// the agent's or the account's name when the scope needs one, a reason (not blank, at most
// kMaxReason characters). The backend's refusals (409 already_paused, 422) are shown by
// ExecutionController through setFailed(), with the input kept.
class PauseDialog : public ExecutionDialog
{
    Q_OBJECT

public:
    static constexpr qsizetype kMaxName = 255;
    static constexpr qsizetype kMaxReason = 2000;

    explicit PauseDialog(QWidget *parent = nullptr);

    ExecutionPause::Scope scope() const;
    QString name() const;   // the agent or the account, trimmed; empty for Scope::All
    QString reason() const; // trimmed
    QString inputProblem() const override;

protected:
    void setInputReadOnly(bool readOnly) override;

private:
    void updateNameField();

    QButtonGroup *m_scopes;
    QRadioButton *m_all;
    QRadioButton *m_agent;
    QRadioButton *m_account;
    QLineEdit *m_name;
    QPlainTextEdit *m_reason;
};

} // namespace cs
