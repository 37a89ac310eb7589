"""Hostile input and flags (issue 11 items 13-17): each attack that showed a traceback, a hang or a wrong exit code.

Loader-level attacks (control characters, tags, node counts, the cache) are in `tests/test_load.py`; the mutation
fuzz of every shipped spec is `tests/test_fuzz.py`.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from archgen.commands import workers
from archgen.errors import UsageError
from tests.conftest import SPECS

RACK = SPECS / "racks" / "dgx-h100-4.yaml"
SMALL_SWEEP = """kind: Sweep
id: small
name: "Serving $\\\\frac{1}{$ cost"
workload: llama3-70b-serve-b200
axes:
  tp: [1, 8]
  batch: [1, 16]
objectives:
  - {metric: tokens_per_second_per_gpu}
  - {metric: tpot}
"""


def _rack_tree(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """The shipped DGX H100 rack (and its facility) with text replaced."""
    root = tmp_path / "specs"
    (root / "racks").mkdir(parents=True)  # the facilities are in the shipped catalog
    text = RACK.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    (root / "racks" / RACK.name).write_text(text, encoding="utf-8")
    return root


def _strict(text: str) -> object:
    def refuse(constant: str) -> None:
        raise ValueError(f"not strict JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


# --- item 14: one file or flag must not exhaust the machine --------------------------------------------------------

def test_sweep_workers_are_capped_at_the_cpu_count_with_a_note(tmp_path, cli, monkeypatch):
    """`sweep --workers 10000` started every process at once (3,000 processes, 11 GB in a minute)."""
    assert workers.worker_count(10_000) == (workers.cpu_count(), f"note: --workers 10,000 capped at {workers.cpu_count()}, the "
                                                        "CPUs available to this process") or workers.cpu_count() >= 10_000
    assert workers.worker_count(10**20)[1].startswith("note: --workers 1e+20 capped at")   # was an OverflowError
    with pytest.raises(UsageError, match="--workers must be at least 1, got 0"):
        workers.worker_count(0)
    monkeypatch.setattr(workers, "cpu_count", lambda: 1)                                   # so the points run here
    (tmp_path / "s.yaml").write_text(SMALL_SWEEP, encoding="utf-8")
    r = cli("sweep", tmp_path / "s.yaml", "--path", SPECS, "--out", tmp_path / "o", "--workers", str(10**20))
    assert r.code == 0, r.err
    assert "note: --workers 1e+20 capped at 1, the CPUs available to this process" in r.err


def test_workers_written_with_a_caret_are_a_usage_error(tmp_path, cli):
    r = cli("sweep", tmp_path / "s.yaml", "--workers", "10^20")
    assert r.code == 2 and "Invalid value for '--workers'" in r.err and "Traceback" not in r.err


class _Peer:
    """A TCP service on localhost that sends `greeting` to each connection (nothing, like an HTTP server)."""

    def __init__(self, greeting: bytes = b"") -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.greeting, self.conns = greeting, []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.greeting:
                conn.sendall(self.greeting)

    def close(self) -> None:
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.mark.parametrize("greeting, said", [
    (b"", "sent nothing within 0.5 s"),                          # an HTTP server: Dask hung past its timeout
    (b"SSH-2.0-OpenSSH_9.6\r\n", "answered 'SSH-2.0-'"),         # 8 bytes read as a length: 2.8 EiB asked for
    (b"\x08\x00\x00\x00\x00\x00\x00\x00notdask!", "answered"),   # a short message, but no Dask handshake
])
def test_a_scheduler_address_that_is_not_dask_is_refused_within_the_timeout(greeting, said):
    peer = _Peer(greeting)
    try:
        start = time.monotonic()
        with pytest.raises(UsageError) as err:
            workers.probe(f"tcp://127.0.0.1:{peer.port}", timeout=0.5)
        assert time.monotonic() - start < 5
        assert f"not a Dask scheduler (it {said}" in str(err.value)
    finally:
        peer.close()


def test_a_dask_scheduler_passes_the_probe():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=0, dashboard_address=None) as cluster:
        workers.probe(cluster.scheduler_address, timeout=10)


@pytest.mark.parametrize("address", ["bogus-address", "tcp://host:port", "tcp://:8786", "tcp://h:99999"])
def test_a_malformed_scheduler_address_is_a_usage_error(address):
    """`--scheduler bogus-address` was a ValueError traceback from Dask."""
    with pytest.raises(UsageError, match="expected a Dask scheduler address such as tcp://host:8786"):
        workers.probe(address)


# --- item 15: tracebacks become located errors ----------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["{a: 1}", "[Rack]"])
def test_a_kind_that_is_a_mapping_or_list_is_located(spec_tree, cli, kind):
    r = cli("check", spec_tree({"a.yaml": f"id: x\nkind: {kind}\n"}))
    assert r.code == 1
    assert r.err.startswith(f"{Path(r.err.split(':')[0])}:2:1: error: kind: unknown document kind: expected a known")


def test_an_integer_beyond_int64_is_located(tmp_path, cli):
    """A slot at U 2^64 and `10^100` in an integer field: refused where written."""
    root = _rack_tree(tmp_path, ("{at: 40, part: sn2201", "{at: 18446744073709551616, part: sn2201"))
    r = cli("check", root)
    assert r.code == 2
    assert ("dgx-h100-4.yaml:14:10: error: integer out of range: expected a whole number of at most "
            "9,223,372,036,854,775,807 in size, got '18446744073709551616'") in r.err


@pytest.mark.parametrize("where, edit", [
    ("part", ("  - {at: 40, part: sn2201, face: rear}", "  - {at: 40, part: tall, face: rear}")),
    ("rack", ("height: 42 U", "height: 1e300 U")),
])
def test_a_height_of_1e300_u_is_refused_where_written(tmp_path, cli, where, edit):
    """Found by the fuzz: a part 1e300 U tall made the space analysis allocate a slot per U (24 GB, then OOM); then
    judged (MECH001) or passed as a plausibility matter; now refused where written (issue 23 item 9: a 10^6 U rack)."""
    root = _rack_tree(tmp_path, edit)
    switch = next(p for p in (SPECS / "catalog" / "switches").glob("*.yaml") if "id: sn2201" in p.read_text(encoding="utf-8"))
    text = switch.read_text(encoding="utf-8").replace("id: sn2201", "id: tall")
    (root / "tall.yaml").write_text(re.sub(r"height: [0-9.]+ U", "height: 1e300 U", text), encoding="utf-8")
    r = cli("check", root)
    assert r.code == 1 and "Traceback" not in r.err
    assert "height: expected a rack height of at most 100 U (beyond that no hardware exists), got '1e300 U'" in r.err


def test_a_quantity_beyond_int64_is_a_float_not_a_crash(tmp_path, cli):
    """`18446744073709551616 W` became a Python int that numpy cannot hold; now a float the checks judge."""
    root = _rack_tree(tmp_path, ("REQ-PWR-010, statement: Rack IT load, metric: it_power, target: \"<= 45 kW\"",
                                 "REQ-PWR-010, statement: Rack IT load, metric: it_power, target: "
                                 "\"<= 18446744073709551616 W\""))
    r = cli("check", root, "--format", "json")
    assert r.code == 0, r.err
    assert _strict(r.out)["summary"]["errors"] == 0


def test_dollar_signs_in_a_sweep_name_are_not_mathtext(tmp_path, cli):
    """`$\\frac{1}{$` in a sweep name reached matplotlib's mathtext parser (ParseException traceback)."""
    (tmp_path / "s.yaml").write_text(SMALL_SWEEP, encoding="utf-8")
    r = cli("sweep", tmp_path / "s.yaml", "--path", SPECS, "--out", tmp_path / "o", "--formats", "svg")
    assert r.code == 0, r.err
    assert (tmp_path / "o" / "small" / "pareto.svg").stat().st_size > 1000


