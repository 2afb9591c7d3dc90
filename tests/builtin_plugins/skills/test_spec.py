"""flow_style_line's shortcut (no '[' or '{': no compose) and libyaml composer agree with
composing every block with PyYAML's pure-Python loader."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.builtin_plugins.skills.spec import flow_style_line


def _reference(block: str) -> int | None:
    try:
        root = yaml.compose(block, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            if node.flow_style:
                return node.start_mark.line + 1
            stack.extend(node.value if isinstance(node, yaml.SequenceNode) else [v for kv in node.value for v in kv])
    return None


LINE = st.sampled_from([
    "name: x", "description: a b", "allowed-tools: [Read, Bash]", "metadata: {a: 1}", "tags:", "  - a",
    "  - [b, c]", "k: 'quoted [x]'", "m:", "  n: {p: q}", "x: y # [z]", "- {a: b}", "a: [", "b: }",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=6))
def test_flow_style_line_matches_the_pure_loader(lines):
    block = "\n".join(lines) + "\n"
    assert flow_style_line(block) == _reference(block)


def test_examples():
    assert flow_style_line("name: a\nallowed-tools: [Read]\n") == 2
    assert flow_style_line("name: a\ndescription: b\n") is None
    assert flow_style_line("name: a\nmeta:\n  x: {y: 1}\n") == 3
