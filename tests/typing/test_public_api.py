"""``mypy --strict`` over a host written against the public API (public_api_usage.py) and the
documented examples: no error, and no documented name or session accessor revealed as ``Any``.

mypy reads wskit from a link tree of the source (``wskit`` -> ``core/``,
``wskit/builtin_plugins`` -> ``builtin_plugins/``), so the check does not depend on how
wskit is installed; ``--follow-imports=silent`` checks the given files strictly and reads
wskit's own modules only for their types. The framework adapters' examples are checked in the
slow step (mypy then reads pydantic-ai, openai-agents and langchain for their types)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: the examples type-checked (each imports only public names)
EXAMPLES = ["docs/examples/agent_host.py"]

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is in the test extra")


def _link_tree(root: Path) -> Path:
    pkg = root / "wskit"
    pkg.mkdir()
    for entry in (REPO / "core").iterdir():
        (pkg / entry.name).symlink_to(entry)
    (pkg / "builtin_plugins").symlink_to(REPO / "builtin_plugins")
    return root


def _mypy(tmp_path: Path, files: list[str]) -> list[str]:
    """``mypy --strict`` over ``files`` (paths below the repository) against the link tree: its lines."""
    (tmp_path / "src").mkdir()
    tree = _link_tree(tmp_path / "src")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                           "--no-incremental", "--cache-dir", os.devnull, *files],
                          cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MYPYPATH": str(tree)})
    lines = done.stdout.splitlines()
    assert [ln for ln in lines if ": error:" in ln] == [], done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
    return lines


def test_mypy_strict_sees_real_types_in_the_public_api(tmp_path) -> None:
    lines = _mypy(tmp_path, ["tests/typing/public_api_usage.py", *EXAMPLES])
    revealed = [ln for ln in lines if "Revealed type is" in ln]
    assert len(revealed) == 11, "\n".join(lines)  # one per reveal_type in public_api_usage.py
    assert [ln for ln in revealed if '"Any"' in ln or "-> Any" in ln] == []


@pytest.mark.slow  # mypy reads the frameworks' own packages for their types: ~1 min of CPU
def test_mypy_strict_passes_the_adapter_examples(tmp_path) -> None:
    files = _adapter_examples()
    if not files:
        pytest.skip("no framework of the adapters is installed (the pydantic-ai, openai-agents, langchain extras)")
    _mypy(tmp_path, files)


def _adapter_examples() -> list[str]:
    """The framework adapters' examples whose framework is installed."""
    out = []
    for paths, module in ((("docs/examples/pydantic_ai_agent.py", "core/integrations/pydantic_ai.py"), "pydantic_ai"),
                          (("docs/examples/openai_agents_agent.py", "core/integrations/openai_agents.py"), "agents"),
                          (("docs/examples/langchain_agent.py", "core/integrations/langchain.py"), "langchain")):
        if importlib.util.find_spec(module) is not None:
            out.extend(paths)
    return ["docs/examples/demo_workspace.py", *out] if out else out


def test_the_package_exports_each_lazy_name_and_types_it() -> None:
    import wskit

    assert set(wskit.__all__) == {"__version__", *wskit._LAZY}
    source = (REPO / "core" / "__init__.py").read_text(encoding="utf-8")
    block = source.split("if TYPE_CHECKING:", 1)[1].split("#: public name", 1)[0]
    missing = [name for name in wskit._LAZY if f" {name}," not in block.replace("\n", ",").replace("(", ",")
               and not block.rstrip().endswith(f" {name}")]
    assert missing == []
    for name in wskit._LAZY:
        assert getattr(wskit, name) is not None
