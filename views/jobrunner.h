#pragma once
// Runs long core work (compile, simulate, layout) on a worker thread, one job at a time, and reports back
// on the GUI thread: progress for the status bar, the result or the error. The GUI thread never waits.

#include "core/common/job_control.h"

#include <QObject>
#include <QString>

#include <any>
#include <functional>
#include <memory>
#include <vector>

namespace spyglass {

class JobRunner : public QObject {
    Q_OBJECT
public:
    using Work = std::function<std::any(JobControl&)>;
    using Done = std::function<void(std::any)>;

    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;

    // Starts `work` on a worker; a job already running is cancelled and its result dropped.
    // `done` runs on the GUI thread with the result; errors arrive as failed(message).
    void start(const QString& title, Work work, Done done);
    bool isRunning() const { return running_; }
    QString title() const { return title_; }
    // Blocks until no job runs (for shutdown and tests only).
    void waitForIdle();

public slots:
    void cancel();

signals:
    void started(const QString& title);
    void progress(double fraction, const QString& what);
    void finished(const QString& title);
    void failed(const QString& title, const QString& message);
    void cancelled(const QString& title);

private:
    struct Job;
    std::shared_ptr<Job> current_;
    std::vector<std::weak_ptr<Job>> live_;   // workers still running, including cancelled ones
    quint64 generation_ = 0;
    bool running_ = false;
    QString title_;
};

}  // namespace spyglass
