#pragma once

#include <QObject>
#include <QTimer>

namespace cs::paysim {

class PaymentStore;
class SimClock;
class SimDatabase;

// Settles pending refunds (refund_settles rules) when the simulator clock reaches their time:
// whenever asked (after a request, a clock jump, a start from --db) and on a timer armed for the
// next one while time passes normally. Each pass is one database transaction. Single-threaded.
class RefundSettler : public QObject
{
    Q_OBJECT
public:
    RefundSettler(SimClock &clock, PaymentStore &store, SimDatabase *db, QObject *parent = nullptr);

    // Settles everything due now and arms the timer for the next settlement; returns how many settled.
    int settleDue();
    // Re-arms (or stops) the timer for the store's next settlement, settling nothing.
    void reschedule();

private:
    SimClock &m_clock;
    PaymentStore &m_store;
    SimDatabase *m_db;
    QTimer m_timer;
};

} // namespace cs::paysim
