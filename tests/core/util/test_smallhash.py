"""wskit.util.smallhash: the built-in SHA-256 and OpenSSL's give the same digest, and the
switch to OpenSSL happens when hashlib is loaded or the budget is spent."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys

from wskit.util import smallhash


def test_same_digest_as_hashlib_on_both_paths(monkeypatch):
    rng = random.Random(7)
    datas = [b"", b"x", bytes(range(256)) * 9] + [rng.randbytes(rng.randrange(0, 5000)) for _ in range(50)]
    for data in datas:
        want = hashlib.sha256(data).hexdigest()
        assert smallhash.sha256_hex_small(data) == want  # hashlib loaded here: OpenSSL's
    monkeypatch.delitem(sys.modules, "hashlib")  # as in a process that never imported it
    monkeypatch.setattr(smallhash, "_spent", 0)
    for data in datas:
        assert smallhash.sha256_hex_small(data) == hashlib.sha256(data).hexdigest()


def test_budget_spent_switches_to_openssl(monkeypatch):
    monkeypatch.delitem(sys.modules, "hashlib")
    monkeypatch.setattr(smallhash, "_spent", smallhash.BUILTIN_BUDGET - 10)
    data = b"y" * 100
    assert smallhash.sha256_hex_small(data) == hashlib.sha256(data).hexdigest()
    assert smallhash._spent == smallhash.BUILTIN_BUDGET - 10  # over budget: not counted, OpenSSL's used


def test_small_digests_do_not_load_openssl():
    code = ("import sys\nfrom wskit.util.smallhash import sha256_hex_small as h\n"
            "assert h(b'abc') == 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'\n"
            "print('hashlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
