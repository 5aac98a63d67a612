#include "ui/dialogparts.h"
#include "ui/statepalette.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

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

ScrollBody scrollBody(QWidget *parent)
{
    ScrollBody out;
    out.area = new QScrollArea(parent);
    out.area->setObjectName(QStringLiteral("dialogBody"));
    out.area->setFrameShape(QFrame::NoFrame);
    out.area->setWidgetResizable(true);
    out.area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    out.area->setFocusPolicy(Qt::NoFocus);
    out.content = new QWidget(out.area);
    out.content->setObjectName(QStringLiteral("dialogBodyContent"));
    out.layout = new QVBoxLayout(out.content);
    out.layout->setContentsMargins(0, 0, 0, 0);
    out.layout->setSpacing(10);
    out.area->setWidget(out.content);
    // The background of the dialog, not a viewport's: the body reads as the dialog itself.
    out.area->viewport()->setAutoFillBackground(false);
    out.content->setAutoFillBackground(false);
    return out;
}

void fitToScreen(QDialog *dialog, QScrollArea *body, int preferredWidth, bool growOnly)
{
    QWidget *content = body->widget();
    if (!content || !dialog->layout())
        return;
    dialog->ensurePolished();
    const QWidget *anchor = dialog->parentWidget() ? dialog->parentWidget()->window() : dialog;
    const QScreen *screen = anchor->screen() ? anchor->screen() : dialog->screen();
    if (!screen)
        return;
    // Room for a window manager's frame and title bar, which are not known before the first show.
    constexpr int FrameWidth = 16;
    constexpr int FrameHeight = 48;
    const QRect available = screen->availableGeometry();
    const int scrollBar = dialog->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, body);
    const QMargins margins = dialog->layout()->contentsMargins();
    const int side = margins.left() + margins.right();
    // The content never narrower than it can be: the scroll area only scrolls vertically.
    body->setMinimumWidth(content->minimumSizeHint().width() + scrollBar);
    const int maxWidth = available.width() - FrameWidth;
    int width = std::max({ preferredWidth, dialog->minimumWidth(), body->minimumWidth() + side });
    width = std::min(width, maxWidth);
    if (growOnly)
        width = std::max(width, dialog->width());

    const int bodyWidth = width - side;
    const auto contentHeight = [content](int w) {
        QLayout *l = content->layout();
        return l && l->hasHeightForWidth() ? l->totalHeightForWidth(w) : content->sizeHint().height();
    };
    int wanted = contentHeight(bodyWidth);
    // Everything around the body (the status line, the buttons, the margins) at that width.
    QLayout *outer = dialog->layout();
    const int outerHeight = outer->hasHeightForWidth() ? outer->totalHeightForWidth(width) : outer->totalSizeHint().height();
    const int chrome = std::max(0, outerHeight - body->sizeHint().height());
    const int maxHeight = available.height() - FrameHeight;
    if (chrome + wanted > maxHeight) // it will scroll: the scroll bar takes its width from the text
        wanted = contentHeight(bodyWidth - scrollBar);
    int height = std::min(chrome + wanted, maxHeight);
    if (growOnly) {
        if (height <= dialog->height() && width <= dialog->width())
            return;
        height = std::max(height, dialog->height());
        QRect frame = dialog->geometry();
        frame.setSize(QSize(width, height));
        // Stay on the screen: move up (and left) as far as growing needs.
        if (frame.bottom() > available.bottom() - FrameHeight / 2)
            frame.moveBottom(std::max(available.top() + FrameHeight, available.bottom() - FrameHeight / 2));
        if (frame.right() > available.right())
            frame.moveRight(available.right());
        dialog->setGeometry(frame);
        return;
    }
    dialog->resize(width, height);
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
