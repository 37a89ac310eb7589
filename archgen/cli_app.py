"""The command line's commands: typer's app, each command's arguments and help (split from `archgen.cli`).

Each command's work is done by `archgen.commands.<name>`, which returns the text to print and the exit code;
`archgen.cli_run` prints it and exits with it (exit codes there). A reader that stops early (`archgen schema | head`)
ends the command quietly with 1, as typer/click and the Python docs' SIGPIPE recipe do. `archgen.cli.main` builds
this app for every command but a plain `estimate`, `validate` or `check`, which it parses itself (`archgen.cli`).
"""

import sys
from pathlib import Path
from typing import Annotated

import typer

from archgen import __version__
from archgen import cli_options as opt
from archgen.cli_run import STATE, run_check, run_estimate, run_validate
from archgen.cli_run import note as _note
from archgen.cli_run import run as _run
from archgen.cli_run import write as _write
from archgen.errors import ArchgenError, UsageError
from archgen.startup import keep_freed_memory

app = typer.Typer(cls=opt.Group, no_args_is_help=True, pretty_exceptions_enable=False, context_settings=opt.HELP,
                  help="Specs as code for AI racks and clusters.")
catalog_app = typer.Typer(no_args_is_help=False, context_settings=opt.HELP, help="Browse the parts catalog.")
app.add_typer(catalog_app, name="catalog")


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
    STATE["debug"] = debug


@app.command()
def validate(paths: opt.Paths = None) -> None:
    """Check schema, units and references of the specs."""
    run_validate(paths)


#: What `check --help` and `diff --help` say of their exit codes (README, Commands and Pull requests): a CI job's
#: author reads them there first (newuser65: only the README said them).
CHECK_EXIT = ("Exit codes: 0 no unwaived error finding (warnings allowed); 1 unwaived error findings (schema, unit "
              "and reference errors included), or unwaived warnings with --strict; 2 a usage error, unreadable "
              "input (SPC000), a design that cannot be built or analysed, or an internal error.")
DIFF_EXIT = ("Exit codes: 0 HEAD passes (worse metrics, new warnings and waiver changes are listed, with a ⚠️ "
             "comment); 1 a SHALL requirement newly fails or HEAD has unwaived error findings; 2 a usage error, or "
             "BASE or HEAD cannot be read or analysed, or a revision holds links leading out of its specs (left out "
             "unread, the rest compared; the report, on stdout or in --output, says why).")


@app.command(epilog=CHECK_EXIT)
def check(
    paths: opt.Paths = None,
    fmt: opt.Format = "text",
    output: opt.Output = None,
    select: Annotated[str, typer.Option(
        metavar="IDS", help="Only these check IDs or prefixes, e.g. 'PWR,NET004'.")] = "",
    ignore: Annotated[str, typer.Option(metavar="IDS", help="Skip these check IDs or prefixes.")] = "",
    show_waived: Annotated[bool, typer.Option(help="List waived findings in text output.")] = False,
    strict: Annotated[bool, typer.Option(help="Exit 1 on unwaived warnings too (at-risk and should requirements, "
                                         "unused or expired waivers, renamed keys), not only on errors.")] = False,
    as_of: opt.AsOf = None,
) -> None:
    """Validate, analyse and check the specs; report findings."""
    run_check(paths, fmt, output, select, ignore, show_waived, strict, as_of)


@app.command()
def checks() -> None:
    """List every check: ID, severity and summary."""
    from archgen.commands.checks import checks as command
    _run(command)


