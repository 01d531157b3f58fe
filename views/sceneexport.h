#pragma once
// Saving a QGraphicsScene as SVG or PNG, shared by the Graph and Circuit views.

#include <QString>

class QGraphicsScene;

namespace spyglass {

bool exportSceneSvg(QGraphicsScene* scene, const QString& path, const QString& title);
bool exportScenePng(QGraphicsScene* scene, const QString& path, double scale = 1.0);

}  // namespace spyglass
