#!/usr/bin/python3
# Exports BERT-base (12 layers, hidden 768, 12 heads, FFN 3072, HF's vocabulary of 30522 and 512 positions) with
# random weights into OUTDIR/bert_base/{model.onnx,test_data_set_0/} for bench_bert_base, at bench time (never
# committed: the model is 440 MB). The network is the real-model suite's Bert (tests/model/export_real_models.py,
# written the way HF's BertModel is) at BERT-base's sizes, exported by the same code, so the benchmark measures the
# model the suite checks for correctness at a small size.
#
# Usage: export_bert_base.py OUTDIR [SEQ]. Idempotent: an export whose stamp (both scripts' hash, the sequence
# length, the torch version) matches is kept.
import hashlib
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, '..', '..', 'tests', 'model', 'export_real_models.py')


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit('usage: export_bert_base.py OUTDIR [SEQ]')
    outdir = os.path.abspath(sys.argv[1])
    seq = int(sys.argv[2]) if len(sys.argv) == 3 else 128
    spec = importlib.util.spec_from_file_location('export_real_models', SUITE)
    erm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(erm)
    torch = erm.torch

    def bert_base():
        torch.manual_seed(0)
        m = erm.Bert(vocab=30522, hidden=768, heads=12, layers=12, ffn=3072, positions=512).eval()
        ids = torch.randint(0, 30522, (1, seq))
        mask = torch.ones(1, seq, dtype=torch.int64)
        mask[0, seq - seq // 8:] = 0   # a padded tail, as a batch of real sentences has
        return m, [ids, mask]

    erm.MODELS['bert_base'] = bert_base
    h = hashlib.sha256()
    for path in (os.path.abspath(__file__), SUITE):
        h.update(open(path, 'rb').read())
    stamp = f'{h.hexdigest()} seq {seq} torch {torch.__version__}\n'
    os.makedirs(outdir, exist_ok=True)
    done = erm.export('bert_base', outdir, stamp)
    print(f'bert_base (seq {seq}) {"exported into" if done else "cached in"} {os.path.join(outdir, "bert_base")}')


if __name__ == '__main__':
    main()
