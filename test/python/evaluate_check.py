"""Drives the installed `execretrieval` Python package as a notebook would and prints what the test compares, as
JSON: argv = run folder, model folder. The CLI comes from $EXECRETRIEVAL_CLI."""

import json
import sys

import numpy as np

import execretrieval as er
from minilm_model import BeirStyle, MiniLM, PromptStyle

run_dir, model_dir = sys.argv[1], sys.argv[2]
model = MiniLM(model_dir)
res = er.evaluate(model, run=run_dir, name="py-minilm", score_args=["--replicates", "200"])
out: dict = {
    "calls": list(model.calls),
    "headline": json.loads(res.headline.to_json(orient="records")),
    "per_query": {c: json.loads(res.per_query[c].to_json()) for c in ["exec@1", "ndcg@10", "deception_rate"]},
    "winner": res.winner,
    "report": str(res.report),
    "tables": sorted(er.load(run_dir)),
}
tables = er.load(run_dir)
pq_builtin = er._tables.per_query(tables, "local-all-minilm-l6-v2")
out["per_query_equal"] = bool(pq_builtin.equals(res.per_query))
rank = lambda c: tables[f"rankings/{c}"].sort_values(["query_id", "rank"])[["query_id", "corpus_id"]].values.tolist()
out["rankings_equal"] = rank("py-minilm") == rank("local-all-minilm-l6-v2")


def vectors(c: str) -> dict:
    t = tables[f"embeddings/{c}/corpus"]
    return {i: np.asarray(v, dtype=np.float64) for i, v in zip(t["id"], t["vector"])}


mine, theirs = vectors("py-minilm"), vectors("local-all-minilm-l6-v2")
out["max_vector_diff"] = max(float(np.abs(mine[i] - theirs[i]).max()) for i in theirs)

# The other conventions reach the same model through their own methods, with the same vectors.
texts = ["Add two integers", "def add(a, b):\n    return a + b\n"]
plain = er._encode.encode_texts(MiniLM(model_dir), "query", texts, {})
for label, wrap in [("beir", BeirStyle), ("prompts", PromptStyle)]:
    inner = MiniLM(model_dir)
    w = wrap(inner)
    q = er._encode.encode_texts(w, "query", texts, {})
    d = er._encode.encode_texts(w, "document", texts, {})
    out[label] = {"query_call": er.encoder_call(w, "query"), "document_call": er.encoder_call(w, "document"), "calls": inner.calls,
                  "same": bool(np.allclose(q, plain, atol=1e-6) and np.allclose(d, plain, atol=1e-6))}


class Broken:
    def encode(self, sentences: list) -> list:
        return [[0.0, 1.0]] * (len(sentences) - 1)


errors = {}
for label, call in [
    ("short", lambda: er.evaluate(Broken(), run=run_dir, name="broken")),
    ("registry_name", lambda: er.evaluate(model, run=run_dir, name="local-all-minilm-l6-v2")),
    ("no_run", lambda: er.evaluate(model, run="no-such-run-anywhere", name="x")),
    ("no_encode", lambda: er.evaluate(object(), run=run_dir, name="x")),
]:
    try:
        call()
        errors[label] = None
    except Exception as e:  # the test checks each one's type and message
        errors[label] = {"type": type(e).__name__, "message": str(e), "code": getattr(e, "returncode", None)}
out["errors"] = errors
print(json.dumps(out))
