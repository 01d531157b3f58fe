#include "views/symbolicdimsdialog.h"

#include "core/common/diagnostics.h"
#include "core/common/document_kind.h"
#include "core/model/model_loader.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace spyglass {

namespace {

// One settings entry per model (a map dim -> size); the path is percent-encoded so that its slashes do not
// become settings groups.
QString settingsKeyOf(const QString& modelPath)
{
    return QStringLiteral("symbolicDims/") + QString::fromLatin1(QFileInfo(modelPath).absoluteFilePath().toUtf8().toPercentEncoding());
}

std::vector<std::string> dimsOf(const QString& path)
{
    if (detectDocumentKind(path.toStdString()) != DocumentKind::Model)
        return {};
    try {
        return model::symbolicInputDims(path.toStdString());
    } catch (const InputError&) {
        return {};
    }
}

}  // namespace

SymbolicDimsDialog::SymbolicDimsDialog(const QString& modelPath, const std::vector<std::string>& dims, QWidget* parent)
    : QDialog(parent), settingsKey_(settingsKeyOf(modelPath))
{
    setWindowTitle(tr("Symbolic dimensions"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("%1 has dynamic input dimensions. Spyre compiles static shapes: give each a size "
                                "(as --dim NAME=SIZE does on the command line).")
                                 .arg(QFileInfo(modelPath).fileName()),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    const QVariantMap saved = QSettings().value(settingsKey_).toMap();
    for (const std::string& d : dims) {
        const QString name = QString::fromStdString(d);
        auto* box = new QSpinBox(this);
        box->setObjectName(name);
        box->setRange(0, std::numeric_limits<int>::max());
        box->setValue(saved.value(name, 1).toInt());
        form->addRow(name, box);
        fields_[d] = box;
    }
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

std::map<std::string, int64_t> SymbolicDimsDialog::values() const
{
    std::map<std::string, int64_t> v;
    for (const auto& [name, box] : fields_)
        v[name] = box->value();
    return v;
}

QSpinBox* SymbolicDimsDialog::field(const QString& dim) const
{
    const auto it = fields_.find(dim.toStdString());
    return it == fields_.end() ? nullptr : it->second;
}

void SymbolicDimsDialog::remember() const
{
    QVariantMap saved;
    for (const auto& [name, size] : values())
        saved[QString::fromStdString(name)] = static_cast<qlonglong>(size);
    QSettings().setValue(settingsKey_, saved);
}

bool SymbolicDimsDialog::ask(QWidget* parent, const QString& path, std::map<std::string, int64_t>& dims)
{
    const std::vector<std::string> names = dimsOf(path);
    if (names.empty())
        return true;
    SymbolicDimsDialog dialog(path, names, parent);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    dialog.remember();
    dims = dialog.values();
    return true;
}

std::map<std::string, int64_t> SymbolicDimsDialog::remembered(const QString& path)
{
    // Every compile asks; only a model that was given sizes before is read again (its dims may have changed).
    const QVariantMap saved = QSettings().value(settingsKeyOf(path)).toMap();
    if (saved.isEmpty())
        return {};
    const std::vector<std::string> names = dimsOf(path);
    std::map<std::string, int64_t> v;
    for (const std::string& d : names) {
        const auto it = saved.find(QString::fromStdString(d));
        if (it == saved.end())
            return {};
        v[d] = it->toLongLong();
    }
    return v;
}

}  // namespace spyglass
