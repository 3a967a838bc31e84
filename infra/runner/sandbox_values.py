"""Plain data across the trust boundary, both ways between the judge child and the candidate child: arguments one
way, results the other (sandbox_judge, sandbox_remote).

Only values whose type is *exactly* one of None, bool, int, float, complex, str, bytes, list, tuple, dict, set
and frozenset, range, or one of the stdlib containers collections.Counter, OrderedDict, defaultdict and deque (nested),
cross. The stdlib containers are rebuilt as themselves, so their own equality rules hold in the judge as they
would have in the child (a Counter treats missing keys as zero, an OrderedDict compares order with another
OrderedDict); a defaultdict's factory does not cross (equality ignores it). Exact type, never isinstance: a subclass can override `__eq__`, `__hash__` or
`__iter__`, and the point of crossing as data is that no candidate code runs when the judge compares. The judge
rebuilds the value from its own builtin types, so whatever the candidate patched in its own interpreter is gone.

Encoding: every value is a two-element JSON list [tag, payload]. Integers and floats travel as hex strings
(exact, no 4300-digit str() limit, NaN and infinities included). The encoder stops at MAX_DEPTH levels and at
MAX_ITEMS values in all; the caller caps the encoded size. The decoder trusts nothing: it checks every tag,
payload type, depth and count itself, since a hostile child can write any bytes on its result pipe.
"""

import collections

MAX_DEPTH = 64
MAX_ITEMS = 200_000
MAX_BYTES = 4 * 1024 * 1024
# Distinct values of one hash a set or mapping may hold. Int, float and tuple hashes are not randomised: a child
# can send 100,000 distinct ints that all hash alike (multiples of 2**61 - 1), and building a set of them costs
# one comparison per pair. Legitimate values hold a handful per hash (hash(-1) == hash(-2)).
MAX_SAME_HASH = 32


class Untrusted(Exception):
    """The value cannot cross as plain data; the message is the test's outcome."""


def encode(value, extra=None):
    """`extra(v)`, when given, encodes what no tag here covers (the judge's proxies, the candidate's handles), or
    returns None (then the value is refused)."""
    budget = [MAX_ITEMS]
    return _enc(value, 0, budget, extra)


def _enc(v, depth, budget, extra=None):
    budget[0] -= 1
    if budget[0] < 0:
        raise Untrusted("ERROR: value too large")
    if depth > MAX_DEPTH:
        raise Untrusted("ERROR: value too deep")
    t = type(v)
    if v is None:
        return ["n", 0]
    if t is bool:
        return ["b", v]
    if t is int:
        return ["i", hex(v)]
    if t is float:
        return ["f", v.hex()]
    if t is complex:
        return ["c", [v.real.hex(), v.imag.hex()]]
    if t is str:
        return ["s", v]
    if t is bytes:
        return ["y", v.hex()]
    if t is range:
        # Compared by the judge's own range (a mutant returning range(...) stays a FAIL), and no longer than a list
        # may be: a judge must never be handed range(10**9) to expand.
        if range.__len__(v) > MAX_ITEMS:
            raise Untrusted("ERROR: value too large")
        return ["r", [hex(v.start), hex(v.stop), hex(v.step)]]
    if t is list or t is tuple or t is set or t is frozenset:
        items = list.__iter__(v) if t is list else tuple.__iter__(v) if t is tuple else set.__iter__(v) if t is set else frozenset.__iter__(v)
        return [_SEQ_TAG[t], [_enc(x, depth + 1, budget, extra) for x in items]]
    if t is dict or t in _MAPPING_TAG:
        return [_MAPPING_TAG.get(t, "d"), [[_enc(k, depth + 1, budget, extra), _enc(x, depth + 1, budget, extra)] for k, x in dict.items(v)]]
    if t is _DEQUE:
        return ["q", [_enc(x, depth + 1, budget, extra) for x in _DEQUE.__iter__(v)]]
    if extra is not None:
        out = extra(v)
        if out is not None:
            return out
    raise Untrusted("ERROR: untrusted value type " + _type_name(t))


def is_iterator(v):
    """A generator or a builtin/itertools iterator (map, zip, filter, list_iterator...): what a result may be
    materialised from. Candidate classes are left alone: they stay objects in the candidate's process."""
    t = type(v)
    mod = type.__getattribute__(t, "__module__")
    return t is _GENERATOR or (mod in ("builtins", "itertools") and hasattr(t, "__next__"))


def materialise(it):
    """(candidate side) At most MAX_ITEMS items of an iterator as a list, or Untrusted: a result that never ends
    or is too long is the code's failure, decided where the code runs and under its limits."""
    out = []
    for x in it:
        out.append(x)
        if len(out) > MAX_ITEMS:
            raise Untrusted("ERROR: value too large")
    return out


_SEQ_TAG = {list: "l", tuple: "t", set: "S", frozenset: "F"}
# Captured at import, before any candidate code runs (a candidate may rebind collections.Counter later).
_MAPPING_TAG = {collections.Counter: "C", collections.OrderedDict: "O", collections.defaultdict: "D"}
_MAPPING_TYPE = {"d": dict, "C": collections.Counter, "O": collections.OrderedDict, "D": lambda: collections.defaultdict(None)}
_DEQUE = collections.deque
_GENERATOR = type(x for x in ())


