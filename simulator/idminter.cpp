#include "simulator/idminter.h"

#include <QCryptographicHash>

namespace cs::paysim {

IdMinter::IdMinter(quint64 seed)
    : m_seed(seed)
{
}

QString IdMinter::mint(const QString &prefix, int length)
{
    static constexpr char Alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const QByteArray material = QByteArray::number(m_seed) + ':' + QByteArray::number(++m_counter);
    const QByteArray digest = QCryptographicHash::hash(material, QCryptographicHash::Sha256);
    QString id = prefix;
    for (int i = 0; i < length; ++i)
        id.append(QLatin1Char(Alphabet[static_cast<unsigned char>(digest.at(i % digest.size())) % 62]));
    return id;
}

} // namespace cs::paysim
