"""What a spec file may hold before it is parsed: the guards of `archgen.load` against hostile input.

Files over `MAX_FILE_BYTES` or not in UTF-8 (`read_text`). Characters no output can carry (raw, or written as YAML
escapes), tags outside the YAML 1.2 core schema, integers beyond int64, nesting deeper than `MAX_DEPTH`, and more
entries than the caller's limit: counted first with libyaml's event parser (`precount`), then while ruamel composes
(`composer`). `archgen.load` calls them with its `MAX_NODES`. And what a whole tree of files may hold together
(`TreeBudget`): a pull request adding hundreds of files each under the file limit held a CI job for hours.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from archgen.errors import LoadError, Location, SpecProblem, UnreadableError, UsageError, excerpt

if TYPE_CHECKING:
    from ruamel.yaml.composer import Composer

#: The largest spec file read (a larger one is refused before it is read).
MAX_FILE_BYTES = 5 * 1024 * 1024
#: The most bytes all the spec files read in one tree may hold together (`TreeBudget`): ten files at the limit.
MAX_TREE_BYTES = 10 * MAX_FILE_BYTES
#: The most entries (keys and list items, counted as a file's own limit counts them) a tree's files may hold
#: together: five files at `load.MAX_NODES`. One file of 199,000 items took 29 s to load on a shared 2-core machine
#: (newuser77), so the cap holds a tree's parse to a few minutes; the shipped specs hold 5,515 entries in 375 KB.
MAX_TREE_ENTRIES = 1_000_000
#: The environment variables that raise `MAX_TREE_BYTES` (in MiB) and `MAX_TREE_ENTRIES` for a run, deliberately:
#: a spec cannot set them, and a pull request's job sets only what its workflow says.
TREE_VARIABLES = ("ARCHGEN_MAX_TREE_MIB", "ARCHGEN_MAX_TREE_ENTRIES")
#: The largest integer a spec may write (a signed 64-bit integer: what numpy and every JSON reader can hold).
MAX_INT = 2**63 - 1
#: Deepest nesting of mappings and lists a spec may have.
MAX_DEPTH = 64

#: Characters YAML does not allow in a file: those outside c-printable (YAML 1.2 section 5.1: tab, line ends,
#: x20-x7E, x85, xA0-xD7FF, xE000-xFFFD, x10000-x10FFFF), written as the ranges between (the negated class compiled
#: in 7 ms at every start, this in under 1 ms; `tests/test_load.py` holds the two equal).
NOT_YAML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
#: Characters refused in a string even when written as a YAML escape ("\\e", "\\0", "\\ud800"): C0 and C1 controls
#: but tab and line ends, DEL, lone surrogates and the non-characters U+FFFE/U+FFFF. XML 1.0 cannot carry most of
#: them (XLSX, SVG, JUnit), UTF-8 cannot encode a lone surrogate, and a terminal obeys escapes in messages. And the
#: explicit directional formatting characters (Unicode UAX #9, table 2: embeddings, overrides and isolates,
#: U+202A-U+202E, U+2066-U+2069), the "Trojan Source" characters (Boucher and Anderson, arXiv:2111.00169,
#: CVE-2021-42574) that rustc denies in a literal (`text_direction_codepoint_in_literal`): a requirement's
#: `statement: "REQ met \u202e..."` showed reordered in the terminal, the pull request's comment, SARIF and the
#: documents, text a reviewer reads other than it is stored (newuser77).
NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
                      "\ufffe\uffff]")
_NAMES = {0: "NUL", 7: "BEL", 8: "BS", 0x1B: "ESC", 0x7F: "DEL", 0xFFFE: "non-character", 0xFFFF: "non-character",
          0x202A: "LRE", 0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO", 0x2066: "LRI", 0x2067: "RLI",
          0x2068: "FSI", 0x2069: "PDI"}


def char_name(c: str) -> str:
    """'control character U+001B (ESC)', 'lone surrogate U+D800', 'directional formatting character U+202E (RLO)'."""
    n = ord(c)
    what = "lone surrogate" if 0xD800 <= n <= 0xDFFF else "character" if n >= 0xFFFE else \
        "directional formatting character" if 0x202A <= n <= 0x2069 else "control character"
    return f"{what} U+{n:04X}" + (f" ({_NAMES[n]})" if n in _NAMES and n < 0xFFFE else "")


#: The tags of the YAML 1.2 core schema, the only ones a spec may write (`!!str 5`, `!!float 1`).
_CORE_TAGS = {f"tag:yaml.org,2002:{t}": t for t in ("str", "int", "float", "bool", "null", "map", "seq")}


def composer(name: str, max_nodes: int) -> type[Composer]:
    """A ruamel composer that counts entries while composing and refuses tags outside the core schema.

    The count is of keys and list items, as `load._Counter` counts them after alias expansion, so a file refused here is
    one `load._plain` would refuse too, only sooner: composing stops at the first entry over `max_nodes`.
    """
    from ruamel.yaml.composer import Composer  # noqa: F811  (imported when called: ruamel loads lazily)
    from ruamel.yaml.events import AliasEvent, ScalarEvent
    from ruamel.yaml.nodes import ScalarNode

    class _Guarded(Composer):
        entries = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.parser.peek_event()
            where = Location(name, event.start_mark.line + 1, event.start_mark.column + 1)
            if parent is not None and index is not None:
                self.entries += 1
                if self.entries > max_nodes:
                    raise UnreadableError([too_many(where, max_nodes)])
            if self.depth > MAX_DEPTH:
                raise UnreadableError([SpecProblem(where, message=f"YAML nesting deeper than {MAX_DEPTH} levels")])
            if isinstance(event, ScalarEvent) and len(event.value) > 19 and str(  # before int() meets 5,000 digits
                    event.tag or self.resolver.resolve(ScalarNode, event.value, event.implicit)).endswith(":int"):
                raise UnreadableError([SpecProblem(where, message="integer out of range", value=event.value,
                                                   expected=f"a whole number of at most {MAX_INT:,} in size")])
            if isinstance(event, ScalarEvent):
                _no_day(event, str(event.tag or self.resolver.resolve(ScalarNode, event.value, event.implicit)), where)
            tag = None if isinstance(event, AliasEvent) or event.tag is None else str(event.tag)
            if tag is not None and tag != "!":  # "!" is the non-specific tag: a string
                core = _CORE_TAGS.get(tag)
                if core is None:
                    shown = excerpt(tag.replace("tag:yaml.org,2002:", "!!", 1))
                    raise UnreadableError([SpecProblem(where, message=f"tag '{shown}' is not allowed", hint=(
                        "specs are plain YAML: strings, numbers, true/false, null, lists and mappings"))])
                if isinstance(event, ScalarEvent) and core not in ("str", "map", "seq"):
                    implicit = str(self.resolver.resolve(ScalarNode, event.value, (True, False)))
                    kinds = {"float": ("float", "int"), "null": ("null", "str")}.get(core, (core,))
                    if implicit.split(":")[-1] not in kinds or (core == "null" and event.value not in ("", "~")
                                                               and implicit.split(":")[-1] != "null"):
                        raise UnreadableError([SpecProblem(
                            where, message=f"'{excerpt(event.value)}' is not a valid !!{core}",
                            expected=f"a YAML {core} after !!{core}")])
            return super().compose_node(parent, index)

    return _Guarded


def _no_day(event: Any, tag: str, where: Location) -> None:
    """Refuse a YAML timestamp that names no day or time (2026-02-30): ruamel's reader raised a bare ValueError."""
    if not tag.endswith(":timestamp"):
        return
    from ruamel.yaml.util import create_timestamp, timestamp_regexp

    match = timestamp_regexp.match(event.value)
    try:
        if match is not None:
            create_timestamp(**match.groupdict())
    except (ValueError, OverflowError) as exc:
        raise UnreadableError([SpecProblem(where, message=f"'{excerpt(event.value)}' is not a date: {exc}",
                                           expected="a day that exists, as YYYY-MM-DD")]) from None


