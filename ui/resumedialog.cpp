#include "ui/resumedialog.h"

#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace cs {

ResumeDialog::ResumeDialog(const QList<ExecutionPause> &pauses, QWidget *parent)
    : ExecutionDialog(parent)
{
    setObjectName(QStringLiteral("resumeDialog"));
    setWindowTitle(tr("Resume execution"));
    setDescription(tr("<b>Resume execution.</b> Once no pause covers them, approved actions are claimed again, "
                      "oldest first. The pause is kept in the ledger with who resumed it and your note."));
    setConfirmText(tr("Resume execution"));

    QVBoxLayout *fields = fieldsLayout();
    auto *listLabel = new QLabel(tr("&Pause to resume:"), this);
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("pauseList"));
    m_list->setAccessibleName(tr("Pauses in force"));
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setMinimumHeight(90);
    listLabel->setBuddy(m_list);
    fields->addWidget(listLabel);
    fields->addWidget(m_list);

    auto *noteLabel = new QLabel(tr("&Note (optional):"), this);
    m_note = new QPlainTextEdit(this);
    m_note->setObjectName(QStringLiteral("noteEdit"));
    m_note->setAccessibleName(tr("Note on resuming"));
    m_note->setTabChangesFocus(true);
    m_note->setFixedHeight(64);
    noteLabel->setBuddy(m_note);
    fields->addWidget(noteLabel);
    fields->addWidget(m_note);

    connect(m_list, &QListWidget::itemSelectionChanged, this, &ResumeDialog::updateConfirm);
    connect(m_note, &QPlainTextEdit::textChanged, this, &ResumeDialog::updateConfirm);
    setPauses(pauses);
}

void ResumeDialog::setPauses(const QList<ExecutionPause> &pauses)
{
    QString chosen = pauseId();
    if (chosen.isEmpty() && m_list->count() == 0 && pauses.size() == 1)
        chosen = pauses.constFirst().id; // the only one: chosen for you
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    for (const ExecutionPause &pause : pauses) {
        auto *item = new QListWidgetItem(tr("%1 \u2014 by %2, %3: %4")
                                             .arg(pause.what(), pause.pausedBy,
                                                  QLocale().toString(pause.pausedAt.toLocalTime(), QLocale::ShortFormat),
                                                  pause.reason),
                                         m_list);
        item->setData(Qt::UserRole, pause.id);
        item->setToolTip(pause.id);
        if (pause.id == chosen)
            item->setSelected(true);
    }
    updateConfirm();
}

QString ResumeDialog::pauseId() const
{
    const QList<QListWidgetItem *> selected = m_list->selectedItems();
    return selected.isEmpty() ? QString() : selected.constFirst()->data(Qt::UserRole).toString();
}

QString ResumeDialog::note() const
{
    return m_note->toPlainText().trimmed();
}

QString ResumeDialog::inputProblem() const
{
    if (m_list->count() == 0)
        return tr("Nothing is paused now.");
    if (pauseId().isEmpty())
        return tr("Choose the pause to resume.");
    if (note().size() > kMaxNote)
        return tr("The note is %1 characters long; at most %2.").arg(note().size()).arg(kMaxNote);
    return QString();
}

void ResumeDialog::setInputReadOnly(bool readOnly)
{
    m_list->setEnabled(!readOnly);
    m_note->setReadOnly(readOnly);
}

} // namespace cs
