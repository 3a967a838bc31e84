"""Reference sentence vectors for all-mpnet-base-v2, from its safetensors weights by a plain numpy forward pass.

Independent of the ONNX export (infra/models/export_mpnet_onnx.py), of transformers.js and of onnxruntime: its own
safetensors reader, Hugging Face MPNetModel's forward written out per sequence (no padding, so no mask enters):
RoBERTa-style positions (pad_token_id + 1 + index), T5-style relative-position buckets computed offset by offset,
post-LayerNorm layers with exact GELU; then sentence-transformers' mean pooling and L2 normalisation, in float64.
stdin: {"model_dir", "rows": [[ids...], ...]}; stdout: {"vectors": [[...], ...]}.
"""
import json
import math
import struct
import sys

import numpy as np

req = json.load(sys.stdin)
cfg = json.load(open(f"{req['model_dir']}/config.json"))
raw = open(f"{req['model_dir']}/model.safetensors", "rb").read()
(hlen,) = struct.unpack("<Q", raw[:8])
header = json.loads(raw[8 : 8 + hlen])
W = {k: np.frombuffer(raw[8 + hlen + v["data_offsets"][0] : 8 + hlen + v["data_offsets"][1]], dtype=np.float32).reshape(v["shape"])
     for k, v in header.items() if k != "__metadata__" and v["dtype"] == "F32"}

H, NH, L, EPS, PAD = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"], cfg["layer_norm_eps"], cfg["pad_token_id"]
D = H // NH


def bucket(rel: int, num_buckets: int = 32, max_distance: int = 128) -> int:
    # modeling_mpnet.py relative_position_bucket, one offset at a time; torch computes the log part in float32.
    half = num_buckets // 2
    ret = half if -rel < 0 else 0
    n = abs(rel)
    exact = half // 2
    if n < exact:
        return ret + n
    large = exact + int(np.float32(np.log(np.float32(n) / np.float32(exact))) / np.float32(math.log(max_distance / exact)) * np.float32(half - exact))
    return ret + min(large, half - 1)


def layer_norm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * w + b


def lin(x, key):
    return x @ W[key + ".weight"].T + W[key + ".bias"]


def gelu(x):
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def attention(q, k, v, bias):
    n = q.shape[0]
    q, k, v = (t.reshape(n, NH, D).transpose(1, 0, 2) for t in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(D) + bias
    s = np.exp(s - s.max(-1, keepdims=True))
    return ((s / s.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(n, H)


# The rows' tokens stacked: every per-token step (embeddings, linears, LayerNorm, GELU) runs once for all rows,
# attention runs row by row within each row's own span.
rows = req["rows"]
spans = np.cumsum([0] + [len(r) for r in rows])
ids = [t for r in rows for t in r]
pos = [PAD + 1 + i for r in rows for i in range(len(r))]  # no pad tokens inside a row
x = W["embeddings.word_embeddings.weight"][ids].astype(np.float64) + W["embeddings.position_embeddings.weight"][pos]
x = layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"])
table = W["encoder.relative_attention_bias.weight"]
biases = [np.array([[table[bucket(k - q)] for k in range(n)] for q in range(n)]).transpose(2, 0, 1) for n in map(len, rows)]  # [heads, q, k]
for i in range(L):
    p = f"encoder.layer.{i}."
    q, k, v = (lin(x, p + f"attention.attn.{t}") for t in "qkv")
    ctx = np.concatenate([attention(q[a:b], k[a:b], v[a:b], biases[r]) for r, (a, b) in enumerate(zip(spans[:-1], spans[1:]))])
    x = layer_norm(lin(ctx, p + "attention.attn.o") + x, W[p + "attention.LayerNorm.weight"], W[p + "attention.LayerNorm.bias"])
    h = gelu(lin(x, p + "intermediate.dense"))
    x = layer_norm(lin(h, p + "output.dense") + x, W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"])
out = []
for a, b in zip(spans[:-1], spans[1:]):
    pooled = x[a:b].mean(axis=0)
    out.append((pooled / np.linalg.norm(pooled)).tolist())
json.dump({"vectors": out}, sys.stdout)
