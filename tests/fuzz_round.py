"""A standalone fuzz round (issue 23): `python -m tests.fuzz_round N [--seed S] [--log FILE] [--mem-gb G]`.

Each of N examples mutates one corpus file once (tests/fuzz_corpus.py, tests/fuzz_mutate.py), writes it with the
files it runs with under a fresh folder, and runs one archgen command on it in a forked child (the parent has
imported archgen once, so a run costs its own work, not Python's start) under an address-space cap (RLIMIT_AS, 3 GB
by default) and a time limit (60 s of CPU; five times that of wall time). The commands rotate through every command and output format: check (text,
json, sarif, junit, github), validate, render (md, html, csv, svg; pdf, xlsx and png one run in 40), estimate
(text, json, --explain, --what-if), sweep, gap, diff, catalog list/show, and estimate --cases for the validation-case
files. An input the mutator marks certainly invalid always runs `check --format json`.

Reported, one JSON line per problem in the log and counted at the end: a traceback or internal error, an exit
code other than 0, 1 or 2, a run killed by the time limit (hang) or past the memory cap, a peak resident set over
2 GB (`ru_maxrss` of the child, which includes the ~0.3 GB the parent had resident at the fork), a certainly
invalid input that exits 0 (an absurd value accepted), an output file that is not strict JSON or XML, and the
content of a file outside the spec tree (reached through a symlink) in any output.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
import xml.dom.minidom
from collections import Counter
from pathlib import Path

from tests.fuzz_corpus import Scenario, World, build_world
from tests.fuzz_mutate import SECRET, Draw, Mutation, mutate, whole_file

CHECK_FORMATS = {"text": "txt", "json": "json", "sarif": "sarif", "junit": "xml", "github": "txt"}
WHAT_IF = ["peak", "hbm_bandwidth", "scale_up_bandwidth", "scale_out_bandwidth", "latency", "hbm_capacity"]


def _kinds(scenario: Scenario, mutated: bool = True) -> dict[str, list[str]]:
    """Ids by kind in the scenario's files."""
    out: dict[str, list[str]] = {}
    for d in [*scenario.docs, *scenario.others]:
        if isinstance(d.data, dict) and isinstance(d.data.get("kind"), str) and isinstance(d.data.get("id"), str):
            out.setdefault(d.data["kind"], []).append(d.data["id"])
    return out


def command(i: int, rng: random.Random, scenario: Scenario, m: Mutation) -> list[str]:
    """The command of example `i`: a rotation through every command and output format."""
    if scenario.cases:
        return ["estimate", "--cases", scenario.name, "--format", ["text", "json"][i % 2]]
    if m.invalid:
        return ["check", "specs", "--format", "json", "--output", "out/report.json"]
    kinds = _kinds(scenario)
    options = ["check", "check", "check", "validate", "render", "render", "diff", "catalog"]
    options += ["estimate"] * 2 * bool(kinds.get("Workload")) + ["sweep"] * bool(kinds.get("Sweep"))
    options += ["gap"] * bool(kinds.get("Requirements"))
    what = options[i % len(options)]
    if what == "check":
        fmt = rng.choice(list(CHECK_FORMATS))
        return ["check", "specs", "--format", fmt, "--output", f"out/report.{CHECK_FORMATS[fmt]}"]
    if what == "render":
        formats = "md,html,csv,svg" + (",pdf,xlsx,png" if rng.randrange(40) == 0 else "")
        return ["render", "specs", "--out", "out", "--formats", formats]
    if what == "estimate":
        args = ["estimate", "--path", "specs", "--workload", rng.choice(kinds["Workload"]),
                "--format", rng.choice(["text", "json"])]
        if rng.randrange(3) == 0:
            args.append("--explain")
        if rng.randrange(3) == 0:
            args += ["--what-if", f"{rng.choice(WHAT_IF)}={rng.choice(['1e-9', '0.5', '2', '1e9'])}"]
        return args
    if what == "sweep":
        sweep = next(n for n, t in [(scenario.name, scenario.text), *scenario.files.items()] if "kind: Sweep" in t)
        return ["sweep", f"specs/{sweep}", "--path", "specs", "--out", "out", "--format", "json"]
    if what == "gap":
        return ["gap", "specs", "--against", "specs", "--format", rng.choice(["md", "json"]), "--output", "out/gap"]
    if what == "diff":
        return ["diff", "base", "specs", "--format", rng.choice(["md", "json"]), "--output", "out/diff"]
    if what == "catalog":
        ids = [i for v in kinds.values() for i in v]
        return (["catalog", "--path", "specs", "show", rng.choice(ids)] if ids and rng.randrange(2)
                else ["catalog", "--path", "specs", "list"])
    return ["validate", "specs"]


