#pragma once

// GUI tests run on the offscreen platform, whose plugin warns about every dialog it cannot size
// natively ("propagateSizeHints"). That is noise; every other message still goes through.
// Call installQuietOffscreen() once, in initTestCase().

#include <QString>
#include <QtGlobal>

namespace cs::testsupport {

inline QtMessageHandler &previousMessageHandler()
{
    static QtMessageHandler handler = nullptr;
    return handler;
}

inline void quietOffscreen(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (message.contains(QLatin1String("propagateSizeHints")))
        return;
    if (QtMessageHandler previous = previousMessageHandler())
        previous(type, context, message);
}

inline void installQuietOffscreen()
{
    previousMessageHandler() = qInstallMessageHandler(quietOffscreen);
}

} // namespace cs::testsupport