@app.command()
def render(
    paths: opt.Paths = None,
    target: Annotated[list[str] | None, typer.Option(
        metavar="ID", help="Only this rack or cluster id (repeatable).")] = None,
    out: Annotated[Path, typer.Option(metavar="DIR", help="Output directory.")] = Path("out"),
    formats: opt.Files = "md,html,csv,svg",
    templates: opt.Templates = None,
    audience: Annotated[str, typer.Option(
        metavar="AUDIENCE", help="internal (everything) or customer (numbered references; no spec locations, "
        "internal notes or links to archgen's docs; metrics by title).")] = "internal",
    as_of: opt.AsOf = None,
) -> None:
    """Render partner-facing documents and diagrams into OUT/<target>/."""
    from archgen.commands.render import render as command
    _run(lambda: command(paths, target, out, formats, templates, progress=sys.stderr.isatty(), note=_note,
                         audience=audience, as_of=as_of))


@app.command(epilog=DIFF_EXIT)
def diff(
    base: Annotated[str, typer.Argument(
        metavar="BASE", help="Spec directory or git revision (main, HEAD~1, a sha) to compare from.")],
    head: Annotated[str, typer.Argument(metavar="HEAD", help="Spec directory or git revision to compare to.")],
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="md or json.")] = "md",
    path: Annotated[str | None, typer.Option("--path", metavar="DIR", help="Spec directory inside a git revision "
                                             "(default specs); refused where BASE and HEAD are both directories.")
                    ] = None,
    threshold: Annotated[float, typer.Option(
        metavar="PCT", help="Ignore relative metric changes below this percentage.")] = 0.1,
    output: opt.Output = None,
    as_of: opt.AsOf = None,
    pair: Annotated[list[str] | None, typer.Option(
        metavar="BASE_ID=HEAD_ID", help="Compare HEAD's object HEAD_ID as BASE's BASE_ID (a vendor's own ids; "
        "repeatable).")] = None,
    pairs: Annotated[Path | None, typer.Option(
        metavar="FILE", help="A YAML file of pairs, 'pairs: {BASE_ID: HEAD_ID, ...}', read before --pair.")] = None,
    audience: Annotated[str, typer.Option(
        metavar="AUDIENCE", help="internal (the pull-request comment) or customer (a partner's change list: the "
        "revision pair, part numbers; no paths, check IDs, waivers or our prices).")] = "internal",
) -> None:
    """Compare the specs of BASE and HEAD: changed metrics, new and resolved findings, requirement status."""
    from archgen.commands.diff import LinksOut, for_comment
    from archgen.commands.diff import diff as command

    def body() -> tuple[str, int]:
        try:
            text, code = command(base, head, fmt, path, threshold, as_of, tuple(pair or ()), pairs, audience)
            return (text if output is None else for_comment(text, fmt, output)), code
        except LinksOut as err:                # links out left out: the rest compared, the links on stderr, exit 2
            _write(err.compared if output is None else for_comment(err.compared, fmt, output), output)
            raise
        except ArchgenError as err:          # a side that cannot be analysed: the report says so, as stderr does
            if fmt not in ("md", "json") or (isinstance(err, UsageError) and output is None):
                raise
            from archgen.commands.diff import unanalysable
            report = unanalysable(err, fmt, audience)   # a usage error writes --output alone: no PR's diff.md
            _write(report if output is None else for_comment(report, fmt, output), output)   # is left
            raise

    _run(body, output)


