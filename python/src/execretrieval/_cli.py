"""The execretrieval command, run as a subprocess: it and its Temporal workflows are the engine, this package
only hands it files and reads back what it writes (nothing is scored twice, or differently, in Python)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path


class CliError(RuntimeError):
    """The command exited non-zero; the message is its last error line, `returncode` its exit code (README's table)."""

    def __init__(self, message: str, returncode: int) -> None:
        super().__init__(message)
        self.returncode = returncode


def cli_command(cli: str | Sequence[str] | None = None) -> list[str]:
    """How to start the CLI: `cli` when given, else $EXECRETRIEVAL_CLI (a command line, e.g.
    `node /path/to/checkout/bin/execretrieval.js`), else `execretrieval` on PATH (`npm install -g`)."""
    if cli is not None:
        return shlex.split(cli) if isinstance(cli, str) else list(cli)
    env = os.environ.get("EXECRETRIEVAL_CLI")
    if env:
        return shlex.split(env)
    found = shutil.which("execretrieval")
    if found:
        return [found]
    raise FileNotFoundError(
        "the execretrieval command was not found: install it (npm install -g execretrieval-<version>.tgz, README) "
        "or set EXECRETRIEVAL_CLI to how you start it, e.g. 'node /path/to/checkout/bin/execretrieval.js'"
    )


def run_cli(cmd: Sequence[str], args: Sequence[str], *, quiet: bool = True, ok_codes: Sequence[int] = (0,)) -> str:
    """Runs the CLI with `args` and returns its stdout; its stderr (progress, notes) is passed through unless
    `quiet`. An exit code outside `ok_codes` raises CliError with the command's error line (score exits 1 when
    another configuration failed, and says so in its --json output)."""
    p = subprocess.run([*cmd, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if not quiet and p.stderr:
        print(p.stderr, end="")
    if p.returncode not in ok_codes:
        lines = [ln for ln in p.stderr.splitlines() if ln.startswith("error:")] or p.stderr.strip().splitlines()[-1:] or [f"exit code {p.returncode}"]
        raise CliError(f"execretrieval {args[0]} failed (exit {p.returncode}): {lines[-1]}", p.returncode)
    return p.stdout


def run_dir_of(cmd: Sequence[str], run: str | os.PathLike[str]) -> Path:
    """A run as the CLI resolves it: a directory that exists, else runs/<id> where the CLI keeps runs (it says
    where in `runs --json`: the checkout's runs/ for a checkout, the current folder's for an installed CLI)."""
    p = Path(run)
    if p.is_dir():
        return p.resolve()
    listing = json.loads(run_cli(cmd, ["runs", "--json"]))
    found = Path(listing["dir"]) / str(run)
    if not found.is_dir():
        known = ", ".join(r["run_id"] for r in listing["runs"]) or "none yet"
        raise FileNotFoundError(f"run {str(run)!r} not found: neither {p.resolve()} nor {found} is a directory (runs there: {known})")
    return found
