"""Instance dictionaries that share their key table, to cut resident size.

pydantic-core gives every model instance a fresh ``__dict__`` with a private key
table: a dictionary of 9–16 fields is 464 bytes on CPython 3.11, 240 of which are
keys and hashes repeated on every instance of the model. CPython's key-sharing
dictionaries (PEP 412) keep the keys once per class and only the values per
instance (15 fields: 192 bytes), but only for a dictionary made from an object's
own attribute stores. :func:`shared_keys_copy` makes one: for each distinct key
order it generates (as :mod:`dataclasses` generates ``__init__``) a function that
stores the values as attributes of a fresh holder object, in that order, and
returns the holder's ``__dict__``.

The copy is an ordinary ``dict``: equal to the original, same key order, same
values (not copied), mutable as any dict (a key added later only makes that one
dictionary stop sharing). Where the interpreter does not share keys (another
implementation, more than 30 keys) it is simply a plain copy.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable

#: at most this many key orders get a builder; other dictionaries are returned as they are
MAX_SHAPES = 256

_BUILDERS: dict[tuple[str, ...], Callable[[dict], dict]] = {}


def _builder(keys: tuple[str, ...]) -> Callable[[dict], dict]:
    holder = type("SharedKeys", (), {"__module__": __name__, "__doc__": f"keys: {', '.join(keys)}"})
    body = "".join(f"    o.{k} = d[{k!r}]\n" for k in keys)
    src = f"def build(d):\n    o = holder()\n{body}    return o.__dict__\n"
    ns: dict = {"holder": holder}
    exec(compile(src, f"<wskit.util.sharedkeys {len(keys)} keys>", "exec"), ns)  # noqa: S102 - keys checked
    return ns["build"]


def shared_keys_copy(d: dict) -> dict:
    """A copy of ``d`` (string keys that are identifiers) whose key table is shared
    with every other copy of the same keys in the same order.

    :param d: the dictionary (not changed).
    :returns: the copy, or ``d`` itself when a key is not an identifier, is
        private (``_`` first) or a keyword, or :data:`MAX_SHAPES` key orders
        already have a builder.
    """
    keys = tuple(d)
    build = _BUILDERS.get(keys)
    if build is None:
        if len(_BUILDERS) >= MAX_SHAPES or not all(
                type(k) is str and k.isidentifier() and not keyword.iskeyword(k) and not k.startswith("_")
                for k in keys):
            return d
        build = _BUILDERS.setdefault(keys, _builder(keys))
    return build(d)
