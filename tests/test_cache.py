"""The user's cache directory is bounded (`archgen.cache.prune`, `emptied_when_full`): the least recently used go."""

from __future__ import annotations

import os
import time

from archgen import cache


def _entries(root):
    return sorted(p.name for p in (root / "archgen" / "yaml").glob("*.json"))


def _aged(path, hours):
    then = time.time() - hours * 3600
    os.utime(path, (then, then))


def test_store_keeps_each_kind_within_its_bound_the_least_recently_used_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(cache, "MAX_ENTRIES", 8)
    monkeypatch.setattr(cache, "PRUNE_STORES", 1)        # every store looks (the default: every 512, or hourly)
    monkeypatch.setattr(cache, "_stored", {})
    folder = tmp_path / "archgen" / "yaml"
    for i in range(8):
        cache.store("yaml", f"k{i}", [i])
        _aged(folder / f"k{i}.json", 10 - i)             # k0 the oldest
    assert cache.load("yaml", "k0") == [0]                # a hit: k0 is now the most recently used
    assert len(_entries(tmp_path)) == 8                   # at the bound, not past it: nothing removed
    cache.store("yaml", "k8", [8])                        # past it: down to three quarters (6), oldest first
    assert _entries(tmp_path) == ["k0.json", "k4.json", "k5.json", "k6.json", "k7.json", "k8.json"]
    assert cache.load("yaml", "k1") is None and cache.load("yaml", "k8") == [8]


def test_prune_bounds_bytes_and_removes_what_an_interrupted_store_left(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = tmp_path / "archgen" / "yaml"
    folder.mkdir(parents=True)
    for i in range(4):
        (folder / f"k{i}.json").write_bytes(b"x" * 1000)
        _aged(folder / f"k{i}.json", 4 - i)
    (folder / "k9.123.tmp").write_text("half", encoding="utf-8")
    (folder / "k8.456.tmp").write_text("in flight", encoding="utf-8")
    _aged(folder / "k9.123.tmp", 2)
    assert cache.prune("yaml", max_bytes=3000) == 3     # 4,000 bytes > 3,000: down to 2,250, and the old .tmp
    assert sorted(p.name for p in folder.iterdir()) == [".pruned", "k2.json", "k3.json", "k8.456.tmp"]
    assert cache.prune("yaml") == 0                      # within the defaults: nothing
    assert cache.prune("missing") == 0                   # no folder: nothing, no error


def test_a_hit_refreshes_an_entry_at_most_hourly(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cache.store("yaml", "k", {"a": 1})
    path = tmp_path / "archgen" / "yaml" / "k.json"
    _aged(path, 0.5)
    before = path.stat().st_mtime
    assert cache.load("yaml", "k") == {"a": 1} and path.stat().st_mtime == before   # used within the hour: no write
    _aged(path, 2)
    assert cache.load("yaml", "k") == {"a": 1} and path.stat().st_mtime > time.time() - 60


def test_store_looks_at_the_folder_hourly_or_every_prune_stores_entries(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(cache, "_stored", {})
    monkeypatch.setattr(cache, "PRUNE_STORES", 3)
    looked = []
    monkeypatch.setattr(cache, "prune", lambda kind: looked.append(kind))
    cache.store("yaml", "a", 1)                           # no marker yet: looks
    (tmp_path / "archgen" / "yaml" / ".pruned").touch()
    for key in "bc":
        cache.store("yaml", key, 1)
    assert looked == ["yaml"]                             # 2 stores since, marker fresh: not yet
    cache.store("yaml", "d", 1)
    assert looked == ["yaml", "yaml"]                     # the third store after the last look
    _aged(tmp_path / "archgen" / "yaml" / ".pruned", 2)
    cache.store("yaml", "f", 1)
    assert looked == ["yaml", "yaml", "yaml"]             # marker an hour old


def test_the_units_folder_is_emptied_past_its_definition_texts(tmp_path):
    folder = tmp_path / "units"
    (folder / "pint").mkdir(parents=True)
    (folder / "pint" / "a.pickle").write_bytes(b"x")
    for i in range(cache.MAX_DEFINITIONS - 1):
        (folder / f"definitions-{i}.txt").write_text("x", encoding="utf-8")
    cache.emptied_when_full(folder, "definitions-*", cache.MAX_DEFINITIONS)
    assert len(list(folder.glob("definitions-*"))) == cache.MAX_DEFINITIONS - 1     # room for one more: kept
    (folder / "definitions-new.txt").write_text("x", encoding="utf-8")
    cache.emptied_when_full(folder, "definitions-*", cache.MAX_DEFINITIONS)
    assert [p.name for p in folder.rglob("*") if p.is_file()] == []


def test_the_registry_still_builds_from_an_emptied_units_folder(tmp_path, monkeypatch):
    """A full units folder is emptied before the new definitions are written: they are read back, and pint's cache
    is rebuilt beside them (the registry is the same)."""
    import subprocess
    import sys
    folder = tmp_path / "archgen" / "units"
    folder.mkdir(parents=True)
    for i in range(cache.MAX_DEFINITIONS):
        (folder / f"definitions-{i}.txt").write_text("x", encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    code = "from archgen.units import ureg; print(round(ureg.Quantity('1 rack_unit').to('mm').m, 6))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "44.45"                  # 1.75 inch (archgen's definition of U)
    assert [p.name for p in folder.glob("definitions-*")] != [] and len(list(folder.glob("definitions-*"))) == 1
    assert list((folder / "pint").glob("*.pickle"))