def _type_name(t):
    try:
        name = type.__getattribute__(t, "__name__")
    except Exception:
        return "?"
    return name if type(name) is str else "?"


class BadValue(Exception):
    """The child's report is not a well-formed encoded value."""


def decode(data, extra=None):
    """`extra(tag, payload)` decodes the tags a caller adds (proxies, handles), or raises BadValue."""
    count = [MAX_ITEMS]
    return _dec(data, 0, count, extra)


def check_hashes(items, error):
    """Raises `error` unless `items` can go into a set or dict in linear time: no more than MAX_SAME_HASH distinct
    values share a hash. Grouping is by the hash value itself, an int whose own hash is itself, so the groups
    cannot collide; equal values (duplicates) are cheap for a set and are counted once. Unhashable items are
    left for the caller's own set() to refuse."""
    groups = {}
    for x in items:
        try:
            h = hash(x)
        except TypeError:
            continue
        g = groups.get(h)
        if g is None:
            groups[h] = [x]
        elif not any(y == x for y in g):
            if len(g) >= MAX_SAME_HASH:
                raise error(f"more than {MAX_SAME_HASH} distinct values share one hash")
            g.append(x)


def _hex_int(p):
    if type(p) is not str or len(p) > 2 * MAX_BYTES:
        raise BadValue("int payload")
    return int(p, 16)


def _hex_float(p):
    if type(p) is not str or len(p) > 64:
        raise BadValue("float payload")
    return float.fromhex(p)


def _dec(node, depth, count, extra=None):
    count[0] -= 1
    if count[0] < 0 or depth > MAX_DEPTH:
        raise BadValue("too large")
    if type(node) is not list or len(node) != 2 or type(node[0]) is not str:
        raise BadValue("not a [tag, payload] pair")
    tag, p = node
    if tag == "n":
        return None
    if tag == "b":
        if type(p) is not bool:
            raise BadValue("bool payload")
        return p
    if tag == "i":
        return _hex_int(p)
    if tag == "f":
        return _hex_float(p)
    if tag == "c":
        if type(p) is not list or len(p) != 2:
            raise BadValue("complex payload")
        return complex(_hex_float(p[0]), _hex_float(p[1]))
    if tag == "s":
        if type(p) is not str:
            raise BadValue("str payload")
        return p
    if tag == "r":
        if type(p) is not list or len(p) != 3:
            raise BadValue("range payload")
        r = range(_hex_int(p[0]), _hex_int(p[1]), _hex_int(p[2]))
        if len(r) > MAX_ITEMS:
            raise BadValue("range too long")
        return r
    if tag == "y":
        if type(p) is not str:
            raise BadValue("bytes payload")
        return bytes.fromhex(p)
    if tag in ("l", "t", "S", "F", "q"):
        if type(p) is not list:
            raise BadValue("sequence payload")
        items = [_dec(x, depth + 1, count, extra) for x in p]
        if tag in ("S", "F"):
            check_hashes(items, BadValue)
        return {"l": list, "t": tuple, "S": set, "F": frozenset, "q": _DEQUE}[tag](items) if tag != "l" else items
    if tag in _MAPPING_TYPE:
        if type(p) is not list:
            raise BadValue("mapping payload")
        pairs = []
        for pair in p:
            if type(pair) is not list or len(pair) != 2:
                raise BadValue("mapping item")
            pairs.append((_dec(pair[0], depth + 1, count, extra), _dec(pair[1], depth + 1, count, extra)))
        check_hashes([k for k, _ in pairs], BadValue)
        out = _MAPPING_TYPE[tag]()
        for k, x in pairs:
            out[k] = x  # judge-side stdlib types only
        return out
    if extra is not None:
        return extra(tag, p)
    raise BadValue("unknown tag")



def mro_names(cls):
    """A class's MRO as (module, name) pairs, read through type's own descriptors (a metaclass cannot answer)."""
    mro = []
    for c in type.__getattribute__(cls, "__mro__")[:64]:
        mod = type.__getattribute__(c, "__module__")
        name = type.__getattribute__(c, "__name__")
        mro.append((mod if type(mod) is str else "?", name[:200] if type(name) is str else "?"))
    return tuple(mro)


def raised_report(exc):
    """(candidate side) What the code raised, as plain data for the judge (sandbox_judge raises its counterpart):
    the class's MRO as (module, name) pairs, the message (capped) and the arguments when they cross as data (so
    that `str(KeyError(1))` reads the same in the judge), else None."""
    mro = mro_names(type(exc))
    try:
        msg = str(exc)
        args = encode(list(exc.args)) if type(exc.args) is tuple and len(exc.args) <= 8 else None
    except BaseException:
        msg, args = "", None
    if args is not None and len(repr(args)) > 2000:
        args = None
    return ("raised", mro, msg[:1000] if type(msg) is str else "", args)
