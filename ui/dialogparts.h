#pragma once

// The pieces the console's confirm dialogs share (DecisionDialog, ExecutionDialog,
// BulkDecisionDialog): the muted line that says why Confirm is disabled, the status line, the
// button row with "Stop resending", and what Enter does.

#include <QString>

#include <functional>

class QDialog;
class QHBoxLayout;
class QKeyEvent;
class QLabel;
class QPushButton;
class QScrollArea;
class QVBoxLayout;
class QWidget;

namespace cs::dialogparts {

// "blockingLabel": word-wrapped, in the palette's muted text colour.
QLabel *blockingLabel(QWidget *parent);
// "statusLabel": what sending, a refusal or an outcome says; rich text, selectable, word-wrapped,
// hidden until used unless `visible`.
QLabel *statusLabel(QWidget *parent, bool visible = false);

// "Stop resending" (hidden until a resend is under way), then Confirm (`confirmText`) and Cancel
// in a QDialogButtonBox. "Stop resending" stays out of the box: Qt 6.4's QDialogButtonBox shows
// every button it holds again whenever it lays them out (on show, on a style change). None is
// auto-default; the box makes Confirm the dialog's default on show, and the dialogs route Enter
// through handleEnter, so a plain Enter presses Confirm only when Confirm itself has the focus.
struct ResendButtons
{
    QHBoxLayout *row = nullptr;
    QPushButton *stop = nullptr;    // "stopResendingButton"
    QPushButton *confirm = nullptr; // "confirmButton"
    QPushButton *cancel = nullptr;  // "cancelButton"
};
ResendButtons resendButtons(QWidget *parent, const QString &confirmText);

// The body of a dialog that can hold more than a screen shows (warnings, a charge's story, the
// agent's reasons, a note): a frameless scroll area, vertical only, whose content is laid out in
// `layout` at full height — word-wrapped labels get the height their text needs, nothing is
// squeezed. The dialog's status line and buttons stay outside it, always visible.
struct ScrollBody
{
    QScrollArea *area = nullptr; // "dialogBody"
    QWidget *content = nullptr;  // "dialogBodyContent"
    QVBoxLayout *layout = nullptr;
};
ScrollBody scrollBody(QWidget *parent);

// Sizes `dialog` so that all of `body`'s content shows at `preferredWidth` (at least the dialog's
// and the content's minimum widths), within the available area of the screen the dialog opens on
// less room for a window frame; what does not fit scrolls in `body`. Called before the first show
// (the dialog then centres itself over its parent with this size). With `growOnly`, for content
// that grew while the dialog is open (a fresh charge read with warnings), the dialog only grows,
// keeping its top left corner and staying on the screen.
void fitToScreen(QDialog *dialog, QScrollArea *body, int preferredWidth, bool growOnly = false);

// Closes `dialog` with `close` (its QDialog::done) and, if it had the keyboard, gives the keyboard
// back to the window it came from: not every platform reactivates a closed dialog's parent
// (offscreen, some Wayland compositors). A dialog closed by an answer while the user works
// elsewhere takes no focus.
void closeGivingKeyboardBack(QDialog *dialog, const std::function<void()> &close);

// Ctrl+Enter clicks `confirm` when it is visible and enabled; a plain Enter does nothing (it
// belongs to the text fields). True when the key was one of those (the caller stops there).
bool handleEnter(QKeyEvent *event, QPushButton *confirm);

} // namespace cs::dialogparts