@app.command("gap")
def gap_report(
    proposal: Annotated[list[Path], typer.Argument(
        metavar="PROPOSAL", help="The vendor's proposal: spec files or directories (racks, clusters, workloads, "
                                    "parts); each path with a cluster is a design of its own.")],
    against: Annotated[list[Path], typer.Option(
        "--against", metavar="REQUIREMENTS",
        help="Our requirements (a file or directory of Requirements), and our site's Facility (repeatable).")],
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="md or json.")] = "md",
    output: opt.Output = None,
    audience: Annotated[str, typer.Option(
        metavar="AUDIENCE", help="internal (everything) or customer (no paths of ours: no folders in the title, no "
        "file and line of a finding; waivers without their reasons).")] = "internal",
    as_of: opt.AsOf = None,
    reference: Annotated[list[Path] | None, typer.Option(
        metavar="DESIGN", help="Our reference design: each row gives its value beside the proposal's (repeatable).")
    ] = None,
    pair: Annotated[list[str] | None, typer.Option(
        metavar="REFERENCE_ID=PROPOSAL_ID", help="The proposal's object PROPOSAL_ID is the reference's REFERENCE_ID "
        "(a vendor's own ids; repeatable).")] = None,
    pairs: Annotated[Path | None, typer.Option(
        metavar="FILE", help="A YAML file of pairs, 'pairs: {REFERENCE_ID: PROPOSAL_ID, ...}', read before --pair.")
    ] = None,
) -> None:
    """Judge a vendor's proposal against our requirements: met, not met or not provided, with margins."""
    from archgen.commands.common import check_output_file
    from archgen.commands.gap import report

    def body() -> tuple[str, int]:
        if fmt in ("md", "json"):  # an unknown format is named first
            check_output_file(output)
        return report(proposal, against, fmt, audience, as_of, reference or (), pair or (), pairs)

    _run(body, output)


def catalog(
    ctx: typer.Context,
    paths: opt.SpecPaths = None,
    unconfirmed: opt.Unconfirmed = False,
    vendor: opt.Vendors = None,
    kind: opt.Kinds = None,
    asic: opt.Asics = None,
) -> None:
    """List the catalog's parts, facilities, models, racks and failure-rate sets, optionally by vendor, kind, ASIC."""
    # declared once for `catalog` and `catalog list` (review51): the group's options, given before a subcommand, apply
    # to it (`catalog --unconfirmed list` means `catalog list --unconfirmed`; `show` reads the group's paths)
    if ctx.invoked_subcommand is not None:
        return   # `catalog ... list` or `catalog ... show`: the subcommand prints, with these options
    group = ctx.parent.params if ctx.command.name == "list" and ctx.parent else {}
    _print_catalog(paths or group.get("paths"), unconfirmed or group.get("unconfirmed", False),
                   vendor or group.get("vendor"), kind or group.get("kind"), asic or group.get("asic"))


catalog_app.callback(invoke_without_command=True)(catalog)
catalog_app.command("list")(catalog)


def _print_catalog(paths: list[Path] | None, unconfirmed: bool, vendors: list[str] | None = None,
                   kinds: list[str] | None = None, asics: list[str] | None = None) -> None:
    from archgen.commands.catalog import catalog_list
    _run(lambda: catalog_list(paths, unconfirmed, vendors or [], kinds or [], asics or []))


@catalog_app.command("show")
def catalog_show(
    ctx: typer.Context,
    part_id: Annotated[str, typer.Argument(metavar="ID", help="Part, facility, model or rack id.")],
    paths: opt.SpecPaths = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT",
                                     help="json, or yaml: a spec file to fork.")] = "json",
) -> None:
    """Show one part, facility, model, rack or failure-rate set with its figures and sources."""
    from archgen.commands.catalog import catalog_show
    _run(lambda: catalog_show(part_id, paths or (ctx.parent.params["paths"] if ctx.parent else None), fmt))


@app.command()
def schema(out: Annotated[Path | None, typer.Option(
        metavar="DIR", help="Write one <Kind>.schema.json per kind into DIR.")] = None) -> None:
    """JSON Schema of every spec kind, for editors (yaml-language-server)."""
    from archgen.commands.schema import schema as command
    _run(lambda: command(out))


