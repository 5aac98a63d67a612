#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace cs::demo {

// Exercise mode (docs/DEMO.md, "Exercises"): a training scenario stops where a person must decide —
// approve or reject, reconcile with which evidence, follow up with what amount — and waits until
// the trainee has done it in the console; then it judges the decision against paysim's ground
// truth and says what was right or wrong. The judgements make up the score sheet.

// One decision of the trainee, as judged.
struct ExerciseDecision
{
    int scenarioId = 0;
    QString scenarioTitle;
    QString task;        // "approve", "reconcile", "follow_up"
    QString actionId;
    bool right = false;
    QString decided;     // what the trainee did, in words ("approved", "reconciled committed with lookup 2")
    QString expected;    // what was right, in words
    QString explanation; // why, against the provider's ground truth

    QJsonObject toJson() const;
};

// The score sheet of one or several exercises. Exported as text, CSV (RFC 4180, a header row) or
// JSON; written whole or not at all (QSaveFile). Not thread-safe.
class ScoreSheet
{
public:
    void append(const ExerciseDecision &decision) { m_decisions.append(decision); }
    void clear() { m_decisions.clear(); }
    const QList<ExerciseDecision> &decisions() const { return m_decisions; }
    int right() const;
    int total() const { return int(m_decisions.size()); }

    enum class Format { Text, Csv, Json };
    QByteArray render(Format format) const;
    // A sheet render(Format::Json) wrote; nothing (and *error) for anything else.
    static std::optional<ScoreSheet> fromJson(const QByteArray &json, QString *error);
    // From the file name's suffix: .csv, .json, anything else text.
    static Format formatFor(const QString &fileName);
    bool save(const QString &fileName, QString *error) const;

private:
    QList<ExerciseDecision> m_decisions;
};

// How the decisions are taken: by the person at the console (the scenario waits for them), or
// by a scripted trainee (countersign-demo --exercise N --answers right|wrong, and the tests) who
// answers right or makes the classic mistakes.
struct Exercise
{
    enum class Answers { Person, ScriptedRight, ScriptedWrong };
    Answers answers = Answers::Person;
    ScoreSheet *sheet = nullptr; // must outlive the run
    int pollMs = 300;            // how often the ledger is read while the trainee decides
};

} // namespace cs::demo
