"""RuleSettings.defaults(): the default settings without building the validator, so a
profile without rule settings does not pay for it at start-up."""

from __future__ import annotations


def test_rule_settings_defaults_equal_a_validated_instance() -> None:
    """RuleSettings.defaults() (no validator built) is RuleSettings() in every respect."""
    from wskit.builtin_plugins.rules.model import RuleSettings

    made, plain = RuleSettings.defaults(), RuleSettings()
    assert made == plain and made.model_fields_set == plain.model_fields_set == set()
    assert made.__dict__ == plain.__dict__ and list(made.__dict__) == list(plain.__dict__)
    assert made.model_dump() == plain.model_dump() and repr(made) == repr(plain)
    assert RuleSettings.from_profile(None) == (made, None) and RuleSettings.defaults() is made
    assert made.model_copy(update={"max_files": 3}).max_files == 3
