#pragma once
// The Inspector: everything known about what another view selected (an op, a tensor, a gate), as a
// property tree. Views fill it through show(); it computes nothing itself.

#include <QString>
#include <QWidget>

#include <utility>
#include <vector>

class QLabel;
class QTreeWidget;

namespace spyglass {

struct InspectorSection {
    QString title;
    std::vector<std::pair<QString, QString>> rows;
};

class InspectorView : public QWidget {
    Q_OBJECT
public:
    explicit InspectorView(QWidget* parent = nullptr);

    void show(const QString& heading, const std::vector<InspectorSection>& sections);
    void clear();
    QString heading() const;
    // The value of a row (first match in any section), for tests.
    QString value(const QString& key) const;

private:
    QLabel* heading_;
    QTreeWidget* tree_;
};

}  // namespace spyglass
