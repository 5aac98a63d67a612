#pragma once

#include "models/actionrecord.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace cs {

class FactsTableModel;

// Why the agent proposes an action (issue 19), for the approver: its justification (wrapped,
// selectable plain text — never rendered as markup), the context URL as a link that opens in the
// browser, and its facts as a small two-column table. Only an absolute https:// URL with a host
// is a link (the backend accepts no other; the console refuses any other all the same and shows
// it as text). With no reasons at all it says "The agent gave no reasons." Shown in the detail
// pane and in the approve dialog.
class AgentReasonsView : public QWidget
{
    Q_OBJECT

public:
    explicit AgentReasonsView(QWidget *parent = nullptr);

    void setRecord(const ActionRecord &record);

    // Whether `url` may be offered as a link: https, a host, no user name or password.
    static bool isOpenableUrl(const QString &url);

    QLabel *justificationLabel() const { return m_justification; }
    QLabel *contextLabel() const { return m_context; }
    QTableView *factsView() const { return m_factsView; }
    QLabel *emptyLabel() const { return m_empty; }

signals:
    // The context link was activated and handed to QDesktopServices::openUrl.
    void contextUrlOpened(const QUrl &url);

private:
    void openLink(const QString &link);
    void fitFactsHeight();

    QLabel *m_empty;
    QLabel *m_justification;
    QLabel *m_context;
    QTableView *m_factsView;
    FactsTableModel *m_facts;
};

} // namespace cs
