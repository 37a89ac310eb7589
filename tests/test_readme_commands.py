"""README's command list names every option of every command, and only options the parser has (lo23cli).

`--as-of` (check, diff, gap, render, sweep) and `catalog show --format` were in the parser and in `--help` but not in
README's list under "## Commands". This test reads the command tree typer builds from `archgen.cli.app` (each
command's and subcommand's long options, not the `--no-...` side of a flag, nor `--help`) and the list's lines: a
command's part runs from its `archgen NAME` line to the next one. Both ways: an option the parser has and the list
omits fails, and so does an option the list names that the command does not take. The options of `archgen` itself
(`--version`, `--debug`, completion) must stand in the section. A synopsis elsewhere in the docs (docs/rendering.md's
`archgen render [...]`) may name a subset, but only options the command has.
"""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from archgen.cli import app

REPO = Path(__file__).resolve().parent.parent
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def _options(command) -> set[str]:
    return {o for p in command.params if p.param_type_name == "option" for o in p.opts if o.startswith("--")} - {
        "--help"}


def parser() -> tuple[set[str], dict[str, set[str]]]:
    """The top-level options, and each command's (`catalog` for the group and its `list` and `show` together)."""
    root = typer.main.get_command(app)
    commands: dict[str, set[str]] = {}
    for name, command in root.commands.items():
        commands[name] = _options(command)
        for sub in getattr(command, "commands", {}).values():
            commands[name] |= _options(sub)
    return _options(root), commands


def section() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return readme.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]


def listed(text: str) -> dict[str, set[str]]:
    """Each command's options as the section's command list (its first code block) names them."""
    block = text.split("```", 2)[1]
    parts: dict[str, set[str]] = {}
    name = ""
    for line in block.splitlines():
        if line.startswith("archgen "):  # a command's first line, or `archgen [--version] ...` (no command's)
            name = m.group(1) if (m := re.match(r"archgen (\w+)", line)) else ""
            parts.setdefault(name, set())
        if name:
            parts[name] |= set(OPTION.findall(line))
    return parts


def test_the_readme_lists_every_option_of_every_command():
    top, commands = parser()
    text = section()
    shown = listed(text)
    assert set(shown) - {""} == set(commands)
    missing = {name: sorted(opts - shown[name]) for name, opts in commands.items() if opts - shown[name]}
    unknown = {name: sorted(shown[name] - opts) for name, opts in commands.items() if shown[name] - opts}
    assert (missing, unknown) == ({}, {})
    assert [o for o in sorted(top) if o not in text] == []


def test_synopses_in_the_docs_name_only_options_the_command_has():
    _, commands = parser()
    bad = []
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for span in re.findall(r"`archgen (\w+) ([^`]*\[--[^`]*)`", page.read_text(encoding="utf-8")):
            name, rest = span
            bad += [f"{page.name}: archgen {name} {o}" for o in OPTION.findall(rest) if o not in commands.get(name, ())]
    assert bad == []
