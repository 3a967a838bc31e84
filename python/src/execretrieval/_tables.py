"""A run's output tables as pandas DataFrames, read when first asked for (a run's embeddings can be large)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pandas as pd


class Tables(Mapping[str, pd.DataFrame]):
    """Every table a run wrote, keyed by its path under the run without the extension: `benchmark/queries`,
    `benchmark/corpus`, `rankings/<config>`, `scoring/executions`, `report/scores`, `report/pairwise`,
    `report/leaderboard`, `embeddings/<config>/queries`, ... (columns: docs/outputs.md). Each is read on first
    access and kept."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        files = sorted(run_dir.rglob("*.parquet")) + sorted(run_dir.glob("report/*.csv"))
        # Hidden folders are an import being written aside (activities/scoring/importConfig.ts), not outputs.
        self._files = {
            str(f.relative_to(run_dir).with_suffix("")): f
            for f in files
            if not any(part.startswith(".") for part in f.relative_to(run_dir).parts)
        }
        self._read: dict[str, pd.DataFrame] = {}

    def __getitem__(self, key: str) -> pd.DataFrame:
        if key not in self._read:
            f = self._files.get(key)
            if f is None:
                raise KeyError(f"{key!r}: no such table in {self.run_dir} (tables: {', '.join(self._files)})")
            self._read[key] = pd.read_csv(f) if f.suffix == ".csv" else pd.read_parquet(f)
        return self._read[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def __repr__(self) -> str:
        return f"Tables({str(self.run_dir)!r}: {', '.join(self._files)})"


def per_query(tables: Tables, config_id: str) -> pd.DataFrame:
    """One row per query, one column per metric (`exec@1`, `ndcg@10`, ...), for one configuration: report/scores
    pivoted (ratio metrics are num / den there; a query a metric does not apply to is NaN)."""
    s = tables["report/scores"]
    mine = s[s["config_id"] == config_id]
    if mine.empty:
        raise KeyError(f"configuration {config_id!r} has no scores in {tables.run_dir} (scored: {', '.join(sorted(s['config_id'].unique()))})")
    wide = mine.pivot(index="query_id", columns="metric", values="value")
    wide.columns.name = None
    return wide.sort_index()
