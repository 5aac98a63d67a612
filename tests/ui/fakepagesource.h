#pragma once

// A test double of cs::ActionPageSource: an in-memory ledger answering on the next event-loop
// turn in the query's order (as the backend sorts), with a switch to make it fail. Cursors are
// row offsets.

#include "models/actionpagesource.h"

#include <QTimer>

#include <algorithm>

class FakePageSource : public cs::ActionPageSource
{
    Q_OBJECT

public:
    using ActionPageSource::ActionPageSource;

    QList<cs::ActionSummary> ledger; // newest first
    bool failing = false;
    int pageRequests = 0;
    int summaryRequests = 0;
    QList<int> limits;
    QList<cs::ActionQuery> queries; // of every page request

    static cs::ActionSummary make(int n, cs::ActionState state = cs::ActionState::Pending,
                                  qint64 amount = 4000, const QString &currency = QStringLiteral("usd"))
    {
        cs::ActionSummary s;
        s.record.id = QStringLiteral("act_%1").arg(n, 24, 10, QLatin1Char('a'));
        s.record.targetId = QStringLiteral("ch_%1").arg(n);
        s.record.businessReference = QStringLiteral("order-%1").arg(n);
        s.record.requestedBy = n % 2 ? QStringLiteral("agent-odd") : QStringLiteral("agent-even");
        s.record.amount = amount;
        s.record.currency = currency;
        s.record.state = state;
        s.record.stateVersion = 1;
        s.record.createdAt = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).addSecs(n * 60);
        s.record.updatedAt = s.record.createdAt;
        s.lastEventAt = s.record.createdAt;
        return s;
    }

    // n rows, the newest (highest n) first.
    void fill(int n, cs::ActionState state = cs::ActionState::Pending)
    {
        ledger.clear();
        for (int i = n; i >= 1; --i)
            ledger.append(make(i, state));
    }

    QList<cs::ActionSummary> matching(const cs::ActionQuery &query) const
    {
        QList<cs::ActionSummary> rows;
        for (const cs::ActionSummary &s : ledger) {
            if (query.matches(s))
                rows.append(s);
        }
        std::stable_sort(rows.begin(), rows.end(),
                         [&](const cs::ActionSummary &a, const cs::ActionSummary &b) { return query.before(a, b); });
        return rows;
    }

    quint64 requestPage(const cs::ActionQuery &query, const QString &cursor, int limit) override
    {
        ++pageRequests;
        limits.append(limit);
        queries.append(query);
        const quint64 ticket = ++m_next;
        QTimer::singleShot(0, this, [=, this] {
            if (failing) {
                emit pageFailed(ticket, QStringLiteral("backend unreachable"));
                return;
            }
            const QList<cs::ActionSummary> rows = matching(query);
            const int offset = cursor.isEmpty() ? 0 : cursor.toInt();
            cs::ActionPage page;
            page.rows = rows.mid(offset, limit);
            if (offset + limit < rows.size())
                page.nextCursor = QString::number(offset + limit);
            for (const cs::ActionSummary &s : ledger) {
                page.counts.setCount(s.record.state, page.counts.count(s.record.state) + 1);
                if (s.settlementReview)
                    page.counts.setSettlementReview(page.counts.settlementReview() + 1);
            }
            emit pageReady(ticket, page);
        });
        return ticket;
    }

    quint64 requestSummary(const QString &actionId) override
    {
        ++summaryRequests;
        const quint64 ticket = ++m_next;
        QTimer::singleShot(0, this, [=, this] {
            for (const cs::ActionSummary &s : ledger) {
                if (s.record.id == actionId) {
                    emit summaryReady(ticket, s);
                    return;
                }
            }
            emit summaryFailed(ticket, actionId, true, QStringLiteral("not found"));
        });
        return ticket;
    }

    cs::ActionSummary *find(const QString &id)
    {
        for (cs::ActionSummary &s : ledger) {
            if (s.record.id == id)
                return &s;
        }
        return nullptr;
    }

private:
    quint64 m_next = 0;
};
