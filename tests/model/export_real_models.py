#!/usr/bin/python3
# Exports the real-model suite into OUTDIR/<model>/{model.onnx,test_data_set_0/} at test time (never committed):
# torchvision's classification networks as torchvision builds them, transformer encoders and decoders written with
# torch.nn the way model libraries write them, recurrent nets and a UNet. Weights are random (weights=None, nothing
# is downloaded); BatchNorm statistics are gathered in train mode on random batches first, so activations keep the
# magnitudes a trained network has instead of growing through identity-statistics BatchNorms. Reference outputs come
# from PyTorch itself in eval mode.
#
# Usage: export_real_models.py OUTDIR [NAME...]. Idempotent: OUTDIR/.complete holds the hash of this script and the
# torch version, and a folder whose hash matches is kept, so a rebuild does not export again. Safe to run
# concurrently: each model is written to a private folder and renamed into place.
import copy
import hashlib
import math
import os
import shutil
import sys
import tempfile
import warnings

try:
    import numpy as np
    import onnx
    import onnx.numpy_helper
    import torch
    import torchvision
    from torch import nn
except ImportError as e:  # CI installs them (scripts/install-deps.sh); a missing one must fail, not skip
    sys.exit(f'export_real_models.py: {e}; install python3-torch and python3-torchvision (scripts/install-deps.sh)')

OPSET = 17
warnings.filterwarnings('ignore')  # the exporter's tracer warnings are about dynamic shapes, which we fix anyway
tv = torchvision.models


def bn_calibrated(model, shape, batches=3):
    # Trained networks have running statistics that match their activations; random-init ones have mean 0, var 1.
    model.train()
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.momentum = None  # a plain average over the batches, not 0.9 of the initial mean 0, var 1
            m.reset_running_stats()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(8, *shape[1:]))
    return model.eval()


def vision(ctor, size=32, **kw):
    def make():
        torch.manual_seed(0)
        m = ctor(weights=None, num_classes=10, **kw)
        return bn_calibrated(m, (1, 3, size, size)), [torch.randn(1, 3, size, size)]
    return make


class SelfAttention(nn.Module):
    # BERT's layout (HF BertSelfAttention): separate query/key/value Linears, heads split by view + permute,
    # additive attention mask, softmax over the last axis.
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query, self.key, self.value = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)
        self.dense = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim) + mask
        ctx = torch.matmul(scores.softmax(-1), v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.shape[0], ctx.shape[1], -1)
        return self.norm(self.dense(ctx) + x)


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.intermediate = nn.Linear(hidden, ffn)
        self.output = nn.Linear(ffn, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x, mask):
        a = self.attention(x, mask)
        return self.norm(self.output(nn.functional.gelu(self.intermediate(a))) + a)


