#include "simulator/refundsettler.h"

#include "simulator/paymentstore.h"
#include "simulator/paysimlog.h"
#include "simulator/simclock.h"
#include "simulator/simdatabase.h"

#include <algorithm>

namespace cs::paysim {

namespace {

// The timer is re-armed at least this often, so a far settlement never needs a huge interval.
constexpr qint64 MaxTimerMs = 3600LL * 1000;

} // namespace

RefundSettler::RefundSettler(SimClock &clock, PaymentStore &store, SimDatabase *db, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_store(store)
    , m_db(db)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] { settleDue(); });
}

int RefundSettler::settleDue()
{
    int settled = 0;
    if (m_store.nextSettlementMs() != 0 && m_store.nextSettlementMs() <= m_clock.nowMs()) {
        SimDatabase::Transaction transaction(m_db);
        settled = m_store.settleDue(m_clock.nowMs());
        transaction.commit();
        qCDebug(lcPaysim) << "settled" << settled << "pending refunds";
    }
    reschedule();
    return settled;
}

void RefundSettler::reschedule()
{
    const qint64 next = m_store.nextSettlementMs();
    if (next == 0) {
        m_timer.stop();
        return;
    }
    // The simulator clock runs at wall-clock speed between jumps, so the wait is the difference.
    m_timer.start(std::chrono::milliseconds(std::clamp<qint64>(next - m_clock.nowMs(), 0, MaxTimerMs)));
}

} // namespace cs::paysim
