#include "ui/decisiondialog.h"
#include "models/displayformat.h"
#include "ui/dialogparts.h"
#include "ui/statepalette.h"
#include "ui/warninglist.h"

#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace cs {

DecisionDialog::DecisionDialog(const QString &kind, const ActionDetail &detail, QWidget *parent)
    : QDialog(parent)
    , m_detail(detail)
    , m_kind(kind)
{
    setWindowModality(Qt::WindowModal);
    setMinimumWidth(560);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(18, 16, 18, 14);
    layout->setSpacing(10);

    // The body scrolls when it is taller than the screen; the status line and the buttons below
    // it never do. What the reviewer must see comes first: what changed meanwhile, the warnings.
    const dialogparts::ScrollBody body = dialogparts::scrollBody(this);
    m_body = body.area;
    layout->addWidget(m_body, 1);

    m_changes = new QLabel(body.content);
    m_changes->setObjectName(QStringLiteral("changesLabel"));
    m_changes->setWordWrap(true);
    m_changes->setTextFormat(Qt::RichText);
    m_changes->setVisible(false);
    m_changes->setAutoFillBackground(true);
    m_changes->setMargin(8);
    QPalette warn = m_changes->palette();
    warn.setColor(QPalette::Window, StatePalette::warningFill(palette()));
    warn.setColor(QPalette::WindowText, StatePalette::warningText(palette()));
    m_changes->setPalette(warn);
    body.layout->addWidget(m_changes);

    m_warnings = new WarningList(body.content);
    m_warnings->setObjectName(QStringLiteral("dialogWarnings"));
    body.layout->addWidget(m_warnings);

    m_description = new QLabel(body.content);
    m_description->setObjectName(QStringLiteral("descriptionLabel"));
    m_description->setWordWrap(true);
    m_description->setTextFormat(Qt::RichText);
    m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);
    body.layout->addWidget(m_description);

    m_fields = new QVBoxLayout;
    m_fields->setSpacing(6);
    body.layout->addLayout(m_fields);
    body.layout->addStretch(1);

    m_blocking = dialogparts::blockingLabel(this);
    layout->addWidget(m_blocking);

    m_status = dialogparts::statusLabel(this);
    layout->addWidget(m_status);

    const dialogparts::ResendButtons buttons = dialogparts::resendButtons(this, tr("Confirm"));
    m_stop = buttons.stop;
    m_confirm = buttons.confirm;
    m_cancel = buttons.cancel;
    layout->addLayout(buttons.row);

    connect(m_confirm, &QPushButton::clicked, this, [this] {
        if (!m_sending && blockingReason().isEmpty())
            emit confirmed();
    });
    connect(m_cancel, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_stop, &QPushButton::clicked, this, &DecisionDialog::stopResendingRequested);
}

void DecisionDialog::keyPressEvent(QKeyEvent *event)
{
    // Ctrl+Enter confirms from anywhere (a plain Enter belongs to the text fields).
    if (!dialogparts::handleEnter(event, m_confirm))
        QDialog::keyPressEvent(event);
}

void DecisionDialog::setVisible(bool visible)
{
    if (visible && !m_shown && !testAttribute(Qt::WA_Resized))
        dialogparts::fitToScreen(this, m_body, m_preferredWidth);
    QDialog::setVisible(visible);
}

void DecisionDialog::setWarnings(const QList<WarningLine> &warnings)
{
    m_warnings->setWarnings(warnings);
}

QList<WarningLine> DecisionDialog::warnings() const
{
    return m_warnings->warnings();
}

void DecisionDialog::contentGrew()
{
    if (isVisible())
        dialogparts::fitToScreen(this, m_body, m_preferredWidth, true);
}

void DecisionDialog::showEvent(QShowEvent *event)
{
    if (!m_shown) {
        m_shown = true;
        // The buttons are made before the subclass's fields, so they come first in the focus
        // chain: without this the dialog would open on Confirm (as look up, without an input, does).
        if (m_firstInput && m_firstInput->isEnabled())
            m_firstInput->setFocus(Qt::OtherFocusReason);
    }
    QDialog::showEvent(event);
}

void DecisionDialog::done(int result)
{
    dialogparts::closeGivingKeyboardBack(this, [this, result] { QDialog::done(result); });
}

QPlainTextEdit *DecisionDialog::textInput(const QString &draftKey, const QString &objectName, const QString &accessibleName,
                                          int height)
{
    auto *edit = new QPlainTextEdit(this);
    m_textFields.append({ draftKey, edit });
    if (!m_firstInput)
        m_firstInput = edit;
    edit->setObjectName(objectName);
    edit->setAccessibleName(accessibleName);
    edit->setTabChangesFocus(true);
    edit->setFixedHeight(height);
    connect(edit, &QPlainTextEdit::textChanged, this, &DecisionDialog::updateConfirm);
    return edit;
}

