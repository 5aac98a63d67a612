#pragma once

#include <QDialog>

class QLabel;
class QPushButton;
class QScrollArea;
class QVBoxLayout;

namespace cs {

// The base of the stop switch's two dialogs (PauseDialog, ResumeDialog): the supervisor's input
// above, a line saying why confirming is not possible yet, and the submission's fate below —
// sending, resending after a lost answer (the input stays, read-only, and the same
// Idempotency-Key goes again), or refused (the backend's words, the input back for editing).
// While a request is out the dialog cannot be cancelled; "Stop resending" gives up waiting.
class ExecutionDialog : public QDialog
{
    Q_OBJECT

public:
    explicit ExecutionDialog(QWidget *parent = nullptr);

    void setSending();
    void setResending(int sendCount, const QString &why, const QString &idempotencyKey);
    void setFailed(const QString &message);
    bool isSending() const { return m_sending; }
    // Why confirming is not possible now (missing input); empty when it is.
    virtual QString inputProblem() const = 0;

    QPushButton *confirmButton() const { return m_confirm; }
    QPushButton *cancelButton() const { return m_cancel; }
    QLabel *statusLabel() const { return m_status; }

signals:
    void confirmed();
    void stopResendingRequested();

public slots:
    void reject() override; // not while a request is out
    // On the first show, unless sized by the caller: as large as its content, within the screen.
    void setVisible(bool visible) override;

protected:
    void setDescription(const QString &html);
    void setConfirmText(const QString &text);
    QVBoxLayout *fieldsLayout() const { return m_fields; }
    virtual void setInputReadOnly(bool readOnly) = 0;
    void updateConfirm();
    void keyPressEvent(QKeyEvent *event) override;

private:
    bool m_sending = false;
    bool m_fitted = false;
    QScrollArea *m_body;
    QLabel *m_description;
    QVBoxLayout *m_fields;
    QLabel *m_blocking;
    QLabel *m_status;
    QPushButton *m_stop;
    QPushButton *m_confirm;
    QPushButton *m_cancel;
};

} // namespace cs
