"""The command line: argument parsing, formats and exit codes. The only module that prints or exits.

Exit codes: 0 clean, 1 the specs have error findings (or a diff or gap found a failing requirement), 2 usage error,
unreadable input or internal error.
A reader that stops early (`archgen schema | head`) ends the command quietly with 1, as typer/click and the Python
docs' SIGPIPE recipe do.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
import typer.core

from archgen import __version__
from archgen.errors import ArchgenError, SpecError, UnreadableError, UsageError, WorkloadError, did_you_mean


class _Group(typer.core.TyperGroup):
    """The top-level command group; `--debug` may stand anywhere before `--` (`archgen check specs --debug`)."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        end = args.index("--") if "--" in args else len(args)
        if "--debug" in args[:end]:
            args = ["--debug", *(a for i, a in enumerate(args) if a != "--debug" or i >= end)]
        return super().parse_args(ctx, args)


def _value_name(self: typer.core.TyperOption | typer.core.TyperArgument, ctx: typer.Context) -> str | None:
    """The value a parameter takes, as help shows it: its metavar (N, DIR, FILE), never a Python type (<int>)."""
    if isinstance(self, typer.core.TyperArgument) or getattr(self, "is_flag", False):
        return None  # an argument's own column shows its metavar; a flag takes no value
    return self.metavar or self.name.upper()


typer.core.TyperOption.display_type_rich = _value_name  # typer 0.29 prints <list[Path]>, <bool> beside each option
typer.core.TyperArgument.display_type_rich = _value_name

HELP = {"help_option_names": ["-h", "--help"]}
app = typer.Typer(cls=_Group, no_args_is_help=True, pretty_exceptions_enable=False, context_settings=HELP,
                  help="Specs as code for AI racks and clusters.")
catalog_app = typer.Typer(no_args_is_help=False, context_settings=HELP, help="Browse the parts catalog.")
app.add_typer(catalog_app, name="catalog")

Paths = Annotated[list[Path] | None, typer.Argument(
    metavar="PATH...", help="Spec files or directories (default: specs/).")]
Format = Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="text, json, sarif, junit or github.")]
Vendors = Annotated[list[str] | None, typer.Option(
    "--vendor", metavar="VENDOR", help="Only entries of this vendor (repeatable).")]
Kinds = Annotated[list[str] | None, typer.Option(
    "--kind", metavar="KIND", help="Only entries of this kind, e.g. Switch (repeatable).")]
_STATE = {"debug": False}


def _version(value: bool) -> None:
    if value:
        print(f"archgen {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for every error.")] = False,
) -> None:
    """Specs as code for AI racks and clusters."""
    _STATE["debug"] = debug


def _paths(paths: list[Path] | None) -> list[Path]:
    return list(paths) if paths else [Path("specs")]


def _split(codes: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in codes.split(",") if c.strip())


def _codes(option: str, codes: str) -> tuple[str, ...]:
    """The check IDs or prefixes given to `option`; one that no check ID starts with is a usage error."""
    from archgen.checks import REGISTRY, RESERVED
    ids = sorted([*REGISTRY, *RESERVED])
    known = ids + sorted({i[:-3] for i in ids})  # IDs and their prefixes (PWR, NET)
    unknown = [f"'{c}'" + (f" ({hint})" if (hint := did_you_mean(c, known)) else "") for c in _split(codes)
               if not any(i.startswith(c) for i in ids)]
    if unknown:
        raise UsageError(f"{option}: unknown check ID or prefix {', '.join(unknown)}; `archgen checks` lists them")
    return _split(codes)


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    if output.is_dir():
        raise UsageError(f"{output}: is a directory, expected a file")
    from archgen.render.files import write_atomic
    write_atomic(output, text.encode())


def _out_dir(out: Path) -> None:
    """Check, before anything is written, that `--out` is a directory or does not exist yet."""
    existing = next((p for p in (out, *out.parents) if p.exists()), None)  # `out` or the folder it would go in
    if existing is not None and not existing.is_dir():
        raise UsageError(f"--out must be a directory; {existing} is a file")


def _trace() -> None:
    """With `--debug`, the traceback of a user error too (for reporting a message that looks wrong)."""
    if _STATE["debug"]:
        traceback.print_exc()


