#!/usr/bin/python3
# Generates ONNX's backend node tests (model.onnx + test_data_set_0 per operator test) from Debian's
# python3-onnx into OUTDIR/node/test_*/. Idempotent and safe to run concurrently: it generates into a
# private folder and renames it into place; OUTDIR/node/.complete marks a finished suite.
import os
import shutil
import sys
import tempfile

import numpy as np

# numpy 1.24 removed aliases some of ONNX 1.12's generators still use.
np.float = float
np.int = int
np.bool = bool
np.object = object
np.complex = complex

out = os.path.abspath(sys.argv[1])
final = os.path.join(out, 'node')
marker = os.path.join(final, '.complete')
if os.path.exists(marker):
    print(f'ONNX backend node tests already generated in {final}')
    sys.exit(0)
os.makedirs(out, exist_ok=True)
tmp = tempfile.mkdtemp(prefix='.gen-', dir=out)
sys.argv = ['gen', 'generate-data', '-o', tmp]
from onnx.backend.test import cmd_tools  # noqa: E402

cmd_tools.main()
count = len([d for d in os.listdir(os.path.join(tmp, 'node')) if d.startswith('test_')])
if count < 500:
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(f'expected the full node-test suite, got only {count} folders')
open(os.path.join(tmp, 'node', '.complete'), 'w').write(f'{count}\n')
if os.path.isdir(final) and not os.path.exists(marker):
    shutil.rmtree(final, ignore_errors=True)  # a half-written suite from an interrupted run
try:
    os.rename(os.path.join(tmp, 'node'), final)
except OSError:
    pass  # another run finished first: its suite is identical
shutil.rmtree(tmp, ignore_errors=True)
print(f'generated {count} ONNX backend node tests in {final}')
