"""A minimal retrieval endpoint for `execretrieval retrieve` (docs/own-retriever.md), standard library only.

    python docs/examples/retrieval_service.py --port 8095 [--corpus runs/r1/benchmark/corpus.jsonl]

POST /index  {"corpus": [{"corpus_id", "code", "function_name"}, ...], "corpus_sha256": "..."}  -> {"ok": true}
POST /search {"query_id": "...", "query": "...", "k": 100}  -> {"results": [{"corpus_id": "...", "score": 1.25}, ...]}

It scores by TF-IDF-weighted word overlap between the query and each snippet (identifiers split on _ and case):
a stand-in for your own service (hybrid search, a vendor API behind an adapter). Replace `search` with yours.
"""
import argparse
import json
import math
import re
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DOCS = {}  # corpus_id -> Counter of words
DF = Counter()


def words(text):
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return [w.lower() for w in re.findall(r"[A-Za-z]+", text.replace("_", " ")) if len(w) > 1]


def index(corpus):
    DOCS.clear()
    DF.clear()
    for item in corpus:
        DOCS[item["corpus_id"]] = Counter(words(item["function_name"] + " " + item["code"]))
    for bag in DOCS.values():
        DF.update(bag.keys())


def search(query, k):
    n = len(DOCS)
    q = set(words(query))
    scored = [(sum(math.log(1 + n / DF[w]) for w in q if w in bag), cid) for cid, bag in DOCS.items()]
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [{"corpus_id": cid, "score": score} for score, cid in scored[:k]]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if self.path == "/index":
            index(body["corpus"])
            answer = {"ok": True, "indexed": len(DOCS)}
        elif self.path == "/search":
            answer = {"results": search(body["query"], int(body.get("k", 100)))}
        else:
            self.send_error(404)
            return
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8095)
    ap.add_argument("--corpus", help="a release corpus.jsonl to index at start (else wait for POST /index)")
    a = ap.parse_args()
    if a.corpus:
        with open(a.corpus) as f:
            index([json.loads(line) for line in f if line.strip()])
    print(f"http://127.0.0.1:{a.port}", flush=True)
    ThreadingHTTPServer(("127.0.0.1", a.port), Handler).serve_forever()
