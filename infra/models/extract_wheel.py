#!/usr/bin/env python3
"""Copy the files under one folder of a wheel (a zip) into a directory, flat.

usage: extract_wheel.py WHEEL INNER_FOLDER OUT_DIR
Only regular files directly under INNER_FOLDER and its subfolders are copied, keeping their relative paths;
a path that would escape OUT_DIR is refused (a wheel is untrusted input).
"""
import sys
import zipfile
from pathlib import Path

wheel, inner, out = sys.argv[1], sys.argv[2].rstrip("/") + "/", Path(sys.argv[3]).resolve()
n = 0
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if info.is_dir() or not info.filename.startswith(inner):
            continue
        rel = info.filename[len(inner):]
        dest = (out / rel).resolve()
        if out not in dest.parents:
            raise SystemExit(f"{wheel}: {info.filename}: path escapes the output folder")
        dest.parent.mkdir(parents=True, exist_ok=True)
        with z.open(info) as src, open(dest, "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        n += 1
if n == 0:
    raise SystemExit(f"{wheel}: nothing under {inner}")
print(n)
