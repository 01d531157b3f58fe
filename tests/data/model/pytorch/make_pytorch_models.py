#!/usr/bin/python3
# Regenerates the small PyTorch-exported ONNX models in this folder with Debian's python3-torch
# (apt-get install python3-torch; not needed to build or test Spyglass, only to regenerate):
#   /usr/bin/python3 tests/data/model/pytorch/make_pytorch_models.py
# Each model is exported twice over the opsets 13..17 that torch.onnx.export supports, with PyTorch's
# own constant folding off (so Spyglass's loader must fold the shape arithmetic: Shape, Gather,
# Unsqueeze, Concat, ...) and on. Expected outputs come from PyTorch itself, in eval mode.
# Widths are tiny on purpose: every file stays far below 1 MB.
import os

import numpy as np
import onnx
import onnx.numpy_helper
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.act = nn.GELU()
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(self.drop(self.act(self.fc1(x))))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4, dropout=0.1, batch_first=True)

    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]


class ViewFlatten(nn.Module):
    # x.view(x.size(0), -1) followed by a Linear: the classic Shape -> Gather -> Concat -> Reshape export.
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(24, 4)

    def forward(self, x):
        return self.fc(x.view(x.size(0), -1))


def encoder():
    return nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.1, activation='gelu',
                                      batch_first=True)


MODELS = [
    ('mlp_gelu', Mlp, (4, 16)),
    ('multihead_attention', Attention, (2, 8, 16)),
    ('encoder_layer', encoder, (2, 8, 16)),
    ('view_flatten', ViewFlatten, (3, 2, 3, 4)),
]


def save_tensor(path, name, array):
    t = onnx.numpy_helper.from_array(np.ascontiguousarray(array), name)
    with open(path, 'wb') as f:
        f.write(t.SerializeToString())


for name, make, shape in MODELS:
    torch.manual_seed(0)
    model = make().eval()
    x = torch.randn(*shape)
    # The encoder's fused fast path is for inference without autograd; trace the plain ops instead.
    with torch.enable_grad():
        expected = model(x).detach().numpy()
    for opset in (13, 17):
        for folding in (False, True):
            stem = f'{name}_opset{opset}' + ('_folded' if folding else '')
            path = os.path.join(HERE, stem + '.onnx')
            with torch.enable_grad():
                torch.onnx.export(model, (x,), path, opset_version=opset, do_constant_folding=folding,
                                  input_names=['x'], output_names=['y'], training=torch.onnx.TrainingMode.EVAL)
            data = os.path.join(HERE, stem, 'test_data_set_0')
            os.makedirs(data, exist_ok=True)
            save_tensor(os.path.join(data, 'input_0.pb'), 'x', x.numpy())
            save_tensor(os.path.join(data, 'output_0.pb'), 'y', expected)
            ops = sorted({n.op_type for n in onnx.load(path).graph.node})
            print(f'{stem}: {os.path.getsize(path)} bytes, ops {" ".join(ops)}')
