"""A real model object of the kind a notebook holds: the shipped all-MiniLM-L6-v2 ONNX export behind `encode`,
run by onnxruntime with Hugging Face tokenizers (sentence-transformers' recipe: 256 word pieces with [SEP] kept,
mean pooling over the mask, L2 normalisation). Nothing of execretrieval's TypeScript embedding code is used."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


class MiniLM:
    def __init__(self, model_dir: str | Path, max_length: int = 256) -> None:
        d = Path(model_dir)
        self.tokenizer = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.no_padding()
        self.session = ort.InferenceSession(str(d / "onnx" / "model.onnx"), providers=["CPUExecutionProvider"])
        self.calls: list[str] = []

    def encode(self, sentences: list[str], batch_size: int = 32) -> np.ndarray:
        self.calls.append("encode")
        out = []
        for s in sentences:  # one at a time: no padding enters the pooled mean
            enc = self.tokenizer.encode(s)
            ids = np.array([enc.ids], dtype=np.int64)
            (hidden,) = self.session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)})[:1]
            v = hidden[0].mean(axis=0)
            out.append(v / np.linalg.norm(v))
        return np.stack(out).astype(np.float32)


class BeirStyle:
    """BEIR's model interface over the same model: encode_queries(texts), encode_corpus([{title, text}])."""

    def __init__(self, inner: MiniLM) -> None:
        self.inner = inner

    def encode_queries(self, queries: list[str], **kw: object) -> np.ndarray:
        self.inner.calls.append("encode_queries")
        return self.inner.encode(queries)

    def encode_corpus(self, corpus: list[dict[str, str]], **kw: object) -> list[list[float]]:
        self.inner.calls.append("encode_corpus")
        return self.inner.encode([(d["title"] + " " + d["text"]).strip() for d in corpus]).tolist()


class PromptStyle:
    """sentence-transformers' prompts: encode(texts, prompt_name=...) when `prompts` names the side."""

    prompts = {"query": "", "document": ""}

    def __init__(self, inner: MiniLM) -> None:
        self.inner = inner

    def encode(self, sentences: list[str], prompt_name: str | None = None) -> np.ndarray:
        self.inner.calls.append(f"encode[{prompt_name}]")
        return self.inner.encode(sentences)