def write(work: Path, scenario: Scenario, m: Mutation) -> None:
    """The example's files under `work`: specs/ (mutated), base/ (unchanged, for diff), a secret outside both."""
    if work.exists():
        shutil.rmtree(work)
    (work / "out").mkdir(parents=True)
    (work / "secret").mkdir()
    (work / "secret" / "credentials").write_text(f"kind: Rack\nid: {SECRET}\ntoken: {SECRET}\n", encoding="utf-8")
    for root in ("specs", "base"):
        for name, text in scenario.files.items():
            (work / root / name).parent.mkdir(parents=True, exist_ok=True)
            (work / root / name).write_text(text, encoding="utf-8")
    (work / "base" / scenario.name).parent.mkdir(parents=True, exist_ok=True)
    (work / "base" / scenario.name).write_text(scenario.text, encoding="utf-8")
    target = work / ("" if scenario.cases else "specs") / scenario.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if m.link == "outside":
        target.symlink_to(work / "secret" / "credentials")
    elif m.link == "dangling":
        target.symlink_to(work / "secret" / "missing.yaml")
    elif m.link == "loop":
        target.symlink_to(target)
    elif m.link == "inside" and scenario.files:
        target.symlink_to(work / "specs" / sorted(scenario.files)[0])
    else:
        target.write_bytes(whole_file(scenario, m))


