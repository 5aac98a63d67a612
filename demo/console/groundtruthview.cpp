#include "demo/console/groundtruthview.h"

#include "client/apiclient.h"

#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QTableWidget>
#include <QVBoxLayout>

namespace cs {

namespace {

QString actionIdOf(const QJsonObject &refund)
{
    return refund.value(QLatin1String("metadata")).toObject().value(QLatin1String("countersign_action_id")).toString();
}

// The refund the ledger believes it made: the newest provider object named by an attempt or a
// lookup.
QString ledgerObjectOf(const QJsonObject &action)
{
    QString id;
    for (const char *list : { "attempts", "lookups" }) {
        const QJsonArray items = action.value(QLatin1String(list)).toArray();
        for (const auto &v : items) {
            const QString object = v.toObject().value(QLatin1String("provider_object_id")).toString();
            if (!object.isEmpty())
                id = object;
        }
    }
    return id;
}

} // namespace

GroundTruthView::GroundTruthView(ApiClient *client, QWidget *parent)
    : QDockWidget(tr("Ground truth"), parent)
    , m_client(client)
{
    setObjectName(QStringLiteral("groundTruthDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    m_summary = new QLabel(tr("What the provider holds, next to what the ledger says."), body);
    m_summary->setWordWrap(true);
    m_table = new QTableWidget(0, ColCount, body);
    m_table->setObjectName(QStringLiteral("groundTruthTable"));
    m_table->setAccessibleName(tr("Provider refunds next to the ledger"));
    m_table->setHorizontalHeaderLabels({ tr("Provider refund"), tr("Charge"), tr("Amount"), tr("Idempotency key"),
                                         tr("Action"), tr("Created"), tr("Ledger state"), tr("Ledger's refund"),
                                         tr("Agrees?") });
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto *refreshButton = new QPushButton(tr("Refresh"), body);
    refreshButton->setAccessibleName(tr("Refresh the ground truth"));
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(refreshButton, 0, Qt::AlignRight);
    setWidget(body);

    connect(refreshButton, &QPushButton::clicked, this, &GroundTruthView::refresh);
    m_timer.setInterval(3000);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (isVisible())
            refresh();
    });
}

void GroundTruthView::setPaysimUrl(const QUrl &url)
{
    m_paysim.setBaseUrl(url);
    m_timer.start();
    refresh();
}

void GroundTruthView::refresh()
{
    if (!m_paysim.baseUrl().isValid() || m_busy)
        return;
    m_busy = true;
    m_paysim.refunds([this](const demo::HttpReply &reply) {
        if (!reply.error.isEmpty()) {
            m_busy = false;
            m_summary->setText(tr("paysim did not answer: %1").arg(reply.error));
            emit refreshed();
            return;
        }
        onRefunds(demo::PaysimAdminClient::dataOf(reply));
    });
}

void GroundTruthView::onRefunds(const QJsonArray &refunds)
{
    m_refunds = refunds;
    m_ledger.clear();
    QSet<QString> actions;
    for (const auto &v : refunds) {
        const QString id = actionIdOf(v.toObject());
        if (!id.isEmpty())
            actions.insert(id);
    }
    m_pending = int(actions.size());
    if (m_pending == 0) {
        fill();
        return;
    }
    for (const QString &id : std::as_const(actions)) {
        ApiCall *call = m_client->action(id);
        connect(call, &ApiCall::finished, this, [this, id](ApiCall *c) {
            m_ledger.insert(id, c->response().ok() ? c->response().object() : QJsonObject());
            if (--m_pending == 0)
                fill();
        });
    }
}

void GroundTruthView::fill()
{
    m_busy = false;
    QHash<QString, int> perAction;
    for (const auto &v : std::as_const(m_refunds))
        ++perAction[actionIdOf(v.toObject())];

    const QColor bad(0xf6, 0xd0, 0xd0);
    const QColor unsure(0xfb, 0xec, 0xc2);
    m_mismatches = 0;
    m_table->setRowCount(int(m_refunds.size()));
    for (int row = 0; row < m_refunds.size(); ++row) {
        const QJsonObject r = m_refunds.at(row).toObject();
        const QString refundId = r.value(QLatin1String("id")).toString();
        const QString actionId = actionIdOf(r);
        const QJsonObject action = m_ledger.value(actionId);
        const QString state = action.value(QLatin1String("state")).toString();
        const QString ledgerObject = ledgerObjectOf(action);

        QString verdict;
        QColor color;
        if (actionId.isEmpty()) {
            verdict = tr("No action claims this refund");
            color = bad;
        } else if (perAction.value(actionId) > 1) {
            verdict = tr("Provider holds %1 refunds for one action").arg(perAction.value(actionId));
            color = bad;
        } else if (action.isEmpty()) {
            verdict = tr("The ledger has no such action");
            color = bad;
        } else if (state == QLatin1String("REJECTED")) {
            verdict = tr("Ledger says rejected, provider refunded");
            color = bad;
        } else if (state == QLatin1String("COMPLETED")) {
            if (!ledgerObject.isEmpty() && ledgerObject != refundId) {
                verdict = tr("Ledger names another refund");
                color = bad;
            } else {
                verdict = tr("Agrees");
            }
        } else {
            verdict = tr("Ledger does not know yet (%1)").arg(state);
            color = unsure;
        }
        if (color == bad)
            ++m_mismatches;

        const qint64 created = r.value(QLatin1String("created")).toVariant().toLongLong();
        const QStringList cells = {
            refundId,
            r.value(QLatin1String("charge")).toString(),
            QStringLiteral("%1 %2").arg(r.value(QLatin1String("amount")).toVariant().toLongLong()).arg(r.value(QLatin1String("currency")).toString()),
            r.value(QLatin1String("idempotency_key")).toString(),
            actionId,
            created > 0 ? QDateTime::fromSecsSinceEpoch(created).toString(QStringLiteral("HH:mm:ss")) : QString(),
            state,
            ledgerObject,
            verdict,
        };
        for (int column = 0; column < ColCount; ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            if (color.isValid()) {
                item->setBackground(color);
                item->setForeground(QColor(0x20, 0x20, 0x20));
            }
            item->setToolTip(verdict);
            m_table->setItem(row, column, item);
        }
    }
    m_table->resizeColumnsToContents();
    m_summary->setText(m_mismatches == 0
                           ? tr("%n provider refund(s); the ledger agrees with each.", nullptr, int(m_refunds.size()))
                           : tr("%n provider refund(s); %1 disagree with the ledger.", nullptr, int(m_refunds.size())).arg(m_mismatches));
    emit refreshed();
}

} // namespace cs
