// Takes docs/screenshot-exercise-scoresheet.png: the console's score sheet dialog
// (demo/console/scoresheetdialog.h) showing a sheet that `countersign-demo --exercise N
// --score-sheet FILE.json` wrote. Run under Xvfb (docs/DEMO.md, "Exercises").
//   screenshot_scoresheet SHEET.json OUT.png
#include "demo/console/scoresheetdialog.h"

#include <QApplication>
#include <QFile>
#include <QTextStream>
#include <QTimer>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() != 3) {
        QTextStream(stderr) << "usage: screenshot_scoresheet SHEET.json OUT.png" << Qt::endl;
        return 2;
    }
    QFile file(args.at(1));
    if (!file.open(QIODevice::ReadOnly)) {
        QTextStream(stderr) << "cannot read " << args.at(1) << Qt::endl;
        return 1;
    }
    QString error;
    const std::optional<cs::demo::ScoreSheet> sheet = cs::demo::ScoreSheet::fromJson(file.readAll(), &error);
    if (!sheet) {
        QTextStream(stderr) << args.at(1) << ": " << error << Qt::endl;
        return 1;
    }
    cs::ScoreSheetDialog dialog(*sheet);
    dialog.show();
    int code = 1;
    QTimer::singleShot(500, &dialog, [&] {
        code = dialog.grab().save(args.at(2)) ? 0 : 1;
        app.quit();
    });
    app.exec();
    return code;
}