def _guarded(func: Callable[[], int]) -> None:
    """Run a command body; turn user errors into messages and exit codes, other errors into a bug report."""
    try:
        code = func()
        sys.stdout.flush()  # a closed pipe shows here, not at exit
    except UnreadableError as err:
        _trace()
        print(err, file=sys.stderr)
        code = 2
    except SpecError as err:
        _trace()
        print(err, file=sys.stderr)
        code = 1
    except (UsageError, ArchgenError) as err:
        _trace()
        where = getattr(err, "location", None)
        print(f"{where}: error: {err}" if where else f"error: {err}", file=sys.stderr)
        code = 2
    except (typer.Exit, KeyboardInterrupt, BrokenPipeError):  # typer exits 1 quietly on a broken pipe
        raise
    except Exception:  # a bug in archgen, not a user mistake
        traceback.print_exc()
        print("internal error: this is a bug in archgen; please report it with the traceback above.", file=sys.stderr)
        code = 2
    raise typer.Exit(code)


@app.command()
def validate(paths: Paths = None) -> None:
    """Check schema, units and references of the specs."""

    def body() -> int:
        from archgen import report
        from archgen.pipeline import references
        specs, findings = references(_paths(paths))
        errors = [f for f in findings if f.severity == "error" and not f.waived]
        if errors:
            sys.stdout.write(report.text(findings))
            return 1
        mine = sum(1 for s in specs.sources.values() if not _shipped(s.file))
        print(f"{mine} document(s) valid, references resolved ({len(specs.items)} with the shipped catalog)")
        return 0

    _guarded(body)


def _shipped(file: str) -> bool:
    from archgen.load import shipped_catalog
    return Path(file).resolve().is_relative_to(shipped_catalog().resolve())


@app.command()
def check(
    paths: Paths = None,
    fmt: Format = "text",
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", metavar="FILE", help="Write the report to FILE.")] = None,
    select: Annotated[str, typer.Option(
        metavar="IDS", help="Only these check IDs or prefixes, e.g. 'PWR,NET004'.")] = "",
    ignore: Annotated[str, typer.Option(metavar="IDS", help="Skip these check IDs or prefixes.")] = "",
    show_waived: Annotated[bool, typer.Option(help="List waived findings in text output.")] = False,
) -> None:
    """Validate, analyse and check the specs; report findings."""
    from archgen import report
    if fmt not in report.FORMATS:
        print(f"error: unknown format '{fmt}'; expected one of {', '.join(report.FORMATS)}", file=sys.stderr)
        raise typer.Exit(2)

    def body() -> int:
        from archgen.pipeline import run
        if output is not None and output.is_dir():
            raise UsageError(f"{output}: is a directory, expected a file")
        chosen, dropped = _codes("--select", select), _codes("--ignore", ignore)
        try:
            result = run(_paths(paths), chosen, dropped)
        except SpecError as err:
            if fmt == "text":
                raise
            code = "SPC000" if isinstance(err, UnreadableError) else "SPC001"
            _write(report.render(fmt, report.problem_findings(err.problems, code), {}), output)
            return 2 if code == "SPC000" else 1
        if fmt == "text":
            _write(report.text(result.findings, show_waived=show_waived), output)
        else:
            from archgen.checks import REGISTRY
            from archgen.checks.registry import selected
            ran = [cid for cid in REGISTRY if selected(cid, chosen, dropped)]
            _write(report.render(fmt, result.findings, result.metrics, ran), output)
        return 1 if result.errors else 0

    _guarded(body)


@app.command()
def checks() -> None:
    """List every check: ID, severity and summary."""
    from archgen.checks import REGISTRY, RESERVED
    for cid, c in sorted(REGISTRY.items()):
        print(f"{cid:8} {c.severity:8} {c.summary}")
    for cid, summary in sorted(RESERVED.items()):
        print(f"{cid:8} {'error':8} {summary}")


@app.command()
def render(
    paths: Paths = None,
    target: Annotated[str | None, typer.Option(metavar="ID", help="Only this rack or cluster id.")] = None,
    out: Annotated[Path, typer.Option(metavar="DIR", help="Output directory.")] = Path("out"),
    formats: Annotated[str, typer.Option(metavar="FORMATS",
        help="Comma-separated: md,html,pdf,xlsx,csv,svg,png (pdf needs the 'pdf' extra, xlsx the 'office' extra).")
    ] = "md,html,csv,svg",
    templates: Annotated[Path | None, typer.Option(
        metavar="DIR", help="Directory of templates overriding the shipped ones.")] = None,
) -> None:
    """Render partner-facing documents and diagrams into OUT/<target>/."""

    def body() -> int:
        from archgen.pipeline import run
        from archgen.render import render_all
        _out_dir(out)
        result = run(_paths(paths))
        for written in render_all(result, out, target=target, formats=_split(formats), templates=templates,
                                  progress=sys.stderr.isatty()):
            print(written)
        _failing_note(result.errors)
        return 1 if result.errors else 0

    _guarded(body)


