#pragma once
// Hosts a Dear ImGui panel inside Qt. Dense, fast-changing pictures (scratchpad map, timeline) implement
// ImGuiPanel and are shown through ImGuiHost, which renders them with imgui_impl_opengl3 in a QOpenGLWidget
// and feeds ImGui 1.86's input fields from Qt events. Where no GL is possible (the offscreen/minimal
// platforms, where a QOpenGLWidget crashes) the host shows a plain placeholder instead.

#include <QElapsedTimer>
#include <QOpenGLWidget>
#include <QWidget>

#include <memory>
#include <vector>

struct ImGuiContext;
class QLabel;

namespace spyglass {

class ImGuiPanel {
public:
    virtual ~ImGuiPanel() = default;
    // Called between ImGui::NewFrame() and ImGui::Render() with the panel's context current;
    // draw into one full-size window (see ImGuiHost::beginFullWindow).
    virtual void draw() = 0;
    // Shown instead of the panel where GL is unavailable.
    virtual QString placeholderText() const { return QStringLiteral("This panel needs OpenGL."); }
};

// The GL widget proper; one ImGui context per widget, made current before every ImGui call.
class ImGuiGLWidget : public QOpenGLWidget {
    Q_OBJECT
public:
    explicit ImGuiGLWidget(ImGuiPanel* panel, QWidget* parent = nullptr);
    ~ImGuiGLWidget() override;

    int framesRendered() const { return frames_; }

protected:
    void initializeGL() override;
    void paintGL() override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void keyReleaseEvent(QKeyEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    void makeImGuiCurrent();
    void setKey(int qtKey, bool down);
    void setModifiers(Qt::KeyboardModifiers mods);

    ImGuiPanel* panel_;
    ImGuiContext* context_ = nullptr;
    bool rendererReady_ = false;
    QElapsedTimer clock_;
    qint64 lastFrameNs_ = 0;
    int frames_ = 0;
    int extraFrames_ = 0;   // keep repainting briefly after input so ImGui's hover/animation settles
    // ImGui 1.86 samples button state once per frame: a press and release between two frames would be
    // lost, so a release that arrives while its press is still unseen is applied on the next frame.
    bool buttonDown_[3] = {false, false, false};
    bool pendingRelease_[3] = {false, false, false};
    bool pressSeen_[3] = {true, true, true};
};

class ImGuiHost : public QWidget {
    Q_OBJECT
public:
    explicit ImGuiHost(std::unique_ptr<ImGuiPanel> panel, QWidget* parent = nullptr);
    ~ImGuiHost() override;

    // False on platforms where a QOpenGLWidget cannot exist (offscreen, minimal).
    static bool glAvailable();
    bool usesGL() const { return glWidget_ != nullptr; }
    ImGuiGLWidget* glWidget() const { return glWidget_; }
    ImGuiPanel* panel() const { return panel_.get(); }
    // Request a redraw after the panel's data changed.
    void refresh();

    // Convenience for panels: begins one undecorated ImGui window covering the whole widget.
    static bool beginFullWindow(const char* id);

private:
    std::unique_ptr<ImGuiPanel> panel_;
    ImGuiGLWidget* glWidget_ = nullptr;
    QLabel* placeholder_ = nullptr;
};

}  // namespace spyglass
