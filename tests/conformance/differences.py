"""Cases where wskit's answer under a host profile deliberately differs from the host's
(each is a row of docs/compatibility.md): ``(host, case id) -> why``."""

from __future__ import annotations

__all__ = ["DIFFERENCES"]

_OUTSIDE = ("a link that leaves the source project is refused (a cloned repository must not pull in "
            "files from elsewhere on the machine, e.g. ~/.ssh/config through AGENTS.md); the diagnostic names the target")

_SKILL_OUTSIDE = ("a skill folder linked to a folder outside the source project is refused (a cloned repository "
                  "must not offer the model instructions from elsewhere on the machine); the diagnostic names the target")

DIFFERENCES: dict[tuple[str, str], str] = {
    ("gemini", "gemini-file-names"): ("memory files of one folder come in context.fileName order; Gemini CLI sorts "
                                      "the paths as strings (docs/compatibility.md, memory paths order)"),
    ("codex", "budget"): ("Codex cuts the project files at 32 KiB silently, mid-file; wskit delivers whole files "
                          "by default (a cut delivers half an instruction). settings['rules']['exact_byte_budget'] "
                          "= 32768 reproduces Codex byte for byte and reports the cut (test_exact_byte_budget_is_codex)"),
    ("claude", "skills-link-outside"): _SKILL_OUTSIDE,
    ("codex", "skills-link-outside"): _SKILL_OUTSIDE,
    ("gemini", "skills-link-outside"): _SKILL_OUTSIDE,
    ("opencode", "skills-link-outside"): _SKILL_OUTSIDE,
    ("gemini", "gemini-root-settings-subfolder"): (
        "the project's .gemini/settings.json (context.fileName) applies in every folder of the project; Gemini CLI "
        "0.61.0 reads it only when started in the folder holding it, though its documentation calls it the "
        "project's settings file: started in a subfolder it silently drops the memory files the project configured"),
    ("copilot", "skills-link-outside"): _SKILL_OUTSIDE,
    ("copilot", "link-outside"): _OUTSIDE,
    ("claude", "link-outside"): _OUTSIDE,
    ("codex", "link-outside"): _OUTSIDE,
    ("gemini", "link-outside"): _OUTSIDE,
    ("opencode", "link-outside"): _OUTSIDE,
}