@app.command()
def diff(
    base: Annotated[str, typer.Argument(
        metavar="BASE", help="Spec directory or git revision (main, HEAD~1, a sha) to compare from.")],
    head: Annotated[str, typer.Argument(metavar="HEAD", help="Spec directory or git revision to compare to.")],
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="md or json.")] = "md",
    path: Annotated[str, typer.Option("--path", metavar="DIR", help="Spec directory inside a git revision.")] = "specs",
    threshold: Annotated[float, typer.Option(
        metavar="PCT", help="Ignore relative metric changes below this percentage.")] = 0.1,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", metavar="FILE", help="Write the report to FILE.")] = None,
) -> None:
    """Compare the specs of BASE and HEAD: changed metrics, new and resolved findings, requirement status."""

    def body() -> int:
        from contextlib import ExitStack

        from archgen import diff as d
        from archgen.pipeline import run
        if fmt not in ("md", "json"):
            raise UsageError(f"unknown format '{fmt}'; expected md or json")
        if not threshold >= 0 or threshold == float("inf"):  # NaN compares false and hid every change
            raise UsageError(f"--threshold {threshold}: expected a finite percentage >= 0")
        runs = []
        with ExitStack() as stack:
            for name, arg in (("BASE", base), ("HEAD", head)):
                source = stack.enter_context(d.spec_source(arg, path))
                try:
                    runs.append((d.relocate_run(run([source.directory]), source), source.label))
                except SpecError as err:
                    print(f"archgen diff: {name} {source.label} cannot be analysed:", file=sys.stderr)
                    raise d.relocate_error(err, source) from None
        result = d.compare(runs[0][0], runs[1][0], threshold=threshold / 100, base_label=runs[0][1],
                           head_label=runs[1][1])
        _write(d.to_json(result) if fmt == "json" else d.markdown(result), output)
        return 1 if result.failing else 0

    _guarded(body)


@app.command("gap")
def gap_report(
    proposal: Annotated[list[Path], typer.Argument(
        metavar="PROPOSAL", help="The vendor's proposal: spec files or directories (racks, clusters, workloads, "
                                    "parts).")],
    against: Annotated[list[Path], typer.Option(
        "--against", metavar="REQUIREMENTS",
        help="Our requirements: a file or directory of Requirements documents (repeatable).")],
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="md or json.")] = "md",
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", metavar="FILE", help="Write the report to FILE.")] = None,
) -> None:
    """Judge a vendor's proposal against our requirements: met, not met or not provided, with margins."""

    def body() -> int:
        from archgen import gap as g
        if fmt not in ("md", "json"):
            raise UsageError(f"unknown format '{fmt}'; expected md or json")
        if output is not None and output.is_dir():
            raise UsageError(f"{output}: is a directory, expected a file")
        result = g.gap(proposal, against)
        _write(g.to_json(result) if fmt == "json" else g.markdown(result), output)
        return 1 if result.failing else 0

    _guarded(body)


@catalog_app.callback(invoke_without_command=True)
def catalog(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Option(
        "--path", metavar="PATH", help="Spec paths to include (default: specs/).")] = None,
    unconfirmed: Annotated[bool, typer.Option(help="List only parts with unconfirmed figures.")] = False,
    vendor: Vendors = None,
    kind: Kinds = None,
) -> None:
    """List the catalog's parts and facilities (with the user's specs)."""
    if ctx.invoked_subcommand is None:
        _print_catalog(paths, unconfirmed, vendor, kind)


@catalog_app.command("list")
def catalog_list(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Option(
        "--path", metavar="PATH", help="Spec paths to include (default: specs/).")] = None,
    unconfirmed: Annotated[bool, typer.Option(help="List only parts with unconfirmed figures.")] = False,
    vendor: Vendors = None,
    kind: Kinds = None,
) -> None:
    """List the catalog's parts and facilities, optionally of some vendors and kinds."""
    group = ctx.parent.params  # `catalog --unconfirmed list` means `catalog list --unconfirmed`
    _print_catalog(paths or group["paths"], unconfirmed or group["unconfirmed"], vendor or group["vendor"],
                   kind or group["kind"])


