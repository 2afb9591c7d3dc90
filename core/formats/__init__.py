"""File formats that several capabilities read: markdown frontmatter
(:mod:`.frontmatter`), safe YAML (:mod:`.yaml`, :mod:`.flatyaml`), a kind's
markdown folders (:mod:`.mdwalk`), ``$ARGUMENTS`` substitution
(:mod:`.argsubst`), Claude-style settings layers (:mod:`.settings`), where a
source keeps MCP/LSP/hook definitions (:mod:`.definitions`), ``${VAR}``
placeholder expansion (:mod:`.placeholders`) and shell command text (:mod:`.shell`:
the one tokenizer of the permission rules and approval coverage)."""

__all__: list[str] = []
