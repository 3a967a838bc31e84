"""Reference vectors for token-id rows, from onnx's own numpy evaluator (onnx.reference.ReferenceEvaluator).

Independent of transformers.js and onnxruntime: each row runs alone (no padding, so no masking enters), then
mean pooling and L2 normalisation in float64. The int8 graph's dequantisation is plain ONNX ops, so the same
evaluator runs it. stdin: {"model": path to .onnx, "rows": [[ids...], ...]}; stdout: {"vectors": [[...], ...]}.
"""
import json
import sys

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

req = json.load(sys.stdin)
model = onnx.load(req["model"])
names = {i.name for i in model.graph.input}
ev = ReferenceEvaluator(model)
out = []
for ids in req["rows"]:
    x = np.array([ids], dtype=np.int64)
    feeds = {"input_ids": x, "attention_mask": np.ones_like(x)}
    if "token_type_ids" in names:
        feeds["token_type_ids"] = np.zeros_like(x)
    (hidden,) = ev.run(["last_hidden_state"], feeds)
    pooled = hidden[0].astype(np.float64).mean(axis=0)
    out.append((pooled / np.linalg.norm(pooled)).tolist())
json.dump({"vectors": out}, sys.stdout)
