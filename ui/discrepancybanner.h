#pragma once

#include "models/actiondetail.h"

#include <QFrame>

class QAction;
class QLabel;
class QToolButton;

namespace cs {

// Over the detail of an action the provider contradicts (issue 33): "The provider holds 2 refunds
// for this action" — money may have gone out twice — in words for people, with the one decision
// a supervisor has: close it with a note once it is dealt with. Shown only while the discrepancy
// is open; full width, word-wrapped, never clipped (it grows with its text).
class DiscrepancyBanner : public QFrame
{
    Q_OBJECT

public:
    explicit DiscrepancyBanner(QWidget *parent = nullptr);

    // The main window's "close_discrepancy" action: its state, tooltip and trigger.
    void setCloseAction(QAction *close);
    // Shows the detail's open discrepancy, or hides itself.
    void setDetail(const ActionDetail &detail);

private:
    QLabel *m_text;
    QToolButton *m_close = nullptr;
};

} // namespace cs