@pytest.mark.parametrize("threshold", ["nan", "inf", "-1"])
def test_a_threshold_that_is_not_a_finite_percentage_is_a_usage_error(cli, threshold):
    """A NaN `--threshold` compared false with every change and so hid them all."""
    r = cli("diff", SPECS, SPECS, "--threshold", threshold)
    assert (r.code, r.err) == (2, f"error: --threshold {float(threshold)}: expected a finite percentage >= 0\n")


def test_a_revision_holding_a_symlink_out_of_the_tree_is_a_usage_error(tmp_path, cli, monkeypatch):
    """`git archive` of such a revision made tarfile's data filter raise (a traceback)."""
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    (tmp_path / "specs" / "evil.yaml").symlink_to("/etc/passwd")

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=t", *args], cwd=tmp_path, check=True,
                       capture_output=True)
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "x")
    monkeypatch.chdir(tmp_path)
    r = cli("diff", "HEAD", "HEAD")
    assert r.code == 2
    assert r.err.startswith("archgen diff: links leading out of the specs left out unread; everything else was "
                            "compared:\nspecs/evil.yaml: error: revision HEAD: a symbolic link leading out of the "
                            "specs, left out unread")


# --- item 16: invalid input accepted, invalid output written -------------------------------------------------------

@pytest.mark.parametrize("value", ["{value: .inf, unit: A}", "{value: .nan, unit: A}", "{value: 1e400, unit: A}",
                                   '"inf A"'])
