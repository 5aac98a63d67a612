#pragma once

#include <QByteArray>

namespace cs {

// systemd's readiness protocol (sd_notify(3)) without libsystemd: one datagram to the AF_UNIX
// socket named by $NOTIFY_SOCKET (a path, or "@name" in the abstract namespace). Without the
// variable (not started by systemd with Type=notify) every call does nothing. countersignd
// sends READY=1 once it listens and its executor runs, STOPPING=1 when a drain begins.
namespace ServiceNotify {

// Sends state (e.g. "READY=1\nSTATUS=listening on …"); false when NOTIFY_SOCKET is set but the
// datagram could not be sent, true otherwise.
bool send(const QByteArray &state);
// READY=1 with a STATUS line (what systemctl status shows).
bool ready(const QByteArray &status);
// STOPPING=1: a drain began.
bool stopping();

} // namespace ServiceNotify

} // namespace cs