def precount(text: str, name: str, max_nodes: int) -> None:
    """Count entries with libyaml's event parser and stop at the first over `max_nodes`.

    libyaml is about 30 times faster than ruamel's pure-Python parser, so a 5 MiB list is refused in a fraction of a
    second instead of after composing 200,000 items in Python. Counting only: ruamel remains the reference parser (YAML
    1.2, positions, messages; `yaml_fast` reads with libyaml only what it reads the same), so a libyaml error is left
    for ruamel to report, and without libyaml the composer's own count is the limit.
    """
    try:
        import yaml as pyyaml
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        return
    if not getattr(pyyaml, "__with_libyaml__", False):
        return
    frames: list[list] = []  # [is_mapping, children seen]
    entries = 0
    try:
        for event in pyyaml.parse(text, Loader=pyyaml.CSafeLoader):
            if isinstance(event, pyyaml.CollectionEndEvent):
                frames.pop()
                continue
            if not isinstance(event, pyyaml.NodeEvent):
                continue
            if frames:
                frame = frames[-1]
                if not frame[0] or frame[1] % 2 == 0:  # a list item, or a mapping key
                    entries += 1
                    if entries > max_nodes:
                        raise UnreadableError([too_many(Location(name, event.start_mark.line + 1,
                                                                 event.start_mark.column + 1), max_nodes)])
                frame[1] += 1
            if isinstance(event, pyyaml.CollectionStartEvent):
                frames.append([isinstance(event, pyyaml.MappingStartEvent), 0])
    except pyyaml.YAMLError:
        return


