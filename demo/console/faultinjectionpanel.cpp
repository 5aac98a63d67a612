#include "demo/console/faultinjectionpanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace cs {

namespace {
enum Column { ColId, ColMethod, ColPath, ColFault, ColNth, ColTimes, ColProbability, ColDelay, ColMatched, ColFired, ColCount };
}

FaultInjectionPanel::FaultInjectionPanel(QWidget *parent)
    : QDockWidget(tr("Fault injection"), parent)
{
    setObjectName(QStringLiteral("faultDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    auto *form = new QFormLayout;

    m_method = new QComboBox(body);
    m_method->addItems({ QStringLiteral("POST"), QStringLiteral("GET"), QStringLiteral("*") });
    m_method->setAccessibleName(tr("HTTP method"));
    m_path = new QLineEdit(QStringLiteral("/v1/refunds"), body);
    m_path->setAccessibleName(tr("Path"));
    m_path->setToolTip(tr("Exact path, a prefix ending in *, or * for any"));
    m_fault = new QComboBox(body);
    m_fault->addItems(faultNames());
    m_fault->setAccessibleName(tr("Fault"));
    m_nth = new QSpinBox(body);
    m_nth->setRange(1, 1000000);
    m_nth->setAccessibleName(tr("First matching request that may fire"));
    m_times = new QSpinBox(body);
    m_times->setRange(0, 1000000);
    m_times->setValue(1);
    m_times->setSpecialValueText(tr("unlimited"));
    m_times->setAccessibleName(tr("How many times it fires"));
    m_probability = new QDoubleSpinBox(body);
    m_probability->setRange(0.0, 1.0);
    m_probability->setSingleStep(0.1);
    m_probability->setDecimals(2);
    m_probability->setValue(1.0);
    m_probability->setAccessibleName(tr("Probability"));
    m_delay = new QSpinBox(body);
    m_delay->setRange(0, 3600000);
    m_delay->setSingleStep(500);
    m_delay->setSuffix(tr(" ms"));
    m_delay->setAccessibleName(tr("Delay in milliseconds"));
    form->addRow(tr("&Method"), m_method);
    form->addRow(tr("&Path"), m_path);
    form->addRow(tr("&Fault"), m_fault);
    form->addRow(tr("&Nth match"), m_nth);
    form->addRow(tr("&Times"), m_times);
    form->addRow(tr("P&robability"), m_probability);
    form->addRow(tr("&Delay"), m_delay);
    layout->addLayout(form);

    auto *add = new QPushButton(tr("Add rule"), body);
    add->setObjectName(QStringLiteral("addFaultRule"));
    add->setAccessibleName(tr("Add the fault rule"));
    layout->addWidget(add);

    m_rules = new QTableWidget(0, ColCount, body);
    m_rules->setObjectName(QStringLiteral("faultRules"));
    m_rules->setAccessibleName(tr("Current fault rules"));
    m_rules->setHorizontalHeaderLabels({ tr("Id"), tr("Method"), tr("Path"), tr("Fault"), tr("Nth"), tr("Times"),
                                         tr("Probability"), tr("Delay"), tr("Matched"), tr("Fired") });
    m_rules->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_rules->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_rules->verticalHeader()->hide();
    m_rules->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_rules, 1);

    auto *buttons = new QHBoxLayout;
    auto *refreshButton = new QPushButton(tr("Refresh"), body);
    refreshButton->setAccessibleName(tr("Refresh the fault rules"));
    auto *remove = new QPushButton(tr("Delete"), body);
    remove->setAccessibleName(tr("Delete the selected rule"));
    auto *clear = new QPushButton(tr("Clear all"), body);
    clear->setAccessibleName(tr("Delete every fault rule"));
    buttons->addWidget(refreshButton);
    buttons->addStretch(1);
    buttons->addWidget(remove);
    buttons->addWidget(clear);
    layout->addLayout(buttons);
    m_status = new QLabel(body);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    setWidget(body);

    connect(add, &QPushButton::clicked, this, &FaultInjectionPanel::addRule);
    connect(refreshButton, &QPushButton::clicked, this, &FaultInjectionPanel::refresh);
    connect(remove, &QPushButton::clicked, this, &FaultInjectionPanel::deleteSelected);
    connect(clear, &QPushButton::clicked, this, &FaultInjectionPanel::clearAll);
}

QStringList FaultInjectionPanel::faultNames()
{
    return { QStringLiteral("drop_response_after_commit"), QStringLiteral("delay_before_commit"),
             QStringLiteral("delay_after_commit"),         QStringLiteral("error_500_before_commit"),
             QStringLiteral("error_500_after_commit"),     QStringLiteral("outage_503"),
             QStringLiteral("reset_connection"),           QStringLiteral("rate_limit_429"),
             QStringLiteral("idempotency_error"),          QStringLiteral("lookup_lag"),
             QStringLiteral("clock_advance"),              QStringLiteral("forced_error") };
}

void FaultInjectionPanel::setPaysimUrl(const QUrl &url)
{
    m_paysim.setBaseUrl(url);
    refresh();
}

QJsonObject FaultInjectionPanel::ruleFromForm() const
{
    QJsonObject rule;
    rule.insert(QLatin1String("method"), m_method->currentText());
    rule.insert(QLatin1String("path"), m_path->text().trimmed().isEmpty() ? QStringLiteral("*") : m_path->text().trimmed());
    rule.insert(QLatin1String("fault"), m_fault->currentText());
    rule.insert(QLatin1String("nth"), m_nth->value());
    rule.insert(QLatin1String("times"), m_times->value());
    rule.insert(QLatin1String("probability"), m_probability->value());
    rule.insert(QLatin1String("delay_ms"), m_delay->value());
    return rule;
}

void FaultInjectionPanel::addRule()
{
    m_paysim.addFaults(QJsonArray{ ruleFromForm() }, [this](const demo::HttpReply &reply) { onAnswer(reply, true); });
}

void FaultInjectionPanel::refresh()
{
    m_paysim.faults([this](const demo::HttpReply &reply) { onAnswer(reply, false); });
}

void FaultInjectionPanel::deleteSelected()
{
    const int row = m_rules->currentRow();
    if (row < 0 || !m_rules->item(row, ColId))
        return;
    m_paysim.deleteFault(m_rules->item(row, ColId)->text(), [this](const demo::HttpReply &reply) { onAnswer(reply, true); });
}

void FaultInjectionPanel::clearAll()
{
    m_paysim.clearFaults([this](const demo::HttpReply &reply) { onAnswer(reply, true); });
}

void FaultInjectionPanel::onAnswer(const demo::HttpReply &reply, bool isChange)
{
    if (reply.status < 200 || reply.status >= 300) {
        const QString text = tr("paysim answered %1: %2").arg(reply.status).arg(demo::PaysimAdminClient::errorOf(reply));
        m_status->setText(text);
        emit failed(text);
        return;
    }
    m_status->clear();
    const QJsonObject answer = reply.json();
    if (answer.contains(QLatin1String("rules"))) {
        showRules(answer.value(QLatin1String("rules")).toArray());
        if (isChange)
            emit rulesChanged();
    } else if (isChange) {
        refresh(); // DELETE answers without the list
        emit rulesChanged();
    }
}

void FaultInjectionPanel::showRules(const QJsonArray &rules)
{
    m_ruleList = rules;
    m_rules->setRowCount(int(rules.size()));
    for (int row = 0; row < rules.size(); ++row) {
        const QJsonObject r = rules.at(row).toObject();
        const auto cell = [&](int column, const QString &text) {
            auto *item = new QTableWidgetItem(text);
            m_rules->setItem(row, column, item);
        };
        const auto number = [&r](const char *key) { return r.value(QLatin1String(key)).toVariant().toString(); };
        cell(ColId, number("id"));
        cell(ColMethod, r.value(QLatin1String("method")).toString());
        cell(ColPath, r.value(QLatin1String("path")).toString());
        cell(ColFault, r.value(QLatin1String("fault")).toString());
        cell(ColNth, number("nth"));
        cell(ColTimes, r.value(QLatin1String("times")).toInt() == 0 ? tr("unlimited") : number("times"));
        cell(ColProbability, number("probability"));
        cell(ColDelay, number("delay_ms"));
        cell(ColMatched, number("matched"));
        cell(ColFired, number("fired"));
    }
    m_rules->resizeColumnsToContents();
    emit rulesShown();
}

} // namespace cs
