#!/usr/bin/env python3
"""Export an MPNet encoder (sentence-transformers/all-mpnet-base-v2: safetensors + config.json) to ONNX without torch.

Same approach and building blocks as export_bert_onnx.py (weights read with numpy, graph written node by node);
MPNet differs from BERT in three places, each taken from Hugging Face's MPNetModel (modeling_mpnet.py):
  - positions are RoBERTa-style: padding_idx + 1 + the index among non-pad tokens (cumsum of input_ids != pad),
    and pad tokens get padding_idx itself; there are no token types;
  - every layer adds a relative-position attention bias [heads, q, k] to the scores before the mask, from
    `encoder.relative_attention_bias` looked up by T5-style buckets of (k - q) (32 buckets, max distance 128),
    computed once from the sequence length and shared by all layers;
  - weight names: attention.attn.{q,k,v,o}, attention.LayerNorm.
The buckets depend only on k - q, so they are precomputed here for every offset the position table allows and the
graph gathers them ([2 L - 1] int64 constant). The bucket arithmetic is float32, as torch does it.

  inputs  input_ids, attention_mask   int64 [batch, seq]
  output  last_hidden_state           float32 [batch, seq, hidden]

usage: export_mpnet_onnx.py MODEL_DIR OUT_ONNX   (MODEL_DIR holds config.json and model.safetensors)
"""
import json
import math
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export_bert_onnx import Graph, export_main, read_safetensors  # noqa: E402


def relative_position_bucket(relative_position: np.ndarray, num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """HF MPNetEncoder.relative_position_bucket, in the same dtypes (int64 offsets, float32 logarithm)."""
    ret = np.zeros_like(relative_position)
    n = -relative_position
    num_buckets //= 2
    ret += (n < 0).astype(np.int64) * num_buckets
    n = np.abs(n)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    with np.errstate(divide="ignore"):
        scaled = np.log(n.astype(np.float32) / np.float32(max_exact)) / np.float32(math.log(max_distance / max_exact)) * np.float32(num_buckets - max_exact)
    val_if_large = max_exact + np.where(is_small, 0, scaled).astype(np.int64)  # .to(long) truncates toward zero
    val_if_large = np.minimum(val_if_large, num_buckets - 1)
    return ret + np.where(is_small, n, val_if_large)


def build(model_dir: Path) -> onnx.ModelProto:
    cfg = json.loads((model_dir / "config.json").read_text())
    if cfg.get("model_type") != "mpnet":
        raise SystemExit(f"{model_dir}/config.json: model_type {cfg.get('model_type')!r}, expected 'mpnet'")
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise SystemExit(f"{model_dir}/config.json: hidden_act {cfg.get('hidden_act')} not supported (gelu only)")
    weights = read_safetensors(model_dir / "model.safetensors")
    prefix = "mpnet." if "mpnet.embeddings.word_embeddings.weight" in weights else ""
    hidden, heads, layers = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    head_dim, eps, pad = hidden // heads, cfg.get("layer_norm_eps", 1e-5), cfg.get("pad_token_id", 1)
    max_pos = cfg["max_position_embeddings"]
    g = Graph(weights, prefix)
    i64 = lambda v: g.const(np.array(v, dtype=np.int64))  # noqa: E731

    # Positions: (cumsum(ids != pad) * (ids != pad)) + pad, as create_position_ids_from_input_ids.
    not_pad = g.op("Cast", [g.op("Not", [g.op("Equal", ["input_ids", i64(pad)])])], to=TensorProto.INT64)
    positions = g.op("Add", [g.op("Mul", [g.op("CumSum", [not_pad, i64(1)]), not_pad]), i64(pad)])
    x = g.op("Add", [g.op("Gather", [g.weight("embeddings.word_embeddings.weight"), "input_ids"]),
                     g.op("Gather", [g.weight("embeddings.position_embeddings.weight"), positions])])
    x = g.layer_norm(x, "embeddings.LayerNorm", eps)

    # Relative-position bias [1, heads, seq, seq]: bias[bucket[k - q]], with k - q + (L - 1) indexing the table.
    span = max_pos - 1
    buckets = relative_position_bucket(np.arange(-span, span + 1, dtype=np.int64), cfg.get("relative_attention_num_buckets", 32))
    seq = g.op("Squeeze", [g.op("Slice", [g.op("Shape", ["input_ids"]), i64([1]), i64([2])]), i64([0])])
    ar = g.op("Range", [i64(0), seq, i64(1)])
    rel = g.op("Sub", [g.op("Unsqueeze", [ar, i64([0])]), g.op("Unsqueeze", [ar, i64([1])])])  # [q, k] = k - q
    bucket = g.op("Gather", [g.const(buckets), g.op("Add", [rel, i64(span)])])
    bias = g.op("Gather", [g.weight("encoder.relative_attention_bias.weight"), bucket])  # [q, k, heads]
    bias = g.op("Unsqueeze", [g.op("Transpose", [bias], perm=[2, 0, 1]), i64([0])])

    m = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    m = g.op("Mul", [g.op("Sub", [g.const(np.array(1.0, dtype=np.float32)), m]), g.const(np.array(-3.4e38, dtype=np.float32))])
    mask = g.op("Unsqueeze", [m, i64([1, 2])])
    split_heads = i64([0, 0, heads, head_dim])
    merge_heads = i64([0, 0, hidden])
    scale = g.const(np.array(1.0 / math.sqrt(head_dim), dtype=np.float32))
    sqrt2 = g.const(np.array(math.sqrt(2.0), dtype=np.float32))
    one, half = g.const(np.array(1.0, dtype=np.float32)), g.const(np.array(0.5, dtype=np.float32))

    for i in range(layers):
        p = f"encoder.layer.{i}."
        q = g.op("Transpose", [g.op("Reshape", [g.linear(x, p + "attention.attn.q"), split_heads])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [g.linear(x, p + "attention.attn.k"), split_heads])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [g.linear(x, p + "attention.attn.v"), split_heads])], perm=[0, 2, 1, 3])
        scores = g.op("Add", [g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias]), mask])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge_heads])
        x = g.layer_norm(g.op("Add", [g.linear(ctx, p + "attention.attn.o"), x]), p + "attention.LayerNorm", eps)
        h = g.linear(x, p + "intermediate.dense")
        h = g.op("Mul", [g.op("Mul", [h, half]), g.op("Add", [g.op("Erf", [g.op("Div", [h, sqrt2])]), one])])
        x = g.layer_norm(g.op("Add", [g.linear(h, p + "output.dense"), x]), p + "output.LayerNorm", eps)

    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in ("input_ids", "attention_mask")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", hidden])
    graph = helper.make_graph(g.nodes, "mpnet", ints, [out], initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="execretrieval-export")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    export_main(build, __doc__)
