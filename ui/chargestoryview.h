#pragma once

#include "models/decisioncontext.h"
#include "ui/warninglist.h"

#include <QDateTime>
#include <QStringList>
#include <QWidget>

#include <optional>

class QLabel;
class QVBoxLayout;

namespace cs {

class BudgetBar;
class WarningList;

// The charge's story and its refund budget (issues 14 and 19), as the server decided them: when
// and by whom the provider was asked (the read's age), the warnings an approver should look twice
// at — each with an icon and its sentence, at the top — then captured, the purchase's age, the
// refunds already made and by which refund, the card, disputed or not; the budget as a bar and in
// words (captured, refunded at the provider, reserved in Countersign, this action, what is left).
//
// The approve dialog asks for a fresh read when it opens: setReading() while it waits (the last
// snapshot stays shown, with its age), setView() with the answer, setReadFailed() when the
// provider did not answer (said prominently; the last snapshot stays, with its age). The detail
// pane shows the detail's view only.
class ChargeStoryView : public QWidget
{
    Q_OBJECT

public:
    explicit ChargeStoryView(QWidget *parent = nullptr);

    // What is known about the charge; none: it was never read.
    void setView(const std::optional<ChargeView> &view);
    void setReading();
    void setReadFailed(const QString &why);
    std::optional<ChargeView> view() const { return m_view; }

    QLabel *statusLabel() const { return m_status; }
    QLabel *storyLabel() const { return m_story; }
    QLabel *budgetLabel() const { return m_budgetText; }
    BudgetBar *budgetBar() const { return m_bar; }
    // The warnings, in order: their codes ("disputed", …; "read_failed" for a read that failed
    // just now) and sentences in the console's language.
    QList<WarningLine> warnings() const { return m_lines; }
    QStringList warningCodes() const;
    QStringList warningTexts() const;
    // Whether the view shows its warnings itself (the detail pane) or leaves them to the dialog
    // it sits in, which shows them first (the approve dialog).
    void setWarningsShown(bool shown);

    // The server's warnings of `view` in the console's words: the server decides which apply (its
    // codes), the console says them from the charge as read and the amount asked for; a code it
    // does not know keeps the server's sentence.
    static QList<WarningLine> warningLines(const ChargeView &view, const QDateTime &now);

signals:
    void warningsChanged();

private:
    enum class ReadState { Idle, Reading, Failed };
    void render();

    std::optional<ChargeView> m_view;
    ReadState m_read = ReadState::Idle;
    QString m_failure;
    QList<WarningLine> m_lines;
    bool m_warningsShown = true;

    QLabel *m_status;
    WarningList *m_warnings;
    QLabel *m_story;
    BudgetBar *m_bar;
    QLabel *m_budgetText;
};

} // namespace cs
