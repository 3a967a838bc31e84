"""execretrieval from Python: evaluate a model you hold (anything with `encode`) on a run's benchmark, and read
any run's outputs as pandas DataFrames.

    import execretrieval as er
    res = er.evaluate(model, run="default", name="my-model")
    res.headline                     # the report's first table, best configuration first

The execretrieval command is the engine: `evaluate` embeds the run's queries and code in this process, then
hands the vectors to `execretrieval import-vectors` and `execretrieval score` (the same path as vectors from a
file, docs/own-retriever.md), so the model is ranked, executed and scored exactly like a built-in configuration.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ._cli import CliError, cli_command, run_cli, run_dir_of
from ._encode import Encoder, encode_texts, encoder_call
from ._tables import Tables, per_query

__all__ = ["CliError", "Encoder", "Evaluation", "Tables", "encoder_call", "evaluate", "load"]
__version__ = "0.1.0"


class Evaluation(NamedTuple):
    """What `evaluate` returns."""

    headline: pd.DataFrame
    """The report's headline (report/leaderboard.csv): one row per configuration, best first, each headline
    metric with its interval and the letters of those it beats."""
    per_query: pd.DataFrame
    """This model's per-query metrics: index query_id, one column per metric."""
    name: str
    """The configuration id the model was scored under."""
    run_dir: Path
    """The run's folder; `load(run_dir)` reads every table in it."""
    report: Path
    """The HTML report."""
    winner: str | None
    """The configuration the headline names as the winner, or None ("no clear winner")."""


def _benchmark_texts(run_dir: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(query_id, query) and (corpus_id, code) pairs, from the files the embed stage reads (queries.jsonl and
    corpus.jsonl in the run, or in its benchmark/ folder). A malformed line is left to the CLI to report."""
    bench = run_dir if (run_dir / "queries.jsonl").exists() else run_dir / "benchmark"

    def pairs(file: str, id_key: str, text_key: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        path = bench / file
        if not path.exists():
            raise FileNotFoundError(f"{path}: no benchmark here (build it first: execretrieval run --until build --run {run_dir.name})")
        with path.open(encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(rec, dict) and isinstance(rec.get(id_key), str) and isinstance(rec.get(text_key), str):
                    out.append((rec[id_key], rec[text_key]))
        return out

    return pairs("queries.jsonl", "query_id", "query"), pairs("corpus.jsonl", "corpus_id", "code")


def _vectors_table(rows: Sequence[tuple[str, str]], m: np.ndarray) -> pa.Table:
    dims = m.shape[1]
    flat = pa.array(m.reshape(-1), type=pa.float32())
    return pa.table({"id": pa.array([r[0] for r in rows], type=pa.string()), "vector": pa.FixedSizeListArray.from_arrays(flat, dims)})


def evaluate(
    model: object,
    *,
    run: str | os.PathLike[str] = "default",
    name: str,
    encode_kwargs: Mapping[str, Any] | None = None,
    replace: bool = True,
    score_args: Sequence[str] = (),
    cli: str | Sequence[str] | None = None,
    quiet: bool = True,
) -> Evaluation:
    """Scores `model` as configuration `name` of `run` (a run id or folder whose benchmark is built) and returns
    the headline and the model's per-query results.

    `model` needs `encode(texts)`, or the query/document variants BEIR, MTEB and sentence-transformers use
    (`encoder_call` says which is called). `encode_kwargs` (e.g. `{"batch_size": 64}`) go to every encode call.
    `replace` overwrites an earlier configuration of that name (a rerun of the cell). `score_args` are extra
    `execretrieval score` options (e.g. `["--replicates", "1000"]`). `cli` is how to start the command (default:
    $EXECRETRIEVAL_CLI, else `execretrieval` on PATH). Progress lines are shown unless `quiet`.
    """
    cmd = cli_command(cli)
    run_dir = run_dir_of(cmd, run)
    queries, corpus = _benchmark_texts(run_dir)
    kw = dict(encode_kwargs or {})
    qm = encode_texts(model, "query", [t for _, t in queries], kw)
    cm = encode_texts(model, "document", [t for _, t in corpus], kw)
    if qm.shape[1] != cm.shape[1]:
        raise ValueError(f"query vectors have {qm.shape[1]} dimensions, code vectors {cm.shape[1]}: they must match to be compared")
    with tempfile.TemporaryDirectory(prefix="execretrieval-") as tmp:
        file = Path(tmp) / f"{name}.parquet"
        pq.write_table(pa.concat_tables([_vectors_table(queries, qm), _vectors_table(corpus, cm)]), file)
        run_cli(cmd, ["import-vectors", "--run", str(run_dir), str(file), "--name", name, *(["--replace"] if replace else [])], quiet=quiet)
    scored = json.loads(run_cli(cmd, ["score", "--run", str(run_dir), *score_args, "--json"], quiet=quiet, ok_codes=(0, 1)))
    failed = {f["config_id"]: f.get("error", "") for f in scored["manifest"].get("failed_configs", [])}
    if name in failed:
        raise CliError(f"execretrieval score: configuration {name} failed: {failed[name]}", 1)
    tables = Tables(run_dir)
    return Evaluation(
        headline=tables["report/leaderboard"],
        per_query=per_query(tables, name),
        name=name,
        run_dir=run_dir,
        report=Path(scored["report"]["html"]),
        winner=scored["leaderboard"]["winner"],
    )


def load(run: str | os.PathLike[str], *, cli: str | Sequence[str] | None = None) -> Tables:
    """Every output table of `run` (a run id or folder), as DataFrames keyed `report/scores`, `rankings/bm25`, ...
    (a folder needs no CLI; an id is looked up where the CLI keeps runs)."""
    p = Path(run)
    return Tables(p.resolve() if p.is_dir() else run_dir_of(cli_command(cli), run))
