#pragma once

#include "demo/exercise.h"

#include <QDialog>

class QLabel;
class QTableWidget;

namespace cs {

// The score sheet at the end of an exercise (docs/DEMO.md, "Exercises"): one row per decision —
// scenario, task, action, RIGHT or WRONG, what the trainee did, what was right, why — with the
// score on top. Export… writes it as text, CSV or JSON (QSaveFile: whole or not at all).
// Activating a row emits actionActivated so the console selects that action.
class ScoreSheetDialog : public QDialog
{
    Q_OBJECT
public:
    ScoreSheetDialog(const demo::ScoreSheet &sheet, QWidget *parent = nullptr);

    // Writes the sheet to fileName (format from its suffix); false with *error on failure.
    bool exportTo(const QString &fileName, QString *error) const;
    QTableWidget *table() const { return m_table; }

signals:
    void actionActivated(const QString &actionId);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void exportAsked();

    demo::ScoreSheet m_sheet;
    QLabel *m_score = nullptr;
    QTableWidget *m_table = nullptr;
};

} // namespace cs
