"""`archgen check`: validate, analyse and check the specs; the findings in one of `output.findings.FORMATS`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from archgen.as_of import given
from archgen.checks import REGISTRY
from archgen.checks.judgement import workload_bands
from archgen.checks.registry import selected
from archgen.commands.common import check_codes, spec_paths
from archgen.errors import SpecError, UnreadableError, UsageError
from archgen.output import findings as output
from archgen.output.matrix import rows
from archgen.pipeline import run


def check(paths: Sequence[Path] | None, fmt: str = "text", select: str = "", ignore: str = "",
          show_waived: bool = False, strict: bool = False, as_of: str | None = None) -> tuple[str, int]:
    """The report and exit code: 1 with error findings (or, if `strict`, unwaived warnings), 2 for unreadable input.

    `as_of`: `--as-of`, the day waivers' `expires` is judged on (`as_of`).

    Schema and unit errors (`ValidateError`) are raised for text, and reported as `SPC001` findings (`SPC000` when a
    file cannot be read) in the machine formats.
    """
    if fmt not in output.FORMATS:
        raise UsageError(f"unknown format '{fmt}'; expected one of {', '.join(output.FORMATS)}")
    chosen, dropped = check_codes("--select", select), check_codes("--ignore", ignore)
    try:
        result = run(spec_paths(paths), chosen, dropped, as_of=given(as_of))
    except SpecError as err:
        if fmt == "text":
            raise
        code = "SPC000" if isinstance(err, UnreadableError) else "SPC001"
        return output.render(fmt, output.problem_findings(err.problems, code), {}), err.exit_code
    failed = bool(result.errors) or strict and any(f.severity == "warning" and not f.waived for f in result.findings)
    if fmt == "text":
        return output.text(result.findings, show_waived=show_waived, as_of=result.as_of), int(failed)
    ran = [cid for cid in REGISTRY if selected(cid, chosen, dropped)]
    matrix = rows(result.requirements, result.findings, result.design.specs.locate) if fmt == "json" else []
    return output.render(fmt, result.findings, result.metrics, ran, workload_bands(result.workloads),
                         matrix), int(failed)
