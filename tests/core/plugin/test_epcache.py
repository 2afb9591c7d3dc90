"""The entry-point cache (:mod:`wskit.plugin.epcache`): reused while the
environment is unchanged, re-read when a distribution is added, edited or removed,
and never trusted or written through a link."""

import importlib.metadata as md
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from wskit.plugin.epcache import MAX_CACHE_BYTES, cached_entry_points
from wskit.plugin.manager import make_plugin_manager


def _rows(eps):
    return sorted((e.name, e.value, getattr(e.dist, "name", None), getattr(e.dist, "version", None)) for e in eps)


def _dist(folder, name, value, version="1.0"):
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[wskit]\n{name} = {value}\n")
    return info


@pytest.fixture(autouse=True)
def _home_kept(monkeypatch):
    """These tests are about the home's copy: the environment's (``<prefix>/.wskit``) is off."""
    monkeypatch.setenv("WSKIT_ENV_CACHE", "0")


@pytest.fixture
def site(tmp_path, monkeypatch):
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


def test_same_answer_as_importlib_metadata_and_a_private_file(tmp_path, site):
    _dist(site, "ep_one", "json:dumps")
    state = tmp_path / "state"
    first = cached_entry_points("wskit", state)
    assert _rows(first) == _rows(md.entry_points(group="wskit"))
    file = state / "cache" / "entry-points.json"
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert stat.S_IMODE((state / "cache").stat().st_mode) == 0o700
    again = cached_entry_points("wskit", state)
    assert type(again[0]).__name__ == "CachedEntryPoint"
    assert _rows(again) == _rows(first)
    mine = [e for e in again if e.name == "ep_one"][0]
    assert mine.load() is json.dumps and mine.dist.name == "ep_one" and mine.dist.version == "1.0"


def test_a_new_process_with_a_cache_imports_no_importlib_metadata(tmp_path):
    state = tmp_path / "state"
    code = ("import sys\nfrom wskit.plugin.epcache import cached_entry_points\n"
            f"eps = cached_entry_points('wskit', {str(state)!r})\n"
            "print(sorted(e.name for e in eps), 'importlib.metadata' in sys.modules)")
    run = [sys.executable, "-c", code]
    first = subprocess.run(run, capture_output=True, text=True, check=True).stdout.split("]")
    second = subprocess.run(run, capture_output=True, text=True, check=True).stdout.split("]")
    assert first[1].strip() == "True" and second[1].strip() == "False"
    assert first[0] == second[0]


def test_install_edit_and_removal_are_seen(tmp_path, site):
    state = tmp_path / "state"
    assert "ep_two" not in {e.name for e in cached_entry_points("wskit", state)}
    info = _dist(site, "ep_two", "json:dumps")
    assert {e.value for e in cached_entry_points("wskit", state) if e.name == "ep_two"} == {"json:dumps"}
    (info / "entry_points.txt").write_text("[wskit]\nep_two = json:loads\n")  # edited in place
    assert {e.value for e in cached_entry_points("wskit", state) if e.name == "ep_two"} == {"json:loads"}
    for f in info.iterdir():
        f.unlink()
    info.rmdir()
    assert "ep_two" not in {e.name for e in cached_entry_points("wskit", state)}


def test_another_sys_path_is_a_miss(tmp_path, site, monkeypatch):
    state = tmp_path / "state"
    cached_entry_points("wskit", state)
    other = tmp_path / "other"
    _dist(other, "ep_three", "json:dumps")
    monkeypatch.syspath_prepend(str(other))
    assert "ep_three" in {e.name for e in cached_entry_points("wskit", state)}


@pytest.mark.parametrize("content", [b"{not json", b'{"format": 1}', b"[]",
                                     b'{"format":1,"group":"wskit","signature":[],"entry_points":[]}'])
def test_a_bad_file_is_a_miss_and_is_replaced(tmp_path, site, content):
    _dist(site, "ep_four", "json:dumps")
    state = tmp_path / "state"
    (state / "cache").mkdir(parents=True)
    (state / "cache" / "entry-points.json").write_bytes(content)
    assert "ep_four" in {e.name for e in cached_entry_points("wskit", state)}
    assert json.loads((state / "cache" / "entry-points.json").read_bytes())["entry_points"]


