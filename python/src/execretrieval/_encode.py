"""Calling a model object the way its library expects, for queries and for code.

Retrieval libraries disagree on how a model is asked for query-side and document-side vectors; each branch
below is one library's documented convention, tried in this order (the first that the object has wins):

  queries                                      documents (the benchmark's code snippets)
  encode_queries(texts)          BEIR, MTEB 1  encode_corpus([{"title": "", "text": code}])  BEIR, MTEB 1
  encode_query(texts)    sentence-transformers encode_document(texts)         sentence-transformers >= 5
  encode(texts, prompt_name="query")  a sentence-transformers model whose `prompts` has "query" / "document"
  encode(texts)                                encode(texts)                  anything else

Whatever comes back (numpy array, list of lists, a torch tensor) becomes a float32 matrix with one row per text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Side = Literal["query", "document"]


@runtime_checkable
class Encoder(Protocol):
    """The least a model needs: `encode(texts) -> one vector per text`."""

    def encode(self, sentences: list[str], /, **kwargs: Any) -> Any: ...


def _as_matrix(vectors: Any, n: int, how: str) -> npt.NDArray[np.float32]:
    if hasattr(vectors, "detach"):  # a torch tensor, possibly on a GPU
        vectors = vectors.detach().cpu().numpy()
    m = np.asarray(vectors, dtype=np.float32)
    if m.ndim != 2 or m.shape[0] != n:
        raise ValueError(f"{how} returned shape {m.shape} for {n} texts; expected ({n}, dims)")
    if not np.isfinite(m).all():
        bad = int((~np.isfinite(m)).any(axis=1).sum())
        raise ValueError(f"{how} returned {bad} vectors with values that are not finite numbers")
    return m


def _prompt_names(model: object) -> Mapping[str, str]:
    prompts = getattr(model, "prompts", None)
    return prompts if isinstance(prompts, Mapping) else {}


def encoder_call(model: object, side: Side) -> str:
    """The call `encode_texts` makes for `side`, as text (for messages and for the record)."""
    if side == "query":
        if callable(getattr(model, "encode_queries", None)):
            return "encode_queries"
        if callable(getattr(model, "encode_query", None)):
            return "encode_query"
    else:
        if callable(getattr(model, "encode_corpus", None)):
            return "encode_corpus"
        if callable(getattr(model, "encode_document", None)):
            return "encode_document"
    if not callable(getattr(model, "encode", None)):
        raise TypeError(f"{type(model).__name__} has no encode method (nor encode_queries/encode_corpus, encode_query/encode_document)")
    if side in _prompt_names(model):
        return f'encode(prompt_name="{side}")'
    return "encode"


def encode_texts(model: object, side: Side, texts: Sequence[str], kwargs: Mapping[str, Any]) -> npt.NDArray[np.float32]:
    """One float32 row per text in `texts`, asked of `model` for `side` (see the table above); `kwargs` go to the call."""
    how = encoder_call(model, side)
    items = list(texts)
    m: Any = model
    if how == "encode_queries":
        out = m.encode_queries(items, **kwargs)
    elif how == "encode_query":
        out = m.encode_query(items, **kwargs)
    elif how == "encode_corpus":
        out = m.encode_corpus([{"title": "", "text": t} for t in items], **kwargs)
    elif how == "encode_document":
        out = m.encode_document(items, **kwargs)
    elif how.startswith("encode(prompt_name"):
        out = m.encode(items, prompt_name=side, **kwargs)
    else:
        out = m.encode(items, **kwargs)
    return _as_matrix(out, len(items), f"{type(model).__name__}.{how}")
