"""``wsctl skills list|show|files|validate|install|enable|disable``."""

from __future__ import annotations

import click

from wskit.builtin_plugins.skills.bodies import list_skills
from wskit.cli.context import (
    WsctlContext,
    complete_names,
    file_text,
    json_option,
    path_argument,
    print_diag_dicts,
    safe_text,
)
from wskit.models import display_path


@click.group("skills")
def skills_group() -> None:
    """Skills: <root>/<slug>/SKILL.md folders."""


@skills_group.command("list")
@path_argument
@json_option
@click.pass_obj
def list_cmd(obj: WsctlContext, path: str) -> None:
    """List the active skills of the workspace holding PATH."""
    list_skills(obj, path)


@skills_group.command("show")
@click.argument("name", shell_complete=complete_names("skill"))
@path_argument
@click.option("--file", "file", default="SKILL.md", show_default=True, help="File inside the skill folder.")
@click.option("--args", "args", default=None, help="Argument string: $ARGUMENTS, 0-based $0.. / $ARGUMENTS[N] (shell-style words), $name; appended as 'ARGUMENTS: ...' when the body uses none.")
@json_option
@click.pass_obj
def show_cmd(obj: WsctlContext, name: str, path: str, file: str, args: str | None) -> None:
    """Show a skill's metadata and the content of one of its files (read now)."""
    from wskit.builtin_plugins.skills.runtime import SkillRuntime

    ws = obj.resolve(path)
    rt = SkillRuntime(ws, ws.profile)
    skill = rt.get(name)
    content = rt.read(skill, file, args)
    data = {"id": skill.id, "scope": skill.scope.value,
            "path": display_path(skill.provenance.absolute_path, ws.binding.source_root), **content.to_json()}

    def human() -> None:
        click.echo(file_text(f"{skill.id} ({skill.scope.value}) — {skill.description}"))
        if content.clauses:
            click.echo(safe_text(f"allowed-tools: {', '.join(data['allowed_tools'])}"))
        click.echo(f"--- {content.file} (sha256 {content.content_hash[:12]})")
        click.echo("\n".join(file_text(line) for line in content.content.rstrip("\n").split("\n")))

    obj.emit(data, human)


@skills_group.command("files")
@click.argument("name", shell_complete=complete_names("skill"))
@path_argument
@json_option
@click.pass_obj
def files_cmd(obj: WsctlContext, name: str, path: str) -> None:
    """List the files of a skill folder (reads none of them)."""
    from wskit.builtin_plugins.skills.runtime import SkillRuntime

    ws = obj.resolve(path)
    data = SkillRuntime(ws, ws.profile).list_files(name)

    def human() -> None:
        click.echo("\n".join(safe_text(f) for f in data["files"]) or "no files")
        for s in data["skipped"]:
            why = "name is not UTF-8" if s["reason"] == "name-not-utf8" else "not followed"
            click.echo(safe_text(f"skipped {s['path']}: {s['reason']} ({why})"))

    obj.emit(data, human)


@skills_group.command("validate")
@click.argument("path", type=click.Path(exists=False))
@click.option("--strict", is_flag=True, help="Apply the Agent Skills specification exactly (skills-ref rules).")
@json_option
@click.pass_obj
@click.pass_context
def validate_cmd(ctx: click.Context, obj: WsctlContext, path: str, strict: bool) -> None:
    """Validate the skill folder PATH; exit status 1 when it is invalid.

    Prints the verdict (PATH: valid|invalid (strict|lenient)), then its errors and
    warnings in the diagnostics format of every wsctl command. Strict mode agrees
    with the reference validator skills-ref on the verdict, not on the wording.
    \f
    (the common printer: :func:`wskit.cli.context.print_diag_dicts`)
    """
    from wskit.builtin_plugins.skills.validate import validate_skill

    report = validate_skill(path, strict=strict)
    data = report.to_json()

    def human() -> None:
        click.echo(safe_text(f"{report.path}: {'valid' if report.valid else 'invalid'} "
                             f"({'strict' if strict else 'lenient'})"))
        print_diag_dicts([{**d, "level": level} for level in ("error", "warning") for d in data[f"{level}s"]])

    obj.emit(data, human)
    if not report.valid:
        ctx.exit(1)


@skills_group.command("install")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--disabled", is_flag=True, help="Install without enabling it.")
@json_option
@click.pass_obj
def install_cmd(obj: WsctlContext, directory: str, disabled: bool) -> None:
    """Install the skill folder DIRECTORY as an admin skill (and enable it)."""
    from wskit.builtin_plugins.skills.admin import install

    target = install(obj.profile(), directory, enable=not disabled)
    data = {"slug": target.name, "path": str(target), "enabled": not disabled}
    obj.emit(data, lambda: click.echo(f"installed admin skill {target.name} at {target}"
                                      + ("" if disabled else " (enabled)")))


def _toggle(obj: WsctlContext, slug: str, enabled: bool) -> None:
    from wskit.builtin_plugins.skills.admin import set_enabled

    set_enabled(obj.profile(), slug, enabled)
    data = {"slug": slug, "enabled": enabled}
    obj.emit(data, lambda: click.echo(f"admin skill {slug} {'enabled' if enabled else 'disabled'}"))


@skills_group.command("enable")
@click.argument("slug")
@json_option
@click.pass_obj
def enable_cmd(obj: WsctlContext, slug: str) -> None:
    """Enable the installed admin skill SLUG."""
    _toggle(obj, slug, True)


@skills_group.command("disable")
@click.argument("slug")
@json_option
@click.pass_obj
def disable_cmd(obj: WsctlContext, slug: str) -> None:
    """Disable the installed admin skill SLUG."""
    _toggle(obj, slug, False)