def test_a_forged_hit_needs_the_signature(tmp_path, site):
    """A file naming another entry point is used only with this environment's signature
    (the file is the user's own state, 0600; an attacker able to write it could already
    write site-packages)."""
    state = tmp_path / "state"
    cached_entry_points("wskit", state)
    file = state / "cache" / "entry-points.json"
    raw = json.loads(file.read_text())
    raw["signature"] = json.dumps([999] + json.loads(raw["signature"])[1:])
    raw["entry_points"] = [["forged", "os:system", None, None]]
    file.write_text(json.dumps(raw))
    assert "forged" not in {e.name for e in cached_entry_points("wskit", state)}


def test_a_signature_is_stored_as_text_and_a_list_of_the_old_layout_is_a_miss(tmp_path, site):
    """Signatures are kept as their JSON text (cheap to parse at every start); a file of the
    earlier layout (the signature as nested lists) is a miss and is rewritten."""
    from wskit.plugin.epcache import environment_signature, signature_text

    state = tmp_path / "state"
    cached_entry_points("wskit", state)
    file = state / "cache" / "entry-points.json"
    raw = json.loads(file.read_text())
    assert raw["format"] == 2 and raw["signature"] == signature_text(environment_signature())
    assert json.loads(raw["signature"]) == environment_signature()
    old = {"format": 1, "group": "wskit", "signature": environment_signature(),
           "entry_points": [["forged", "os:system", None, None]], "others": []}
    file.write_text(json.dumps(old))
    assert "forged" not in {e.name for e in cached_entry_points("wskit", state)}
    assert json.loads(file.read_text())["signature"] == raw["signature"]


def test_oversized_file_is_a_miss(tmp_path, site):
    state = tmp_path / "state"
    cached_entry_points("wskit", state)
    file = state / "cache" / "entry-points.json"
    raw = json.loads(file.read_text())
    raw["entry_points"].append(["forged", "x" * MAX_CACHE_BYTES, None, None])
    file.write_text(json.dumps(raw))
    assert "forged" not in {e.name for e in cached_entry_points("wskit", state)}


def test_links_are_neither_read_nor_written_through(tmp_path, site):
    state = tmp_path / "state"
    cached_entry_points("wskit", state)
    file = state / "cache" / "entry-points.json"
    good = file.read_text()
    decoy = tmp_path / "decoy.json"
    decoy.write_text(good.replace('"wskit"', '"wskit"', 1))
    file.unlink()
    file.symlink_to(decoy)
    before = decoy.read_bytes()
    cached_entry_points("wskit", state)  # the link is neither read nor written through nor replaced
    assert decoy.read_bytes() == before
    assert file.is_symlink()
    # a linked cache folder: nothing is written there
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    state2 = tmp_path / "state2"
    state2.mkdir()
    (state2 / "cache").symlink_to(elsewhere)
    assert _rows(cached_entry_points("wskit", state2)) == _rows(md.entry_points(group="wskit"))
    assert list(elsewhere.iterdir()) == []


def test_plugin_manager_with_a_state_dir_registers_the_same_plugins(tmp_path):
    state = tmp_path / "state"
    names = [sorted(make_plugin_manager(state_dir=state).info) for _ in range(2)]
    assert names[0] == names[1] == sorted(make_plugin_manager().info)
    assert (state / "cache" / "entry-points.json").is_file()


def test_wsctl_keeps_the_cache_in_the_homes_state_folder(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "--json", "inspect", str(tmp_path)],
                   check=True, capture_output=True, env={**os.environ, "WSKIT_HOME": ""})
    assert (home / ".wskit" / "cache" / "entry-points.json").is_file()


def test_a_linked_state_folder_is_not_read(tmp_path, site):
    """A cache reached through a linked ``.wskit`` is not used, even one with this
    environment's signature (the state-file rule of wskit.fs.atomic)."""
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    cached_entry_points("wskit", elsewhere / ".wskit")  # a valid file, written elsewhere
    file = elsewhere / ".wskit" / "cache" / "entry-points.json"
    raw = json.loads(file.read_text())
    raw["entry_points"].append(["forged", "os:system", None, None])
    file.write_text(json.dumps(raw))
    (home / ".wskit").symlink_to(elsewhere / ".wskit")
    assert "forged" not in {e.name for e in cached_entry_points("wskit", home / ".wskit")}
    assert "forged" in json.loads(file.read_text())["entry_points"][-1]  # and not rewritten


