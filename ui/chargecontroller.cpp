#include "ui/chargecontroller.h"
#include "client/apiclient.h"
#include "models/actionchange.h"
#include "models/chargeoverview.h"
#include "ui/chargewindow.h"
#include "ui/uilog.h"

namespace cs {

ChargeController::ChargeController(ApiClient *client, QWidget *windowParent, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_window(new ChargeWindow(windowParent))
{
    connect(m_window, &ChargeWindow::refreshRequested, this, &ChargeController::lookUpNow);
    connect(m_window, &ChargeWindow::actionActivated, this, &ChargeController::actionActivated);
    connect(m_client, &ApiClient::connectionStateChanged, this, &ChargeController::onConnectionState);
    m_reload.setSingleShot(true);
    m_reload.setInterval(200);
    connect(&m_reload, &QTimer::timeout, this, &ChargeController::reload);
}

ChargeController::~ChargeController()
{
    if (m_call && !m_call->isFinished())
        m_call->abandon();
    delete m_window.data(); // unless its parent widget deleted it already
}

QString ChargeController::currentId() const
{
    return m_window->targetId();
}

bool ChargeController::roleMayLookUp(const QString &role)
{
    return role.isEmpty() || role == QLatin1String("approver") || role == QLatin1String("supervisor")
        || role == QLatin1String("admin");
}

void ChargeController::setRole(const QString &role)
{
    m_role = role;
    m_window->setCanLookUp(roleMayLookUp(role));
}

void ChargeController::open(const QString &chargeOrIntentId)
{
    if (chargeOrIntentId.isEmpty())
        return;
    if (chargeOrIntentId != m_window->targetId() || !m_window->overview())
        m_window->showLoading(chargeOrIntentId);
    m_window->show();
    m_window->raise();
    m_window->activateWindow();
    reload();
}

void ChargeController::reload()
{
    if (m_window->targetId().isEmpty())
        return;
    m_window->setLoading();
    send(m_client->charge(m_window->targetId()), false);
}

void ChargeController::lookUpNow()
{
    if (m_window->targetId().isEmpty())
        return;
    if (!roleMayLookUp(m_role)) {
        reload();
        return;
    }
    m_window->setLookingUp();
    send(m_client->lookUpCharge(m_window->targetId()), true);
}

void ChargeController::send(ApiCall *call, bool lookup)
{
    if (m_call && !m_call->isFinished())
        m_call->abandon(); // the newer question wins; its answer is the one shown
    m_call = call;
    m_lost = false;
    const QString id = m_window->targetId();
    // A look-up changes no action: not worth resending while someone waits for it. Its first
    // answer that is not a success (the provider's 502, the backend away) is said as it is.
    connect(call, &ApiCall::resending, this, [this, call](int, const ApiError &error) {
        if (call != m_call)
            return;
        m_lost = error.responseLost();
        if (m_lost)
            m_window->setOffline(error.userText());
        else
            m_window->setFailed(error.userText());
        // Not from inside the signal: the client schedules the resend after emitting it.
        QMetaObject::invokeMethod(call, &ApiCall::abandon, Qt::QueuedConnection);
    });
    connect(call, &ApiCall::finished, this, [this, id, lookup](ApiCall *c) {
        if (c != m_call || id != m_window->targetId())
            return; // a newer call, or another charge
        const ApiResponse &response = c->response();
        if (response.error.kind == ApiError::Kind::Cancelled) {
            m_offline = m_lost;
            return; // abandoned: already said why (or a newer call speaks)
        }
        if (!response.ok()) {
            m_offline = response.error.responseLost();
            if (m_offline)
                m_window->setOffline(response.error.userText());
            else
                m_window->setFailed(response.error.userText());
            qCInfo(lcUi) << "charge" << id << (lookup ? "look-up" : "read") << "failed:" << response.error.userText();
            return;
        }
        m_offline = false;
        QString problem;
        const std::optional<ChargeOverview> overview = ChargeOverview::fromJson(response.object(), &problem);
        if (!overview) {
            m_window->setFailed(tr("the backend's answer could not be read (%1)").arg(problem));
            return;
        }
        m_window->setOverview(*overview);
        if (lookup)
            emit statusMessage(tr("Charge %1 read from the provider and recorded.").arg(overview->shownId()), 5000);
    });
}

void ChargeController::onConnectionState()
{
    if (m_offline && m_window->isVisible() && m_client->connectionState() == ApiClient::ConnectionState::Online)
        reload();
}

void ChargeController::onActionChanged(const ActionChange &change)
{
    if (!m_window->isVisible() || !m_window->overview())
        return;
    for (const ActionSummary &a : m_window->overview()->actions) {
        if (a.id() == change.actionId) {
            if (!isBusy())
                m_reload.start();
            return;
        }
    }
}

void ChargeController::clear()
{
    if (m_call && !m_call->isFinished())
        m_call->abandon();
    m_reload.stop();
    m_offline = false;
    m_window->close();
    m_window->showLoading(QString());
}

} // namespace cs
