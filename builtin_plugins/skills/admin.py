"""Admin-installed skills: a configured root and a TOML enable/disable manifest.

Follows Sakura's DB/admin skills (reference/holon-sakura.md B2, B3):

- the admin skills root is ``HostProfile.settings["admin_skills_root"]`` when
  set, else ``<home>/.wskit/admin-skills``; it holds ``<slug>/SKILL.md`` folders;
- only the skills the manifest ``<home>/.wskit/skills.toml`` enables are
  loaded (``[skills.<slug>] enabled = true``); a skill folder the manifest does
  not name is disabled;
- enabled admin skills outrank every repository and user skill of the same
  slug (source rank :data:`ADMIN_RANK`, design §5);
- every file of an admin skill is limited to :data:`ADMIN_FILE_LIMIT` bytes
  (524,288 loads; one byte more is an error naming the file); repository skills
  have no byte limit.

The manifest is written with ``tomli-w`` through :func:`wskit.fs.atomic.atomic_write`
under a file lock.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from wskit import fs
from wskit.errors import WskitError
from wskit.fs.atomic import StateFileError, atomic_write, check_no_links, state_dir, state_lock
from wskit.host import HostProfile

#: Per-file byte limit of admin skills (Sakura B3).
ADMIN_FILE_LIMIT = 512 * 1024
#: Source rank of the admin skills root (above every project and user source).
ADMIN_RANK = 40
MANIFEST_NAME = "skills.toml"
#: Largest admin skills manifest read, in bytes.
MAX_MANIFEST_BYTES = 4 * 1024 * 1024


class AdminSkillError(WskitError):
    """An admin-skill operation failed (corrupt manifest, unknown slug, a file over the limit…)."""


def admin_root(profile: HostProfile) -> Path:
    """The admin skills root: setting ``admin_skills_root`` (``~`` expanded,
    relative to the home) or ``<home>/.wskit/admin-skills``."""
    raw = profile.settings.get("admin_skills_root")
    home = profile.require_home()
    if isinstance(raw, (str, os.PathLike)) and str(raw):
        p = Path(raw).expanduser()
        return p if p.is_absolute() else home / p
    return profile.state_dir / "admin-skills"


#: Deepest folder level below an admin skill's folder that :func:`install` accepts.
MAX_SKILL_DEPTH = 64


def manifest_path(profile: HostProfile) -> Path:
    """``<home>/.wskit/skills.toml``."""
    return profile.state_dir / MANIFEST_NAME


def _manifest_doc(profile: HostProfile, path: Path) -> dict:
    """The whole manifest document (``{}`` when there is none): every key, known or not."""
    try:
        check_no_links(path, profile.require_home())
    except StateFileError as err:
        raise AdminSkillError(f"cannot read the admin skills manifest: {err}") from None
    try:
        # bounded, non-blocking read: read_bytes() blocked on a FIFO and read a huge file whole
        res = fs.read_bytes(path.parent, path.name, max_bytes=MAX_MANIFEST_BYTES)
        raw = res.raw
    except fs.SafeFsError as err:
        if err.code == "not-found":
            return {}
        raise AdminSkillError(f"{path}: cannot read the admin skills manifest: {err}") from None
    mode = os.lstat(path).st_mode
    if mode & 0o022:  # anyone who can write it enables admin skills
        raise AdminSkillError(f"{path}: the admin skills manifest is writable by others (mode "
                              f"{mode & 0o7777:04o}); refusing to use it (chmod 600)")
    import tomllib  # only when a manifest exists

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as err:  # TOMLDecodeError, UnicodeDecodeError, a 5,000-digit int
        raise AdminSkillError(f"{path}: admin skills manifest is not valid TOML: {err}") from None


def read_manifest(profile: HostProfile) -> dict[str, bool]:
    """``slug -> enabled`` from the manifest (empty when there is none).

    :raises AdminSkillError: when the manifest is not valid TOML or has the wrong shape.
    """
    path = manifest_path(profile)
    data = _manifest_doc(profile, path)
    skills = data.get("skills", {})
    if not isinstance(skills, dict):
        raise AdminSkillError(f"{path}: [skills] must be a table")
    out: dict[str, bool] = {}
    for slug, entry in skills.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("enabled"), bool):
            raise AdminSkillError(f"{path}: [skills.{slug}] needs 'enabled = true|false'")
        out[slug] = entry["enabled"]
    return out


def enabled_slugs(profile: HostProfile) -> frozenset[str]:
    """Slugs the manifest enables."""
    return frozenset(s for s, on in read_manifest(profile).items() if on)


def _require_utf8_slug(slug: str) -> None:
    from wskit.fs.names import not_utf8, shown_path

    why = not_utf8(slug)
    if why is not None:
        raise AdminSkillError(f"skill name '{shown_path(slug)}' {why} "
                              "(no skill id, manifest or session file can hold it)")


def set_enabled(profile: HostProfile, slug: str, enabled: bool) -> dict[str, bool]:
    """Enable or disable the admin skill ``slug`` (must be installed).

    :returns: the new manifest map.
    :raises AdminSkillError: unknown slug or unusable manifest.
    """
    _require_utf8_slug(slug)
    if not (admin_root(profile) / slug / "SKILL.md").is_file():
        raise AdminSkillError(f"no admin skill {slug!r} in {admin_root(profile)}")
    path = manifest_path(profile)
    import tomli_w  # imported where a write needs it: not on read-only start-up

    home = profile.require_home()
    with state_lock(path, home):
        current = read_manifest(profile)  # validates the shape before anything is written
        current[slug] = enabled
        doc = _manifest_doc(profile, path)  # keys this version does not know are kept as they are
        skills = dict(doc.get("skills", {}))
        skills[slug] = {**skills.get(slug, {}), "enabled": enabled}
        doc["skills"] = {s: skills[s] for s in sorted(skills)}
        atomic_write(path, tomli_w.dumps(doc).encode("utf-8"), mode=0o600, anchor=home)
    return current


def check_files(folder: Path, limit: int = ADMIN_FILE_LIMIT) -> list[Path]:
    """Every regular file under ``folder`` (sorted), refusing what an admin skill may not hold.

    Walked with an explicit stack (no recursion per level), at most
    :data:`MAX_SKILL_DEPTH` folders deep.

    :raises AdminSkillError: a link, special file, a file over ``limit`` bytes or
        a folder deeper than :data:`MAX_SKILL_DEPTH` levels (named).
    """
    files: list[Path] = []
    stack = [(Path(folder), 0)]
    while stack:
        d, depth = stack.pop()
        if depth > MAX_SKILL_DEPTH:
            raise AdminSkillError(f"{d}: skill folder is deeper than {MAX_SKILL_DEPTH} levels")
        subdirs = []
        for name in sorted(os.listdir(d)):
            p = d / name
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                raise AdminSkillError(f"{p}: admin skills may not contain links")
            if stat.S_ISDIR(st.st_mode):
                subdirs.append((p, depth + 1))
                continue
            if not stat.S_ISREG(st.st_mode):
                raise AdminSkillError(f"{p}: admin skills may not contain special files")
            if st.st_size > limit:
                raise AdminSkillError(f"{p}: file is {st.st_size} bytes, over the admin skill limit of {limit} bytes")
            files.append(p)
        stack.extend(reversed(subdirs))
    return sorted(files)


def install(profile: HostProfile, source_dir: str | os.PathLike[str], *, enable: bool = True) -> Path:
    """Copy the skill folder ``source_dir`` into the admin root (replacing an
    installed one of the same slug) and enable it.

    The skill is validated first (lenient rules; an invalid skill is refused)
    and every file is checked against :data:`ADMIN_FILE_LIMIT`. The copy is
    made in a temporary folder beside the target and renamed into place.

    :returns: the installed folder.
    :raises AdminSkillError: invalid skill, link, special file or oversized file
        (named), or a folder name that is not UTF-8 (nothing copied).
    """
    import shutil  # an install only, not at start-up

    from wskit.builtin_plugins.skills.validate import validate_skill

    src = Path(source_dir).absolute()
    _require_utf8_slug(src.name)  # before anything is copied: the slug names a TOML key and a skill id
    report = validate_skill(src)
    if not report.valid:
        first = report.errors[0]
        raise AdminSkillError(f"{first.path}: {first.message} [{first.code}]")
    check_files(src)
    root = admin_root(profile)
    home = profile.require_home()
    # a configured admin root outside the home is the anchor itself (the admin's choice of path)
    anchor = home if Path(os.path.abspath(root)).is_relative_to(os.path.abspath(home)) else root
    try:
        with state_dir(root / src.name, anchor):  # made below the anchor without following a link
            pass
    except StateFileError as err:
        raise AdminSkillError(f"admin skills folder unusable: {err}") from None
    target = root / src.name
    # installs of one home take turns (a lock of their own: set_enabled takes the manifest's)
    with state_lock(profile.state_dir / "admin-skills-install", home):
        tmp = root / f".{src.name}.{os.urandom(4).hex()}.tmp"
        shutil.copytree(src, tmp, symlinks=True)
        old = None
        if target.exists() or target.is_symlink():
            old = root / f".{src.name}.{os.urandom(4).hex()}.old"
            os.replace(target, old)
        os.replace(tmp, target)
        if old is not None:
            if old.is_symlink():
                old.unlink()
            else:
                shutil.rmtree(old, ignore_errors=True)
    if enable:
        set_enabled(profile, src.name, True)
    return target
