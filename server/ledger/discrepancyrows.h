#pragma once

// Internal to server/ledger/: what the provider holds that contradicts a final action (issue 33,
// models/discrepancy.h, migration 15), written inside the transaction of the look-up or webhook
// that showed it, so the attention item can never be missing while its evidence is stored.

#include "server/ledger/ledgererror.h"

#include "models/discrepancy.h"
#include "models/evidencerule.h"

#include <QDateTime>
#include <QSqlDatabase>
#include <QString>

#include <optional>

namespace cs::discrepancies {

// `actionId` is COMPLETED or REJECTED and `finding` contradicts it (Reconciler::contradictsFinalState):
// opens its attention item, or — one already exists — counts the sighting and adds any refund not
// seen before. A new item, or one that shows a refund its closed item did not know, opens (again)
// with an audit row "discrepancy" and moves the action's state_version; a sighting of what is
// already known only counts. *changed tells whether the action's row moved.
LedgerError flagIn(QSqlDatabase &db, const QDateTime &now, const QString &actionId, const EvidenceFinding &finding,
                   const QString &evidence, const QString &actor, bool *changed = nullptr);

// Closes the open item: supervisor and note given, If-Match checked by the caller's loadForChange.
LedgerError closeIn(QSqlDatabase &db, const QDateTime &now, const QString &actionId, const QString &supervisor,
                    const QString &note, std::optional<qint64> expectedStateVersion, Discrepancy *closed);

// The action's item; nullopt when it has none.
bool loadIn(QSqlDatabase &db, const QString &actionId, std::optional<Discrepancy> *out, LedgerError *error);

} // namespace cs::discrepancies
