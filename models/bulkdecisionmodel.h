#pragma once

#include "models/actionrecord.h"

#include <QAbstractTableModel>
#include <QList>
#include <QStringList>
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
    enum Column { ActionColumn, RequesterColumn, TargetColumn, AmountColumn, WarningsColumn, ReasonsColumn, ResultColumn, ColumnCount };
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
        QStringList warnings; // what the approver should look twice at, in the console's words
        QString reasons;      // the agent's justification
        bool ticked = false;  // the person ticked it: approve it with the others despite its warnings
        friend bool operator==(const Row &, const Row &) = default;
    };

    explicit BulkDecisionModel(QObject *parent = nullptr);

    // Starts over with these actions, each Checking.
    void setActions(const QStringList &actionIds);
    int rowOf(const QString &actionId) const;
    const Row &row(int index) const { return m_rows.at(index); }
    const QList<Row> &rows() const { return m_rows; }
    void setRecord(int index, const ActionRecord &record);
    // The row's warnings and the agent's reasons, read with its record. A tick given to other
    // warnings does not carry over: new warnings need a new tick.
    void setContext(int index, const QStringList &warnings, const QString &reasons);
    // Approving: a row with warnings is sent only when ticked (its Warnings cell has a check box).
    // Rejecting sends nothing to the provider: no tick is needed.
    void setTicksNeeded(bool needed);
    bool ticksNeeded() const { return m_ticksNeeded; }
    // After confirming, the ticks are fixed.
    void setTicksLocked(bool locked);
    void setTicked(int index, bool ticked);
    // Ready, but not sent: it has warnings and no tick.
    bool isHeld(int index) const;
    // The rows that confirming sends now: Ready and not held.
    int sendable() const;
    void setStatus(int index, Status status, const QString &message = QString());

    int count(Status status) const;
    // What the rows that are neither skipped nor held add up to, per currency (minor units, lowercase ISO).
    QMap<QString, qint64> totals() const;
    // "120.00 USD + 30.00 EUR"; "nothing" when every row is skipped.
    QString totalsText() const;

    static QString statusName(Status status); // "Checking…", "Ready", "Skipped", ...

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

signals:
    // A row's status changed (after dataChanged).
    void statusChanged(int row, cs::BulkDecisionModel::Status status);

private:
    bool tickable(int index) const;

    QList<Row> m_rows;
    bool m_ticksNeeded = false;
    bool m_ticksLocked = false;
};

} // namespace cs
