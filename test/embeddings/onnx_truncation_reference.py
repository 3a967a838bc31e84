"""Reference vector for a long text, truncated as sentence-transformers does, run by onnx's own numpy evaluator.

Independent of transformers.js and onnxruntime: the special tokens come from tokenizer.json's TemplateProcessing
post-processor, the truncation is Hugging Face tokenizers' rule (content cut to max_length minus the specials,
then [CLS] ... [SEP] added), the forward pass is onnx.reference.ReferenceEvaluator (pure numpy), then mean
pooling over the mask and L2 normalisation. stdin: {"model_dir", "content_ids", "max_length"}; stdout: the vector.
"""
import json
import sys

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

req = json.load(sys.stdin)
tok = json.load(open(f"{req['model_dir']}/tokenizer.json"))
post = tok["post_processor"]
specials = post["special_tokens"]
single = post["single"]
cut = req["max_length"] - sum(1 for piece in single if "SpecialToken" in piece)
ids = []
for piece in single:
    if "SpecialToken" in piece:
        ids += specials[piece["SpecialToken"]["id"]]["ids"]
    else:
        ids += req["content_ids"][:cut]
x = np.array([ids], dtype=np.int64)
mask = np.ones_like(x)
model = onnx.load(f"{req['model_dir']}/onnx/model.onnx")
(hidden,) = ReferenceEvaluator(model).run(None, {"input_ids": x, "attention_mask": mask, "token_type_ids": np.zeros_like(x)})
pooled = hidden[0].astype(np.float64).mean(axis=0)
pooled /= np.linalg.norm(pooled)
json.dump({"n_tokens": len(ids), "last_id": ids[-1], "vector": pooled.tolist()}, sys.stdout)
