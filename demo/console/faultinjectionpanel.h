#pragma once

#include "demo/paysimadmin.h"

#include <QDockWidget>
#include <QJsonArray>
#include <QJsonObject>
#include <QUrl>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace cs {

// Demo mode only: sets paysim's fault rules by hand (docs/PAYSIM.md, "Fault rules") through its
// admin API (/_sim/faults, loopback, no authentication) through the demo's PaysimAdminClient — the
// console's ApiClient never talks to the provider.
class FaultInjectionPanel : public QDockWidget
{
    Q_OBJECT

public:
    explicit FaultInjectionPanel(QWidget *parent = nullptr);

    void setPaysimUrl(const QUrl &url);
    QUrl paysimUrl() const { return m_paysim.baseUrl(); }

    // The documented fault names, in the documentation's order.
    static QStringList faultNames();
    // The rule the form describes, as POST /_sim/faults takes it.
    QJsonObject ruleFromForm() const;
    // Form fields, for tests and keyboard users.
    QComboBox *methodBox() const { return m_method; }
    QLineEdit *pathEdit() const { return m_path; }
    QComboBox *faultBox() const { return m_fault; }
    QSpinBox *nthBox() const { return m_nth; }
    QSpinBox *timesBox() const { return m_times; }
    QDoubleSpinBox *probabilityBox() const { return m_probability; }
    QSpinBox *delayBox() const { return m_delay; }
    QTableWidget *rulesTable() const { return m_rules; }
    QJsonArray rules() const { return m_ruleList; }

public slots:
    void addRule();
    void refresh();
    void deleteSelected();
    void clearAll();

signals:
    void rulesChanged();
    void rulesShown();
    void failed(const QString &message);

private:
    // paysim's answer to a change (isChange) or to GET /_sim/faults.
    void onAnswer(const demo::HttpReply &reply, bool isChange);
    void showRules(const QJsonArray &rules);

    demo::PaysimAdminClient m_paysim;
    QComboBox *m_method;
    QLineEdit *m_path;
    QComboBox *m_fault;
    QSpinBox *m_nth;
    QSpinBox *m_times;
    QDoubleSpinBox *m_probability;
    QSpinBox *m_delay;
    QTableWidget *m_rules;
    QLabel *m_status;
    QJsonArray m_ruleList;
};

} // namespace cs
