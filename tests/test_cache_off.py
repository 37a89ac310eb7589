"""`ARCHGEN_CACHE=off` makes archgen write nothing outside what the caller asks (nu43api).

newuser43's trial: importing archgen and loading specs wrote `~/.cache/archgen` (units/, yaml/) and
`~/.config/archgen/cache.key`, with no switch to turn it off. Each case runs in a fresh process, as the units
registry is built (and written) on import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

#: A library session (docs/python-api.md: load, estimate with its notes and judgement) and a CLI run.
LIBRARY = [sys.executable, "-c", "from archgen.pipeline import built, job_on_cluster; s, d = built(['specs']); "
           "print(job_on_cluster(s, d, 'llama3-70b-pretrain-b200').estimate().fits)"]
CLI = [str(Path(sys.executable).parent / "archgen"), "estimate", "--workload", "llama3-70b-pretrain-b200"]


def _written(tmp_path: Path, argv: list[str], cache: str | None, **more: str) -> list[str]:
    home = tmp_path / "home"
    home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "ARCHGEN_CACHE", "MPLCONFIGDIR")}
    env |= {"HOME": str(home)} | ({"ARCHGEN_CACHE": cache} if cache is not None else {}) | more
    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return sorted(p.relative_to(home).as_posix() for p in home.rglob("*") if p.is_file())


@pytest.mark.parametrize(("argv", "off"), [(LIBRARY, "off"), (CLI, "0")], ids=["library", "cli"])
def test_off_writes_nothing_and_the_default_is_unchanged(tmp_path, argv, off):
    """Each entry point in a fresh process with the cache off, then on. Any value but on/1/yes/true is off: the library
    is run with `off`, the command line with `0` (each had run with both, two processes more, about 6 CPU-s; tests32),
    since `cache.enabled` is the one place either is read (`test_the_switch_is_read_in_one_place`)."""
    assert _written(tmp_path / "off", argv, off) == []
    written = _written(tmp_path / "default", argv, None)
    assert ".config/archgen/cache.key" in written
    assert any(w.startswith(".cache/archgen/units/definitions-") for w in written)
    assert any(w.startswith(".cache/archgen/yaml/") for w in written)


def test_off_covers_matplotlib_when_rendering(svg_renders):
    """Rendering imports matplotlib, which wrote its font list to ~/.cache/matplotlib with the cache off (nu43api's
    open list): now to a temporary folder (`render_caches.render_caches_kept_private`), removed when the command ends."""
    off, out, temp_left, _, on, _ = svg_renders
    assert off == []   # main: .cache/matplotlib/fontlist-*
    assert (out / "gb200-nvl72" / "power.svg").is_file() and temp_left == []
    assert any(w.startswith(".cache/matplotlib/") for w in on)


#: A fontconfig setup whose one font folder has no cache yet, cached under `$XDG_CACHE_HOME` (fonts-conf(5),
#: `<cachedir prefix="xdg">`), as for a user's own fonts (`~/.local/share/fonts`) or fonts added without `fc-cache`.
FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><dir>{fonts}</dir><cachedir prefix="xdg">fontconfig</cachedir></fontconfig>
"""


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="matplotlib asks fontconfig only through fc-list")
def test_off_covers_fontconfig_and_typst_when_rendering_pdf(tmp_path):
    """matplotlib's font list runs fc-list, and fontconfig wrote a cache for each uncached font folder to
    ~/.cache/fontconfig with the cache off (main, fontconfig 2.14): now to a temporary `$XDG_CACHE_HOME`. The PDF
    itself (the typst wheel, no system fonts) writes nothing under HOME either way; with the cache on, archgen keeps
    the compiled PDF in its own folder (`archgen.render.pdf_cache`)."""
    pytest.importorskip("typst")
    import matplotlib

    fonts = tmp_path / "fonts"
    fonts.mkdir()
    shutil.copy(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf", fonts)
    conf = tmp_path / "fonts.conf"
    conf.write_text(FONTS_CONF.format(fonts=fonts), encoding="utf-8")
    temp = tmp_path / "temp"
    temp.mkdir()
    render = [CLI[0], "render", "specs/catalog", "--target", "gb200-nvl72", "--out", str(tmp_path / "out"),
              "--formats", "pdf"]
    assert _written(tmp_path / "off", render, "off", TMPDIR=str(temp), FONTCONFIG_FILE=str(conf)) == []
    assert (tmp_path / "out" / "gb200-nvl72" / "gb200-nvl72.pdf").is_file() and list(temp.iterdir()) == []
    on = _written(tmp_path / "on", render, None, FONTCONFIG_FILE=str(conf))
    assert ".cache/fontconfig/CACHEDIR.TAG" in on and any(w.endswith(".cache-8") for w in on)   # main wrote these off
    assert not any("typst" in w for w in on)
    assert [w for w in on if w.startswith(".cache/archgen/pdf/") and w.endswith(".pdf")] != []


@pytest.mark.parametrize(("value", "on"), [("", True), ("ON", True), (" yes ", True), ("True", True), ("1", True),
                                           ("off", False), ("0", False), ("no", False), ("disable", False)])
def test_the_values_docs_python_api_names(monkeypatch, value, on):
    """docs/python-api.md: any value other than on, 1, yes, true (in any case) or an empty one is off."""
    from archgen import cache

    monkeypatch.setenv("ARCHGEN_CACHE", value)
    assert cache.enabled() is on


def test_the_switch_is_read_in_one_place():
    """`ARCHGEN_CACHE` is read by `cache.enabled` and nowhere else in archgen, so a value that `enabled` reads as off
    turns off all that the fresh processes above see turned off with one spelling."""
    import ast

    readers = []
    for path in sorted((REPO / "archgen").rglob("*.py")):
        if "ARCHGEN_CACHE" not in (text := path.read_text(encoding="utf-8")):
            continue
        tree = ast.parse(text)
        inside = {c: n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for c in ast.walk(n)}
        readers += [f"{path.relative_to(REPO)}::{inside.get(n, '<module>')}" for n in ast.walk(tree)
                    if isinstance(n, ast.Constant) and n.value == "ARCHGEN_CACHE"]
    assert readers == ["archgen/cache.py::enabled"]


#: A fontconfig setup as Debian's (/etc/fonts/fonts.conf): an absolute cache folder, writable for root
#: (/var/cache/fontconfig), ahead of the user's; here one under the test's own folder stands for it.
SYSTEM_FIRST_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><dir>{fonts}</dir><cachedir>{system}</cachedir><cachedir prefix="xdg">fontconfig</cachedir></fontconfig>
"""


@pytest.fixture(scope="module")
def svg_renders(tmp_path_factory) -> tuple[list[str], Path, list[Path], bool, list[str], Path]:
    """`render --formats svg` of a rack with the cache off, then on, each in a fresh process, with fontconfig set up
    as Debian's (`SYSTEM_FIRST_CONF`), for the matplotlib and the system font cache tests: (what the run with it off
    wrote under HOME, its --out, what it left in TMPDIR, whether the system cache folder existed after it, what the
    run with it on wrote under HOME, the system cache folder). The fontconfig file only matters where matplotlib
    asks fontconfig (fc-list); either way the two tests read the same two runs, not four. The renders here read
    specs/catalog, where the rack is: the caches are written on import and on drawing, whatever else is loaded."""
    import matplotlib

    tmp_path = tmp_path_factory.mktemp("svg")
    fonts, system = tmp_path / "fonts", tmp_path / "var-cache-fontconfig"
    fonts.mkdir()
    shutil.copy(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf", fonts)
    conf = tmp_path / "fonts.conf"
    conf.write_text(SYSTEM_FIRST_CONF.format(fonts=fonts, system=system), encoding="utf-8")
    temp = tmp_path / "temp"
    temp.mkdir()
    render = [CLI[0], "render", "specs/catalog", "--target", "gb200-nvl72", "--out", str(tmp_path / "out"),
              "--formats", "svg"]
    off = _written(tmp_path / "off", render, "off", TMPDIR=str(temp), FONTCONFIG_FILE=str(conf))
    temp_left, system_after_off = list(temp.iterdir()), system.exists()
    on = _written(tmp_path / "on", render, None, FONTCONFIG_FILE=str(conf))
    return off, tmp_path / "out", temp_left, system_after_off, on, system


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="matplotlib asks fontconfig only through fc-list")
def test_off_leaves_a_system_font_cache_folder_alone(svg_renders):
    """Run as root, fontconfig cached an uncached font folder in /var/cache/fontconfig with the cache off (lo23cli,
    reproduced with $HOME/.local/share/fonts and Debian's setup: one new file there). Now a temporary cache folder
    stands first (`render_caches._fontconfig_first`); without archgen's switch the system folder is written, as before."""
    off, _, temp_left, system_after_off, _, system = svg_renders
    assert off == []
    assert not system_after_off and temp_left == []   # main: var-cache-fontconfig/<hash>-le64.cache-8
    assert any(p.name.endswith(".cache-8") for p in system.iterdir())