def test_infinite_quantities_are_refused_in_either_spelling(tmp_path, cli, value):
    root = _rack_tree(tmp_path, ("current: 60 A", f"current: {value}"))
    r = cli("check", root)
    assert r.code == 1
    assert "power.feeds.current: " in r.err and ("is not finite" in r.err or "expected '<number> <unit>'" in r.err)


def test_json_outputs_are_strict_even_with_non_finite_numbers():
    from archgen.quantity_json import json_text, to_json
    from archgen.units import Q_
    text = json_text({"a": [float("inf"), float("nan"), 1.5], "q": to_json(Q_(float("inf"), "W"))})
    assert _strict(text) == {"a": [None, None, 1.5], "q": {"value": None, "unit": "W", "unbounded": "no upper bound"}}


def test_check_json_of_the_shipped_specs_is_strict(cli):
    r = cli("check", SPECS, "--format", "json")
    assert r.code == 0 and _strict(r.out)["summary"]["errors"] == 0


def test_validate_resolves_references(tmp_path, cli):
    """The README says `validate` checks references; it stopped after the schema."""
    root = _rack_tree(tmp_path, ("part: sn2201", "part: sn2202"))
    r = cli("validate", root)
    assert r.code == 1
    assert "error: REF001 rack/dgx-h100-4: 'sn2202' names no document" in r.out
    assert "did you mean 'sn2201'?" in r.out
    ok = cli("validate", SPECS)
    assert ok.code == 0 and "references resolved" in ok.out


def test_render_exits_1_on_error_findings_and_still_writes_the_marked_document(tmp_path, cli):
    root = _rack_tree(tmp_path, ('target: "<= 45 kW"', 'target: "<= 1 kW"'))
    r = cli("render", root, "--out", tmp_path / "out", "--formats", "md")
    assert r.code == 1
    assert "error finding(s) in the specs: the documents are marked as failing checks" in r.err
    assert "Draft — has failing checks" in (tmp_path / "out" / "dgx-h100-4" / "dgx-h100-4.md").read_text(encoding="utf-8")


def test_sweep_exits_1_on_specs_with_error_findings_and_marks_its_document(tmp_path, cli):
    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs, ignore=shutil.ignore_patterns("catalog", "sweeps"))
    rack = specs / "racks" / "dgx-b200-compute.yaml"  # the library's rack, forked: the project's shadows it
    shipped = (SPECS / "catalog" / "racks" / "dgx-b200-compute.yaml").read_text(encoding="utf-8")
    rack.write_text(shipped.replace('target: "<= 60 kW"', 'target: "<= 1 kW"', 1), encoding="utf-8")
    (tmp_path / "s.yaml").write_text(SMALL_SWEEP, encoding="utf-8")
    r = cli("sweep", tmp_path / "s.yaml", "--path", specs, "--out", tmp_path / "o", "--formats", "md")
    assert r.code == 1
    assert "error finding(s) in the specs" in r.err
    assert "the specs have 1 failing check(s)" in (tmp_path / "o" / "small" / "small.md").read_text(encoding="utf-8")


