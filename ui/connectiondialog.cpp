#include "ui/connectiondialog.h"
#include "ui/statepalette.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace cs {

ConnectionDialog::ConnectionDialog(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("connectionDialog"));
    setWindowTitle(tr("Connection profile"));
    setMinimumWidth(520);
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("The console talks to <b>countersignd</b> only through its REST API. Enter the backend's "
                                "address and your bearer token (from <code>countersignd user add</code>)."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    m_url = new QComboBox(this);
    m_url->setObjectName(QStringLiteral("backendUrlEdit"));
    m_url->setEditable(true);
    m_url->setAccessibleName(tr("Backend URL"));
    form->addRow(tr("&Backend URL:"), m_url);
    auto *tokenRow = new QHBoxLayout;
    m_token = new QLineEdit(this);
    m_token->setObjectName(QStringLiteral("tokenEdit"));
    m_token->setEchoMode(QLineEdit::Password);
    m_token->setAccessibleName(tr("Bearer token"));
    m_token->setFont(StatePalette::monospaceFont());
    m_test = new QPushButton(tr("&Test"), this);
    m_test->setObjectName(QStringLiteral("testButton"));
    tokenRow->addWidget(m_token, 1);
    tokenRow->addWidget(m_test);
    auto *tokenLabel = new QLabel(tr("T&oken:"), this);
    tokenLabel->setBuddy(m_token);
    form->addRow(tokenLabel, tokenRow);
    m_remember = new QCheckBox(tr("&Remember the token"), this);
    m_remember->setObjectName(QStringLiteral("rememberCheck"));
    form->addRow(QString(), m_remember);
    m_storage = new QLabel(this);
    m_storage->setWordWrap(true);
    form->addRow(QString(), m_storage);
    layout->addLayout(form);

    m_result = new QLabel(this);
    m_result->setObjectName(QStringLiteral("testResultLabel"));
    m_result->setWordWrap(true);
    layout->addWidget(m_result);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Connect"));
    m_ok->setObjectName(QStringLiteral("connectButton"));
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_test, &QPushButton::clicked, this, [this] {
        m_result->setText(tr("Asking %1\u2026").arg(backendUrl().toDisplayString()));
        emit testRequested(backendUrl(), token());
    });
    connect(m_url, &QComboBox::editTextChanged, this, &ConnectionDialog::validate);
    connect(m_token, &QLineEdit::textChanged, this, &ConnectionDialog::validate);
    validate();
}

void ConnectionDialog::setBackends(const QStringList &recent, const QString &current)
{
    m_url->clear();
    m_url->addItems(recent);
    m_url->setEditText(current);
}

void ConnectionDialog::setToken(const QString &token)
{
    m_token->setText(token);
}

void ConnectionDialog::setRemember(bool remember)
{
    m_remember->setChecked(remember);
}

void ConnectionDialog::setStorageNote(const QString &note)
{
    m_storage->setText(note);
}

QUrl ConnectionDialog::backendUrl() const
{
    return QUrl::fromUserInput(m_url->currentText().trimmed());
}

QString ConnectionDialog::token() const
{
    return m_token->text().trimmed();
}

bool ConnectionDialog::remember() const
{
    return m_remember->isChecked();
}

void ConnectionDialog::setTestResult(bool ok, const QString &text)
{
    const QColor color = StatePalette::stateChip(ok ? ActionState::Completed : ActionState::RequiresReview, palette()).text;
    m_result->setText(QStringLiteral("<span style=\"color:%1\">%2</span>").arg(color.name(), text.toHtmlEscaped()));
}

void ConnectionDialog::validate()
{
    const QUrl url = backendUrl();
    const bool ok = url.isValid() && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
        && !token().isEmpty();
    m_ok->setEnabled(ok);
    m_test->setEnabled(ok);
}

} // namespace cs