QPlainTextEdit *DecisionDialog::addTextField(const QString &label, const QString &draftKey, const QString &objectName,
                                             const QString &accessibleName, int height)
{
    auto *buddy = new QLabel(label, this);
    QPlainTextEdit *edit = textInput(draftKey, objectName, accessibleName, height);
    buddy->setBuddy(edit);
    m_fields->addWidget(buddy);
    m_fields->addWidget(edit);
    return edit;
}

QVariantMap DecisionDialog::draft() const
{
    QVariantMap fields;
    for (const auto &[key, edit] : m_textFields)
        fields.insert(key, edit->toPlainText());
    return fields;
}

void DecisionDialog::restoreDraft(const QVariantMap &draft)
{
    for (const auto &[key, edit] : std::as_const(m_textFields))
        edit->setPlainText(draft.value(key).toString());
}

void DecisionDialog::setInputReadOnly(bool readOnly)
{
    for (const auto &field : std::as_const(m_textFields))
        field.second->setReadOnly(readOnly);
}

void DecisionDialog::setDescription(const QString &html)
{
    m_description->setText(html);
}

void DecisionDialog::setTitleFor(const QString &what)
{
    const ActionRecord &r = m_detail.record;
    const QString amount = display::money(r.amount, r.currency);
    const QString subject = r.businessReference.isEmpty()
        ? tr("%1 on %2, requested by %3").arg(amount, r.targetId, r.requestedBy)
        : tr("%1 for %2, requested by %3").arg(amount, r.businessReference, r.requestedBy);
    setWindowTitle(tr("%1 \u2014 %2").arg(what, subject));
}

void DecisionDialog::setDescriptionToolTip(const QString &text)
{
    m_description->setToolTip(text);
}

void DecisionDialog::setConfirmText(const QString &text)
{
    m_confirm->setText(text);
    m_confirm->setAccessibleName(text);
}

QString DecisionDialog::blockingReason() const
{
    if (const PermissionEntry *entry = m_detail.permissions.entry(m_kind); entry && !entry->allowed)
        return entry->reason.isEmpty() ? tr("Not allowed now.") : entry->reason;
    return inputProblem();
}

void DecisionDialog::updateConfirm()
{
    const QString reason = m_sending ? QString() : blockingReason();
    m_confirm->setEnabled(!m_sending && reason.isEmpty());
    m_blocking->setText(reason);
    m_blocking->setVisible(!reason.isEmpty());
}

void DecisionDialog::updateDetail(const ActionDetail &detail, const QStringList &changes)
{
    m_detail = detail;
    if (!changes.isEmpty()) {
        QString html = tr("<b>Someone else acted on this action while you were deciding.</b> It is now at "
                          "state version %1. What changed:").arg(detail.record.stateVersion);
        html += QStringLiteral("<ul style=\"margin:2px 0 0 -20px\">");
        for (const QString &change : changes)
            html += QStringLiteral("<li>") + change.toHtmlEscaped() + QStringLiteral("</li>");
        html += QStringLiteral("</ul>") + tr("Your input is kept. Review it and confirm again, or cancel.");
        m_changes->setText(html);
        m_changes->setVisible(true);
    }
    refresh();
    updateConfirm();
}

void DecisionDialog::setSending()
{
    m_sending = true;
    setInputReadOnly(true);
    m_status->setText(tr("Sending\u2026"));
    m_status->setVisible(true);
    m_stop->setVisible(false);
    updateConfirm();
}

void DecisionDialog::setResending(int sendCount, const QString &why, const QString &idempotencyKey)
{
    m_sending = true;
    setInputReadOnly(true);
    m_status->setText(tr("<b>No answer from the backend</b> (%1). Your decision is kept and is being sent again "
                         "automatically as the same request, so it cannot be applied twice \u2014 attempt %2.")
                          .arg(why.toHtmlEscaped())
                          .arg(sendCount + 1));
    m_status->setToolTip(tr("Resent with the same Idempotency-Key %1 and If-Match: the backend applies it once.")
                             .arg(idempotencyKey));
    m_status->setVisible(true);
    m_stop->setVisible(true);
    updateConfirm();
}

void DecisionDialog::setFailed(const QString &message)
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

void DecisionDialog::setIdle()
{
    m_sending = false;
    setInputReadOnly(false);
    m_status->setVisible(false);
    m_stop->setVisible(false);
    updateConfirm();
}

void DecisionDialog::showOutcome(const QString &html)
{
    m_sending = false;
    m_status->setText(html);
    m_status->setVisible(true);
    m_stop->setVisible(false);
    m_confirm->setVisible(false);
    m_blocking->setVisible(false);
    m_cancel->setText(tr("Close"));
    m_cancel->setFocus();
}

} // namespace cs
