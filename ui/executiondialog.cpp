#include "ui/executiondialog.h"
#include "ui/statepalette.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace cs {

ExecutionDialog::ExecutionDialog(QWidget *parent)
    : QDialog(parent)
{
    setWindowModality(Qt::WindowModal);
    setMinimumWidth(520);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(18, 16, 18, 14);
    layout->setSpacing(10);

    m_description = new QLabel(this);
    m_description->setObjectName(QStringLiteral("descriptionLabel"));
    m_description->setWordWrap(true);
    m_description->setTextFormat(Qt::RichText);
    layout->addWidget(m_description);

    m_fields = new QVBoxLayout;
    m_fields->setSpacing(6);
    layout->addLayout(m_fields);

    m_blocking = new QLabel(this);
    m_blocking->setObjectName(QStringLiteral("blockingLabel"));
    m_blocking->setWordWrap(true);
    QPalette muted = m_blocking->palette();
    muted.setColor(QPalette::WindowText, StatePalette::mutedText(palette()));
    m_blocking->setPalette(muted);
    layout->addWidget(m_blocking);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setVisible(false);
    layout->addWidget(m_status);

    // Outside the button box, as DecisionDialog's: Qt 6.4's box shows its buttons again on layout.
    auto *buttonRow = new QHBoxLayout;
    m_stop = new QPushButton(tr("Stop resending"), this);
    m_stop->setObjectName(QStringLiteral("stopResendingButton"));
    m_stop->setAutoDefault(false);
    m_stop->setVisible(false);
    buttonRow->addWidget(m_stop);
    auto *buttons = new QDialogButtonBox(this);
    m_confirm = buttons->addButton(tr("OK"), QDialogButtonBox::AcceptRole);
    m_confirm->setObjectName(QStringLiteral("confirmButton"));
    m_confirm->setAutoDefault(false);
    m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    buttonRow->addWidget(buttons, 1);
    layout->addLayout(buttonRow);

    connect(m_confirm, &QPushButton::clicked, this, [this] {
        if (!m_sending && inputProblem().isEmpty())
            emit confirmed();
    });
    connect(m_cancel, &QPushButton::clicked, this, &ExecutionDialog::reject);
    connect(m_stop, &QPushButton::clicked, this, &ExecutionDialog::stopResendingRequested);
}

void ExecutionDialog::reject()
{
    if (!m_sending)
        QDialog::reject();
}

void ExecutionDialog::keyPressEvent(QKeyEvent *event)
{
    // Ctrl+Enter confirms from anywhere (a plain Enter belongs to the text fields).
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && (event->modifiers() & Qt::ControlModifier)) {
        if (m_confirm->isEnabled())
            m_confirm->click();
        return;
    }
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter)
        return;
    QDialog::keyPressEvent(event);
}

void ExecutionDialog::setDescription(const QString &html)
{
    m_description->setText(html);
}

void ExecutionDialog::setConfirmText(const QString &text)
{
    m_confirm->setText(text);
    m_confirm->setAccessibleName(text);
}

void ExecutionDialog::updateConfirm()
{
    const QString reason = m_sending ? QString() : inputProblem();
    m_confirm->setEnabled(!m_sending && reason.isEmpty());
    m_cancel->setEnabled(!m_sending);
    m_blocking->setText(reason);
    m_blocking->setVisible(!reason.isEmpty());
}

void ExecutionDialog::setSending()
{
    m_sending = true;
    setInputReadOnly(true);
    m_status->setText(tr("Sending\u2026"));
    m_status->setVisible(true);
    m_stop->setVisible(false);
    updateConfirm();
}

void ExecutionDialog::setResending(int sendCount, const QString &why, const QString &idempotencyKey)
{
    m_sending = true;
    setInputReadOnly(true);
    m_status->setText(tr("<b>No answer from the backend</b> (%1). Your request is kept and is being sent again "
                         "automatically with the same Idempotency-Key <code>%2</code>, so it cannot take effect "
                         "twice \u2014 attempt %3.")
                          .arg(why.toHtmlEscaped(), idempotencyKey.toHtmlEscaped())
                          .arg(sendCount + 1));
    m_status->setVisible(true);
    m_stop->setVisible(true);
    updateConfirm();
}

void ExecutionDialog::setFailed(const QString &message)
{
    m_sending = false;
    setInputReadOnly(false);
    m_status->setText(QStringLiteral("<span style=\"color:%1\"><b>%2</b></span> %3")
                          .arg(StatePalette::stateChip(ActionState::RequiresReview, palette()).text.name(),
                               tr("Not done."), message.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    m_status->setVisible(true);
    m_stop->setVisible(false);
    updateConfirm();
}

} // namespace cs