def test_junit_never_carries_characters_xml_cannot(tmp_path):
    """A control character in a file name reached the JUnit report (spec text is refused when loaded)."""
    import xml.dom.minidom

    from archgen.checks import Finding
    from archgen.errors import Location
    from archgen.output.findings import junit
    finding = Finding("PWR001", "error", "rack/r", Location("a\x1bb.yaml", 1, 1), "over", "s", "f")
    xml.dom.minidom.parseString(junit([finding]))


def test_render_removes_only_its_own_stale_files(tmp_path, cli):
    """A diagram of an earlier run stayed in the target folder; files render did not write stay."""
    out = tmp_path / "out"
    assert cli("render", RACK.parent.parent, "--target", "dgx-h100-4", "--out", out, "--formats", "md,html").code == 0
    folder = out / "dgx-h100-4"
    assert {"elevation.svg", "dgx-h100-4.md", "dgx-h100-4.html"} <= set(
        (folder / ".archgen-files").read_text(encoding="utf-8").split())
    (folder / "gone.svg").write_text("<svg/>", encoding="utf-8")                       # as if an earlier run drew it
    (folder / ".archgen-files").write_text((folder / ".archgen-files").read_text(encoding="utf-8") + "gone.svg\n", encoding="utf-8")
    (folder / "mine.svg").write_text("<svg/>", encoding="utf-8")                       # the user's own: in no manifest
    assert cli("render", RACK.parent.parent, "--target", "dgx-h100-4", "--out", out, "--formats", "md").code == 0
    names = {p.name for p in folder.iterdir()}
    assert "gone.svg" not in names
    assert {"mine.svg", "dgx-h100-4.html", "elevation.svg"} <= names  # html was not asked for: it stays


# --- item 17: security ----------------------------------------------------------------------------------------------

def test_csv_and_xlsx_cells_from_spec_text_are_never_formulas(tmp_path, cli):
    """`=HYPERLINK(...)` in a part name reached bom.csv and the workbook; the shipped target `== 8` was a formula."""
    openpyxl = pytest.importorskip("openpyxl")
    import csv
    import io
    root = _rack_tree(tmp_path, ("part: sn2201", "part: evil"), ("statement: Rack IT load", 'statement: "@SUM(1+1)"'))
    part = (SPECS / "catalog" / "switches").glob("*.yaml")
    text = next(p for p in part if "id: sn2201" in p.read_text(encoding="utf-8")).read_text(encoding="utf-8")
    (root / "evil.yaml").write_text(text.replace("id: sn2201", "id: evil").replace(
        "name: ", """name: '=HYPERLINK("http://x","y")' # """, 1), encoding="utf-8")
    r = cli("render", root, "--out", tmp_path / "out", "--formats", "csv,xlsx")
    assert r.code == 0, r.err
    folder = tmp_path / "out" / "dgx-h100-4"
    bom = list(csv.reader(io.StringIO((folder / "bom.csv").read_text(encoding="utf-8"))))
    assert ["'=HYPERLINK(\"http://x\",\"y\")"] == [row[1] for row in bom if row[0] == "evil"]
    reqs = list(csv.reader(io.StringIO((folder / "requirements.csv").read_text(encoding="utf-8"))))
    assert "'@SUM(1+1)" in [row[2] for row in reqs]
    book = openpyxl.load_workbook(folder / "dgx-h100-4.xlsx")
    cells = [c for ws in book for row in ws.iter_rows() for c in row if str(c.value).startswith(("=", "@"))]
    assert cells and all(c.data_type == "s" for c in cells)


