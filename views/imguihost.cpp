#include "views/imguihost.h"

#include <QGuiApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

namespace spyglass {

namespace {

int buttonIndex(Qt::MouseButton b)
{
    switch (b) {
    case Qt::LeftButton: return 0;
    case Qt::RightButton: return 1;
    case Qt::MiddleButton: return 2;
    default: return -1;
    }
}

// ImGui 1.86 addresses keys through io.KeysDown[] indexed by our own codes, mapped with io.KeyMap[].
struct KeyMapping {
    ImGuiKey imguiKey;
    int qtKey;
};
constexpr KeyMapping kKeyMap[] = {
    {ImGuiKey_Tab, Qt::Key_Tab},           {ImGuiKey_LeftArrow, Qt::Key_Left},
    {ImGuiKey_RightArrow, Qt::Key_Right},  {ImGuiKey_UpArrow, Qt::Key_Up},
    {ImGuiKey_DownArrow, Qt::Key_Down},    {ImGuiKey_PageUp, Qt::Key_PageUp},
    {ImGuiKey_PageDown, Qt::Key_PageDown}, {ImGuiKey_Home, Qt::Key_Home},
    {ImGuiKey_End, Qt::Key_End},           {ImGuiKey_Insert, Qt::Key_Insert},
    {ImGuiKey_Delete, Qt::Key_Delete},     {ImGuiKey_Backspace, Qt::Key_Backspace},
    {ImGuiKey_Space, Qt::Key_Space},       {ImGuiKey_Enter, Qt::Key_Return},
    {ImGuiKey_Escape, Qt::Key_Escape},     {ImGuiKey_KeyPadEnter, Qt::Key_Enter},
    {ImGuiKey_A, Qt::Key_A},               {ImGuiKey_C, Qt::Key_C},
    {ImGuiKey_V, Qt::Key_V},               {ImGuiKey_X, Qt::Key_X},
    {ImGuiKey_Y, Qt::Key_Y},               {ImGuiKey_Z, Qt::Key_Z},
};
constexpr int kKeyCount = static_cast<int>(sizeof(kKeyMap) / sizeof(kKeyMap[0]));

}  // namespace

ImGuiGLWidget::ImGuiGLWidget(ImGuiPanel* panel, QWidget* parent) : QOpenGLWidget(parent), panel_(panel)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(120, 80);
    clock_.start();
}

ImGuiGLWidget::~ImGuiGLWidget()
{
    if (!context_)
        return;
    makeCurrent();
    ImGui::SetCurrentContext(context_);
    if (rendererReady_)
        ImGui_ImplOpenGL3_Shutdown();
    ImGui::DestroyContext(context_);
    // DestroyContext leaves the global current context null; other widgets set theirs before use.
    doneCurrent();
}

void ImGuiGLWidget::makeImGuiCurrent() { ImGui::SetCurrentContext(context_); }

void ImGuiGLWidget::initializeGL()
{
    context_ = ImGui::CreateContext();
    makeImGuiCurrent();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;   // layout belongs to Qt's QSettings, not an imgui.ini in the cwd
    io.LogFilename = nullptr;
    io.BackendPlatformName = "spyglass-qt";
    for (int i = 0; i < kKeyCount; ++i)
        io.KeyMap[kKeyMap[i].imguiKey] = i;
    ImGui::StyleColorsDark();
    ImGui::GetStyle().WindowRounding = 0.0f;
    rendererReady_ = ImGui_ImplOpenGL3_Init("#version 130");
}

void ImGuiGLWidget::paintGL()
{
    if (!context_ || !rendererReady_)
        return;
    makeImGuiCurrent();
    ImGuiIO& io = ImGui::GetIO();
    const qreal dpr = devicePixelRatioF();
    io.DisplaySize = ImVec2(static_cast<float>(width()), static_cast<float>(height()));
    io.DisplayFramebufferScale = ImVec2(static_cast<float>(dpr), static_cast<float>(dpr));
    const qint64 now = clock_.nsecsElapsed();
    io.DeltaTime = lastFrameNs_ == 0 ? 1.0f / 60.0f : std::max(1e-4f, static_cast<float>(now - lastFrameNs_) * 1e-9f);
    lastFrameNs_ = now;

    for (int b = 0; b < 3; ++b) {
        io.MouseDown[b] = buttonDown_[b];
        pressSeen_[b] = true;
    }

    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    if (panel_)
        panel_->draw();
    ImGui::Render();

    QOpenGLFunctions* gl = QOpenGLContext::currentContext()->functions();
    gl->glViewport(0, 0, static_cast<GLsizei>(width() * dpr), static_cast<GLsizei>(height() * dpr));
    gl->glClearColor(0.10f, 0.11f, 0.13f, 1.0f);
    gl->glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++frames_;

    // Apply releases deferred from between frames, then draw once more so ImGui sees them.
    bool deferred = false;
    for (int b = 0; b < 3; ++b)
        if (pendingRelease_[b]) {
            buttonDown_[b] = false;
            pendingRelease_[b] = false;
            deferred = true;
        }
    if (deferred || extraFrames_ > 0) {
        if (extraFrames_ > 0)
            --extraFrames_;
        update();
    }
}

