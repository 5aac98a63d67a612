#include "ui/executiondialog.h"
#include "ui/dialogparts.h"
#include "ui/statepalette.h"

#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
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

    // The body scrolls when it is taller than the screen; the buttons never do.
    const dialogparts::ScrollBody body = dialogparts::scrollBody(this);
    m_body = body.area;
    layout->addWidget(m_body, 1);

    m_description = new QLabel(body.content);
    m_description->setObjectName(QStringLiteral("descriptionLabel"));
    m_description->setWordWrap(true);
    m_description->setTextFormat(Qt::RichText);
    body.layout->addWidget(m_description);

    m_fields = new QVBoxLayout;
    m_fields->setSpacing(6);
    body.layout->addLayout(m_fields);
    body.layout->addStretch(1);

    m_blocking = dialogparts::blockingLabel(this);
    layout->addWidget(m_blocking);

    m_status = dialogparts::statusLabel(this);
    layout->addWidget(m_status);

    const dialogparts::ResendButtons buttons = dialogparts::resendButtons(this, tr("OK"));
    m_stop = buttons.stop;
    m_confirm = buttons.confirm;
    m_cancel = buttons.cancel;
    layout->addLayout(buttons.row);

    connect(m_confirm, &QPushButton::clicked, this, [this] {
        if (!m_sending && inputProblem().isEmpty())
            emit confirmed();
    });
    connect(m_cancel, &QPushButton::clicked, this, &ExecutionDialog::reject);
    connect(m_stop, &QPushButton::clicked, this, &ExecutionDialog::stopResendingRequested);
}

void ExecutionDialog::setVisible(bool visible)
{
    if (visible && !m_fitted && !testAttribute(Qt::WA_Resized)) {
        m_fitted = true;
        dialogparts::fitToScreen(this, m_body, 600);
    }
    QDialog::setVisible(visible);
}

void ExecutionDialog::reject()
{
    if (!m_sending)
        QDialog::reject();
}

void ExecutionDialog::keyPressEvent(QKeyEvent *event)
{
    // Ctrl+Enter confirms from anywhere (a plain Enter belongs to the text fields).
    if (!dialogparts::handleEnter(event, m_confirm))
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
                         "automatically as the same request, so it cannot take effect twice \u2014 attempt %2.")
                          .arg(why.toHtmlEscaped())
                          .arg(sendCount + 1));
    m_status->setToolTip(tr("Resent with the same Idempotency-Key %1: the backend applies it once.").arg(idempotencyKey));
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
