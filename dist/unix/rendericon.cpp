// Build-time tool: renders the application icon (SVG) to the hicolor theme's PNG sizes.
//   countersign-render-icon ICON.svg OUTDIR NAME SIZE...  →  OUTDIR/SIZExSIZE/NAME.png
// Not installed. Runs on the offscreen platform (no display needed).
#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <QTextStream>

int main(int argc, char *argv[])
{
    QGuiApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 5) {
        QTextStream(stderr) << "usage: countersign-render-icon ICON.svg OUTDIR NAME SIZE...\n";
        return 2;
    }
    QSvgRenderer svg(args.at(1));
    if (!svg.isValid()) {
        QTextStream(stderr) << "countersign-render-icon: cannot read " << args.at(1) << '\n';
        return 1;
    }
    for (const QString &text : args.mid(4)) {
        bool ok = false;
        const int size = text.toInt(&ok);
        if (!ok || size < 8 || size > 1024) {
            QTextStream(stderr) << "countersign-render-icon: bad size " << text << '\n';
            return 2;
        }
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter, QRectF(0, 0, size, size));
        painter.end();
        const QString dir = QStringLiteral("%1/%2x%2").arg(args.at(2)).arg(size);
        const QString file = dir + u'/' + args.at(3) + QStringLiteral(".png");
        if (!QDir().mkpath(dir) || !image.save(file, "PNG")) {
            QTextStream(stderr) << "countersign-render-icon: cannot write " << file << '\n';
            return 1;
        }
    }
    return 0;
}
