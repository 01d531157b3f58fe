#!/usr/bin/env python3
"""Writes the bad kernel bundles of the corpus (bad_bundle_*.bundle) from a good one, fuzz/seeds/bundle/matmul.bundle
(`compile resources/examples/matmul.onnxtxt --export`), each with one field the compiler could never have written.
The one-file form is the fuzz target's: manifest.json, a line "@@kernel@@", then kernels/k0.json; tst_bad_inputs
unpacks it into a folder and runs `run-bundle` on it.  Run from the repository root: python3 tests/data/bad/make_bad_bundles.py"""
import copy
import json
import os

SEP = "\n@@kernel@@\n"
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
manifest, kernel = open(os.path.join(root, "fuzz/seeds/bundle/matmul.bundle")).read().split(SEP)
manifest, kernel = json.loads(manifest), json.loads(kernel)


def layout2d(rows, cols):
    """The compiler's device layout of a [rows, cols] tensor sticked on dim 1 (64 elements a stick)."""
    return {"device_dtype": "DL16", "device_size": [(cols + 63) // 64, rows, 64], "dim_map": [1, 0, 1], "stride_map": [64, cols, 1]}


def write(name, edit):
    m, k = copy.deepcopy(manifest), copy.deepcopy(kernel)
    edit(m, k)
    with open(os.path.join(here, "bad_bundle_" + name + ".bundle"), "w") as f:
        f.write(json.dumps(m, sort_keys=True, separators=(",", ":")) + SEP + json.dumps(k, sort_keys=True, separators=(",", ":")) + "\n")


def tensor(m, name):
    return next(t for t in m["tensors"] if t["name"] == name)


def set_path(obj, path, value):
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


def constant_too_small(m, k):
    # B becomes a constant of [256, 128], but the kernel still reads 512 rows of it.
    b = tensor(m, "arg1_1")
    b["kind"] = "constant"
    b["host_shape"] = [256, 128]
    b["device_layout"] = layout2d(256, 128)
    m["inputs"].remove("arg1_1")


edits = {
    "cores_zero": lambda m, k: set_path(m, ["target", "cores"], 0),
    "cores_negative": lambda m, k: set_path(m, ["target", "cores"], -4),
    "cores_huge": lambda m, k: set_path(m, ["target", "cores"], 10**15),
    "stick_bytes_zero": lambda m, k: set_path(m, ["target", "stick_bytes"], 0),
    "usable_lx_negative": lambda m, k: set_path(m, ["target", "usable_lx_bytes"], -1),
    "device_size_zero": lambda m, k: set_path(tensor(m, "arg0_1"), ["device_layout", "device_size", 0], 0),
    "dim_map_out_of_range": lambda m, k: set_path(tensor(m, "arg0_1"), ["device_layout", "dim_map", 0], 5),
    "stride_negative": lambda m, k: set_path(tensor(m, "arg0_1"), ["device_layout", "stride_map", 1], -512),
    "stick_dim_out_of_range": lambda m, k: set_path(tensor(m, "arg0_1"), ["stick_dim"], 7),
    "unknown_dtype": lambda m, k: set_path(tensor(m, "arg0_1"), ["dtype"], "complex32"),
    "duplicate_tensor": lambda m, k: set_path(m["tensors"][1], ["name"], "arg0_1"),
    "no_kernels": lambda m, k: set_path(m, ["kernels"], []),
    "kernel_outside": lambda m, k: set_path(m["kernels"][0], ["file"], "../../../../../../etc/passwd"),
    "empty_kernel": lambda m, k: set_path(k, ["loop_body", "stmts"], []),
    "slice_beyond_tile": lambda m, k: set_path(k["per_core_slices"][0], ["extent", 0], 10**6),
    "slice_on_missing_core": lambda m, k: set_path(k["per_core_slices"][0], ["core"], 40),
    "ways_zero": lambda m, k: set_path(k["iteration_space"]["vars"][0], ["ways"], 0),
    "ways_huge": lambda m, k: set_path(k["iteration_space"]["vars"][0], ["ways"], 10**6),
    "constant_load_beyond_size": constant_too_small,
    "unknown_compute_fn": lambda m, k: set_path(next(st for st in k["loop_body"]["stmts"] if st["kind"] == "compute"), ["fn"], "frobnicate"),
    "unexpected_field": lambda m, k: set_path(m["target"], ["clock_ghz"], 2.0),
    "reduce_with_mean": lambda m, k: set_path(next(st for st in k["loop_body"]["stmts"] if st["kind"] == "reduction"), ["fn"], "mean"),
    "matmul_roles_missing": lambda m, k: k.pop("matmul"),
    "matmul_roles_not_the_body": lambda m, k: k["matmul"].update(m=k["matmul"]["n"], n=k["matmul"]["m"]),
}
for name, edit in edits.items():
    write(name, edit)
