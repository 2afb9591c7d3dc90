"""``json.dumps(obj, indent=2, default=str)``, the same text, at C-encoder speed.

CPython's C encoder is used only without ``indent``; with it every value goes
through the pure-Python generator in :mod:`json.encoder` (a 10,000-skill
``wsctl --json skills list`` spent a fifth of its time there). :func:`dumps_indent2`
builds the same text from the C string escaper and plain recursion.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _enc  # the C escaper when available
from typing import Any, Callable

_INF = float("inf")


def _float(o: float) -> str:
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


def dumps_indent2(obj: Any, default: Callable[[Any], Any] = str) -> str:
    """The text of ``json.dumps(obj, indent=2, default=default)`` (``ensure_ascii``,
    ``sort_keys=False``, ``allow_nan``).

    :param obj: dicts, lists, tuples, strings, numbers, booleans, ``None``, and
        anything ``default`` turns into one of those.
    :param default: called for any other value, as :func:`json.dumps` calls it.
    :returns: the JSON text, byte for byte what :func:`json.dumps` returns.
    :raises TypeError: a key that is not a string, number, boolean or ``None``
        (as :func:`json.dumps` raises); a circular structure raises ``ValueError``
        from :func:`json.dumps`, which is used whenever recursion runs too deep.
    """
    chunks: list[str] = []
    try:
        _emit(obj, chunks, "\n", default)
    except RecursionError:
        return json.dumps(obj, indent=2, default=default)
    return "".join(chunks)


def _key(k: Any) -> str:
    if isinstance(k, str):
        return _enc(k)
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, int):
        return '"' + int.__repr__(k) + '"'
    if isinstance(k, float):
        return '"' + _float(k) + '"'
    raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")


def _emit(o: Any, out: list[str], nl: str, default: Callable[[Any], Any]) -> None:
    if isinstance(o, str):
        out.append(_enc(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, int):
        out.append(int.__repr__(o))
    elif isinstance(o, float):
        out.append(_float(o))
    elif isinstance(o, (list, tuple)):
        if not o:
            out.append("[]")
            return
        inner = nl + "  "
        sep = "," + inner
        out.append("[" + inner)
        first = True
        for v in o:
            if not first:
                out.append(sep)
            first = False
            _emit(v, out, inner, default)
        out.append(nl + "]")
    elif isinstance(o, dict):
        if not o:
            out.append("{}")
            return
        inner = nl + "  "
        flat = _flat(o)
        if flat is not None:  # one string for a map of plain strings and nulls (a listing row)
            out.append("{" + inner + ("," + inner).join(flat) + nl + "}")
            return
        sep = "," + inner
        out.append("{" + inner)
        first = True
        for k, v in o.items():
            if not first:
                out.append(sep)
            first = False
            out.append(_key(k) + ": ")
            _emit(v, out, inner, default)
        out.append(nl + "}")
    else:
        _emit(default(o), out, nl, default)


def _flat(o: dict) -> list[str] | None:
    """The ``"key": value`` texts of a map whose keys are plain strings and whose
    values are plain strings or None; None for any other map (the general path)."""
    parts = []
    for k, v in o.items():
        if k.__class__ is not str:
            return None
        if v.__class__ is str:
            parts.append(_enc(k) + ": " + _enc(v))
        elif v is None:
            parts.append(_enc(k) + ": null")
        else:
            return None
    return parts
