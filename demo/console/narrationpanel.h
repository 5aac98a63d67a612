#pragma once

#include <QDockWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace cs {

// Demo mode: a dockable panel that narrates a training scenario step by step for a trainer.
// Kinds are told apart visually: problems red, cures green, the verdict bold. It knows nothing
// about the scenario runner: the demo controller feeds it.
class NarrationPanel : public QDockWidget
{
    Q_OBJECT

public:
    enum class Kind { Step, Observation, Problem, Cure, Verdict, Task };
    Q_ENUM(Kind)

    explicit NarrationPanel(QWidget *parent = nullptr);

    // A new scenario: clears the steps and shows its title and summary.
    void begin(const QString &title, const QString &summary);
    void append(const QString &text, Kind kind);
    // Step by step: the runner waits; enables "Next step".
    void setWaiting(bool waiting);
    void setRunning(bool running);

    QListWidget *steps() const { return m_steps; }
    QString focusedAction() const { return m_focused; }

public slots:
    // The scenario points at an action: noted here and forwarded to the console (focusRequested).
    void followAction(const QString &actionId);

signals:
    void focusRequested(const QString &actionId);
    void nextRequested();
    void cancelRequested();

private:
    QLabel *m_header;
    QListWidget *m_steps;
    QLabel *m_focusLabel;
    QPushButton *m_next;
    QPushButton *m_cancel;
    QString m_focused;
};

} // namespace cs
