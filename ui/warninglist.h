#pragma once

#include <QFrame>
#include <QList>
#include <QString>

class QVBoxLayout;

namespace cs {

// One thing a person should look twice at before deciding: its code (for tests and tools), one
// sentence in the console's language, and whether it says the decision may pay twice or cannot be
// checked (severe: the critical icon).
struct WarningLine
{
    QString code;
    QString text; // plain text
    bool severe = false;
    friend bool operator==(const WarningLine &, const WarningLine &) = default;
};

// The yellow box of warnings at the top of what a person decides on: one row per warning, an icon
// and its sentence in bold, word-wrapped at full height. Hidden while there is none. Rows are
// named "warning_<code>", their sentences "warningText".
class WarningList : public QFrame
{
    Q_OBJECT

public:
    explicit WarningList(QWidget *parent = nullptr);

    void setWarnings(const QList<WarningLine> &warnings);
    QList<WarningLine> warnings() const { return m_warnings; }

private:
    void restyle();

    QList<WarningLine> m_warnings;
    QVBoxLayout *m_rows;
};

} // namespace cs
