#include "views/jobrunner.h"

#include "core/common/diagnostics.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <QThread>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace spyglass {

struct JobRunner::Job {
    JobControl control;
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    explicit Job(JobControl::ProgressFn fn) : control(std::move(fn)) {}
};

JobRunner::JobRunner(QObject* parent) : QObject(parent) {}

JobRunner::~JobRunner()
{
    cancel();
    waitForIdle();
}

void JobRunner::start(const QString& title, Work work, Done done)
{
    cancel();
    const quint64 gen = ++generation_;
    QPointer<JobRunner> self(this);
    auto job = std::make_shared<Job>([self, gen](double fraction, const std::string& what) {
        // Progress may arrive from any thread; deliver it on the GUI thread, dropping stale jobs.
        const QString text = QString::fromStdString(what);
        QMetaObject::invokeMethod(
            self, [self, gen, fraction, text] {
                if (self && self->generation_ == gen)
                    emit self->progress(fraction, text);
            },
            Qt::QueuedConnection);
    });
    current_ = job;
    std::erase_if(live_, [](const std::weak_ptr<Job>& w) { return w.expired(); });
    live_.push_back(job);
    running_ = true;
    title_ = title;
    emit started(title);

    std::thread([self, job, gen, title, work = std::move(work), done = std::move(done)]() mutable {
        std::any result;
        QString error;
        bool wasCancelled = false;
        try {
            result = work(job->control);
        } catch (const Cancelled&) {
            wasCancelled = true;
        } catch (const InputError& e) {
            error = QString::fromStdString(e.what());
        } catch (const std::bad_alloc&) {
            error = QStringLiteral("out of memory");
        } catch (const std::exception& e) {
            error = QStringLiteral("internal error: ") + QString::fromStdString(e.what());
        }
        wasCancelled = wasCancelled || job->control.isCancelled();
        QMetaObject::invokeMethod(
            qApp, [self, gen, title, result = std::move(result), error, wasCancelled, done = std::move(done)]() mutable {
                if (!self || self->generation_ != gen)
                    return;   // superseded by a newer job
                self->running_ = false;
                self->current_.reset();
                if (wasCancelled)
                    emit self->cancelled(title);
                else if (!error.isEmpty())
                    emit self->failed(title, error);
                else {
                    if (done)
                        done(std::move(result));
                    emit self->finished(title);
                }
            },
            Qt::QueuedConnection);
        {
            std::lock_guard lock(job->mutex);
            job->done = true;
        }
        job->cv.notify_all();
    }).detach();
}

void JobRunner::cancel()
{
    if (!current_)
        return;
    current_->control.requestCancel();
    const QString t = title_;
    current_.reset();
    ++generation_;   // the worker's late result is dropped
    running_ = false;
    emit cancelled(t);
}

void JobRunner::waitForIdle()
{
    for (const std::weak_ptr<Job>& weak : live_)
        if (auto job = weak.lock()) {
            std::unique_lock lock(job->mutex);
            job->cv.wait(lock, [&] { return job->done; });
        }
    live_.clear();
}

}  // namespace spyglass