void ImGuiGLWidget::mouseMoveEvent(QMouseEvent* e)
{
    if (!context_)
        return;
    makeImGuiCurrent();
    ImGui::GetIO().MousePos = ImVec2(static_cast<float>(e->position().x()), static_cast<float>(e->position().y()));
    extraFrames_ = 2;
    update();
}

void ImGuiGLWidget::mousePressEvent(QMouseEvent* e)
{
    const int b = buttonIndex(e->button());
    if (b < 0 || !context_)
        return;
    makeImGuiCurrent();
    ImGui::GetIO().MousePos = ImVec2(static_cast<float>(e->position().x()), static_cast<float>(e->position().y()));
    buttonDown_[b] = true;
    pendingRelease_[b] = false;
    pressSeen_[b] = false;
    extraFrames_ = 2;
    update();
}

void ImGuiGLWidget::mouseReleaseEvent(QMouseEvent* e)
{
    const int b = buttonIndex(e->button());
    if (b < 0 || !context_)
        return;
    if (!pressSeen_[b])
        pendingRelease_[b] = true;   // the press has not been drawn yet: release after the next frame
    else
        buttonDown_[b] = false;
    extraFrames_ = 2;
    update();
}

void ImGuiGLWidget::wheelEvent(QWheelEvent* e)
{
    if (!context_)
        return;
    makeImGuiCurrent();
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(static_cast<float>(e->position().x()), static_cast<float>(e->position().y()));
    io.MouseWheel += static_cast<float>(e->angleDelta().y()) / 120.0f;
    io.MouseWheelH += static_cast<float>(e->angleDelta().x()) / 120.0f;
    setModifiers(e->modifiers());
    extraFrames_ = 2;
    update();
    e->accept();
}

void ImGuiGLWidget::setModifiers(Qt::KeyboardModifiers mods)
{
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = mods & Qt::ControlModifier;
    io.KeyShift = mods & Qt::ShiftModifier;
    io.KeyAlt = mods & Qt::AltModifier;
    io.KeySuper = mods & Qt::MetaModifier;
}

void ImGuiGLWidget::setKey(int qtKey, bool down)
{
    ImGuiIO& io = ImGui::GetIO();
    for (int i = 0; i < kKeyCount; ++i)
        if (kKeyMap[i].qtKey == qtKey)
            io.KeysDown[i] = down;
}

void ImGuiGLWidget::keyPressEvent(QKeyEvent* e)
{
    if (!context_)
        return;
    makeImGuiCurrent();
    setModifiers(e->modifiers());
    setKey(e->key(), true);
    const QByteArray text = e->text().toUtf8();
    if (!text.isEmpty() && static_cast<unsigned char>(text[0]) >= 32)
        ImGui::GetIO().AddInputCharactersUTF8(text.constData());
    extraFrames_ = 2;
    update();
}

void ImGuiGLWidget::keyReleaseEvent(QKeyEvent* e)
{
    if (!context_)
        return;
    makeImGuiCurrent();
    setModifiers(e->modifiers());
    setKey(e->key(), false);
    update();
}

void ImGuiGLWidget::leaveEvent(QEvent*)
{
    if (!context_)
        return;
    makeImGuiCurrent();
    ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    update();
}

ImGuiHost::ImGuiHost(std::unique_ptr<ImGuiPanel> panel, QWidget* parent) : QWidget(parent), panel_(std::move(panel))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    if (glAvailable()) {
        glWidget_ = new ImGuiGLWidget(panel_.get(), this);
        layout->addWidget(glWidget_);
    } else {
        placeholder_ = new QLabel(panel_->placeholderText() + QStringLiteral("\n(OpenGL is not available on the '")
                                      + QGuiApplication::platformName() + QStringLiteral("' platform.)"),
                                  this);
        placeholder_->setAlignment(Qt::AlignCenter);
        placeholder_->setWordWrap(true);
        layout->addWidget(placeholder_);
    }
}

ImGuiHost::~ImGuiHost()
{
    delete glWidget_;   // destroy the GL widget (and its ImGui context) before the panel it draws
    glWidget_ = nullptr;
}

bool ImGuiHost::glAvailable()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

void ImGuiHost::refresh()
{
    if (glWidget_)
        glWidget_->update();
}

bool ImGuiHost::beginFullWindow(const char* id)
{
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove
                                       | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
    return ImGui::Begin(id, nullptr, flags);
}

}  // namespace spyglass
