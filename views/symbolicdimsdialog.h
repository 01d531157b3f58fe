#pragma once
// Sizes for a model's symbolic input dimensions (dynamic axes such as "batch" or "sequence"), asked when the model
// is opened: one size field per dim_param, filled with the sizes last given for that model (QSettings, by absolute
// path; 1 for a dim never given). The sizes go into CompileRequest::load.dimValues, the path `--dim NAME=SIZE`
// takes in the CLI.

#include <QDialog>
#include <QString>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

class QSpinBox;

namespace spyglass {

class SymbolicDimsDialog : public QDialog {
    Q_OBJECT
public:
    SymbolicDimsDialog(const QString& modelPath, const std::vector<std::string>& dims, QWidget* parent = nullptr);

    std::map<std::string, int64_t> values() const;
    // The size field of `dim` (tests fill it), or null.
    QSpinBox* field(const QString& dim) const;
    // Stores the values as this model's defaults.
    void remember() const;

    // For a model file with symbolic input dims: shows the dialog and fills `dims` (false when the user cancels).
    // Other files, and models without symbolic dims, need nothing: true, `dims` untouched. A model that cannot be
    // read is left to the compile, which reports why.
    static bool ask(QWidget* parent, const QString& path, std::map<std::string, int64_t>& dims);
    // The sizes last accepted for the model's current symbolic dims, without asking (a recompile of the same
    // file); empty when the model has none or one of them was never given.
    static std::map<std::string, int64_t> remembered(const QString& path);

private:
    QString settingsKey_;
    std::map<std::string, QSpinBox*> fields_;
};

}  // namespace spyglass
