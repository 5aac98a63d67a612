#include "server/ledger/ledgerwitness.h"
#include "server/ledger/ledgerlog.h"

#include <QByteArray>
#include <QFile>
#include <QList>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace cs {

namespace {

using Code = LedgerError::Code;

constexpr qint64 kSlotBytes = 512;
constexpr qint64 kSlotOffsets[2] = {0, 4096};
constexpr qint64 kFileBytes = 8192;
const QByteArray kMagic = QByteArrayLiteral("countersign-witness 1");

QByteArray slotFor(const LedgerWitness::Head &head)
{
    QByteArray body = kMagic + " seq=" + QByteArray::number(head.seq) + " hash=" + head.hash.toLatin1()
        + " at=" + head.at.toUTC().toString(Qt::ISODateWithMs).toLatin1();
    body += " crc=" + QByteArray::number(qChecksum(body), 16).rightJustified(4, '0') + '\n';
    return body.leftJustified(kSlotBytes, '\0', true);
}

std::optional<LedgerWitness::Head> parseSlot(const QByteArray &slot)
{
    const qsizetype end = slot.indexOf('\n');
    if (end <= 0 || !slot.startsWith(kMagic))
        return std::nullopt;
    const QByteArray line = slot.left(end);
    const qsizetype crcAt = line.lastIndexOf(" crc=");
    if (crcAt < 0)
        return std::nullopt;
    bool ok = false;
    const uint crc = line.mid(crcAt + 5).toUInt(&ok, 16);
    const QByteArray body = line.left(crcAt);
    if (!ok || crc != qChecksum(body))
        return std::nullopt;
    LedgerWitness::Head head;
    bool seqOk = false;
    for (const QByteArray &field : body.mid(kMagic.size()).split(' ')) {
        if (field.startsWith("seq="))
            head.seq = field.mid(4).toLongLong(&seqOk);
        else if (field.startsWith("hash="))
            head.hash = QString::fromLatin1(field.mid(5));
        else if (field.startsWith("at="))
            head.at = QDateTime::fromString(QString::fromLatin1(field.mid(3)), Qt::ISODateWithMs);
    }
    if (!seqOk || head.seq < 0 || (head.seq > 0 && head.hash.isEmpty()))
        return std::nullopt;
    return head;
}

QString systemError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

bool writeAll(int fd, const QByteArray &bytes, qint64 offset)
{
    qint64 done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::pwrite(fd, bytes.constData() + done, size_t(bytes.size() - done), off_t(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += n;
    }
    return true;
}

QString shortHash(const QString &hash)
{
    return hash.isEmpty() ? QStringLiteral("none") : hash.left(16) + QStringLiteral("…");
}

} // namespace

QString LedgerWitness::defaultPathFor(const QString &ledgerFile)
{
    return ledgerFile + QStringLiteral(".witness");
}

LedgerResult<std::optional<LedgerWitness::Head>> LedgerWitness::read(const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return std::optional<Head>();
    if (!file.open(QIODevice::ReadOnly))
        return LedgerError(Code::Storage, QStringLiteral("cannot read the witness %1: %2").arg(path, file.errorString()));
    const QByteArray bytes = file.read(kFileBytes);
    std::optional<Head> best;
    for (const qint64 offset : kSlotOffsets) {
        const std::optional<Head> slot = parseSlot(bytes.mid(offset, kSlotBytes));
        if (slot && (!best || slot->seq > best->seq))
            best = slot;
    }
    if (!best)
        return LedgerError(Code::Invalid, QStringLiteral("%1 is not a readable witness (no valid slot in its %2 bytes)")
                                              .arg(path)
                                              .arg(bytes.size()));
    return best;
}

LedgerError LedgerWitness::reset(const QString &path, const Head &head)
{
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return LedgerError(Code::Storage, QStringLiteral("cannot write the witness %1: %2").arg(path, systemError()));
    Head stamped = head;
    if (!stamped.at.isValid())
        stamped.at = QDateTime::currentDateTimeUtc();
    const QByteArray slot = slotFor(stamped);
    bool ok = ::ftruncate(fd, kFileBytes) == 0;
    for (const qint64 offset : kSlotOffsets)
        ok = ok && writeAll(fd, slot, offset);
    ok = ok && ::fsync(fd) == 0;
    const QString why = systemError();
    ::close(fd);
    if (!ok)
        return LedgerError(Code::Storage, QStringLiteral("cannot write the witness %1: %2").arg(path, why));
    return {};
}

QString LedgerWitness::judge(const Head &witness, const Head &ledgerHead, const QString &hashAtWitnessSeq)
{
    const QString heads = QStringLiteral("the ledger's audit chain ends at seq %1 (hash %2); its witness saw seq %3"
                                         " (hash %4) on %5")
                              .arg(ledgerHead.seq)
                              .arg(shortHash(ledgerHead.hash))
                              .arg(witness.seq)
                              .arg(shortHash(witness.hash), witness.at.toUTC().toString(Qt::ISODate));
    if (ledgerHead.seq < witness.seq)
        return QStringLiteral("the ledger is BEHIND its witness: %1 — %2 acknowledged audit rows are missing (a -wal"
                              " written over or deleted, an old copy put back, writes the disk lost)")
            .arg(heads)
            .arg(witness.seq - ledgerHead.seq);
    if (witness.seq > 0 && hashAtWitnessSeq != witness.hash)
        return QStringLiteral("the ledger DIVERGES from its witness: %1, but the ledger's row %2 has hash %3 (another"
                              " ledger, or an old copy put back and written since)")
            .arg(heads)
            .arg(witness.seq)
            .arg(shortHash(hashAtWitnessSeq));
    return {};
}

LedgerWitness::~LedgerWitness()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

LedgerError LedgerWitness::open(const QString &path)
{
    const LedgerResult<std::optional<Head>> current = read(path);
    if (!current.ok())
        return current.error();
    if (!current->has_value())
        return LedgerError(Code::Storage, QStringLiteral("no witness at %1").arg(path));
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return LedgerError(Code::Storage, QStringLiteral("cannot write the witness %1: %2").arg(path, systemError()));
    QMutexLocker locker(&m_mutex);
    m_path = path;
    m_fd = fd;
    m_written = (*current)->seq;
    return {};
}

void LedgerWitness::advance(qint64 seq, const QString &hash)
{
    QMutexLocker locker(&m_mutex);
    if (m_fd < 0 || seq <= m_written)
        return;
    Head head;
    head.seq = seq;
    head.hash = hash;
    head.at = QDateTime::currentDateTimeUtc();
    if (!writeAll(m_fd, slotFor(head), kSlotOffsets[m_nextSlot])) {
        if (!m_failureLogged)
            qCWarning(lcLedger) << "cannot advance the witness" << m_path << "to seq" << seq << ":" << systemError()
                                << "(the ledger is unaffected; a restart compares it with an older head)";
        m_failureLogged = true;
        return;
    }
    m_nextSlot = 1 - m_nextSlot;
    m_written = seq;
}

qint64 LedgerWitness::lastWritten() const
{
    QMutexLocker locker(&m_mutex);
    return m_written;
}

} // namespace cs
