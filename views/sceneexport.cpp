#include "views/sceneexport.h"

#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

namespace spyglass {

bool exportSceneSvg(QGraphicsScene* scene, const QString& path, const QString& title)
{
    const QRectF r = scene->sceneRect();
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(r.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), r.size()));
    svg.setTitle(title);
    QPainter p;
    if (!p.begin(&svg))
        return false;
    scene->render(&p, QRectF(QPointF(0, 0), r.size()), r);
    return p.end();
}

bool exportScenePng(QGraphicsScene* scene, const QString& path, double scale)
{
    const QRectF r = scene->sceneRect();
    QImage img((r.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene->render(&p, QRectF(QPointF(0, 0), r.size() * scale), r);
    p.end();
    return img.save(path);
}

}  // namespace spyglass
