#include "app/countersign/screenshotter.h"
#include "models/actionqueuemodel.h"
#include "ui/actiondetailpane.h"
#include "ui/mainwindow.h"
#include "ui/uilog.h"

#include <QHash>
#include <QPixmap>
#include <QTextStream>
#include <QTimer>

namespace cs {

Screenshotter::Screenshotter(MainWindow *window, QObject *parent)
    : QObject(parent)
    , m_window(window)
{
}

void Screenshotter::whenShown(const QString &path, const QString &actionId, const QString &tab)
{
    m_path = path;
    m_actionId = actionId;
    m_tab = tab;
    connect(m_window, &MainWindow::firstPageShown, this, &Screenshotter::maybeGrab);
    connect(m_window, &MainWindow::detailShown, this, &Screenshotter::maybeGrab);
    if (!actionId.isEmpty()) {
        // A page load may select another row (the first one): come back to the requested action.
        connect(m_window->queueModel(), &ActionQueueModel::pageLoaded, this, [this] {
            if (m_window && m_window->currentActionId() != m_actionId)
                m_window->selectAction(m_actionId);
        });
    }
    maybeGrab();
}

void Screenshotter::maybeGrab()
{
    if (m_path.isEmpty() || !m_window || !m_window->hasShownFirstPage())
        return;
    const ActionDetailPane *pane = m_window->detailPane();
    if (!m_actionId.isEmpty()) {
        if (m_window->currentActionId() != m_actionId) {
            m_window->selectAction(m_actionId);
            return;
        }
        if (!pane->hasDetail() || pane->detail().record.id != m_actionId)
            return;
    } else if (!pane->hasDetail()) {
        return;
    }
    static const QHash<QString, ActionDetailPane::Tab> tabs{
        { QStringLiteral("overview"), ActionDetailPane::OverviewTab },
        { QStringLiteral("evidence"), ActionDetailPane::EvidenceTab },
        { QStringLiteral("approvals"), ActionDetailPane::ApprovalsTab },
        { QStringLiteral("reconciliations"), ActionDetailPane::ReconciliationsTab },
        { QStringLiteral("audit"), ActionDetailPane::AuditTab },
        { QStringLiteral("related"), ActionDetailPane::RelatedTab },
        { QStringLiteral("diff"), ActionDetailPane::DiffTab },
    };
    if (tabs.contains(m_tab))
        m_window->detailPane()->showTab(tabs.value(m_tab));
    const QString path = m_path;
    m_path.clear();
    grabSoon(path, ShownSettleMs);
}

void Screenshotter::grabSoon(const QString &path, int delayMs)
{
    QTimer::singleShot(delayMs, this, [this, path] {
        if (m_done || !m_window)
            return;
        const bool ok = m_window->grab().save(path);
        qCInfo(lcUi) << "screenshot" << path << (ok ? "saved" : "FAILED");
        m_done = true;
        emit finished(ok);
    });
}

void Screenshotter::giveUpAfter(int ms, const QString &why)
{
    QTimer::singleShot(ms, this, [this, why] {
        if (m_done)
            return;
        QTextStream(stderr) << "countersign: " << why << Qt::endl;
        m_done = true;
        emit finished(false);
    });
}

} // namespace cs
