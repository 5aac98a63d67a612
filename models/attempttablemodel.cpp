#include "models/attempttablemodel.h"
#include "models/displayformat.h"

namespace cs {

AttemptTableModel::AttemptTableModel(QObject *parent)
    : RecordTableModel(parent)
{
    setColumnTitles({
        tr("#"), tr("Time"), tr("Idempotency key"), tr("Fingerprint"), tr("Outcome"), tr("HTTP"),
        tr("Latency"), tr("Replayed"), tr("Provider object"), tr("Error")
    });
    Q_ASSERT(columnCount() == ColumnCount);
}

QString AttemptTableModel::outcomeName(Attempt::Outcome outcome)
{
    switch (outcome) {
    case Attempt::Outcome::Open:
        return tr("open");
    case Attempt::Outcome::Succeeded:
        return tr("succeeded");
    case Attempt::Outcome::Rejected:
        return tr("rejected");
    case Attempt::Outcome::Unknown:
        return tr("unknown");
    case Attempt::Outcome::RateLimited:
        return tr("rate limited");
    case Attempt::Outcome::KeyInUse:
        return tr("key in use");
    case Attempt::Outcome::IdempotencyMismatch:
        return tr("idempotency mismatch");
    }
    return QString();
}

QVariant AttemptTableModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const Attempt &a = m_records.at(index.row());
    const int column = index.column();
    if (role == AttemptRole)
        return QVariant::fromValue(a);
    if (role == OutcomeRole)
        return int(a.outcome);
    if (role == Qt::TextAlignmentRole) {
        if (column == SeqColumn || column == HttpStatusColumn || column == LatencyColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case StartedColumn:
            return tr("started %1, finished %2")
                .arg(display::isoTime(a.startedAt),
                     a.finishedAt.isValid() ? display::isoTime(a.finishedAt) : tr("not yet"));
        case KeyColumn:
            return a.idempotencyKey;
        case FingerprintColumn:
            return a.requestFingerprint;
        case ErrorColumn:
            return a.errorExcerpt;
        case ProviderObjectColumn:
            return a.providerRequestId.isEmpty() ? QVariant() : tr("request %1").arg(a.providerRequestId);
        default:
            return QVariant();
        }
    }
    if (role != Qt::DisplayRole)
        return QVariant();
    switch (column) {
    case SeqColumn:
        return a.seq;
    case StartedColumn: // the date is in the tooltip; latency needs the milliseconds
        return display::preciseTime(a.startedAt);
    case KeyColumn:
        return a.idempotencyKey;
    case FingerprintColumn:
        return display::shortHash(a.requestFingerprint);
    case OutcomeColumn:
        return outcomeName(a.outcome);
    case HttpStatusColumn:
        return a.httpStatus == 0 ? tr("none") : QString::number(a.httpStatus);
    case LatencyColumn:
        if (!a.finishedAt.isValid() || !a.startedAt.isValid())
            return QStringLiteral("\u2014");
        return display::duration(a.startedAt.msecsTo(a.finishedAt));
    case ReplayedColumn:
        return display::yesNo(a.replayed);
    case ProviderObjectColumn:
        return a.providerObjectId;
    case ErrorColumn:
        return a.errorCode.isEmpty() ? a.errorExcerpt.left(80) : a.errorCode;
    default:
        return QVariant();
    }
}

} // namespace cs
