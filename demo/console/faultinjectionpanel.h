#pragma once

#include <QDockWidget>
#include <QJsonArray>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QUrl>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace cs {

// Demo mode only: sets paysim's fault rules by hand (docs/PAYSIM.md, "Fault rules") through its
// admin API (/_sim/faults, loopback, no authentication) with its own QNetworkAccessManager — the
// console's ApiClient never talks to the provider.
class FaultInjectionPanel : public QDockWidget
{
    Q_OBJECT

public:
    explicit FaultInjectionPanel(QWidget *parent = nullptr);

    void setPaysimUrl(const QUrl &url);
    QUrl paysimUrl() const { return m_url; }

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
    void send(const QByteArray &verb, const QString &path, const QJsonObject &body = QJsonObject());
    void showRules(const QJsonArray &rules);

    QNetworkAccessManager m_nam;
    QUrl m_url;
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
