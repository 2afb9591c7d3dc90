"""Property tests for the selector grammar (toolpolicy) and the rule budget."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wskit.builtin_plugins.rules.catalog import apply_budget
from wskit.builtin_plugins.rules.model import RuleFile
from wskit.builtin_plugins.skills.tools import ToolPolicy

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_tokens = st.sampled_from(["git", "status", "npm", "test", "ls", "-la", "make", "build", "src/x.py", "a=b"])
OPERATORS = list(";&|<>$`\\(){}*?[]~\r\n") + ["&&", "||", "$(id)", "`id`", ">/tmp/x", "\n id"]


@st.composite
def selector_and_command(draw):
    argv = draw(st.lists(_tokens.filter(lambda t: "=" not in t and not t.startswith("-")), min_size=1, max_size=1))
    argv += draw(st.lists(_tokens, max_size=2))
    prefix = draw(st.booleans())
    sel = f"Bash({' '.join(argv)}{':*' if prefix else ''})"
    extra = draw(st.lists(_tokens, max_size=3))
    words = argv + extra
    op = draw(st.sampled_from(OPERATORS))
    pos = draw(st.integers(0, len(" ".join(words))))
    text = " ".join(words)
    cmd = text[:pos] + op + text[pos:]
    return sel, argv, prefix, cmd


@FAST
@given(selector_and_command())
def test_no_command_with_a_shell_operator_is_allowed_by_a_constrained_selector(case):
    sel, argv, prefix, cmd = case
    policy = ToolPolicy.from_value([sel])
    for tool in ("Bash", "run_command", "Shell"):
        assert not policy.check(tool, cmd).allowed, (sel, cmd)
    # sanity: the selector itself does allow its own literal command
    assert policy.check("Bash", " ".join(argv)).allowed


@FAST
@given(st.lists(_tokens, min_size=1, max_size=3), st.lists(_tokens, min_size=1, max_size=3), st.booleans())
def test_a_literal_command_is_allowed_only_as_selected(sel_argv, cmd_argv, prefix):
    if "=" in sel_argv[0] or sel_argv[0].startswith("-"):
        return
    policy = ToolPolicy.from_value([f"Bash({' '.join(sel_argv)}{':*' if prefix else ''})"])
    allowed = policy.check("Bash", " ".join(cmd_argv)).allowed
    expected = cmd_argv[: len(sel_argv)] == sel_argv if prefix else cmd_argv == sel_argv
    assert allowed == expected


def _rule(i: int, size: int) -> RuleFile:
    return RuleFile.model_construct(id=f"r{i}", name=f"r{i}", body="x" * size, bytes=size, priority=0,
                                    source="project", scope_dir="")


@FAST
@given(st.lists(st.integers(0, 500), max_size=12), st.one_of(st.none(), st.integers(0, 2000)))
def test_budget_never_exceeded_whole_files_most_specific_first(sizes, budget):
    rules = [_rule(i, s) for i, s in enumerate(sizes)]
    kept, skipped = apply_budget(rules, budget)
    # whole files only, nothing lost, order kept
    assert all(any(k is r for r in rules) for k in kept)
    assert sorted([r.id for r in kept] + [s.rule.id for s in skipped]) == sorted(r.id for r in rules)
    assert [r.id for r in kept] == [r.id for r in rules if any(k is r for k in kept)]
    if budget is None:
        assert kept == rules and not skipped
        return
    assert sum(r.bytes for r in kept) <= budget
    # the most specific (last) rule is kept whenever it fits alone
    if rules and rules[-1].bytes <= budget:
        assert kept and kept[-1] is rules[-1]
    # greedy from the specific end: a skipped rule did not fit what was left
    for s in skipped:
        idx = next(i for i, r in enumerate(rules) if r is s.rule)
        used_after = sum(r.bytes for r in kept if rules.index(r) > idx)
        assert s.rule.bytes > budget - used_after
        assert s.reason == "over-budget"