def test_the_shipped_equality_target_is_text_in_the_cluster_workbook():
    from archgen.render.blocks import Column, Table
    from archgen.render.tables import csv_bytes, neutral
    assert neutral("== 8") == "'== 8" and neutral("-5") == "-5" and neutral("-5 K") == "'-5 K"
    assert csv_bytes(Table("t", "t", (Column("Target"),), (("== 8",),))) == b"Target\n'== 8\n"


# --- item 13: the CLI for people ------------------------------------------------------------------------------------

def test_debug_works_after_the_subcommand(spec_tree, cli):
    bad = spec_tree({"a.yaml": "kind: Model\nid: x\nname: \"\\e\"\n"})
    r = cli("check", bad, "--debug")
    assert r.code == 2 and "Traceback" in r.err and "control character U+001B (ESC) in a string" in r.err
    assert "Traceback" not in cli("check", bad).err


def test_h_is_help_after_any_subcommand(cli):
    for command in ("validate", "check", "render", "diff", "gap", "sweep", "estimate", "schema", "catalog"):
        r = cli(command, "-h")
        assert r.code == 0 and f" {command} [OPTIONS]" in r.out, command


def test_help_shows_value_names_not_python_types(cli):
    for command in ("validate", "check", "render", "diff", "gap", "sweep", "estimate", "schema", "catalog"):
        text = cli(command, "--help").out
        assert not any(t in text for t in ("<int>", "<str>", "<path>", "<bool>", "<float>", "list[")), command
    assert "--workers" in (text := cli("sweep", "--help").out) and " N " in text and " DIR " in text


def test_shell_completion_is_offered(cli):
    assert "--install-completion" in cli("--help").out


def test_a_missing_extra_is_a_message_before_rendering(tmp_path, cli, monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openpyxl" else real(name, *a))
    r = cli("render", RACK.parent.parent, "--target", "dgx-h100-4", "--out", tmp_path / "o", "--formats", "md,xlsx")
    assert (r.code, r.err) == (2, "error: XLSX output needs the openpyxl package: pip install 'archgen[office]'\n")
    assert not (tmp_path / "o").exists()


def test_a_key_holding_a_bracket_is_located_not_a_crash(spec_tree, cli):
    """Found by the fuzz: a key with '[' was taken for one of pydantic's wrapper steps and dropped (IndexError)."""
    r = cli("check", spec_tree({"a.yaml": 'kind: Model\nid: x\n"s [true] x": 1\n'}))
    assert r.code == 1
    assert "a.yaml:3:15: error: s [true] x: unknown key 's [true] x'" in r.err


# --- issue 23 item 8: schedulers the probe cannot vet ---------------------------------------------------------------

def test_ws_to_an_http_port_is_a_usage_error_not_a_traceback(monkeypatch):
    """`--scheduler ws://host:<an HTTP port>`: the probe leaves ws:// to Dask, whose WebSocketError escaped.

    Dask retries until its timeout: 1 s here instead of the command's 10 s (the outcome is the same).
    """
    pytest.importorskip("distributed")
    import http.server

    monkeypatch.setattr(workers, "SCHEDULER_TIMEOUT", "1s")

    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(UsageError, match=r"cannot reach a Dask scheduler \((WebSocketError|OSError)"):
            with workers.executor(scheduler=f"ws://127.0.0.1:{server.server_address[1]}"):
                pass
    finally:
        server.shutdown()


def test_a_fake_scheduler_that_passes_the_probe_is_a_usage_error():
    """A peer whose greeting names `pickle-protocol` but that speaks no Dask after it."""
    pytest.importorskip("distributed")
    body = b"pickle-protocol????"
    peer = _Peer(len(body).to_bytes(8, "little") + body + b"\xff" * 64)
    try:
        with pytest.raises(UsageError, match="cannot reach a Dask scheduler"):
            with workers.executor(scheduler=f"tcp://127.0.0.1:{peer.port}"):
                pass
    finally:
        peer.close()