@app.command()
def estimate(
    positional: opt.Paths = None,
    cases: Annotated[Path | None, typer.Option(
        "--cases", metavar="FILE", help="Score a validation-case file (archgen-validation/1).")] = None,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", metavar="ID", help="Cluster id (default: the workload's own cluster).")] = None,
    workload: Annotated[str | None, typer.Option("--workload", metavar="ID", help="Workload id.")] = None,
    paths: opt.SpecPaths = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="text or json.")] = "text",
    what_if: Annotated[list[str] | None, typer.Option(
        "--what-if", metavar="PARAM=FACTOR",
        help="Scale a hardware parameter (repeatable), e.g. hbm_bandwidth=1.5; reported against the baseline.")] = None,
    explain: Annotated[bool, typer.Option(
        "--explain", help="Also list every training switch the estimate used and where its value came from "
                          "(stated, the stated stack's profile, or the default profile); a serving job has none: "
                          "its 'defaults taken' line lists the fields it left to their defaults.")] = False,
    search_plan: Annotated[bool, typer.Option(
        "--search-plan", help="Also search every switch the workload's stack allows (overlaps, sequence parallelism, "
                              "attention kernel, ZeRO stage, CP, EP, offload) beside the layout, and report the best "
                              "plan and what it turns on; the estimate itself is unchanged.")] = False,
    model_only: Annotated[bool, typer.Option(
        "--model-only", help="With --search-plan, also search weight offload, which the model has (after Calculon's) "
                             "but no stack profile runs; a plan that takes it is labelled a model-only plan.")] = False,
) -> None:
    """Performance estimate of a workload on a cluster, or predicted vs measured for validation cases.

    Spec paths are given as arguments, as `check`, `render` and `gap` take them, or with `--path` (both add up).
    """
    run_estimate(positional, cases, cluster, workload, paths, fmt, what_if, explain, search_plan, model_only)


@app.command()
def sweep(
    positional: Annotated[list[Path] | None, typer.Argument(
        metavar="SWEEP.yaml [PATH...]", help="A file of Sweep documents, and spec files or directories beside it "
        "(default: specs/); each file argument's Sweep documents run.")] = None,
    paths: opt.SpecPaths = None,
    workers: Annotated[int, typer.Option(metavar="N", help="Evaluate the points in N local processes.")] = 1,
    scheduler: Annotated[str | None, typer.Option(metavar="ADDRESS",
        help="Address of a Dask scheduler (tcp://host:8786) to evaluate the points on (the 'distributed' extra).")
    ] = None,
    out: Annotated[Path, typer.Option(
        metavar="DIR", help="Output directory; each sweep writes OUT/<sweep id>/.")] = Path("out"),
    formats: opt.Files = "md,csv,svg",
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="What to print: text or json.")] = "text",
    templates: opt.Templates = None,
    as_of: opt.AsOf = None,
    max_points: Annotated[int | None, typer.Option(
        "--max-points", metavar="N", min=1, max=1_000_000,
        help="Evaluate sweeps of up to N points (default 100,000); a sweep's own max_points cannot raise this.")
    ] = None,
) -> None:
    """Evaluate a design-space sweep: every point, the Pareto front and the best point per objective.

    Exit code 1 when a sweep has no feasible point (none fits and meets every SHALL requirement), or the specs have
    error findings. Spec paths are given as arguments, as `check`, `render` and `estimate` take them, or with
    `--path` (both add up).
    """
    from archgen.commands.common import split, sweep_paths
    from archgen.commands.sweep import RUN_MAX_POINTS
    from archgen.commands.sweep import sweep as command
    keep_freed_memory()  # the batches' arrays reused, not faulted in anew (`archgen.startup`)
    progress = _sweep_progress() if sys.stderr.isatty() else None
    files, specs = sweep_paths(positional or [], paths)
    _run(lambda: command(files, specs, workers=workers, scheduler=scheduler, out=out,
                         formats=split(formats), fmt=fmt, templates=templates, progress=progress, note=_note,
                         as_of=as_of, max_points=max_points or RUN_MAX_POINTS))


def _sweep_progress():
    from rich.console import Console
    console = Console(stderr=True)

    def show(sweep_id: str, done: int, total: int) -> None:
        console.print(f"sweep {sweep_id}: {done:,}/{total:,} points", end="\r")
    return show

