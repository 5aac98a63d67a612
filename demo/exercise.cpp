#include "demo/exercise.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

namespace cs::demo {

QJsonObject ExerciseDecision::toJson() const
{
    return QJsonObject{{QStringLiteral("scenario"), scenarioId},
                       {QStringLiteral("scenario_title"), scenarioTitle},
                       {QStringLiteral("task"), task},
                       {QStringLiteral("action_id"), actionId},
                       {QStringLiteral("right"), right},
                       {QStringLiteral("decided"), decided},
                       {QStringLiteral("expected"), expected},
                       {QStringLiteral("explanation"), explanation}};
}

int ScoreSheet::right() const
{
    int n = 0;
    for (const ExerciseDecision &d : m_decisions)
        n += d.right ? 1 : 0;
    return n;
}

namespace {

// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled.
QByteArray csvField(const QString &value)
{
    QByteArray utf8 = value.toUtf8();
    if (utf8.contains(',') || utf8.contains('"') || utf8.contains('\n') || utf8.contains('\r')) {
        utf8.replace("\"", "\"\"");
        return '"' + utf8 + '"';
    }
    return utf8;
}

} // namespace

QByteArray ScoreSheet::render(Format format) const
{
    switch (format) {
    case Format::Json: {
        QJsonArray decisions;
        for (const ExerciseDecision &d : m_decisions)
            decisions.append(d.toJson());
        const QJsonObject sheet{{QStringLiteral("right"), right()},
                                {QStringLiteral("total"), total()},
                                {QStringLiteral("decisions"), decisions}};
        return QJsonDocument(sheet).toJson(QJsonDocument::Indented);
    }
    case Format::Csv: {
        QByteArray out = "scenario,scenario_title,task,action_id,right,decided,expected,explanation\r\n";
        for (const ExerciseDecision &d : m_decisions) {
            const QList<QByteArray> fields = {QByteArray::number(d.scenarioId), csvField(d.scenarioTitle), csvField(d.task),
                                              csvField(d.actionId), d.right ? QByteArray("yes") : QByteArray("no"),
                                              csvField(d.decided), csvField(d.expected), csvField(d.explanation)};
            out += fields.join(',') + "\r\n";
        }
        return out;
    }
    case Format::Text:
        break;
    }
    QString out = QStringLiteral("SCORE %1 of %2 decisions right\n").arg(right()).arg(total());
    for (const ExerciseDecision &d : m_decisions) {
        out += QStringLiteral("%1 scenario %2 (%3), %4 %5: %6\n")
                   .arg(d.right ? QStringLiteral("RIGHT") : QStringLiteral("WRONG"))
                   .arg(d.scenarioId)
                   .arg(d.scenarioTitle, d.task, d.actionId, d.decided);
        if (!d.right)
            out += QStringLiteral("    expected: %1\n").arg(d.expected);
        out += QStringLiteral("    %1\n").arg(d.explanation);
    }
    return out.toUtf8();
}

std::optional<ScoreSheet> ScoreSheet::fromJson(const QByteArray &json, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (!document.isObject() || !document.object().value(QLatin1String("decisions")).isArray()) {
        *error = parseError.error != QJsonParseError::NoError ? parseError.errorString()
                                                               : QStringLiteral("not a score sheet: no \"decisions\" array");
        return std::nullopt;
    }
    ScoreSheet sheet;
    for (const QJsonValue &value : document.object().value(QLatin1String("decisions")).toArray()) {
        const QJsonObject o = value.toObject();
        sheet.append({o.value(QLatin1String("scenario")).toInt(), o.value(QLatin1String("scenario_title")).toString(),
                      o.value(QLatin1String("task")).toString(), o.value(QLatin1String("action_id")).toString(),
                      o.value(QLatin1String("right")).toBool(), o.value(QLatin1String("decided")).toString(),
                      o.value(QLatin1String("expected")).toString(), o.value(QLatin1String("explanation")).toString()});
    }
    return sheet;
}

ScoreSheet::Format ScoreSheet::formatFor(const QString &fileName)
{
    const QString suffix = QFileInfo(fileName).suffix().toLower();
    if (suffix == u"csv")
        return Format::Csv;
    if (suffix == u"json")
        return Format::Json;
    return Format::Text;
}

bool ScoreSheet::save(const QString &fileName, QString *error) const
{
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = file.errorString();
        return false;
    }
    const QByteArray data = render(formatFor(fileName));
    if (file.write(data) != data.size() || !file.commit()) {
        *error = file.errorString();
        return false;
    }
    return true;
}

} // namespace cs::demo
