#pragma once

#include "client/apicall.h"
#include "ui/chargewindow.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

class QWidget;

namespace cs {

class ApiClient;
struct ActionChange;

// The charge view's workflow (issue 17): opens the ChargeWindow on a charge or payment intent and
// keeps it true. open() reads what Countersign recorded (GET /charges/{id}); Refresh asks the
// provider now (POST /charges/{id}/lookups, recorded as evidence) for roles that may, and reads
// again for the others (auditors); a change of one of the shown actions on the event stream
// reads it again. Every call is asynchronous (no nested event loop): one at a time, a newer one
// abandoning the older. No answer is said as such (offline) and what was shown stays, with its
// age; once the backend answers again, the view is read again.
class ChargeController : public QObject
{
    Q_OBJECT

public:
    // The window is a top-level window of its own, transient for `windowParent`.
    ChargeController(ApiClient *client, QWidget *windowParent, QObject *parent = nullptr);
    ~ChargeController() override;

    ChargeWindow *window() const { return m_window; }
    QString currentId() const;
    bool isBusy() const { return m_call && !m_call->isFinished(); }
    // approver, supervisor and admin ask the provider on Refresh; others read again. Empty (not
    // known yet): asks, and the backend says no if it must.
    void setRole(const QString &role);
    static bool roleMayLookUp(const QString &role);

public slots:
    // Shows the window (raised) on the charge or payment intent and reads it.
    void open(const QString &chargeOrIntentId);
    void reload();   // GET again
    void lookUpNow(); // the Refresh: POST …/lookups, or reload() for a role that may not
    // The event stream: a shown action changed, so the view is read again (soon, once for a burst).
    void onActionChanged(const ActionChange &change);
    // Another backend or user: the window closes and forgets its charge.
    void clear();

signals:
    // Double-click (or Enter) on one of its actions.
    void actionActivated(const QString &actionId);
    void statusMessage(const QString &text, int timeoutMs);

private:
    void send(ApiCall *call, bool lookup);
    void onConnectionState();

    ApiClient *m_client;
    QPointer<ChargeWindow> m_window; // its parent widget may delete it first
    QString m_role;
    QPointer<ApiCall> m_call;
    bool m_lost = false;   // the current call's answer was lost (the backend away)
    bool m_offline = false; // the last call got no answer: read again once the backend answers
    QTimer m_reload;        // a burst of changes reads once
};

} // namespace cs
