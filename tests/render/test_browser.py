"""The HTML document in a real headless Chromium: no console errors, no broken images, TOC links resolve.

Debian's `chromium` (`make test` installs it with apt when run as root). A screenshot of each page is written to
out/screenshots/ for review. The checks run in a copy of the page with a small probe script injected at the top
of <head>; the screenshot and the console log are of the unmodified page. The probed copies are laid out in one
Chromium (`browser`: each in a frame of its own, as large as the window each check had when it ran alone, its probe
posting what it measured to the frame holder): a Chromium start costs more than a page, and the suite started eight.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from archgen.render import render_all
from tests.conftest import REPO, shared_diagrams

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing (Debian package "
                                 "'chromium'; `make test` installs it when run as root)")]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]

PROBE = """<script>
(function () {
  var errors = [];
  window.addEventListener("error", function (e) {
    errors.push(e.message || ("failed to load " + ((e.target && (e.target.src || e.target.href)) || "resource")));
  }, true);
  var origError = console.error;
  console.error = function () { errors.push(Array.prototype.join.call(arguments, " ")); origError.apply(console, arguments); };
  window.addEventListener("load", function () {
    var broken = Array.prototype.filter.call(document.images, function (i) { return !i.complete || i.naturalWidth === 0; })
      .map(function (i) { return i.src; });
    var links = Array.prototype.map.call(document.querySelectorAll('a[href^="#"]'), function (a) { return a.getAttribute("href").slice(1); });
    var missing = links.filter(function (id) { return !document.getElementById(decodeURIComponent(id)); });
    var toc = document.querySelectorAll('nav.toc a[href^="#"]').length;
    var svgs = Array.prototype.map.call(document.querySelectorAll("figure svg"), function (s) { var r = s.getBoundingClientRect(); return [r.width, r.height]; });
    parent.postMessage(JSON.stringify({kind: "probe", name: NAME, errors: errors, broken: broken, missing: missing,
                                       links: links.length, toc: toc, svgs: svgs}), "*");
  });
})();
</script>"""


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    """One Chromium profile folder for every start in this module, one after another: a start that makes a fresh
    profile costs about 1.0 CPU-s where one that finds it costs 0.7 (a screenshot of the GB200 NVL72 page, 2 shared
    cores)."""
    return tmp_path_factory.mktemp("chromium-profile")


def _chromium(args, profile, timeout=90):
    return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                          text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def pages(test_run, every_document, tmp_path_factory):
    """The HTML of the test rack, and of the shipped GB200 NVL72 rack and DGX B200 SuperPOD as `every_document`
    rendered them (an HTML document is the same bytes whichever other formats are rendered with it)."""
    out = tmp_path_factory.mktemp("html")
    with shared_diagrams():
        render_all(test_run, out, target="nvl72-test", formats=("html",), revision="test")
    shipped = [every_document[2] / t / f"{t}.html" for t in ("gb200-nvl72", "dgx-b200-superpod")]
    return sorted([*out.glob("*/*.html"), *(p for p in shipped if p.is_file())], key=lambda p: p.name)


def test_pages_load_cleanly_in_chromium(pages, browser, profile):
    assert pages
    shots = REPO / "out" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    for page in pages:
        assert ("probe", page.name) in browser, f"{page.name}: probe did not run"
        result = browser["probe", page.name]  # the probed copy in a 780 x 437 frame: the viewport it had alone
        assert result["errors"] == [], page.name
        assert result["broken"] == [], page.name
        assert result["missing"] == [], f"{page.name}: links without a target"
        assert result["toc"] >= 10 and result["links"] >= result["toc"]
        assert result["svgs"] and all(w > 100 and h > 50 for w, h in result["svgs"]), result["svgs"]
        shot = shots / f"{page.stem}.png"
        run = _chromium(["--enable-logging=stderr", "--v=0", f"--screenshot={shot}", "--window-size=1400,1800",
                         page.as_uri()], profile)
        console = [line for line in run.stderr.splitlines() if "CONSOLE" in line and "ERROR" in line.upper()]
        assert console == [], console
        assert shot.exists() and shot.stat().st_size > 10_000


OVERFLOW_PROBE = """<script>
window.addEventListener("load", function () {
  var width = document.documentElement.clientWidth;
  var wide = [];
  document.querySelectorAll("main *").forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.right > width + 1 && !el.closest(".scroll-x")) {
      wide.push(el.tagName + (el.id ? "#" + el.id : "") + " " + Math.round(r.right));
    }
  });
  document.querySelectorAll(".scroll-x").forEach(function (box) {
    if (box.scrollWidth > box.clientWidth + 1) {
      wide.push("clipped " + (box.firstElementChild.id || "table") + " " + box.scrollWidth + " > " + box.clientWidth);
    }
  });
  parent.postMessage(JSON.stringify({kind: "overflow", name: NAME, page: document.documentElement.scrollWidth,
                                     width: width, wide: wide.slice(0, 8)}), "*");
});
</script>"""
#: The frame holder of `browser`: it lists what the probes in its frames post.
FRAMES = """<!doctype html><html><body style="margin:0"><pre id="archgen-overflow">[]</pre><script>
var got = [];
window.addEventListener("message", function (e) {
  got.push(JSON.parse(e.data));
  document.getElementById("archgen-overflow").textContent = JSON.stringify(got);
});
</script>FRAMES</body></html>"""


@pytest.fixture(scope="module")
def every_page(every_document):
    """The HTML document of every rack and cluster of specs/ and of examples/gb300-nvl72-su."""
    return sorted(every_document[2].glob("*/*.html"))


#: A page wider than the 1,400 px window, laid out beside the others (`test_the_frame_probe_sees_an_overflow`).
WIDE = '<html><head></head><body><main><div style="width:2000px">wide</div></main></body></html>'


@pytest.fixture(scope="module")
def browser(pages, every_page, profile, tmp_path_factory):
    """What the probes measured, by (kind, page name), in one Chromium: each of `pages` probed (`PROBE`) in a
    780 x 437 frame (the viewport headless --dump-dom gives a page of its own), and each of `every_page` and `WIDE`
    (as "wide") in a 1,400 px frame (`OVERFLOW_PROBE`), every page in a frame of its own (its own document and
    viewport)."""
    tmp = tmp_path_factory.mktemp("browser")
    frames = []
    for kind, probe, size, docs in (("probe", PROBE, "width:780px;height:437px", [(p.name, p) for p in pages]),
                                    ("overflow", OVERFLOW_PROBE, "width:1400px;height:1000px",
                                     [(p.name, p) for p in every_page] + [("wide", None)])):
        for name, page in docs:
            html = page.read_text(encoding="utf-8") if page is not None else WIDE
            probed = tmp / f"{kind}-{name}" if name.endswith(".html") else tmp / f"{kind}-{name}.html"
            probed.write_text(html.replace("<head>", "<head>\n" + probe.replace("NAME", json.dumps(name)), 1),
                              encoding="utf-8")
            frames.append(f'<iframe src="{probed.as_uri()}" style="{size};border:0;display:block"></iframe>')
    holder = tmp / "frames.html"
    holder.write_text(FRAMES.replace("FRAMES", "".join(frames)), encoding="utf-8")
    dom = _chromium(["--window-size=1500,1000", "--virtual-time-budget=60000", "--dump-dom", holder.as_uri()], profile)
    m = re.search(r'<pre id="archgen-overflow">(.*?)</pre>', dom.stdout, re.S)
    assert m, f"the frame holder did not load; chromium said: {dom.stderr[-2000:]}"
    results = json.loads(m.group(1).replace("&quot;", '"').replace("&gt;", ">").replace("&lt;", "<")
                         .replace("&amp;", "&"))
    return {(r.pop("kind"), r["name"]): r for r in results}


def test_layout_never_overflows_at_1400_px(every_page, browser):
    """Issues 11 and 24: at a 1,400 px window no element of any shipped or example document reaches past the right
    edge, the page never scrolls sideways, and no table is clipped in its scroll box (the Fabrics and Growth tables
    of the clusters were): every table fits the column, its cells wrapping between words. Each page is laid out in
    a 1,400 px frame (its own document and viewport), all in one Chromium (`browser`)."""
    assert len(every_page) >= 15
    results = {name: r for (kind, name), r in browser.items() if kind == "overflow" and name != "wide"}
    assert sorted(results) == sorted(p.name for p in every_page), "probes that did not report"
    for name, result in results.items():
        assert result["width"] > 1300, result
        assert result["page"] <= result["width"] and result["wide"] == [], (name, result)


def test_the_frame_probe_sees_an_overflow(browser):
    """The probe in its frame reports an element wider than the window (so the test above can fail): `WIDE`, laid
    out in the same Chromium and frame holder as the documents."""
    result = browser["overflow", "wide"]
    assert result["wide"] and result["page"] > result["width"], result


def test_cells_never_break_inside_a_word(pages):
    """Issue 24: cells were allowed to break anywhere ("SHAL L", "NVIDI A" in the requirements and components
    tables). A long URL or path gets break opportunities after its punctuation instead (`<wbr>`)."""
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "overflow-wrap: anywhere" not in html and "word-break: break-all" not in html
    html = next(p for p in pages if p.stem == "gb200-nvl72").read_text(encoding="utf-8")
    assert "https:/<wbr>/<wbr>www.<wbr>nvidia.<wbr>com/<wbr>" in html
