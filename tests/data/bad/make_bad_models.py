#!/usr/bin/python3
"""Writes the binary ONNX files of the bad-input corpus (tests/data/bad/*.onnx) with Debian's python3-onnx.

The files are committed; this script documents how each was made and rewrites them identically:
    /usr/bin/python3 tests/data/bad/make_bad_models.py
"""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "bad", inputs, outputs, initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="spyglass-bad-corpus")
    m.ir_version = 8
    return m


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def good():
    return model([helper.make_node("Relu", ["x"], ["h"], name="relu0"),
                  helper.make_node("MatMul", ["h", "w"], ["y"], name="mm0")],
                 [vi("x", TensorProto.FLOAT, [4, 8])], [vi("y", TensorProto.FLOAT, [4, 2])],
                 [helper.make_tensor("w", TensorProto.FLOAT, [8, 2], [0.5] * 16)])


good_bytes = good().SerializeToString()

# Cut in the middle of the initializer's data: a length-delimited field runs past the end of the file.
save("truncated.onnx", good_bytes[: len(good_bytes) * 2 // 3])

# A wire type no field of ModelProto can have (7 is reserved) a few bytes in: protobuf refuses to decode.
corrupt = bytearray(good_bytes)
corrupt[0] = 0x0F
save("corrupted.onnx", bytes(corrupt))

save("empty.onnx", b"")
save("not_onnx.onnx", b"PK\x03\x04 this is a zip archive, not an ONNX model\n")

# A complex64 input: ONNX allows it, Spyglass has no complex tensors.
save("wrong_dtype.onnx", model([helper.make_node("Identity", ["x"], ["y"], name="id0")],
                               [vi("x", TensorProto.COMPLEX64, [4])], [vi("y", TensorProto.COMPLEX64, [4])]).SerializeToString())

# Two nodes that feed each other: a graph must be acyclic (the checker's topological-order check).
save("cyclic.onnx", model([helper.make_node("Relu", ["x2", ], ["x1"], name="a"),
                           helper.make_node("Relu", ["x1"], ["x2"], name="b")],
                          [vi("x", TensorProto.FLOAT, [4])], [vi("x2", TensorProto.FLOAT, [4])]).SerializeToString())

# MatMul of [4, 8] by [3, 2]: the inner dimensions differ.
save("mismatched_shapes.onnx", model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm0")],
                                     [vi("x", TensorProto.FLOAT, [4, 8])], [vi("y", TensorProto.FLOAT, [4, 2])],
                                     [helper.make_tensor("w", TensorProto.FLOAT, [3, 2], [1.0] * 6)]).SerializeToString())

# The same MatMul feeding Shape: ONNX 1.12's Shape data propagation read the untyped output and crashed (a fuzz
# finding of fuzz_onnx_binary; onnx_shape_inference.cpp).
save("shape_after_failed_inference.onnx", model([helper.make_node("MatMul", ["x", "w"], ["m"], name="mm0"),
                                                 helper.make_node("Shape", ["m"], ["y"], name="shape0")],
                                                [vi("x", TensorProto.FLOAT, [4, 8])], [vi("y", TensorProto.INT64, [2])],
                                                [helper.make_tensor("w", TensorProto.FLOAT, [3, 2], [1.0] * 6)]).SerializeToString())

# An initializer whose raw data is shorter than its dims say (8 x 2 floats = 64 bytes, 12 given).
short = helper.make_tensor("w", TensorProto.FLOAT, [8, 2], b"\0" * 64, raw=True)
short.raw_data = b"\0" * 12
save("initializer_too_short.onnx", model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm0")],
                                         [vi("x", TensorProto.FLOAT, [4, 8])], [vi("y", TensorProto.FLOAT, [4, 2])],
                                         [short]).SerializeToString())


def external(location):
    t = helper.make_tensor("w", TensorProto.FLOAT, [8, 2], [0.0] * 16)
    t.ClearField("float_data")
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", location
    return model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm0")],
                 [vi("x", TensorProto.FLOAT, [4, 8])], [vi("y", TensorProto.FLOAT, [4, 2])], [t]).SerializeToString()


# External data that would leave the model's folder: refused before anything is opened.
save("external_dotdot.onnx", external("../../../../../../etc/passwd"))
save("external_absolute.onnx", external("/etc/passwd"))
# A symlink inside the folder that points out of it (made by the test; see tst_bad_inputs.cpp) is refused too.
