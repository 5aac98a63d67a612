#include "ui/dialogparts.h"
#include "ui/statepalette.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>

namespace cs::dialogparts {

QLabel *blockingLabel(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setObjectName(QStringLiteral("blockingLabel"));
    label->setWordWrap(true);
    QPalette muted = label->palette();
    muted.setColor(QPalette::WindowText, StatePalette::mutedText(parent->palette()));
    label->setPalette(muted);
    return label;
}

QLabel *statusLabel(QWidget *parent, bool visible)
{
    auto *label = new QLabel(parent);
    label->setObjectName(QStringLiteral("statusLabel"));
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setVisible(visible);
    return label;
}

ResendButtons resendButtons(QWidget *parent, const QString &confirmText)
{
    ResendButtons out;
    out.row = new QHBoxLayout;
    out.stop = new QPushButton(QCoreApplication::translate("cs::dialogparts", "Stop resending"), parent);
    out.stop->setObjectName(QStringLiteral("stopResendingButton"));
    out.stop->setAutoDefault(false);
    out.stop->setVisible(false);
    out.row->addWidget(out.stop);
    auto *box = new QDialogButtonBox(parent);
    out.confirm = box->addButton(confirmText, QDialogButtonBox::AcceptRole);
    out.confirm->setObjectName(QStringLiteral("confirmButton"));
    out.confirm->setDefault(false);
    out.confirm->setAutoDefault(false);
    out.cancel = box->addButton(QDialogButtonBox::Cancel);
    out.cancel->setObjectName(QStringLiteral("cancelButton"));
    out.row->addWidget(box, 1);
    return out;
}

void closeGivingKeyboardBack(QDialog *dialog, const std::function<void()> &close)
{
    // Decided before hiding, which deactivates the dialog.
    const bool hadKeyboard = dialog->isActiveWindow();
    QWidget *back = dialog->parentWidget() ? dialog->parentWidget()->window() : nullptr;
    close();
    if (hadKeyboard && back && back->isVisible())
        back->activateWindow();
}

bool handleEnter(QKeyEvent *event, QPushButton *confirm)
{
    if (event->key() != Qt::Key_Return && event->key() != Qt::Key_Enter)
        return false;
    if ((event->modifiers() & Qt::ControlModifier) && confirm->isVisible() && confirm->isEnabled())
        confirm->click();
    return true;
}

} // namespace cs::dialogparts
