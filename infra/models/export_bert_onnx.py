#!/usr/bin/env python3
"""Export a BERT-family encoder (safetensors + config.json) to ONNX without torch.

Why hand-built: the usual exporters (optimum, torch.onnx) need torch, a ~2 GB install, to trace a graph
whose shape is fixed and well known. Here the graph is written node by node with the `onnx` package and
the weights are read straight from the safetensors file with numpy (its format is an 8-byte header length,
a JSON header, then raw little-endian tensors).

The graph is HF's BertModel in eval mode (no dropout), absolute positions, exact (erf) GELU:
  inputs  input_ids, attention_mask, token_type_ids   int64 [batch, seq]
  output  last_hidden_state                           float32 [batch, seq, hidden]
which is what @huggingface/transformers' feature-extraction pipeline feeds and reads. Pooling and
normalisation stay outside the graph (the pipeline does them), as in sentence-transformers.

usage: export_bert_onnx.py MODEL_DIR OUT_ONNX   (MODEL_DIR holds config.json and model.safetensors)
"""
import json
import math
import struct
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path: Path) -> dict:
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        if meta["dtype"] not in DTYPES:
            raise SystemExit(f"{path}: tensor {name}: unsupported dtype {meta['dtype']}")
        start, end = meta["data_offsets"]
        arr = np.frombuffer(data[base + start : base + end], dtype=DTYPES[meta["dtype"]]).reshape(meta["shape"])
        out[name] = arr.astype(np.float32) if arr.dtype == np.float16 else arr
    return out


class Graph:
    def __init__(self, weights: dict, prefix: str):
        self.w, self.prefix = weights, prefix
        self.nodes, self.inits, self.n = [], [], 0

    def init(self, name: str, arr: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def weight(self, key: str, transpose: bool = False) -> str:
        arr = self.w[self.prefix + key]
        return self.init(key, arr.T if transpose else arr)

    def const(self, arr) -> str:
        self.n += 1
        return self.init(f"const_{self.n}", np.asarray(arr))

    def op(self, op_type: str, inputs: list, **attrs) -> str:
        self.n += 1
        out = f"{op_type.lower()}_{self.n}"
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=f"n{self.n}", **attrs))
        return out

    def linear(self, x: str, key: str) -> str:
        return self.op("Add", [self.op("MatMul", [x, self.weight(f"{key}.weight", transpose=True)]), self.weight(f"{key}.bias")])

    def layer_norm(self, x: str, key: str, eps: float) -> str:
        return self.op("LayerNormalization", [x, self.weight(f"{key}.weight"), self.weight(f"{key}.bias")], axis=-1, epsilon=eps)


def build(model_dir: Path) -> onnx.ModelProto:
    cfg = json.loads((model_dir / "config.json").read_text())
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise SystemExit(f"{model_dir}/config.json: position_embedding_type must be absolute")
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise SystemExit(f"{model_dir}/config.json: hidden_act {cfg.get('hidden_act')} not supported (gelu only)")
    weights = read_safetensors(model_dir / "model.safetensors")
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
    hidden, heads, layers = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    head_dim, eps = hidden // heads, cfg.get("layer_norm_eps", 1e-12)
    g = Graph(weights, prefix)

    # Embeddings: word + position (0..seq-1) + token type, then LayerNorm.
    # positions = arange(max_positions)[0:seq], with seq as a 1-D slice of Shape (a scalar Gather + Range
    # here was rewritten by onnxruntime's graph optimiser into a Slice it then rejected at run time).
    seq = g.op("Slice", [g.op("Shape", ["input_ids"]), g.const(np.array([1], dtype=np.int64)), g.const(np.array([2], dtype=np.int64))])
    arange = g.const(np.arange(cfg["max_position_embeddings"], dtype=np.int64))
    positions = g.op("Slice", [arange, g.const(np.array([0], dtype=np.int64)), seq])
    x = g.op("Add", [g.op("Gather", [g.weight("embeddings.word_embeddings.weight"), "input_ids"]),
                     g.op("Gather", [g.weight("embeddings.position_embeddings.weight"), positions])])
    x = g.op("Add", [x, g.op("Gather", [g.weight("embeddings.token_type_embeddings.weight"), "token_type_ids"])])
    x = g.layer_norm(x, "embeddings.LayerNorm", eps)

    # Additive mask [batch, 1, 1, seq]: 0 where attended, a large negative where padding (HF uses dtype min).
    m = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    m = g.op("Mul", [g.op("Sub", [g.const(np.array(1.0, dtype=np.float32)), m]), g.const(np.array(-3.4e38, dtype=np.float32))])
    mask = g.op("Unsqueeze", [m, g.const(np.array([1, 2], dtype=np.int64))])
    split_heads = g.const(np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_heads = g.const(np.array([0, 0, hidden], dtype=np.int64))
    scale = g.const(np.array(1.0 / math.sqrt(head_dim), dtype=np.float32))
    sqrt2 = g.const(np.array(math.sqrt(2.0), dtype=np.float32))
    one, half = g.const(np.array(1.0, dtype=np.float32)), g.const(np.array(0.5, dtype=np.float32))

    for i in range(layers):
        p = f"encoder.layer.{i}."
        q = g.op("Transpose", [g.op("Reshape", [g.linear(x, p + "attention.self.query"), split_heads])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [g.linear(x, p + "attention.self.key"), split_heads])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [g.linear(x, p + "attention.self.value"), split_heads])], perm=[0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), mask])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge_heads])
        x = g.layer_norm(g.op("Add", [g.linear(ctx, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm", eps)
        h = g.linear(x, p + "intermediate.dense")
        h = g.op("Mul", [g.op("Mul", [h, half]), g.op("Add", [g.op("Erf", [g.op("Div", [h, sqrt2])]), one])])
        x = g.layer_norm(g.op("Add", [g.linear(h, p + "output.dense"), x]), p + "output.LayerNorm", eps)

    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in ("input_ids", "attention_mask", "token_type_ids")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", hidden])
    graph = helper.make_graph(g.nodes, "bert", ints, [out], initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="execretrieval-export")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def export_main(build_fn, doc: str) -> None:
    """`<script> <model_dir> <out.onnx>`: build the graph and write it atomically (every exporter's command line)."""
    if len(sys.argv) != 3:
        raise SystemExit(doc)
    model = build_fn(Path(sys.argv[1]))
    out = Path(sys.argv[2])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    onnx.save(model, str(tmp))
    tmp.replace(out)  # atomic: a half-written model never sits at the final path


if __name__ == "__main__":
    export_main(build, __doc__)
