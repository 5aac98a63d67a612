#include "lifecycle/servicenotify.h"

#include <QtGlobal>

#include <cstring>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace cs::ServiceNotify {

bool send(const QByteArray &state)
{
    const QByteArray target = qgetenv("NOTIFY_SOCKET");
    if (target.isEmpty())
        return true;
    sockaddr_un address {};
    address.sun_family = AF_UNIX;
    if (target.size() >= qsizetype(sizeof(address.sun_path)) || (target.at(0) != '/' && target.at(0) != '@'))
        return false;
    std::memcpy(address.sun_path, target.constData(), size_t(target.size()));
    if (address.sun_path[0] == '@')
        address.sun_path[0] = '\0'; // the abstract namespace
    const socklen_t length = socklen_t(offsetof(sockaddr_un, sun_path) + size_t(target.size()));
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    const ssize_t sent = ::sendto(fd, state.constData(), size_t(state.size()), MSG_NOSIGNAL,
                                  reinterpret_cast<const sockaddr *>(&address), length);
    ::close(fd);
    return sent == state.size();
}

bool ready(const QByteArray &status)
{
    QByteArray state = "READY=1\nSTATUS=";
    state += status;
    return send(state);
}

bool stopping()
{
    return send("STOPPING=1\nSTATUS=draining");
}

} // namespace cs::ServiceNotify
