// RNN, GRU and LSTM of the reference interpreter, step by step as the ONNX spec writes them (gate order: LSTM
// i, o, f, c; GRU z, r, h), in double. sequence_lens, when given, must be the full length for every batch entry.
#include "core/model/interp_ops.h"

#include <algorithm>
#include <cmath>

namespace spyglass::model::interp {

namespace {

enum class Cell { Rnn, Gru, Lstm };

double activate(const std::string& name, double x)
{
    if (name == "Sigmoid")
        return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
    if (name == "Tanh")
        return std::tanh(x);
    return x > 0 ? x : 0.0;   // Relu (the op table admits only these three)
}

std::vector<HostTensor> recurrent(const OpContext& c, Cell cell)
{
    const HostTensor& X = c.input(0);
    const HostTensor& W = c.input(1);
    const HostTensor& R = c.input(2);
    const HostTensor* B = c.optionalInput(3);
    const HostTensor* lens = c.optionalInput(4);
    const HostTensor* h0 = c.optionalInput(5);
    const HostTensor* c0 = cell == Cell::Lstm ? c.optionalInput(6) : nullptr;
    const HostTensor* P = cell == Cell::Lstm ? c.optionalInput(7) : nullptr;
    if (X.shape.size() != 3 || W.shape.size() != 3 || R.shape.size() != 3)
        c.fail("X, W and R must have rank 3");
    const bool batchFirst = attrInt(c.node, "layout", 0) != 0;
    const int64_t S = batchFirst ? X.shape[1] : X.shape[0], N = batchFirst ? X.shape[0] : X.shape[1], I = X.shape[2];
    const int64_t H = attrInt(c.node, "hidden_size", R.shape.size() == 3 ? R.shape[2] : 0);
    const int64_t G = cell == Cell::Lstm ? 4 : cell == Cell::Gru ? 3 : 1;
    const std::string direction = attrString(c.node, "direction", "forward");
    const int64_t D = direction == "bidirectional" ? 2 : 1;
    if (W.shape != Shape{D, G * H, I} || R.shape != Shape{D, G * H, H} || (B && B->shape != Shape{D, 2 * G * H}) ||
        (P && P->shape != Shape{D, 3 * H}) || (h0 && h0->shape != Shape{D, N, H}) || (c0 && c0->shape != Shape{D, N, H}))
        c.fail("W, R, B, P, initial_h or initial_c do not match hidden_size " + std::to_string(H) + ", direction '" + direction + "'");
    if (lens)
        for (int64_t k = 0; k < lens->size(); ++k)
            if (valueAt(*lens, k) != static_cast<double>(S))
                c.fail("sequence_lens other than the full sequence length are not supported");
    if (attrInt(c.node, "input_forget", 0) != 0)
        c.fail("input_forget = 1 is not supported");
    std::vector<std::string> acts = attrStrings(c.node, "activations");
    const std::vector<std::string> defaults = cell == Cell::Lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                              : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                  : std::vector<std::string>{"Tanh"};
    if (acts.empty())
        for (int64_t d = 0; d < D; ++d)
            acts.insert(acts.end(), defaults.begin(), defaults.end());
    if (acts.size() != defaults.size() * static_cast<size_t>(D))
        c.fail("activations has " + std::to_string(acts.size()) + " entries, expected " + std::to_string(defaults.size() * D));
    const bool hasClip = hasAttribute(c.node, "clip");
    const double clip = attrFloat(c.node, "clip", 0.0f);
    const bool linearBeforeReset = attrInt(c.node, "linear_before_reset", 0) != 0;
    auto x = [&](int64_t t, int64_t n, int64_t i) { return static_cast<double>(X.f[batchFirst ? (n * S + t) * I + i : (t * N + n) * I + i]); };
    auto clipped = [&](double v) { return hasClip ? std::clamp(v, -clip, clip) : v; };

    Shape yShape = batchFirst ? Shape{N, S, D, H} : Shape{S, D, N, H};
    Shape hShape = batchFirst ? Shape{N, D, H} : Shape{D, N, H};
    HostTensor Y = makeLike(X.dtype, yShape), Yh = makeLike(X.dtype, hShape), Yc = makeLike(X.dtype, hShape);
    auto yAt = [&](int64_t t, int64_t d, int64_t n, int64_t j) { return batchFirst ? ((n * S + t) * D + d) * H + j : ((t * D + d) * N + n) * H + j; };
    auto hAt = [&](int64_t d, int64_t n, int64_t j) { return batchFirst ? (n * D + d) * H + j : (d * N + n) * H + j; };
    for (int64_t d = 0; d < D; ++d) {
        const bool reverse = direction == "reverse" || d == 1;
        const std::string* act = &acts[static_cast<size_t>(d) * defaults.size()];
        const float* w = W.f.data() + d * G * H * I;
        const float* r = R.f.data() + d * G * H * H;
        auto bias = [&](int64_t row, bool recurrentPart) { return B ? static_cast<double>(B->f[(d * 2 + recurrentPart) * G * H + row]) : 0.0; };
        std::vector<double> h(static_cast<size_t>(N * H), 0.0), cs(h.size(), 0.0);
        for (int64_t n = 0; n < N; ++n)
            for (int64_t j = 0; j < H; ++j) {
                if (h0)
                    h[n * H + j] = h0->f[(d * N + n) * H + j];
                if (c0)
                    cs[n * H + j] = c0->f[(d * N + n) * H + j];
            }
        for (int64_t step = 0; step < S; ++step) {
            const int64_t t = reverse ? S - 1 - step : step;
            std::vector<double> hNew(h.size()), cNew(h.size());
            for (int64_t n = 0; n < N; ++n) {
                // xw[g][j] = x_t W_g^T + Wb_g; hr[g][j] = h R_g^T + Rb_g.
                std::vector<double> xw(static_cast<size_t>(G * H)), hr(static_cast<size_t>(G * H));
                for (int64_t row = 0; row < G * H; ++row) {
                    double a = bias(row, false), b = bias(row, true);
                    for (int64_t i = 0; i < I; ++i)
                        a += x(t, n, i) * w[row * I + i];
                    for (int64_t k = 0; k < H; ++k)
                        b += h[n * H + k] * r[row * H + k];
                    xw[row] = a;
                    hr[row] = b;
                }
                for (int64_t j = 0; j < H; ++j) {
                    const double hp = h[n * H + j], cp = cs[n * H + j];
                    if (cell == Cell::Rnn) {
                        hNew[n * H + j] = activate(act[0], clipped(xw[j] + hr[j]));
                    } else if (cell == Cell::Gru) {
                        const double z = activate(act[0], clipped(xw[j] + hr[j]));
                        const double rg = activate(act[0], clipped(xw[H + j] + hr[H + j]));
                        double pre;
                        if (linearBeforeReset) {
                            pre = xw[2 * H + j] + rg * hr[2 * H + j];
                        } else {
                            // (r * h) R_h^T + Rb_h: the reset gate applies before the recurrent product.
                            double rh = bias(2 * H + j, true);
                            for (int64_t k = 0; k < H; ++k) {
                                const double rk = activate(act[0], clipped(xw[H + k] + hr[H + k]));
                                rh += rk * h[n * H + k] * r[(2 * H + j) * H + k];
                            }
                            pre = xw[2 * H + j] + rh;
                        }
                        const double hh = activate(act[1], clipped(pre));
                        hNew[n * H + j] = (1 - z) * hh + z * hp;
                    } else {
                        const double pi = P ? static_cast<double>(P->f[d * 3 * H + j]) : 0.0;
                        const double po = P ? static_cast<double>(P->f[d * 3 * H + H + j]) : 0.0;
                        const double pf = P ? static_cast<double>(P->f[d * 3 * H + 2 * H + j]) : 0.0;
                        const double ig = activate(act[0], clipped(xw[j] + hr[j] + pi * cp));
                        const double fg = activate(act[0], clipped(xw[2 * H + j] + hr[2 * H + j] + pf * cp));
                        const double cg = activate(act[1], clipped(xw[3 * H + j] + hr[3 * H + j]));
                        const double cn = fg * cp + ig * cg;
                        const double og = activate(act[0], clipped(xw[H + j] + hr[H + j] + po * cn));
                        cNew[n * H + j] = cn;
                        hNew[n * H + j] = og * activate(act[2], cn);
                    }
                }
            }
            h = hNew;
            if (cell == Cell::Lstm)
                cs = cNew;
            for (int64_t n = 0; n < N; ++n)
                for (int64_t j = 0; j < H; ++j)
                    Y.f[yAt(t, d, n, j)] = static_cast<float>(h[n * H + j]);
        }
        for (int64_t n = 0; n < N; ++n)
            for (int64_t j = 0; j < H; ++j) {
                Yh.f[hAt(d, n, j)] = static_cast<float>(h[n * H + j]);
                Yc.f[hAt(d, n, j)] = static_cast<float>(cs[n * H + j]);
            }
    }
    if (cell == Cell::Lstm)
        return {Y, Yh, Yc};
    return {Y, Yh};
}

std::vector<HostTensor> opRnn(const OpContext& c) { return recurrent(c, Cell::Rnn); }
std::vector<HostTensor> opGru(const OpContext& c) { return recurrent(c, Cell::Gru); }
std::vector<HostTensor> opLstm(const OpContext& c) { return recurrent(c, Cell::Lstm); }

}  // namespace

const OpTable& recurrentOps()
{
    static const OpTable ops = {{"RNN", opRnn}, {"GRU", opGru}, {"LSTM", opLstm}};
    return ops;
}

}  // namespace spyglass::model::interp
