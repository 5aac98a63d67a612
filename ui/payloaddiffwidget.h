#pragma once

#include "models/actiondetail.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTableView;

namespace cs {

class PayloadDiffModel;

// Side by side, the stored payload of an action and a changed resubmission that was caught
// under the same client reference, the changed fields highlighted (colour and bold, and named in
// the summary line for screen readers). Several conflicts: a chooser picks one.
class PayloadDiffWidget : public QWidget
{
    Q_OBJECT

public:
    explicit PayloadDiffWidget(QWidget *parent = nullptr);

    void setConflicts(const QList<PayloadConflict> &conflicts, const QString &actionId);
    PayloadDiffModel *model() const { return m_model; }
    int conflictCount() const { return int(m_conflicts.size()); }

private:
    void showConflict(int index);

    QList<PayloadConflict> m_conflicts;
    QString m_actionId;
    QLabel *m_summary;
    QComboBox *m_chooser;
    QTableView *m_table;
    PayloadDiffModel *m_model;
};

} // namespace cs