def _venv(tmp_path):
    """A real virtual environment in ``tmp_path`` that sees this one's packages (a ``.pth``)."""
    import site as site_mod
    import sysconfig

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = Path(sysconfig.get_paths(vars={"base": str(venv), "platbase": str(venv)})["purelib"])
    lines = list(site_mod.getsitepackages())
    for sp in site_mod.getsitepackages():
        # an editable install (pip install -e) is an import hook a .pth of its own site folder runs;
        # a folder named in another .pth is not scanned for .pth files, so run those hooks here too
        for pth in sorted(Path(sp).glob("__editable__*.pth")):
            lines += [line for line in pth.read_text().splitlines() if line.startswith("import ")]
    (purelib / "outer.pth").write_text("\n".join(lines) + "\n")
    return venv / "bin" / "python"


def test_a_virtual_environment_keeps_one_reading_for_every_home(tmp_path, monkeypatch):
    """In a virtual environment of the running user the reading lives in ``<prefix>/.wskit``:
    a second process with another, fresh home imports no ``importlib.metadata``."""
    monkeypatch.delenv("WSKIT_ENV_CACHE")
    python = _venv(tmp_path)
    code = ("import sys\nfrom wskit.plugin.epcache import cached_entry_points, environment_state_dir\n"
            "eps = cached_entry_points('wskit', sys.argv[1])\n"
            "print(sorted(e.name for e in eps), 'importlib.metadata' in sys.modules, environment_state_dir())")
    runs = [subprocess.run([str(python), "-c", code, str(tmp_path / f"home{i}" / ".wskit")], capture_output=True,
                           text=True, check=True).stdout.split("]") for i in range(2)]
    assert runs[0][1].split()[0] == "True" and runs[1][1].split()[0] == "False"
    assert runs[0][0] == runs[1][0] and "gemini" in runs[0][0]
    assert (tmp_path / "venv" / ".wskit" / "cache" / "entry-points.json").is_file()
    assert not (tmp_path / "home0").exists() and not (tmp_path / "home1").exists()


@pytest.mark.parametrize("mode", [0o777, 0o775])
def test_an_environment_others_can_write_keeps_it_in_the_home(tmp_path, monkeypatch, mode):
    """A prefix writable by group or others is not trusted with the cache: the home's copy is used."""
    monkeypatch.delenv("WSKIT_ENV_CACHE")
    python = _venv(tmp_path)
    os.chmod(tmp_path / "venv", mode)
    code = ("import sys\nfrom wskit.plugin.epcache import cached_entry_points, environment_state_dir\n"
            "cached_entry_points('wskit', sys.argv[1]); print(environment_state_dir())")
    out = subprocess.run([str(python), "-c", code, str(tmp_path / "home" / ".wskit")], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "None"
    assert (tmp_path / "home" / ".wskit" / "cache" / "entry-points.json").is_file()
    assert not (tmp_path / "venv" / ".wskit").exists()


def test_alternating_sys_path_lists_keep_one_slot_each(tmp_path, site, monkeypatch):
    """Two callers of one environment with different ``sys.path`` lists (the ``wsctl``
    script and a host's ``python -c``) each find their own reading: neither rescans after
    the other wrote, and another environment's reading is never taken for theirs."""
    import importlib.metadata

    _dist(site, "ep_slot", "json:dumps")
    state = tmp_path / "state"
    scans = []
    real = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: scans.append(1) or real(**kw))
    first = _rows(cached_entry_points("wskit", state))
    other = tmp_path / "other-script-folder"
    other.mkdir()
    monkeypatch.syspath_prepend(str(other))
    assert _rows(cached_entry_points("wskit", state)) == first and len(scans) == 2  # a new signature: read
    monkeypatch.undo()
    monkeypatch.setenv("WSKIT_ENV_CACHE", "0")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: scans.append(1) or real(**kw))
    for path0 in (None, str(other), None, str(other)):
        if path0 is not None:
            monkeypatch.syspath_prepend(path0)
        assert _rows(cached_entry_points("wskit", state)) == first
        if path0 is not None:
            sys.path.remove(path0)
    assert len(scans) == 2  # both slots reused, in either order
    raw = json.loads((state / "cache" / "entry-points.json").read_text())
    assert len(raw["others"]) == 1 and raw["others"][0]["signature"] != raw["signature"]
