#pragma once

#include "models/decisioncontext.h"

#include <QDateTime>
#include <QStringList>
#include <QWidget>

#include <optional>

class QFrame;
class QLabel;
class QVBoxLayout;

namespace cs {

class BudgetBar;

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
    // The warnings shown, in order: their codes ("disputed", …; "read_failed" for a read that
    // failed just now) and sentences.
    QStringList warningCodes() const { return m_warningCodes; }
    QStringList warningTexts() const { return m_warningTexts; }

private:
    enum class ReadState { Idle, Reading, Failed };
    void render();
    void addWarning(const QString &code, const QString &text);

    std::optional<ChargeView> m_view;
    ReadState m_read = ReadState::Idle;
    QString m_failure;
    QStringList m_warningCodes;
    QStringList m_warningTexts;

    QLabel *m_status;
    QFrame *m_warnings;
    QVBoxLayout *m_warningRows;
    QLabel *m_story;
    BudgetBar *m_bar;
    QLabel *m_budgetText;
};

} // namespace cs
