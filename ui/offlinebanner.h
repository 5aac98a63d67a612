#pragma once

#include <QFrame>
#include <QTimer>

class QLabel;
class QPushButton;

namespace cs {

// A clear banner across the top of the window while the backend is unreachable: what is
// happening (reconnecting, when), that open dialogs keep their input and that decisions waiting
// to be sent will be resent with the same Idempotency-Key; "Retry now". When the backend's TLS
// certificate is not trusted it says so, and why, instead of only "does not answer".
class OfflineBanner : public QFrame
{
    Q_OBJECT

public:
    explicit OfflineBanner(QWidget *parent = nullptr);

    // `problem`: why it does not answer, when known (ApiClient::lastTransportError). A refused
    // certificate ("certificate not trusted: …") is said plainly, with what to do about it.
    void showOffline(const QString &backend, int pendingDecisions, const QString &problem = QString());
    void setPendingDecisions(int count);
    // The backend is the console's own (demo mode): it does not come back by itself, so the banner
    // says so and offers to restart it (restartRequested) instead of "Retry now".
    void setRestartOffer(bool offer);
    void hideBanner();
    QString text() const;

signals:
    void retryRequested();
    void restartRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void updateText();
    void applyColours();

    QLabel *m_text;
    QPushButton *m_retry;
    QString m_backend;
    QString m_problem;
    int m_pending = 0;
    bool m_restartOffer = false;
    QTimer m_clock;
    qint64 m_since = 0;
};

} // namespace cs