def too_many(where: Location, max_nodes: int, verb: str = "has") -> SpecProblem:
    """The problem of a file with more than `max_nodes` entries (`verb`: has, or expands to through aliases)."""
    return SpecProblem(where, message=f"the file {verb} more than {max_nodes:,} nodes (keys and list items)",
                       hint="aliases (*name) that repeat large anchors multiply a document; write the content out "
                            "or use counts")


#: What `stat` calls a file that is not a regular one, for the refusal's message.
_NOT_REGULAR = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def not_regular(mode: int) -> str | None:
    """What a file of `mode` is in words ('a named pipe (FIFO)') where it is not a regular file, else None."""
    if stat.S_ISREG(mode):
        return None
    return next((text for test, text in _NOT_REGULAR if test(mode)), "not a regular file")


def entry(p: Path) -> bool:
    """Whether `p` is there and is no directory.

    A regular file, or a named pipe, socket or device, which `read_text` refuses with its location rather than
    letting it drop out of the specs unread.
    """
    return p.exists() and not p.is_dir()


def opened(path: Path, name: str) -> BinaryIO:
    """`path` open for reading in binary, refused with a located error unless it is a regular file.

    Opened with ``O_NONBLOCK`` and checked on the open descriptor (`os.fstat`, so a file swapped after a check is
    still caught): opening a named pipe blocks until a writer comes, and a device reads without end.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise UnreadableError([SpecProblem(Location(name), message=f"cannot be read ({exc.strerror})",
                                           expected="a readable spec file")]) from None
    what = not_regular(os.fstat(fd).st_mode)
    if what is not None:
        os.close(fd)
        raise UnreadableError([SpecProblem(Location(name), message=f"is {what}", expected="a regular spec file",
                                           hint="archgen reads regular files only: remove it from the spec tree")])
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_most(fh: BinaryIO, most: int) -> bytes:
    """`fh.read(most)` of a file `opened`: the bytes its size says and one more, and the rest only if it grew.

    A buffered read of `most` bytes makes a buffer of `most` first: 5 MiB for each spec file read up to one byte past
    `MAX_FILE_BYTES`, 17 of a read's 33 µs (loading specs/ read 122 files; suite38).
    """
    first = min(os.fstat(fh.fileno()).st_size + 1, most)
    raw = fh.read(first)
    return raw + fh.read(most - first) if len(raw) == first < most else raw


def read_text(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> str:
    """Read a spec file as UTF-8, refusing directories, other non-regular files, huge files and undecodable bytes.

    The file is opened without blocking and refused unless it is a regular file (`opened`): a named pipe, a socket
    or a device named as a spec (or linked to from the spec tree) would otherwise hang the command until a CI job's
    time limit, or read without end.
    """
    name = str(path)
    if path.is_dir():
        raise LoadError(f"{name}: is a directory, expected a file")
    if not path.exists():
        raise LoadError(f"{name}: no such file or directory")
    with opened(path, name) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > max_bytes:
            raise UnreadableError([SpecProblem(Location(name), message=f"file is {size / 2**20:.1f} MiB",
                                         expected=f"a spec file of at most {max_bytes // 2**20} MiB")])
        raw = read_most(fh, max_bytes + 1)
    if len(raw) > max_bytes:                      # grew since it was measured
        raise UnreadableError([SpecProblem(Location(name), message=f"file is over {max_bytes // 2**20} MiB",
                                     expected=f"a spec file of at most {max_bytes // 2**20} MiB")])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise UnreadableError([SpecProblem(Location(name, line, col), expected="a UTF-8 text file",
                                           message=f"byte 0x{raw[exc.start]:02x} is not UTF-8")]) from None


class TreeBudget:
    """What the spec files of one load (`load.load_paths`) may hold together: `MAX_TREE_BYTES`, `MAX_TREE_ENTRIES`.

    The bytes are judged from the files' sizes before any is read, the entries as each file is loaded (a file is
    counted once it is parsed, so a tree stops within one file past the cap). Each is refused at the file where the
    running total passes the cap, with the totals and the variable (`TREE_VARIABLES`) that raises it for a run.
    """

    def __init__(self, files: list[Path]) -> None:
        self.most_bytes, self.most_entries = (_limit(TREE_VARIABLES[0], MAX_TREE_BYTES // 2**20) * 2**20,
                                              _limit(TREE_VARIABLES[1], MAX_TREE_ENTRIES))
        self.files, self.entries, total = len(files), 0, 0
        for i, f in enumerate(files):
            try:
                size = os.stat(f).st_size
            except OSError:                       # `read_text` refuses it by name
                continue
            total += size if size <= MAX_FILE_BYTES else 0   # one over the file limit: refused unread, by name
            if total > self.most_bytes:
                raise UnreadableError([self._over(f, i, f"{total / 2**20:,.1f} MiB", f"{self.most_bytes // 2**20:,} "
                                                  "MiB", 0)])

    def add(self, f: Path, i: int, entries: int) -> SpecProblem | None:
        """Count the `entries` of `f`, the `i`-th file (from 0): the refusal once the tree's total passes the cap."""
        self.entries += entries
        return self._over(f, i, f"{self.entries:,} entries (keys and list items)", f"{self.most_entries:,}", 1) \
            if self.entries > self.most_entries else None

    def _over(self, f: Path, i: int, reached: str, most: str, which: int) -> SpecProblem:
        return SpecProblem(Location(str(f)), message=f"the spec files read reach {reached} at this file (file "
                           f"{i + 1:,} of {self.files:,})", expected=f"at most {most} in all the files of one run",
                           hint="a tree this large would hold a CI job for long; check its folders one by one, or "
                           f"raise the cap for the run deliberately: {TREE_VARIABLES[which]}=N in the environment")


def _limit(variable: str, default: int) -> int:
    """The whole number `variable` sets in the environment (at least 1), else `default`; anything else refused."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"{variable}='{excerpt(text)}': expected a whole number of at least 1 (default {default:,})")
    return int(text)
