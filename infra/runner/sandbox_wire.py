"""Length-prefixed JSON frames (4-byte big-endian length + UTF-8 JSON object), with a byte cap per frame."""

import json
import struct

FRAME_CAP = 256 * 1024 * 1024


class FrameError(Exception):
    """The stream holds something that is not a frame; it cannot be resynchronised, so its reader must stop."""


def _read_exact(stream, n):
    parts, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None if left == n and not parts else b"".join(parts)
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def read_frame(stream, cap=FRAME_CAP):
    """The next frame's object, or None at a clean end of stream. Raises FrameError on anything else."""
    head = _read_exact(stream, 4)
    if head is None:
        return None
    if len(head) < 4:
        raise FrameError("stream ended inside a frame header")
    (size,) = struct.unpack(">I", head)
    if size > cap:
        raise FrameError(f"frame of {size} bytes exceeds the cap of {cap}")
    body = _read_exact(stream, size) or b""
    if len(body) < size:
        raise FrameError("stream ended inside a frame")
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise FrameError(f"frame is not JSON: {type(exc).__name__}") from None
    if not isinstance(obj, dict):
        raise FrameError("frame is not a JSON object")
    return obj


def write_frame(stream, obj):
    data = json.dumps(obj).encode()
    stream.write(struct.pack(">I", len(data)) + data)
    stream.flush()
