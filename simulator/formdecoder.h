#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace cs::paysim {

// Decodes application/x-www-form-urlencoded bodies the way Stripe's API reads them:
// "metadata[order]=4821" becomes {"metadata": {"order": "4821"}}, "expand[]=a&expand[]=b" and
// "expand[0]=a&expand[1]=b" become arrays, any depth up to MaxDepth. Leaves are strings; a key
// repeated as a leaf keeps its last value. Malformed input (bad percent escape, unbalanced
// brackets, a key used both as a leaf and as a container) is an error, never a guess.
class FormDecoder
{
public:
    static constexpr int MaxDepth = 8;
    static constexpr int MaxPairs = 1000;

    static std::optional<QJsonObject> decode(const QByteArray &body, QString *error);
    // Percent-decodes one component ('+' is a space); nullopt on a malformed escape.
    static std::optional<QString> decodeComponent(QByteArrayView raw);
    // The inverse, for tests and the webhook sender: flat key/value pairs, no nesting.
    static QByteArray encode(const QList<QPair<QString, QString>> &pairs);
};

} // namespace cs::paysim
