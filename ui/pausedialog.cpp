#include "ui/pausedialog.h"

#include <QButtonGroup>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace cs {

PauseDialog::PauseDialog(QWidget *parent)
    : ExecutionDialog(parent)
{
    setObjectName(QStringLiteral("pauseDialog"));
    setWindowTitle(tr("Pause execution"));
    setDescription(tr("<b>Pause execution.</b> While the pause is in force the executor claims nothing it covers: "
                      "approved actions stay PENDING with their approval and key and are sent once it is resumed. "
                      "What is already being sent finishes, the reconciler keeps reconciling, proposals and "
                      "approvals go on. Every console sees the pause; the audit log records who and why."));
    setConfirmText(tr("Pause execution"));

    QVBoxLayout *fields = fieldsLayout();
    m_scopes = new QButtonGroup(this);
    const auto radio = [this, fields](const QString &text, const char *objectName, ExecutionPause::Scope scope) {
        auto *button = new QRadioButton(text, this);
        button->setObjectName(QString::fromLatin1(objectName));
        m_scopes->addButton(button, int(scope));
        fields->addWidget(button);
        return button;
    };
    m_all = radio(tr("&Everything"), "scopeAllRadio", ExecutionPause::Scope::All);
    m_agent = radio(tr("One &agent's actions"), "scopeAgentRadio", ExecutionPause::Scope::Agent);
    m_account = radio(tr("One provider a&ccount's actions"), "scopeAccountRadio", ExecutionPause::Scope::Account);
    m_all->setChecked(true);

    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("nameEdit"));
    m_name->setMaxLength(int(kMaxName));
    fields->addWidget(m_name);

    auto *reasonLabel = new QLabel(tr("&Reason (required; every console and the audit log show it):"), this);
    m_reason = new QPlainTextEdit(this);
    m_reason->setObjectName(QStringLiteral("reasonEdit"));
    m_reason->setAccessibleName(tr("Reason for the pause"));
    m_reason->setTabChangesFocus(true);
    m_reason->setFixedHeight(84);
    reasonLabel->setBuddy(m_reason);
    fields->addWidget(reasonLabel);
    fields->addWidget(m_reason);

    connect(m_scopes, &QButtonGroup::idToggled, this, [this](int, bool checked) {
        if (checked)
            updateNameField();
    });
    connect(m_name, &QLineEdit::textChanged, this, &PauseDialog::updateConfirm);
    connect(m_reason, &QPlainTextEdit::textChanged, this, &PauseDialog::updateConfirm);
    updateNameField();
}

void PauseDialog::updateNameField()
{
    switch (scope()) {
    case ExecutionPause::Scope::All:
        m_name->setEnabled(false);
        m_name->setPlaceholderText(tr("(no name: everything is paused)"));
        m_name->setAccessibleName(tr("Name"));
        break;
    case ExecutionPause::Scope::Agent:
        m_name->setEnabled(true);
        m_name->setPlaceholderText(tr("The agent's name, as in the queue's Requested by (agent-7)"));
        m_name->setAccessibleName(tr("Agent"));
        break;
    case ExecutionPause::Scope::Account:
        m_name->setEnabled(true);
        m_name->setPlaceholderText(tr("The provider account (acct_\u2026)"));
        m_name->setAccessibleName(tr("Provider account"));
        break;
    }
    updateConfirm();
}

ExecutionPause::Scope PauseDialog::scope() const
{
    const int id = m_scopes->checkedId();
    return id < 0 ? ExecutionPause::Scope::All : ExecutionPause::Scope(id);
}

QString PauseDialog::name() const
{
    return scope() == ExecutionPause::Scope::All ? QString() : m_name->text().trimmed();
}

QString PauseDialog::reason() const
{
    return m_reason->toPlainText().trimmed();
}

QString PauseDialog::inputProblem() const
{
    if (scope() == ExecutionPause::Scope::Agent && name().isEmpty())
        return tr("Name the agent whose actions are to be paused.");
    if (scope() == ExecutionPause::Scope::Account && name().isEmpty())
        return tr("Name the provider account whose actions are to be paused.");
    const QString why = reason();
    if (why.isEmpty())
        return tr("Say why execution is paused: every console and the audit log show it.");
    if (why.size() > kMaxReason)
        return tr("The reason is %1 characters long; at most %2.").arg(why.size()).arg(kMaxReason);
    return QString();
}

void PauseDialog::setInputReadOnly(bool readOnly)
{
    for (QAbstractButton *button : m_scopes->buttons())
        button->setEnabled(!readOnly);
    m_name->setReadOnly(readOnly);
    m_reason->setReadOnly(readOnly);
}

} // namespace cs
