"""Reference outputs of a local encoder from its safetensors weights, by a plain numpy forward pass.

Independent of the ONNX exports (infra/models/export_*_onnx.py), of transformers.js and of onnxruntime: its own
safetensors reader and Hugging Face's forward written out per sequence (no padding, so no mask enters), float64.
  arch "mpnet" (all-mpnet-base-v2, modeling_mpnet.py): RoBERTa-style positions (pad_token_id + 1 + index), T5-style
      relative-position buckets computed offset by offset and added to every layer's scores;
  arch "bert" (splade-tiny, modeling_bert.py): absolute positions, token type 0, LayerNorm gamma/beta or weight/bias.
  head "mean": sentence-transformers' mean pooling + L2 normalisation -> {"vectors": [[...]]}
  head "splade": BertForMaskedLM's head (dense, GELU, LayerNorm, tied embeddings + bias), then SPLADE's
      max over positions of log(1 + relu(logits)) -> {"terms": [{"id": weight, ...}]} (non-zero terms only)
Both post-LayerNorm, exact GELU. stdin: {"model_dir", "arch", "head", "rows": [[ids...], ...]}.
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
W = {}
for key, meta in header.items():
    if key == "__metadata__" or meta["dtype"] != "F32":
        continue
    a, b = meta["data_offsets"]
    key = key.removeprefix("bert.").removeprefix("mpnet.").replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
    W[key] = np.frombuffer(raw[8 + hlen + a : 8 + hlen + b], dtype=np.float32).reshape(meta["shape"])

MPNET = req["arch"] == "mpnet"
H, NH, L, EPS = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"], cfg["layer_norm_eps"]
D = H // NH
# Per-layer weight names: MPNet's, or BERT's.
Q, K, V, O, ALN = (("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o", "attention.LayerNorm") if MPNET else
                   ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense", "attention.output.LayerNorm"))


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


def layer_norm(x, key):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * W[key + ".weight"] + W[key + ".bias"]


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
if MPNET:
    pos = [cfg["pad_token_id"] + 1 + i for r in rows for i in range(len(r))]  # no pad tokens inside a row
    x = W["embeddings.word_embeddings.weight"][ids].astype(np.float64) + W["embeddings.position_embeddings.weight"][pos]
    table = W["encoder.relative_attention_bias.weight"]
    biases = [np.array([[table[bucket(k - q)] for k in range(n)] for q in range(n)]).transpose(2, 0, 1) for n in map(len, rows)]
else:
    pos = [i for r in rows for i in range(len(r))]
    x = (W["embeddings.word_embeddings.weight"][ids].astype(np.float64) + W["embeddings.position_embeddings.weight"][pos]
         + W["embeddings.token_type_embeddings.weight"][0])
    biases = [0.0] * len(rows)
x = layer_norm(x, "embeddings.LayerNorm")
for i in range(L):
    p = f"encoder.layer.{i}."
    q, k, v = (lin(x, p + name) for name in (Q, K, V))
    ctx = np.concatenate([attention(q[a:b], k[a:b], v[a:b], biases[r]) for r, (a, b) in enumerate(zip(spans[:-1], spans[1:]))])
    x = layer_norm(lin(ctx, p + O) + x, p + ALN)
    h = gelu(lin(x, p + "intermediate.dense"))
    x = layer_norm(lin(h, p + "output.dense") + x, p + "output.LayerNorm")

if req["head"] == "mean":
    out = []
    for a, b in zip(spans[:-1], spans[1:]):
        pooled = x[a:b].mean(axis=0)
        out.append((pooled / np.linalg.norm(pooled)).tolist())
    json.dump({"vectors": out}, sys.stdout)
else:
    h = layer_norm(gelu(lin(x, "cls.predictions.transform.dense")), "cls.predictions.transform.LayerNorm")
    act = np.log1p(np.maximum(h @ W["embeddings.word_embeddings.weight"].T + W["cls.predictions.bias"], 0.0))
    terms = []
    for a, b in zip(spans[:-1], spans[1:]):
        w = act[a:b].max(axis=0)
        terms.append({str(t): float(w[t]) for t in np.flatnonzero(w > 0)})
    json.dump({"terms": terms}, sys.stdout)
