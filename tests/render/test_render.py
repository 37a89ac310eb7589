"""render_all: files per target, determinism, literal text, errors, template overrides and atomic writes."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from archgen.errors import UsageError
from archgen.render import render_all
from archgen.render.env import TemplateError
from tests.render.conftest import HOSTILE

RACK = "nvl72-test"


def _render(run, out, formats=("md", "svg", "png"), **kw):
    return render_all(run, out, target=RACK, formats=formats, revision="test", **kw)


def test_rack_markdown_with_elevation_and_budget(test_run, tmp_path, drawn_once):
    written = _render(test_run, tmp_path)
    names = sorted(p.name for p in written)
    assert names == sorted(["nvl72-test.md", "elevation.svg", "elevation.png", "power.svg", "power.png",
                            "cooling.svg", "cooling.png"])
    assert all(p.parent == tmp_path / RACK for p in written)
    md = (tmp_path / RACK / "nvl72-test.md").read_text(encoding="utf-8")
    for heading in ("Abstract and key metrics", "Conventions", "Requirements and assumptions", "Key components",
                    "Rack design", "Power", "Cooling", "Validation report", "Open items and gaps", "Appendices"):
        assert re.search(rf"^##+ [0-9.]+ {heading}$", md, re.M), heading
    # the image text says what the elevation shows (render/rack.py::elevation_alt), the caption under it names it
    assert re.search(r"^!\[Front and rear elevation of nvl72-test, a \d+ U .*\]\(elevation\.svg\)$", md, re.M)
    assert "*Figure 1: Rack elevation of nvl72-test, front and rear, coloured by part class*" in md
    # power budget: 8 x 33 kW shelves N+N -> 132 kW usable for a 131.4 kW load; feeds 8 x 34.5 kW derated; each load
    # sums the GB200 trays' draws, which the catalog lists unconfirmed (unconfmark42)
    assert "| Power shelves | 8 | 33.0 | N+N | 264.0 | 132.0 | 231.0 | 131.4 (unconfirmed) | 99.5 % |" in md
    assert "| Feeds (after derating, at PF 1.00 assumed) | 8 | 34.5 | N+N | 276.0 | 138.0 | 241.5 | 135.5 (unconfirmed) | 98.2 % |" in md
    assert ("| Continuous-load derating | 80 % (assumed: not stated in power.feeds.derating, the default, NEC 210.20(A) "
            "continuous load) |") in md
    # cooling: 0.85 x 131.4 kW to liquid, the rest of the 135.5 kW input to air; CDU group of 8 racks
    assert "| Liquid | 111.7 (unconfirmed) | 82 % | pg25, ΔT 10 K | 168.0 L/min (unconfirmed) | 1.50 L/min/kW |" in md
    assert "| Group liquid load / utilisation | 893.5 kW (unconfirmed) / 69 % |" in md
    svg = (tmp_path / RACK / "elevation.svg").read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "<dc:date>" not in svg


@pytest.mark.slow
def test_output_is_byte_identical(test_run, tmp_path, monkeypatch):
    """Two renders are the same bytes; the second lets matplotlib place every title itself, so this also holds
    the rack diagrams' fixed titles (``y=1.0``, `archgen.render.diagrams`' docstring) where it would put them."""
    a = {p.name: p.read_bytes() for p in _render(test_run, tmp_path / "a", ("md", "html", "svg", "png", "csv"))}
    from matplotlib.axes import Axes
    fixed = Axes.set_title
    monkeypatch.setattr(Axes, "set_title", lambda ax, *args, y=None, **kw: fixed(ax, *args, **kw))
    b = {p.name: p.read_bytes() for p in _render(test_run, tmp_path / "b", ("md", "html", "svg", "png", "csv"))}
    assert a.keys() == b.keys()
    assert [n for n in a if a[n] != b[n]] == []


def test_a_format_drawn_alone_is_the_same_bytes(test_run):
    """A diagram saved as PNG (or SVG) alone is the bytes it is when saved after the other format (what
    `conftest.shared_diagrams` relies on when it draws only the formats it has not drawn yet)."""
    from functools import partial

    from archgen.render import diagrams
    draw = partial(diagrams.cooling_split, test_run.racks[f"rack/{RACK}"])  # two panels, a legend, text
    both = diagrams.render("cooling", draw, ("svg", "png"))
    assert diagrams.render("cooling", draw, ("png",))["png"] == both["png"]
    assert diagrams.render("cooling", draw, ("svg",))["svg"] == both["svg"]


def test_a_diagram_is_savefigs_tight_bytes(test_run):
    """`diagrams.render` measures a diagram's extent without savefig's first drawing pass: the bytes are still those
    of ``savefig(bbox_inches="tight")``, in both formats, for a diagram with a one-shot `tight_layout` (whose
    leftover placeholder engine `_save` clears), one without, and one holding a raster image (an SVG of it is left
    to savefig, as an image would be resampled at the SVG's 72 dpi). Nothing golden holds a diagram's bytes
    (`golden_util` elides them); every diagram of specs/, examples/gb300-nvl72-su and the test rack (109, in both
    formats) was compared the same way when `_save` was written."""
    import io
    from functools import partial

    import matplotlib
    import numpy as np
    from matplotlib.figure import Figure

    from archgen.render import diagrams

    def image() -> Figure:
        fig = Figure(figsize=(4.0, 3.0))
        ax = fig.subplots()
        ax.imshow(np.arange(12.0).reshape(3, 4), aspect="auto", interpolation="nearest")
        ax.set_title("racks by type")
        fig.tight_layout()
        return fig

    rack = test_run.racks[f"rack/{RACK}"]
    for name, draw in (("power", partial(diagrams.power_budget, rack)), ("floor", image),
                       ("legend", partial(diagrams.cooling_split, rack))):
        got = diagrams.render(name, draw, ("svg", "png"))
        for fmt in ("svg", "png"):
            buf = io.BytesIO()
            with matplotlib.rc_context({**diagrams.RC, "svg.hashsalt": f"archgen-{name}"}):  # type: ignore[dict-item]
                draw().savefig(buf, format=fmt, bbox_inches="tight", pad_inches=diagrams.PAD,
                               metadata={"Date": None, "Creator": None} if fmt == "svg" else {"Software": None})
            assert got[fmt] == buf.getvalue(), (name, fmt)


def test_png_saved_once_within_drawn_once(test_run, monkeypatch):
    """`render_all` builds a diagram and saves its PNG once per drawer and objects (a cluster shows its racks'
    elevations under another name): the reused bytes are those a fresh build and save give; the SVG of the Figure
    built before, salted by the new name, is still saved; another function of the same rack is drawn anew."""
    from functools import partial

    from matplotlib.figure import Figure

    from archgen.render import diagrams
    rack = test_run.racks[f"rack/{RACK}"]
    fresh = diagrams.render("elevation-x", partial(diagrams.elevation, rack), ("svg", "png"))
    saved: list[str] = []
    save = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, buf, format, **kw: (saved.append(format),
                                                                         save(fig, buf, format=format, **kw)))
    built: list[object] = []

    def elevation(a):
        built.append(a)
        return diagrams.elevation(a)

    with diagrams.drawn_once():
        first = diagrams.render("elevation", partial(elevation, rack), ("svg", "png"))
        second = diagrams.render("elevation-x", partial(elevation, rack), ("svg", "png"))
        diagrams.render("cooling", partial(diagrams.cooling_split, rack), ("png",))
    assert saved == ["svg", "png", "svg", "png"]
    assert built == [rack]
    assert first["png"] == second["png"] == fresh["png"]
    assert second["svg"] == fresh["svg"] != first["svg"]


def test_a_figure_is_released_once_its_last_named_user_has_saved_it(test_run):
    """`drawn_once(users)` (`render_all` names each document drawing a rack's elevation, `target.reused_drawers`): a
    named diagram is built once and kept until its last named render; an unnamed one is not kept, nor a named one
    drawn again after its last user (drawn anew: the same bytes)."""
    import gc
    import weakref
    from functools import partial

    from archgen.render import diagrams
    rack = test_run.racks[f"rack/{RACK}"]
    built: list[weakref.ref] = []

    def drawer(draw):
        def drawn(a):
            fig = draw(a)
            built.append(weakref.ref(fig))
            return fig
        return drawn

    elevation, cooling = drawer(diagrams.elevation), drawer(diagrams.cooling_split)

    def alive() -> list[bool]:
        gc.collect()
        return [ref() is not None for ref in built]

    with diagrams.drawn_once([partial(elevation, rack), partial(elevation, rack)]):
        first = diagrams.render("elevation", partial(elevation, rack), ("svg", "png"))
        assert alive() == [True]                     # one named user to come
        diagrams.render("cooling", partial(cooling, rack), ("png",))
        assert alive() == [True, False]              # not named: not kept
        second = diagrams.render("elevation-x", partial(elevation, rack), ("svg", "png"))
        assert alive() == [False, False]             # built once, released by its last user
        third = diagrams.render("elevation-x", partial(elevation, rack), ("svg", "png"))
        assert alive() == [False, False, False]
    assert first["png"] == second["png"] == third["png"] and second == third


def test_markdown_shows_spec_text_literally(test_run, tmp_path, drawn_once):
    _render(test_run, tmp_path, ("md",))
    md = (tmp_path / RACK / "nvl72-test.md").read_text(encoding="utf-8")
    rendered = html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").enable("table").render(md)))
    assert HOSTILE in rendered
    assert "Rack weight <script>alert(1)</script>" in rendered


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.parts.append(data)


def test_html_shows_spec_text_literally(test_run, tmp_path, drawn_once):
    _render(test_run, tmp_path, ("html",))
    page = (tmp_path / RACK / "nvl72-test.html").read_text(encoding="utf-8")
    parser = _Text()
    parser.feed(page)
    text = "".join(parser.parts)
    assert HOSTILE in text
    assert "Rack weight <script>alert(1)</script>" in text
    assert "script" not in parser.tags and "b" not in parser.tags


def test_unknown_target_and_format_are_usage_errors(test_run, tmp_path):
    with pytest.raises(UsageError, match="no rack or cluster 'nope'"):
        render_all(test_run, tmp_path, target="nope")
    with pytest.raises(UsageError, match="unknown format"):
        render_all(test_run, tmp_path, target=RACK, formats=("md", "docx"))
    with pytest.raises(UsageError, match="templates directory"):
        render_all(test_run, tmp_path, target=RACK, templates=tmp_path / "missing")


def test_template_override(test_run, tmp_path, drawn_once):
    override = tmp_path / "tpl"
    override.mkdir()
    (override / "document.md.j2").write_text("# {{ doc.title | md }}\n{% for s in doc.sections %}- {{ s.title }}\n"
                                             "{% endfor %}", encoding="utf-8")
    _render(test_run, tmp_path / "out", ("md",), templates=override)
    md = (tmp_path / "out" / RACK / "nvl72-test.md").read_text(encoding="utf-8")
    assert md.startswith("# GB200 NVL72 test rack \\<b\\>") and "- Power\n" in md


@pytest.mark.slow
def test_template_error_names_file_and_line_and_keeps_previous_output(test_run, tmp_path, drawn_once):
    out = tmp_path / "out"
    _render(test_run, out, ("md", "svg"))
    before = {p: p.read_bytes() for p in (out / RACK).iterdir()}
    override = tmp_path / "tpl"
    override.mkdir()
    (override / "document.md.j2").write_text("# title\n\n{{ doc.no_such_field }}\n", encoding="utf-8")
    with pytest.raises(TemplateError, match=r"document\.md\.j2:3: template error: .*no_such_field"):
        _render(test_run, out, ("md", "svg"), templates=override)
    after = {p: p.read_bytes() for p in (out / RACK).iterdir()}
    assert after == before


@pytest.mark.slow
def test_html_is_the_same_whichever_formats_are_rendered_with_it(shipped_run, every_document, tmp_path):
    """`test_browser.pages` and `conftest.su_customer` take documents rendered with other formats."""
    render_all(shipped_run, tmp_path, target="gb200-nvl72", formats=("html",), revision="test", progress=False)
    alone = (tmp_path / "gb200-nvl72" / "gb200-nvl72.html").read_bytes()
    assert alone == (every_document[2] / "gb200-nvl72" / "gb200-nvl72.html").read_bytes()


def test_all_targets_when_none_given(every_document):
    written = [p for p in every_document[0] if p.suffix == ".md"]  # render_all(shipped_run, ...) with no target
    dirs = {p.parent.name for p in written}
    assert {"gb200-nvl72", "dgx-h100-4"} <= dirs