def child(work: Path, args: list[str], cap: int, limit: float) -> None:
    """Run `archgen ARGS` in this forked process, capped; never returns."""
    code = 3
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        resource.setrlimit(resource.RLIMIT_CPU, (int(limit), int(limit) + 5))
        os.chdir(work)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            f = os.open(work / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(f, fd)
        sys.stdout = open(1, "w", closefd=False, encoding="utf-8")  # noqa: SIM115 (the child exits without closing)
        sys.stderr = open(2, "w", closefd=False, encoding="utf-8")  # noqa: SIM115
        from archgen.cli import app
        try:
            app(args, prog_name="archgen")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # reported by the parent from stderr
        import traceback
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def run_one(work: Path, args: list[str], cap: int, limit: float) -> tuple[int | None, float, float]:
    """Fork, run, wait: (exit code or None when killed by the time limit, CPU seconds, peak RSS in MB).

    The limit is on CPU time (RLIMIT_CPU, so a run on a loaded machine is not called a hang) and on wall time at
    five times that."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        child(work, args, cap, limit)
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            cpu = usage.ru_utime + usage.ru_stime
            return (None if code in (-signal.SIGXCPU, -signal.SIGKILL) and cpu >= limit else code), cpu, \
                usage.ru_maxrss / 1024
        if time.monotonic() - start > 5 * limit:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            return None, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
        time.sleep(0.005)


def judge(work: Path, m: Mutation, args: list[str], code: int | None, rss: float) -> list[str]:
    """The problems of one run."""
    err = (work / "stderr").read_text(encoding="utf-8", errors="replace")
    out = (work / "stdout").read_text(encoding="utf-8", errors="replace")
    problems = []
    if code is None:
        problems.append("hang")
    elif code not in (0, 1, 2):
        problems.append(f"exit {code}")
    if "Traceback" in err or "internal error" in err.lower():
        problems.append("traceback")
    if "MemoryError" in err or "memory" in err.lower() and code not in (0, 1, 2):
        problems.append("memory cap")
    if rss > 2048:
        problems.append("over 2 GB")
    if m.invalid and code == 0:
        problems.append("invalid accepted")
    texts = [out, err]
    for f in (work / "out").rglob("*"):
        if not f.is_file():
            continue
        data = f.read_bytes()
        texts.append(data.decode("utf-8", "replace"))
        try:
            if f.suffix in (".json", ".sarif") or f.name in ("gap", "diff") and "json" in args:
                json.loads(data, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            elif f.suffix == ".xml":
                xml.dom.minidom.parseString(data)
        except Exception as e:  # reported, not raised
            problems.append(f"bad output {f.name}: {type(e).__name__}")
    if any(SECRET in t for t in texts):
        problems.append("secret leaked")
    return problems


def round_(world: World, n: int, seed: int, log: Path, cap: int, limit: float, base: Path) -> Counter:
    """Run N examples; append problems to `log`; the counts."""
    counts: Counter = Counter()
    peak = 0.0
    slowest = 0.0
    for i in range(n):
        rng = random.Random(f"{seed}:{i}")
        scenario = rng.choice(world.scenarios)
        m = mutate(Draw(rng.choice, rng.randint), scenario, world)
        args = command(i, rng, scenario, m)
        work = base / "w"
        write(work, scenario, m)
        code, seconds, rss = run_one(work, args, cap, limit)
        problems = judge(work, m, args, code, rss)
        peak, slowest = max(peak, rss), max(slowest, seconds)
        counts["runs"] += 1
        counts[f"exit {code}"] += 1
        counts[f"command {args[0]}"] += 1
        counts[f"cpu {args[0]}"] += round(seconds, 3)
        counts["invalid inputs"] += m.invalid
        for p in problems:
            counts[p.split(":")[0]] += 1
        if problems or seconds > 20:
            with log.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"i": i, "seed": seed, "file": scenario.name, "what": m.what, "args": args,
                                    "exit": code, "cpu_s": round(seconds, 1), "mb": round(rss), "problems": problems,
                                    "err": (work / "stderr").read_text(errors="replace", encoding="utf-8")[-1500:]}) + "\n")
        if (i + 1) % 100 == 0:
            print(f"{i + 1}/{n}: {dict(counts)} peak {peak:.0f} MB, slowest {slowest:.1f} CPU s", flush=True)
    counts["peak MB"] = round(peak)
    counts["slowest CPU s"] = round(slowest)
    return counts


def _warm() -> None:
    """Import every lazy module once in the parent, and parse and validate the shipped catalog once: each child
    gets the library's documents and models, unchanged in every example, from memory (the user's files it still
    reads from disk, through `load_paths` and its guards)."""
    from archgen import pipeline, validate
    from archgen.commands import common
    from archgen.load import load_paths
    from tests.conftest import run_cli
    run_cli("checks")
    library = pipeline.load([])[1]
    pipeline.load = common.load = lambda paths, catalog=None: (load_paths(paths), library)  # type: ignore[assignment]
    mine = {id(d) for d in library}
    models: dict = {}
    real = validate._validate_one

    def validate_one(doc, problems):  # type: ignore[no-untyped-def]
        if id(doc) not in mine:
            return real(doc, problems)
        if id(doc) not in models:
            models[id(doc)] = real(doc, problems)
        return models[id(doc)]
    validate._validate_one = validate_one  # type: ignore[assignment]
    for d in library:
        validate_one(d, [])


def main(argv: list[str] | None = None) -> int:
    """The command line; exit 1 when any problem was found."""
    p = argparse.ArgumentParser(prog="python -m tests.fuzz_round", description=__doc__.splitlines()[0])
    p.add_argument("n", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log", type=Path, default=Path("fuzz-round.jsonl"))
    p.add_argument("--mem-gb", type=float, default=3.0)
    p.add_argument("--limit-s", type=float, default=60.0)
    a = p.parse_args(argv)
    world = build_world()
    _warm()
    with tempfile.TemporaryDirectory(prefix="archgen-fuzz-") as tmp:
        counts = round_(world, a.n, a.seed, a.log, int(a.mem_gb * 2**30), a.limit_s, Path(tmp))
    print(json.dumps(dict(counts), indent=1))
    bad = ("hang", "traceback", "memory cap", "over 2 GB", "invalid accepted", "bad output", "secret leaked")
    return 1 if any(counts[b] for b in bad) or any(k.startswith("exit ") and k not in ("exit 0", "exit 1", "exit 2")
                                                   for k in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
