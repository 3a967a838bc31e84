"""Evaluates our TREC exports with pytrec_eval (trec_eval's own measures), independently of our TypeScript.

usage: pytrec_check.py <export/trec dir> <config> [<config> ...]
Prints JSON {config: {"ordered": {qid: measures}, "raw": {qid: measures}}}: "ordered" reads <config>.run (the
strictly decreasing scores we export), "raw" reads <config>.scores.tsv (the retriever's raw scores, ties kept),
to show what an evaluator makes of tied scores. Measures: ndcg_cut_10 on the canonical qrels (qrels.txt);
recip_rank, P_10, success_1, success_10 on the execution qrels (qrels.exec.txt) over each query's top 10.
"""
import json
import sys

import pytrec_eval


def read_qrels(path):
    qrels = {}
    with open(path) as f:
        for line in f:
            qid, _, doc, rel = line.split()
            qrels.setdefault(qid, {})[doc] = int(rel)
    return qrels


def read_run(path):
    run = {}
    with open(path) as f:
        for line in f:
            qid, _, doc, rank, score, _tag = line.split()
            run.setdefault(qid, []).append((int(rank), doc, float(score)))
    return run


def read_raw(path):
    run = {}
    with open(path) as f:
        next(f)
        for line in f:
            qid, doc, rank, score = line.rstrip("\n").split("\t")
            run.setdefault(qid, []).append((int(rank), doc, float(score)))
    return run


def evaluate(run, qrels, exec_qrels):
    full = {q: {d: s for _, d, s in hits} for q, hits in run.items()}
    # The 10 best by rank: what was executed (RR@10, P_10, success_k are over the top 10).
    top10 = {q: {d: s for r, d, s in hits if r <= 10} for q, hits in run.items()}
    ndcg = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(full)
    ex = pytrec_eval.RelevanceEvaluator(exec_qrels, {"recip_rank", "P.10", "success.1,10"}).evaluate(top10)
    return {q: {**ndcg.get(q, {}), **ex.get(q, {})} for q in run}


def main():
    d = sys.argv[1]
    qrels = read_qrels(f"{d}/qrels.txt")
    exec_qrels = read_qrels(f"{d}/qrels.exec.txt")
    out = {}
    for config in sys.argv[2:]:
        out[config] = {
            "ordered": evaluate(read_run(f"{d}/{config}.run"), qrels, exec_qrels),
            "raw": evaluate(read_raw(f"{d}/{config}.scores.tsv"), qrels, exec_qrels),
        }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
