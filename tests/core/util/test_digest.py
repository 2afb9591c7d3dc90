"""wskit.util.digest: the built-in SHA-256 and OpenSSL's give the same digests, and a
start-up that hashes a little loads no OpenSSL."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.util import digest


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3 * digest.SMALL_INPUT))
def test_digest_is_sha256(data):
    assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()
    made = digest._builtin_sha256()
    if made:
        assert made(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_small_inputs_load_no_openssl_until_the_budget_is_spent():
    code = (
        "import sys\n"
        "from wskit.util import digest\n"
        "a = digest.sha256_hex(b'x' * 1000)\n"
        "first = 'hashlib' in sys.modules\n"
        "b = digest.sha256_hex(b'y' * (digest.SMALL_INPUT + 1))\n"  # too big: OpenSSL's
        "print(first, 'hashlib' in sys.modules, a, b)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[:2] == ["False", "True"]
    assert out[2] == hashlib.sha256(b"x" * 1000).hexdigest()
    assert out[3] == hashlib.sha256(b"y" * (digest.SMALL_INPUT + 1)).hexdigest()
