"""The HTML document in a real headless Chromium: no console errors, no broken images, TOC links resolve.

Debian's `chromium` (`make test` installs it with apt when run as root). A screenshot of each page is written to
out/screenshots/ for review. The checks run in a copy of the page with a small probe script injected at the top
of <head>; the screenshot and the console log are of the unmodified page.
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
    var out = document.createElement("pre");
    out.id = "archgen-probe";
    out.textContent = JSON.stringify({errors: errors, broken: broken, missing: missing, links: links.length, toc: toc, svgs: svgs});
    document.body.appendChild(out);
  });
})();
</script>"""


def _chromium(args, tmp_path, timeout=90):
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
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


def test_pages_load_cleanly_in_chromium(pages, tmp_path):
    assert pages
    shots = REPO / "out" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    for page in pages:
        probed = tmp_path / f"probe-{page.name}"
        probed.write_text(page.read_text(encoding="utf-8").replace("<head>", "<head>\n" + PROBE, 1), encoding="utf-8")
        dom = _chromium(["--dump-dom", probed.as_uri()], tmp_path)
        m = re.search(r'<pre id="archgen-probe">(.*?)</pre>', dom.stdout, re.S)
        assert m, f"{page.name}: probe did not run; chromium said: {dom.stderr[-2000:]}"
        result = json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                            .replace("&amp;", "&"))
        assert result["errors"] == [], page.name
        assert result["broken"] == [], page.name
        assert result["missing"] == [], f"{page.name}: links without a target"
        assert result["toc"] >= 10 and result["links"] >= result["toc"]
        assert result["svgs"] and all(w > 100 and h > 50 for w, h in result["svgs"]), result["svgs"]
        shot = shots / f"{page.stem}.png"
        run = _chromium(["--enable-logging=stderr", "--v=0", f"--screenshot={shot}", "--window-size=1400,1800",
                         page.as_uri()], tmp_path)
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
  parent.postMessage(JSON.stringify({name: NAME, page: document.documentElement.scrollWidth, width: width,
                                     wide: wide.slice(0, 8)}), "*");
});
</script>"""
#: One Chromium for every page (a start costs more than a page): each page in a 1,400 px frame of its own, its probe
#: posting what it measured to the frame holder, which lists what arrived.
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


def test_layout_never_overflows_at_1400_px(every_page, tmp_path):
    """Issues 11 and 24: at a 1,400 px window no element of any shipped or example document reaches past the right
    edge, the page never scrolls sideways, and no table is clipped in its scroll box (the Fabrics and Growth tables
    of the clusters were): every table fits the column, its cells wrapping between words. Each page is laid out in
    a 1,400 px frame (its own document and viewport), all in one Chromium."""
    assert len(every_page) >= 15
    frames = []
    for page in every_page:
        probed = tmp_path / f"overflow-{page.name}"
        probed.write_text(page.read_text(encoding="utf-8").replace(
            "<head>", "<head>\n" + OVERFLOW_PROBE.replace("NAME", json.dumps(page.name)), 1), encoding="utf-8")
        frames.append(f'<iframe src="{probed.as_uri()}" style="width:1400px;height:1000px;border:0;display:block">'
                      "</iframe>")
    holder = tmp_path / "frames.html"
    holder.write_text(FRAMES.replace("FRAMES", "".join(frames)), encoding="utf-8")
    dom = _chromium(["--window-size=1500,1000", "--virtual-time-budget=60000", "--dump-dom", holder.as_uri()],
                    tmp_path)
    m = re.search(r'<pre id="archgen-overflow">(.*?)</pre>', dom.stdout, re.S)
    assert m, f"the frame holder did not load; chromium said: {dom.stderr[-2000:]}"
    results = {r["name"]: r for r in json.loads(m.group(1).replace("&quot;", '"').replace("&gt;", ">")
                                                 .replace("&lt;", "<").replace("&amp;", "&"))}
    assert sorted(results) == sorted(p.name for p in every_page), "probes that did not report"
    for name, result in results.items():
        assert result["width"] > 1300, result
        assert result["page"] <= result["width"] and result["wide"] == [], (name, result)


def test_the_frame_probe_sees_an_overflow(tmp_path):
    """The probe in its frame reports an element wider than the window (so the test above can fail)."""
    page = tmp_path / "wide.html"
    page.write_text('<html><head></head><body><main><div style="width:2000px">wide</div></main></body></html>')
    probed = tmp_path / "overflow-wide.html"
    probed.write_text(page.read_text().replace("<head>", "<head>\n" + OVERFLOW_PROBE.replace("NAME", '"wide"'), 1))
    holder = tmp_path / "frames.html"
    holder.write_text(FRAMES.replace("FRAMES", f'<iframe src="{probed.as_uri()}" style="width:1400px;height:1000px">'
                                               "</iframe>"))
    dom = _chromium(["--window-size=1500,1000", "--virtual-time-budget=10000", "--dump-dom", holder.as_uri()],
                    tmp_path)
    (result,) = json.loads(re.search(r'<pre id="archgen-overflow">(.*?)</pre>', dom.stdout, re.S).group(1)
                           .replace("&quot;", '"'))
    assert result["wide"] and result["page"] > result["width"], result


def test_cells_never_break_inside_a_word(pages):
    """Issue 24: cells were allowed to break anywhere ("SHAL L", "NVIDI A" in the requirements and components
    tables). A long URL or path gets break opportunities after its punctuation instead (`<wbr>`)."""
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "overflow-wrap: anywhere" not in html and "word-break: break-all" not in html
    html = next(p for p in pages if p.stem == "gb200-nvl72").read_text(encoding="utf-8")
    assert "https:/<wbr>/<wbr>www.<wbr>nvidia.<wbr>com/<wbr>" in html
