"""The command line's parameter types, and how its help shows them.

The options several commands share (`Paths`, `Format`, `Output`, ...), the top-level group that takes `--debug`
anywhere, and help that names a value by its metavar. Apart from `archgen.cli` for its size; it prints nothing and
exits nothing.

No `from __future__ import annotations`: typer reads the aliases as evaluated types (docs/architecture.md,
"Start-up").
"""

from pathlib import Path
from typing import Annotated, Any

import typer
import typer.core


class Group(typer.core.TyperGroup):
    """The top-level command group; `--debug` may stand anywhere before `--` (`archgen check specs --debug`)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # click's Context (typer vendors click)
        """Move a `--debug` given before `--` to the front, where the group's own options are parsed."""
        end = args.index("--") if "--" in args else len(args)
        if "--debug" in args[:end]:
            args = ["--debug", *(a for i, a in enumerate(args) if a != "--debug" or i >= end)]
        return super().parse_args(ctx, args)


def _value_name(self: typer.core.TyperOption | typer.core.TyperArgument, ctx: typer.Context) -> str | None:
    """The value a parameter takes, as help shows it: its metavar (N, DIR, FILE), never a Python type (<int>)."""
    if isinstance(self, typer.core.TyperArgument) or getattr(self, "is_flag", False):
        return None  # an argument's own column shows its metavar; a flag takes no value
    return self.metavar or (self.name or "").upper()


typer.core.TyperOption.display_type_rich = _value_name  # type: ignore[method-assign,assignment]  # typer 0.29 prints <list[Path]>, <bool> beside each option
typer.core.TyperArgument.display_type_rich = _value_name  # type: ignore[method-assign,assignment]

HELP = {"help_option_names": ["-h", "--help"]}

Paths = Annotated[list[Path] | None, typer.Argument(
    metavar="PATH...", help="Spec files or directories (default: specs/).")]
Format = Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="text, json, sarif, junit or github.")]
Vendors = Annotated[list[str] | None, typer.Option(
    "--vendor", metavar="VENDOR", help="Only entries of this vendor (repeatable).")]
Kinds = Annotated[list[str] | None, typer.Option(
    "--kind", metavar="KIND", help="Only entries of this kind, e.g. Switch (repeatable).")]
Asics = Annotated[list[str] | None, typer.Option(
    "--asic", metavar="ASIC", help='Only parts built on this ASIC, e.g. "Tomahawk 5" (repeatable).')]
Unconfirmed = Annotated[bool, typer.Option(help="List only parts (and racks' liquid loops) with unconfirmed figures.")]
SpecPaths = Annotated[list[Path] | None, typer.Option(
    "--path", metavar="PATH", help="Spec paths to include (default: specs/).")]
Output = Annotated[Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write the report to FILE.")]
AsOf = Annotated[str | None, typer.Option("--as-of", metavar="DATE", help="Judge waiver expiry on DATE (YYYY-MM-DD).")]
Files = Annotated[str, typer.Option(metavar="FORMATS", help="Comma-separated: md,html,pdf,xlsx,csv,svg,png (pdf needs "
                                    "the 'pdf' extra, xlsx the 'office' extra).")]
Templates = Annotated[Path | None, typer.Option(
    metavar="DIR", help="Directory of templates overriding the shipped ones.")]
