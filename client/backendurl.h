#pragma once

#include <QLatin1String>
#include <QString>
#include <QUrl>

namespace cs {

// The backend's root as the console's clients keep it: the URL as given (http or https), without
// trailing slashes and without a trailing /api/v1, which the clients append to every path. So
// "https://h:8470/", "https://h:8470/api/v1" and "https://h:8470" all name the same backend.
inline QUrl backendRoot(QUrl url)
{
    QString path = url.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    if (path.endsWith(QLatin1String("/api/v1")))
        path.chop(7);
    url.setPath(path);
    return url;
}

} // namespace cs
