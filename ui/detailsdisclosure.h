#pragma once

#include <QWidget>

class QLabel;
class QToolButton;

namespace cs {

// A "Details" toggle over raw text a person rarely needs (the server's reason, the provider's
// answer): collapsed by default; open, a selectable, word-wrapped label shows the text. Hidden
// while there is no text. Runs without a break longer than a line get break opportunities
// (zero-width spaces) in the shown text only; details() is the text as given.
class DetailsDisclosure : public QWidget
{
    Q_OBJECT

public:
    explicit DetailsDisclosure(QWidget *parent = nullptr);

    void setDetails(const QString &plainText); // keeps whether it is open
    QString details() const { return m_details; }
    bool isExpanded() const;
    void setExpanded(bool expanded);

    QToolButton *toggle() const { return m_toggle; }
    QLabel *textLabel() const { return m_text; }

signals:
    // Opened or closed: the owner's layout may have to grow.
    void expandedChanged(bool expanded);

private:
    QString m_details;
    QToolButton *m_toggle;
    QLabel *m_text;
};

} // namespace cs
