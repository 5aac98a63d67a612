#pragma once

#include "models/actiondetail.h"
#include "ui/warninglist.h"

#include <QDialog>
#include <QList>
#include <QVariantMap>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;
class QVBoxLayout;

namespace cs {

// The base of every dialog that changes an action through the API (approve, reject, look up,
// reconcile, follow up). It states exactly what will happen, holds the reviewer's input, and
// shows the submission's fate: sending, resending while the backend is away (the input stays,
// read-only, and the same Idempotency-Key is reused), refused (the input comes back for
// editing), or overtaken by someone else (the new state and what changed are shown, and the
// reviewer decides again). Subclasses add their fields and say when confirming is not possible;
// text fields added with addTextField()/textInput() are kept in the draft and made read-only
// while sending by this class, other fields by the subclass's overrides.
class DecisionDialog : public QDialog
{
    Q_OBJECT

public:
    DecisionDialog(const QString &kind, const ActionDetail &detail, QWidget *parent = nullptr);

    QString kind() const { return m_kind; } // "approve", …, "follow_up", "close_settlement"
    QString actionId() const { return m_detail.record.id; }
    const ActionDetail &detail() const { return m_detail; }
    // The state_version the reviewer is looking at: sent as If-Match.
    qint64 ifMatch() const { return m_detail.record.stateVersion; }

    // The reviewer's input, to keep when the dialog closes before it was applied.
    virtual QVariantMap draft() const;
    virtual void restoreDraft(const QVariantMap &draft);

    // Adopt a newer detail of the action and say what changed (after a 412, or live).
    void updateDetail(const ActionDetail &detail, const QStringList &changes);

    void setSending();
    void setResending(int sendCount, const QString &why, const QString &idempotencyKey);
    void setFailed(const QString &message);
    void setIdle();
    bool isSending() const { return m_sending; }
    // Why confirming is not possible now (permission, missing input); empty when it is.
    QString blockingReason() const;

    QPushButton *confirmButton() const { return m_confirm; }
    QPushButton *cancelButton() const { return m_cancel; }

    // Closes the dialog; if it had the keyboard, its parent window gets it back.
    void done(int result) override;
    // On the first show, unless sized by the caller: as large as its content, within the screen
    // (dialogparts::fitToScreen).
    void setVisible(bool visible) override;

    // The warnings shown first in the body, above everything else (none: hidden).
    QList<WarningLine> warnings() const;
    QScrollArea *body() const { return m_body; }

signals:
    void confirmed();
    void stopResendingRequested();

protected:
    void setDescription(const QString &html);
    void setDescriptionToolTip(const QString &text);
    // The window's title: what the dialog does and what it acts on, in the words of the queue —
    // "Reject — 199.00 USD for order-63098, requested by refund-bot".
    void setTitleFor(const QString &what);
    void setWarnings(const QList<WarningLine> &warnings);
    // The width the dialog opens with when the screen has room.
    void setPreferredWidth(int width) { m_preferredWidth = width; }
    // The body's content grew while the dialog is open: grow the dialog as far as the screen allows.
    void contentGrew();
    QVBoxLayout *fieldsLayout() const { return m_fields; }
    // A multi-line input (a note, a reason) `height` pixels high, kept in the draft as `draftKey`:
    // Tab leaves it, each edit re-checks whether confirming is possible, and it is read-only
    // while sending. textInput() leaves placing it to the caller; addTextField() adds it to the
    // fields below `label` (a mnemonic label, its buddy).
    QPlainTextEdit *textInput(const QString &draftKey, const QString &objectName, const QString &accessibleName, int height);
    QPlainTextEdit *addTextField(const QString &label, const QString &draftKey, const QString &objectName,
                                 const QString &accessibleName, int height);
    // Re-render from detail() (the description, lists) — called on construction and updates.
    virtual void refresh() = 0;
    // Input problems; empty when the input is complete.
    virtual QString inputProblem() const { return QString(); }
    virtual void setInputReadOnly(bool readOnly);
    void updateConfirm();
    void setConfirmText(const QString &text);
    // Where the keyboard starts when the dialog opens: the first text field, unless a subclass
    // names another input (a reason to choose, an amount).
    void setFirstInput(QWidget *input) { m_firstInput = input; }
    // For subclasses whose "done" state replaces confirming (look up: shows the result).
    void showOutcome(const QString &html);
    void keyPressEvent(QKeyEvent *event) override;
    void showEvent(QShowEvent *event) override;

    ActionDetail m_detail;

private:
    QString m_kind;
    QList<QPair<QString, QPlainTextEdit *>> m_textFields; // draft key, input
    bool m_sending = false;
    bool m_shown = false;
    QWidget *m_firstInput = nullptr;
    int m_preferredWidth = 640;
    QScrollArea *m_body;
    WarningList *m_warnings;
    QLabel *m_description;
    QLabel *m_changes;
    QVBoxLayout *m_fields;
    QLabel *m_blocking;
    QLabel *m_status;
    QPushButton *m_confirm;
    QPushButton *m_cancel;
    QPushButton *m_stop;
};

} // namespace cs
