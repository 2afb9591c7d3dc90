"""docs/hooks-reference.md lists every hookspec with its exact signature, and
every hookspec has a test of its own (``test_hook_<name>`` somewhere under tests/)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from wskit.plugin import spec

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "hooks-reference.md"


def hookspecs() -> dict[str, object]:
    return {n: f for n, f in inspect.getmembers(spec, inspect.isfunction)
            if n.startswith("wskit_") and hasattr(f, "wskit_spec")}


def _clean(annotation: object) -> str:
    return str(annotation).replace("'", "").replace('"', "")


def signature_line(func) -> str:
    """``def name(arg: Type, …) -> Return`` with string annotations unquoted."""
    sig = inspect.signature(func)
    params = ", ".join(f"{p.name}: {_clean(p.annotation)}" for p in sig.parameters.values())
    return f"def {func.__name__}({params}) -> {_clean(sig.return_annotation)}"


def doc_sections() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    parts = re.split(r"^### `(wskit_\w+)`\s*$", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def test_every_hookspec_is_documented_with_its_exact_signature():
    sections = doc_sections()
    specs = hookspecs()
    assert len(specs) >= 18
    missing = sorted(set(specs) - set(sections))
    assert not missing, f"hookspecs missing from docs/hooks-reference.md: {missing}"
    for name, func in specs.items():
        block = re.search(r"```python\n(.*?)\n```", sections[name], re.S)
        assert block, f"{name}: no signature block"
        assert block.group(1).strip() == signature_line(func), f"{name}: signature differs from the hookspec"
        body = sections[name]
        assert "**Fires:**" in body and "**Returns:**" in body, f"{name}: needs 'Fires' and 'Returns'"
        assert body.count("```python") >= 2, f"{name}: needs an example"
        firstresult = func.wskit_spec.get("firstresult", False)
        assert ("*firstresult.*" in body) == firstresult, f"{name}: firstresult marker"


def test_the_page_documents_no_hook_that_does_not_exist():
    extra = sorted(set(doc_sections()) - set(hookspecs()))
    assert not extra, f"documented but not a hookspec: {extra}"


def test_every_hookspec_has_a_test_of_its_own():
    tests = REPO / "tests"
    defined = set()
    for path in tests.rglob("test_*.py"):
        defined |= set(re.findall(r"^\s*def (test_hook_wskit_\w+)\(", path.read_text(encoding="utf-8"), re.M))
    missing = sorted(n for n in hookspecs() if f"test_hook_{n}" not in defined)
    assert not missing, f"hookspecs without a test_hook_<name> test: {missing}"


def test_signature_line_sees_a_changed_signature():
    def wskit_example(source: "ResourceSource", extra: "int") -> "LoadResult | None":  # noqa: F821
        ...

    assert signature_line(wskit_example) == "def wskit_example(source: ResourceSource, extra: int) -> LoadResult | None"