class Bert(nn.Module):
    def __init__(self, vocab=512, hidden=64, heads=4, layers=2, ffn=256, positions=64):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(positions, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.register_buffer('position_ids', torch.arange(positions).unsqueeze(0))
        self.layers = nn.ModuleList(BertLayer(hidden, heads, ffn) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)

    def forward(self, input_ids, attention_mask):
        t = input_ids.shape[1]
        x = self.word_embeddings(input_ids) + self.position_embeddings(self.position_ids[:, :t])
        x = self.norm(x + self.token_type_embeddings(torch.zeros_like(input_ids)))
        # HF's extended mask: 0 where attended, a large negative where padded, broadcast over heads and queries.
        mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        return x, torch.tanh(self.pooler(x[:, 0]))


def bert():
    torch.manual_seed(0)
    m = Bert().eval()
    ids = torch.randint(0, 512, (1, 16))
    mask = torch.ones(1, 16, dtype=torch.int64)
    mask[0, 12:] = 0
    return m, [ids, mask]


class NewGELU(nn.Module):
    # GPT-2's tanh approximation written out, as HF's NewGELUActivation does.
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GptBlock(nn.Module):
    def __init__(self, n_embd, heads, positions):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)  # fused QKV
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.c_fc, self.mlp_proj = nn.Linear(n_embd, 4 * n_embd), nn.Linear(4 * n_embd, n_embd)
        self.act = NewGELU()
        self.register_buffer('bias', torch.tril(torch.ones(positions, positions, dtype=torch.bool)).view(1, 1, positions, positions))

    def attn(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (y.view(b, t, self.heads, c // self.heads).transpose(1, 2) for y in (q, k, v))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(v.size(-1))
        w = torch.where(self.bias[:, :, :t, :t], w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        y = torch.matmul(nn.functional.softmax(w, dim=-1), v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp_proj(self.act(self.c_fc(self.ln_2(x))))


class Gpt2(nn.Module):
    def __init__(self, vocab=512, n_embd=64, heads=4, layers=2, positions=64):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(positions, n_embd)
        self.h = nn.ModuleList(GptBlock(n_embd, heads, positions) for _ in range(layers))
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied output head
        for p in self.parameters():  # GPT-2's initializer_range
            if p.dim() > 1:
                nn.init.normal_(p, std=0.02)

    def forward(self, input_ids):
        t = input_ids.shape[1]
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def gpt2():
    torch.manual_seed(0)
    return Gpt2().eval(), [torch.randint(0, 512, (1, 16))]


class Recurrent(nn.Module):
    def __init__(self, cell, **kw):
        super().__init__()
        self.rnn = cell(input_size=16, hidden_size=32, batch_first=True, **kw)
        self.head = nn.Linear(self.rnn.hidden_size * (2 if self.rnn.bidirectional else 1), 4)

    def forward(self, x):
        return self.head(self.rnn(x)[0][:, -1])


def recurrent(cell, **kw):
    def make():
        torch.manual_seed(0)
        return Recurrent(cell, **kw).eval(), [torch.randn(2, 8, 16)]
    return make


def conv_block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                         nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.d1, self.d2, self.mid = conv_block(3, c), conv_block(c, 2 * c), conv_block(2 * c, 4 * c)
        self.u2, self.c2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2), conv_block(4 * c, 2 * c)
        self.u1, self.c1 = nn.ConvTranspose2d(2 * c, c, 2, stride=2), conv_block(2 * c, c)
        self.out = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(nn.functional.max_pool2d(a, 2))
        m = self.mid(nn.functional.max_pool2d(b, 2))
        y = self.c2(torch.cat([self.u2(m), b], 1))
        return self.out(self.c1(torch.cat([self.u1(y), a], 1)))


def unet():
    torch.manual_seed(0)
    return bn_calibrated(UNet(), (1, 3, 32, 32)), [torch.randn(1, 3, 32, 32)]


def vit():
    # torchvision's VisionTransformer (the class vit_b_16 builds) at a reduced size: class token, learned
    # positions, nn.MultiheadAttention encoder blocks.
    torch.manual_seed(0)
    m = tv.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64, mlp_dim=128,
                             num_classes=10)
    nn.init.normal_(m.heads.head.weight, std=0.02)  # torchvision zero-initialises the head: outputs would all be 0
    return m.eval(), [torch.randn(1, 3, 32, 32)]


def swin():
    torch.manual_seed(0)
    m = tv.SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                           num_classes=10)
    return m.eval(), [torch.randn(1, 3, 32, 32)]


def maxvit():
    # torchvision's MaxViT (MBConv, block and grid attention with relative position bias) at a size CI can run:
    # maxvit_t itself needs 224x224 inputs (partition size 7 after a stride of 32).
    torch.manual_seed(0)
    m = tv.MaxVit(input_size=(32, 32), stem_channels=16, partition_size=2, block_channels=[32, 64], block_layers=[1, 1],
                  head_dim=16, stochastic_depth_prob=0.0, num_classes=10)
    return bn_calibrated(m, (1, 3, 32, 32)), [torch.randn(1, 3, 32, 32)]


MODELS = {
    'resnet18': vision(tv.resnet18),
    'resnext50_32x4d': vision(tv.resnext50_32x4d),
    'wide_resnet50_2': vision(tv.wide_resnet50_2),
    # 224x224: torch 1.13 exports AdaptiveAvgPool2d(6) only from a map whose size is a multiple of 6 (smaller inputs
    # leave AlexNet's features at 1x1).
    'alexnet': vision(tv.alexnet, size=224),
    'googlenet': vision(tv.googlenet, aux_logits=False, init_weights=True),
    'inception_v3': vision(tv.inception_v3, size=75, aux_logits=False, init_weights=True),
    'mnasnet0_5': vision(tv.mnasnet0_5),
    'mobilenet_v3_large': vision(tv.mobilenet_v3_large),
    'efficientnet_v2_s': vision(tv.efficientnet_v2_s),
    'regnet_x_400mf': vision(tv.regnet_x_400mf),
    'mobilenet_v2': vision(tv.mobilenet_v2),
    'mobilenet_v3_small': vision(tv.mobilenet_v3_small),
    'efficientnet_b0': vision(tv.efficientnet_b0),
    'squeezenet1_1': vision(tv.squeezenet1_1, size=64),
    'shufflenet_v2_x0_5': vision(tv.shufflenet_v2_x0_5),
    'densenet121': vision(tv.densenet121),
    'regnet_y_400mf': vision(tv.regnet_y_400mf),
    'convnext_tiny': vision(tv.convnext_tiny),
    'vit_reduced': vit,
    'swin_reduced': swin,
    'maxvit_reduced': maxvit,
    'bert_encoder': bert,
    'gpt2_decoder': gpt2,
    'lstm': recurrent(nn.LSTM, num_layers=2),
    'gru_bidirectional': recurrent(nn.GRU, bidirectional=True),
    'unet': unet,
}


def half(x):
    if isinstance(x, torch.Tensor):
        return x.half().float() if x.is_floating_point() else x
    return type(x)(half(y) for y in x) if isinstance(x, tuple) else x


def fp16_emulated(model, inputs):
    # The same network with its weights, inputs and every leaf module's outputs rounded to fp16 (arithmetic in
    # fp32): how far fp16 storage alone moves the outputs. Random networks whose BatchNorm statistics were gathered
    # on noise have near-constant channels, whose folded scales 1/sqrt(var + eps) amplify rounding; a device
    # that keeps its tensors in fp16 cannot do better than this, so the test holds it to a small multiple of it.
    m = copy.deepcopy(model)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(half(p))
        for mod in m.modules():
            if not list(mod.children()):
                mod.register_forward_hook(lambda _m, _i, o: half(o))
        y = m(*[half(x) for x in inputs])
    return list(y) if isinstance(y, tuple) else [y]


def save_tensor(path, name, array):
    t = onnx.numpy_helper.from_array(np.ascontiguousarray(array), name)
    with open(path, 'wb') as f:
        f.write(t.SerializeToString())


def export(name, outdir, stamp):
    final = os.path.join(outdir, name)
    marker = os.path.join(final, '.complete')
    if os.path.exists(marker) and open(marker).read() == stamp:
        return False
    model, inputs = MODELS[name]()
    with torch.no_grad():
        outputs = model(*inputs)
    outputs = list(outputs) if isinstance(outputs, tuple) else [outputs]
    tmp = tempfile.mkdtemp(prefix=f'.{name}-', dir=outdir)
    in_names = [f'input_{k}' for k in range(len(inputs))]
    out_names = [f'output_{k}' for k in range(len(outputs))]
    torch.onnx.export(model, tuple(inputs), os.path.join(tmp, 'model.onnx'), opset_version=OPSET,
                      input_names=in_names, output_names=out_names, do_constant_folding=True)
    data = os.path.join(tmp, 'test_data_set_0')
    os.makedirs(data)
    for k, (n, x) in enumerate(zip(in_names, inputs)):
        save_tensor(os.path.join(data, f'input_{k}.pb'), n, x.numpy())
    for k, (n, y) in enumerate(zip(out_names, outputs)):
        save_tensor(os.path.join(data, f'output_{k}.pb'), n, y.detach().numpy())
    emulated = fp16_emulated(model, inputs)
    with open(os.path.join(tmp, 'fp16_emulated_max_abs_err.txt'), 'w') as f:
        f.write(''.join(f'{float((e - y).abs().max())}\n' for e, y in zip(emulated, outputs)))
    open(os.path.join(tmp, '.complete'), 'w').write(stamp)
    shutil.rmtree(final, ignore_errors=True)
    try:
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # another run finished first: its export is identical
    return True


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: export_real_models.py OUTDIR [NAME...]')
    outdir = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f'export_real_models.py: unknown model(s) {", ".join(unknown)}; known: {", ".join(MODELS)}')
    os.makedirs(outdir, exist_ok=True)
    script = open(os.path.abspath(__file__), 'rb').read()
    stamp = f'{hashlib.sha256(script).hexdigest()} torch {torch.__version__} torchvision {torchvision.__version__}\n'
    done = [n for n in names if export(n, outdir, stamp)]
    print(f'exported {len(done)} of {len(names)} models into {outdir}' + (f': {", ".join(done)}' if done else ' (all cached)'))


if __name__ == '__main__':
    main()
