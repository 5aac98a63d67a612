#pragma once

#include "demo/paysimadmin.h"

#include <QDockWidget>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QTimer>
#include <QUrl>

class QLabel;
class QTableWidget;

namespace cs {

class ApiClient;

// Demo mode only: what the provider actually holds (paysim's ground truth, GET /_sim/refunds
// through the demo's PaysimAdminClient)
// next to what the ledger says about the same action (GET /api/v1/actions/{id} through the
// console's ApiClient: state, provider object id). Mismatches are highlighted: two refunds for
// one action, a refund the ledger calls rejected, a completed action naming another refund, a
// refund no action claims. Refreshed on a timer and on demand.
class GroundTruthView : public QDockWidget
{
    Q_OBJECT

public:
    enum Column { ColRefund, ColCharge, ColAmount, ColKey, ColAction, ColCreated, ColLedgerState, ColLedgerObject, ColVerdict, ColCount };

    explicit GroundTruthView(ApiClient *client, QWidget *parent = nullptr);

    void setPaysimUrl(const QUrl &url);
    void setInterval(int ms) { m_timer.setInterval(ms); }
    QTableWidget *table() const { return m_table; }
    // Rows whose provider refund and ledger disagree, after the last refresh.
    int mismatchCount() const { return m_mismatches; }

public slots:
    void refresh();

signals:
    void refreshed();

private:
    void onRefunds(const QJsonArray &refunds);
    void fill(); // fills the table from m_refunds and m_ledger

    ApiClient *m_client;
    demo::PaysimAdminClient m_paysim;
    QTimer m_timer;
    QTableWidget *m_table;
    QLabel *m_summary;
    QJsonArray m_refunds;
    QHash<QString, QJsonObject> m_ledger; // action id -> action (or {} when the ledger has none)
    int m_pending = 0;
    int m_mismatches = 0;
    bool m_busy = false;
};

} // namespace cs