def _print_catalog(paths: list[Path] | None, unconfirmed: bool, vendors: list[str] | None = None,
                   kinds: list[str] | None = None) -> None:
    def body() -> int:
        for line in _catalog_lines(paths, unconfirmed, vendors or [], kinds or []):
            print(line)
        return 0

    _guarded(body)


def _spec_paths(paths: list[Path] | None) -> list[Path]:
    """The paths given, or the default `specs/` where it exists."""
    return list(paths) if paths else [p for p in _paths(paths) if p.exists()]


def _load_specs(paths: list[Path] | None):
    from archgen.pipeline import load
    from archgen.validate import validate as run_validate
    return run_validate(*load(_spec_paths(paths)))


def _catalog_lines(paths: list[Path] | None, unconfirmed: bool, vendors: list[str], kinds: list[str]) -> list[str]:
    from archgen.model import Part
    from archgen.validate import catalog_entries
    lines = []
    for entry in catalog_entries(_load_specs(paths), vendors, kinds, unconfirmed):
        fields = entry.unconfirmed_fields() if isinstance(entry, Part) else []
        flag = f"  unconfirmed: {', '.join(fields)}" if fields else ""
        vendor = getattr(entry, "vendor", "") or "-"
        lines.append(f"{entry.kind:12} {entry.id:28} {vendor:10} {entry.name}{flag}")
    return lines


@catalog_app.command("show")
def catalog_show(
    ctx: typer.Context,
    part_id: Annotated[str, typer.Argument(metavar="ID", help="Part id.")],
    paths: Annotated[list[Path] | None, typer.Option(
        "--path", metavar="PATH", help="Spec paths to include (default: specs/).")] = None,
) -> None:
    """Show one part with its figures and sources."""

    def body() -> int:
        from archgen.units import json_text
        specs = _load_specs(paths or ctx.parent.params["paths"])
        part = specs.get(part_id)
        if part is None:
            raise UsageError(f"no part '{part_id}'{did_you_mean(part_id, specs.items, lead='; ')}")
        print(f"# {specs.locate(part_id)}")
        print(json_text(part.model_dump(mode="json", by_alias=True, exclude_defaults=True), indent=2))
        return 0

    _guarded(body)


@app.command()
def schema(out: Annotated[Path | None, typer.Option(
    metavar="DIR", help="Write one <Kind>.schema.json per kind into DIR.")] = None,
           ) -> None:
    """JSON Schema of every spec kind, for editors (yaml-language-server)."""

    def body() -> int:
        from archgen.schema import schemas
        docs = schemas()
        if out is None:
            import json
            print(json.dumps(docs, indent=2, sort_keys=True))
            return 0
        from archgen.render.files import write_atomic
        _out_dir(out)
        for name, text in schemas(as_text=True).items():
            write_atomic(out / f"{name}.schema.json", text.encode())
            print(out / f"{name}.schema.json")
        return 0

    _guarded(body)


