#pragma once

#include <QDialog>
#include <QUrl>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace cs {

// The connection profile: the backend URL and the bearer token, whether to remember the token
// (system keychain when available, else a file only the user can read), and a "Test" that asks
// the backend who the token belongs to.
class ConnectionDialog : public QDialog
{
    Q_OBJECT

public:
    explicit ConnectionDialog(QWidget *parent = nullptr);

    void setBackends(const QStringList &recent, const QString &current);
    void setToken(const QString &token);
    void setRemember(bool remember);
    void setStorageNote(const QString &note);

    QUrl backendUrl() const;
    QString token() const;
    bool remember() const;
    // Shows the outcome of a test ("ana, approver" or the error).
    void setTestResult(bool ok, const QString &text);

signals:
    void testRequested(const QUrl &url, const QString &token);

private:
    void validate();

    QComboBox *m_url;
    QLineEdit *m_token;
    QCheckBox *m_remember;
    QLabel *m_storage;
    QLabel *m_result;
    QPushButton *m_test;
    QPushButton *m_ok;
};

} // namespace cs
