#pragma once

#include "models/executionpause.h"
#include "ui/executiondialog.h"

#include <QStringList>
#include <QObject>
#include <QPointer>

class QAction;
class QLabel;
class QWidget;

namespace cs {

class ApiCall;
class ApiClient;

// The console's stop switch (issue 14; docs/API.md, "Pausing execution"): knows the pauses in
// force (GET /execution, read by reload() — at connect, on every `execution.changed` and after a
// reconnect or resync: MainWindow calls it), shows them in its status-bar indicator, and owns the
// Execution menu's two actions and their dialogs (PauseDialog, ResumeDialog). Pausing and
// resuming are for supervisors and admins (the backend's ActionPolicy decides; the console
// mirrors it from the role so that others see the items disabled, with why). A request keeps its
// Idempotency-Key while the same input is sent again (after a lost answer, or confirmed again
// after "Stop resending"): the backend replays its first answer, so nothing happens twice.
class ExecutionController : public QObject
{
    Q_OBJECT

public:
    ExecutionController(ApiClient *client, QWidget *dialogParent, QObject *parent = nullptr);

    // The signed-in role ("" when unknown): decides whether the actions are enabled.
    void setRole(const QString &role);
    // Forget what was read (another backend or user); reload() reads it again.
    void clear();

    // "Execution paused: all — by sue: provider incident" or "Execution running" (objectName
    // statusExecution): coloured while anything is paused; its tooltip lists every pause with
    // its time. The caller places it (the status bar).
    QLabel *indicator() const { return m_indicator; }
    QAction *pauseAction() const { return m_pauseAction; }
    QAction *resumeAction() const { return m_resumeAction; }
    ExecutionDialog *openDialog() const { return m_dialog; }

    bool isKnown() const { return m_known; }
    // A read of GET /execution is out (or one more is due after it).
    bool isReading() const;
    const QList<ExecutionPause> &pauses() const { return m_pauses; }

public slots:
    // Read GET /execution; a reload asked for while one is out is done once it answers.
    void reload();
    // While the backend does not answer, what is in force is not known: the indicator says so
    // ("Execution: unknown while offline"); back online, it is read again.
    void setOffline(bool offline);
    void openPause();
    void openResume();

signals:
    // The pauses in force were read (and may have changed).
    void pausesChanged();
    // For the status bar's message area.
    void statusMessage(const QString &message, int timeoutMs);

private:
    void showDialog(ExecutionDialog *dialog);
    void submit(ExecutionDialog *dialog);
    void onAnswer(ExecutionDialog *dialog, ApiCall *call);
    void updateIndicator(const QString &summary, const QString &problem = QString());
    void updateActions();
    bool mayPause() const;

    ApiClient *m_client;
    QWidget *m_dialogParent;
    QLabel *m_indicator;
    QAction *m_pauseAction;
    QAction *m_resumeAction;
    QPointer<ExecutionDialog> m_dialog;
    QPointer<ApiCall> m_read;
    QPointer<ApiCall> m_sent;    // the dialog's request in flight
    bool m_readAgain = false;
    bool m_known = false;
    bool m_offline = false;
    QString m_role;
    QList<ExecutionPause> m_pauses;
    // The last request whose outcome is unknown (no answer) and its key: the same request again
    // reuses the key; a definitive answer forgets both.
    QStringList m_unanswered;
    QString m_unansweredKey;
};

} // namespace cs