@app.command()
def estimate(
    cases: Annotated[Path | None, typer.Option(
        "--cases", metavar="FILE", help="Score a validation-case file (archgen-validation/1).")] = None,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", metavar="ID", help="Cluster id (default: the workload's own cluster).")] = None,
    workload: Annotated[str | None, typer.Option("--workload", metavar="ID", help="Workload id.")] = None,
    paths: Annotated[list[Path] | None, typer.Option(
        "--path", metavar="PATH", help="Spec paths (default: specs/).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="text or json.")] = "text",
    what_if: Annotated[list[str] | None, typer.Option(
        "--what-if", metavar="PARAM=FACTOR",
        help="Scale a hardware parameter (repeatable), e.g. hbm_bandwidth=1.5; reported against the baseline.")] = None,
) -> None:
    """Performance estimate of a workload on a cluster, or predicted vs measured for validation cases."""

    def body() -> int:
        from archgen.perf import command
        if cases is not None:
            if cluster or workload or what_if:
                raise UsageError("give either --cases or --workload (with any --cluster and --what-if), not both")
            text, code = command.estimate_cases(cases, fmt)
        elif workload:
            factors = command.parse_what_if(what_if or [])
            from archgen.pipeline import analyse_paths, scale_out_paths
            specs, _, _, clusters = analyse_paths(_spec_paths(paths))  # no other workload estimated, no checks run
            try:
                text, code = command.estimate_workload(specs.items, cluster, workload, fmt, scale_out_paths(clusters),
                                                       factors)
            except WorkloadError as err:  # a problem of the workload's own spec is shown at its job's line
                doc = specs.items.get(workload)
                job = next((k for k in ("training", "inference", "collective") if getattr(doc, k, None)), None)
                if job is None:
                    raise
                raise UsageError(str(err), specs.locate(workload, (job,))) from None
        else:
            raise UsageError("give --cases FILE, or --workload ID (and --cluster ID to run it elsewhere)")
        sys.stdout.write(text)
        return code

    _guarded(body)


@app.command()
def sweep(
    sweep_file: Annotated[Path, typer.Argument(metavar="SWEEP.yaml", help="A file of Sweep documents.")],
    paths: Annotated[list[Path] | None, typer.Option(
        "--path", metavar="PATH", help="Spec paths (default: specs/).")] = None,
    workers: Annotated[int, typer.Option(metavar="N", help="Evaluate the points in N local processes.")] = 1,
    scheduler: Annotated[str | None, typer.Option(metavar="ADDRESS",
        help="Address of a Dask scheduler (tcp://host:8786) to evaluate the points on (the 'distributed' extra).")
    ] = None,
    out: Annotated[Path, typer.Option(
        metavar="DIR", help="Output directory; each sweep writes OUT/<sweep id>/.")] = Path("out"),
    formats: Annotated[str, typer.Option(metavar="FORMATS",
        help="Comma-separated: md,html,pdf,xlsx,csv,svg,png (pdf needs the 'pdf' extra, xlsx the 'office' extra).")
    ] = "md,csv,svg",
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="What to print: text or json.")] = "text",
    templates: Annotated[Path | None, typer.Option(
        metavar="DIR", help="Directory of templates overriding the shipped ones.")] = None,
) -> None:
    """Evaluate a design-space sweep: every point, the Pareto front and the best point per objective.

    Exit code 1 when a sweep has no feasible point (none fits and meets every SHALL requirement).
    """

    def body() -> int:
        from archgen import sweep as sw
        from archgen.render.sweep import to_json
        from archgen.units import json_text
        if fmt not in ("text", "json"):
            raise UsageError(f"unknown format '{fmt}'; expected text or json")
        if scheduler and workers != 1:
            raise UsageError("give either --workers or --scheduler, not both")
        _out_dir(out)
        from archgen.render import parse_formats
        parse_formats(_split(formats))  # an unknown format is refused before the points run, not after
        if templates is not None and not templates.is_dir():
            raise UsageError(f"templates directory '{templates}' does not exist")  # as archgen render says
        progress = _sweep_progress() if sys.stderr.isatty() else None
        count, note = sw.worker_count(workers)
        if note:
            print(note, file=sys.stderr)
        specs, results, errors = sw.run(sweep_file, _spec_paths(paths), workers=count, scheduler=scheduler,
                                        progress=progress)
        written = sw.write(specs, results, out, _split(formats), templates, failing=len(errors))
        if fmt == "json":
            print(json_text({"archgen": __version__, "sweeps": [to_json(r) for r in results],
                              "files": [str(p) for p in written]}, indent=2, sort_keys=True))
        else:
            for r in results:
                print(_sweep_summary(r))
            for p in written:
                print(p)
        _failing_note(errors)
        return 0 if all(r.counts()["feasible"] for r in results) and not errors else 1

    _guarded(body)


def _failing_note(errors: list) -> None:
    """Say on stderr why a command that wrote its documents exits 1: the specs have error findings."""
    if errors:
        print(f"{len(errors)} error finding(s) in the specs: the documents are marked as failing checks; "
              "`archgen check` lists them", file=sys.stderr)


def _sweep_summary(result) -> str:
    from archgen.render.sweep import level_text, shown
    c = result.counts()
    lines = [f"sweep {result.problem.sweep.id}: {c['points']:,} points, {c['fitting']:,} fit, {c['feasible']:,} "
             f"feasible, {c['invalid']:,} could not run; Pareto front of {c['front']:,}"]
    for metric, i in result.best.items():
        if i is None:
            lines.append(f"  best {metric}: no feasible point")
            continue
        r = result.rows[i]
        axes = ", ".join(f"{k} {level_text(v)}" for k, v in r.values.items())
        lines.append(f"  best {metric}: {shown(r, metric)} at point #{r.index} ({axes})")
    return "\n".join(lines)


def _sweep_progress():
    from rich.console import Console
    console = Console(stderr=True)

    def show(sweep_id: str, done: int, total: int) -> None:
        console.print(f"sweep {sweep_id}: {done:,}/{total:,} points", end="\r")
    return show


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # python -m archgen.cli
    main()
