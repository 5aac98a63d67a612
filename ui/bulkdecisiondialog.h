#pragma once

#include <QDialog>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace cs {

class BulkDecisionModel;

// Approve or reject several actions at once (issue 19): lists each one (requester, target,
// amount, and what became of it) and the total per currency, takes one note (approve) or one
// reason and note (reject) for all of them, and after a partial failure offers "Retry failed",
// which resends only the rows that were not done. Owns its BulkDecisionModel; the sending is the
// BulkDecisionController's. Once confirmed, the input is read-only: a retry resends exactly
// what was confirmed (so a row whose answer was lost reuses its Idempotency-Key).
class BulkDecisionDialog : public QDialog
{
    Q_OBJECT

public:
    // `kind`: "approve" or "reject".
    explicit BulkDecisionDialog(const QString &kind, QWidget *parent = nullptr);

    QString kind() const { return m_kind; }
    BulkDecisionModel *model() const { return m_model; }
    QString reason() const; // reject: the wire name, empty until chosen; approve: empty
    QString note() const;
    bool isConfirmed() const { return m_confirmed; }
    // After confirming: the input is fixed.
    void setConfirmed();

    // Why confirming is not possible now; empty when it is.
    QString blockingReason() const;

    QTableView *table() const { return m_table; }
    QLabel *descriptionLabel() const { return m_description; }
    QPushButton *confirmButton() const { return m_confirm; }
    QPushButton *retryButton() const { return m_retry; }
    QPushButton *closeButton() const { return m_close; }
    QLabel *totalsLabel() const { return m_totals; }
    QLabel *statusLabel() const { return m_status; }

    // Closes the dialog; if it had the keyboard, its parent window gets it back.
    void done(int result) override;
    // On the first show, unless sized by the caller: as wide as the screen allows, up to 1280 px.
    void setVisible(bool visible) override;

signals:
    void confirmed();
    void retryRequested();

protected:
    void keyPressEvent(QKeyEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateState();

    bool m_fitted = false;

    QString m_kind;
    bool m_confirmed = false;
    BulkDecisionModel *m_model;
    QLabel *m_description;
    QTableView *m_table;
    QLabel *m_totals;
    QComboBox *m_reason = nullptr;
    QPlainTextEdit *m_note;
    QLabel *m_blocking;
    QLabel *m_status;
    QPushButton *m_confirm;
    QPushButton *m_retry;
    QPushButton *m_close;
};

} // namespace cs
