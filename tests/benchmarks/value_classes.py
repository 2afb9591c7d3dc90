"""What making a value class costs: ``python -m tests.benchmarks.value_classes``.

CPU time (``time.process_time``, best of 5 runs of 300) to make one class of four fields
(two with defaults) and its first instance, as ``@dataclass(frozen=True)``, as a
:class:`wskit.values.FrozenValue` with the generated ``__init__`` (compiled at the first
instance) and as one with its ``__init__`` written out (the start-up path's form).
docs/performance.md ("One value-type idiom") quotes it; nothing asserts on time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from wskit.values import FrozenValue

__all__ = ["main"]

_RUNS, _CLASSES = 5, 300


def _cost(make: Callable[[], object]) -> float:
    """Best per-class CPU time of ``make`` in µs."""
    best = []
    for _ in range(_RUNS):
        start = time.process_time()
        for _ in range(_CLASSES):
            make()
        best.append((time.process_time() - start) / _CLASSES * 1e6)
    return min(best)


def _dataclass() -> object:
    @dataclass(frozen=True)
    class A:
        a: int
        b: str
        c: tuple = ()
        d: str | None = None

    return A(1, "x")


def _generated() -> object:
    class A(FrozenValue):
        a: int
        b: str
        c: tuple = ()
        d: str | None = None

    return A(1, "x")


def _written_out() -> object:
    class A(FrozenValue):
        a: int
        b: str
        c: tuple
        d: str | None

        def __init__(self, a: int, b: str, c: tuple = (), d: str | None = None) -> None:
            s = object.__setattr__
            s(self, "a", a)
            s(self, "b", b)
            s(self, "c", c)
            s(self, "d", d)

    return A(1, "x")


def main() -> None:
    """Print the three costs."""
    print("µs of CPU per class made, with its first instance:")
    for name, make in (("@dataclass(frozen=True)", _dataclass), ("FrozenValue, generated __init__", _generated),
                       ("FrozenValue, __init__ written out", _written_out)):
        print(f"  {name:36s} {_cost(make):7.1f}")


if __name__ == "__main__":
    main()
