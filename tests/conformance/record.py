"""Re-ask the installed hosts and rewrite the recordings: ``python -m tests.conformance.record
[--host NAME ...] [--case ID ...]``.

Each host is run as shared/reference/host-oracles.md says (a temporary ``HOME``, a
stand-in model on 127.0.0.1, the process group killed after the answer); the answers
are written to ``recorded.json`` beside this file with the host's version and the date.
A host that is not installed keeps its previous recording.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from tests.conformance import oracles
from tests.conformance.cases import CASES

__all__ = ["RECORDED", "load", "main"]

RECORDED = Path(__file__).with_name("recorded.json")


def load() -> dict:
    """The committed recordings: ``{host: {"version", "recorded", "cases": {id: answer}}}``."""
    return json.loads(RECORDED.read_text()) if RECORDED.exists() else {}


def main(argv: list[str] | None = None) -> int:
    """Record the answers of the installed hosts; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m tests.conformance.record", description=__doc__.splitlines()[0])
    ap.add_argument("--host", action="append", choices=oracles.HOSTS)
    ap.add_argument("--case", action="append")
    args = ap.parse_args(argv)
    data = load()
    for host in args.host or oracles.HOSTS:
        if oracles.binary(host) is None:
            print(f"{host}: not installed, recording kept", file=sys.stderr)
            continue
        entry = data.setdefault(host, {"cases": {}})
        entry["version"] = oracles.host_version(host)
        entry["recorded"] = datetime.date.today().isoformat()
        for case in CASES:
            if host not in case.hosts or (args.case and case.id not in args.case):
                continue
            entry["cases"][case.id] = oracles.ask(host, case)
            print(f"{host} {entry['version']} {case.id}: {json.dumps(entry['cases'][case.id])}", flush=True)
        RECORDED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    if not args.case:  # the trees wsctl export wrote (tests/conformance/export_hosts.py)
        from tests.conformance import export_hosts

        export_hosts.record([h for h in (args.host or (*oracles.HOSTS, "copilot"))
                             if h in export_hosts.HOSTS + export_hosts.OBSERVED])
    return 0


if __name__ == "__main__":
    sys.exit(main())
