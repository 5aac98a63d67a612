#include "simulator/formdecoder.h"

#include <QJsonArray>
#include <QStringList>
#include <QUrl>

#include <map>
#include <memory>
#include <vector>

namespace cs::paysim {

namespace {

struct Node
{
    enum class Kind { Empty, Leaf, Map, List };
    Kind kind = Kind::Empty;
    QString value;
    std::map<QString, std::unique_ptr<Node>> children; // Map
    std::vector<std::unique_ptr<Node>> items;          // List
};

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool splitKey(const QString &key, QStringList *segments, QString *error)
{
    const qsizetype open = key.indexOf(u'[');
    const QString base = open < 0 ? key : key.left(open);
    if (base.isEmpty()) {
        *error = QStringLiteral("a parameter name is empty");
        return false;
    }
    if (base.contains(u']')) {
        *error = QStringLiteral("unbalanced brackets in '%1'").arg(key);
        return false;
    }
    segments->append(base);
    qsizetype i = open;
    while (i >= 0 && i < key.size()) {
        if (key.at(i) != u'[') {
            *error = QStringLiteral("unexpected text after ']' in '%1'").arg(key);
            return false;
        }
        const qsizetype close = key.indexOf(u']', i + 1);
        if (close < 0) {
            *error = QStringLiteral("unbalanced brackets in '%1'").arg(key);
            return false;
        }
        const QString segment = key.mid(i + 1, close - i - 1);
        if (segment.contains(u'[')) {
            *error = QStringLiteral("unbalanced brackets in '%1'").arg(key);
            return false;
        }
        segments->append(segment);
        i = close + 1;
    }
    if (segments->size() > FormDecoder::MaxDepth) {
        *error = QStringLiteral("'%1' is nested deeper than %2 levels").arg(key).arg(FormDecoder::MaxDepth);
        return false;
    }
    return true;
}

bool insert(Node *root, const QStringList &segments, const QString &value, const QString &key, QString *error)
{
    Node *node = root;
    for (qsizetype i = 0; i < segments.size(); ++i) {
        const QString &segment = segments[i];
        const bool last = i == segments.size() - 1;
        if (segment.isEmpty()) { // "[]": append
            if (!last) {
                *error = QStringLiteral("'%1': '[]' may only end a parameter name").arg(key);
                return false;
            }
            if (node->kind == Node::Kind::Empty)
                node->kind = Node::Kind::List;
            if (node->kind != Node::Kind::List) {
                *error = QStringLiteral("'%1' mixes list and non-list values").arg(key);
                return false;
            }
            auto leaf = std::make_unique<Node>();
            leaf->kind = Node::Kind::Leaf;
            leaf->value = value;
            node->items.push_back(std::move(leaf));
            return true;
        }
        if (node->kind == Node::Kind::Empty)
            node->kind = Node::Kind::Map;
        if (node->kind != Node::Kind::Map) {
            *error = QStringLiteral("'%1' is used both as a value and as a container").arg(key);
            return false;
        }
        auto &child = node->children[segment];
        if (!child)
            child = std::make_unique<Node>();
        node = child.get();
        if (last) {
            if (node->kind == Node::Kind::Map || node->kind == Node::Kind::List) {
                *error = QStringLiteral("'%1' is used both as a value and as a container").arg(key);
                return false;
            }
            node->kind = Node::Kind::Leaf;
            node->value = value;
        } else if (node->kind == Node::Kind::Leaf) {
            *error = QStringLiteral("'%1' is used both as a value and as a container").arg(key);
            return false;
        }
    }
    return true;
}

QJsonValue toJson(const Node &node);

QJsonObject objectOf(const Node &map)
{
    QJsonObject o;
    for (const auto &[k, child] : map.children)
        o.insert(k, toJson(*child));
    return o;
}

QJsonValue toJson(const Node &node)
{
    switch (node.kind) {
    case Node::Kind::Empty:
        return QJsonValue(QString());
    case Node::Kind::Leaf:
        return QJsonValue(node.value);
    case Node::Kind::List: {
        QJsonArray a;
        for (const auto &item : node.items)
            a.append(toJson(*item));
        return a;
    }
    case Node::Kind::Map: {
        // "x[0]=a&x[1]=b" is how stripe-node sends arrays: keys 0..n-1 make a list.
        bool indexed = !node.children.empty();
        for (size_t i = 0; indexed && i < node.children.size(); ++i)
            indexed = node.children.count(QString::number(i)) == 1;
        if (indexed) {
            QJsonArray a;
            for (size_t i = 0; i < node.children.size(); ++i)
                a.append(toJson(*node.children.at(QString::number(i))));
            return a;
        }
        return objectOf(node);
    }
    }
    return {};
}

} // namespace

std::optional<QString> FormDecoder::decodeComponent(QByteArrayView raw)
{
    QByteArray bytes;
    bytes.reserve(raw.size());
    for (qsizetype i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c == '+') {
            bytes.append(' ');
        } else if (c == '%') {
            if (i + 2 >= raw.size())
                return std::nullopt;
            const int hi = hexValue(raw[i + 1]);
            const int lo = hexValue(raw[i + 2]);
            if (hi < 0 || lo < 0)
                return std::nullopt;
            bytes.append(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else {
            bytes.append(c);
        }
    }
    return QString::fromUtf8(bytes);
}

std::optional<QJsonObject> FormDecoder::decode(const QByteArray &body, QString *error)
{
    QString localError;
    QString *err = error ? error : &localError;
    Node root;
    root.kind = Node::Kind::Map;
    int pairs = 0;
    for (const QByteArray &pair : body.split('&')) {
        if (pair.isEmpty())
            continue;
        if (++pairs > MaxPairs) {
            *err = QStringLiteral("more than %1 parameters").arg(MaxPairs);
            return std::nullopt;
        }
        const qsizetype eq = pair.indexOf('=');
        const QByteArrayView rawKey = eq < 0 ? QByteArrayView(pair) : QByteArrayView(pair).first(eq);
        const QByteArrayView rawValue = eq < 0 ? QByteArrayView() : QByteArrayView(pair).sliced(eq + 1);
        const auto key = decodeComponent(rawKey);
        const auto value = decodeComponent(rawValue);
        if (!key || !value) {
            *err = QStringLiteral("malformed percent-encoding in '%1'").arg(QString::fromLatin1(pair.left(80)));
            return std::nullopt;
        }
        QStringList segments;
        if (!splitKey(*key, &segments, err))
            return std::nullopt;
        if (!insert(&root, segments, *value, *key, err))
            return std::nullopt;
    }
    // The top level is always an object: "0=a&1=b" names two parameters, it is not a list.
    return objectOf(root);
}

QByteArray FormDecoder::encode(const QList<QPair<QString, QString>> &pairs)
{
    QByteArray out;
    for (const auto &p : pairs) {
        if (!out.isEmpty())
            out += '&';
        out += QUrl::toPercentEncoding(p.first, "[]") + '=' + QUrl::toPercentEncoding(p.second);
    }
    return out;
}

} // namespace cs::paysim
