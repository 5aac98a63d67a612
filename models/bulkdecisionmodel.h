#pragma once

#include "models/actionrecord.h"

#include <QAbstractTableModel>
#include <QList>
#include <QMap>
#include <QString>

namespace cs {

// The actions of one bulk decision (approve or reject several at once, issue 19), one row each,
// in the order the reviewer selected them: who requested it, its target, its amount and what
// became of it. Each row is decided on its own (its own If-Match and Idempotency-Key: the
// BulkDecisionController's business); this model only holds and shows each row's fate. Not
// thread-safe.
class BulkDecisionModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { ActionColumn, RequesterColumn, TargetColumn, AmountColumn, ResultColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role { ActionIdRole = Qt::UserRole + 1, StatusRole };

    enum class Status {
        Checking, // its detail is being read
        Ready,    // PENDING and decidable by this user: will be sent
        Skipped,  // not offered: not PENDING, or this user may not decide it (message says why)
        Sending,  // sent (or being resent), no answer yet
        Done,     // the backend applied the decision (or replayed its first answer)
        Refused,  // the backend answered with an error (message: the problem's title and detail)
        Unknown,  // no answer: whether it was applied is unknown; a resend reuses its key
    };
    Q_ENUM(Status)

    struct Row
    {
        ActionRecord record;  // id always; the rest once read
        Status status = Status::Checking;
        QString message;
        friend bool operator==(const Row &, const Row &) = default;
    };

    explicit BulkDecisionModel(QObject *parent = nullptr);

    // Starts over with these actions, each Checking.
    void setActions(const QStringList &actionIds);
    int rowOf(const QString &actionId) const;
    const Row &row(int index) const { return m_rows.at(index); }
    const QList<Row> &rows() const { return m_rows; }
    void setRecord(int index, const ActionRecord &record);
    void setStatus(int index, Status status, const QString &message = QString());

    int count(Status status) const;
    // What the rows that are not skipped add up to, per currency (minor units, lowercase ISO).
    QMap<QString, qint64> totals() const;
    // "120.00 USD + 30.00 EUR"; "nothing" when every row is skipped.
    QString totalsText() const;

    static QString statusName(Status status); // "Checking…", "Ready", "Skipped", ...

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    // A row's status changed (after dataChanged).
    void statusChanged(int row, cs::BulkDecisionModel::Status status);

private:
    QList<Row> m_rows;
};

} // namespace cs
