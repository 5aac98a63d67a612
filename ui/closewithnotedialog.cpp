#include "ui/closewithnotedialog.h"

#include <QPlainTextEdit>

namespace cs {

CloseWithNoteDialog::CloseWithNoteDialog(const QString &kind, const ActionDetail &detail, const Texts &texts,
                                         QWidget *parent)
    : DecisionDialog(kind, detail, parent)
{
    m_note = addTextField(texts.noteLabel, QStringLiteral("note"), QStringLiteral("noteEdit"), tr("Closing note"), 96);
    m_note->setPlaceholderText(texts.placeholder);
    setConfirmText(texts.confirm);
}

QString CloseWithNoteDialog::note() const
{
    return m_note->toPlainText().trimmed();
}

QString CloseWithNoteDialog::inputProblem() const
{
    if (const QString nothing = whyNothingToClose(); !nothing.isEmpty())
        return nothing;
    const QString text = note();
    if (text.isEmpty())
        return whatTheNoteSays();
    if (text.size() > MaxNoteLength)
        return tr("The note is %1 characters long; at most %2 are recorded.").arg(text.size()).arg(MaxNoteLength);
    return QString();
}

} // namespace cs
