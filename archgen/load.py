"""Find spec files and load their YAML documents safely, with a source map of every key.

Safety: YAML 1.2 (ruamel's round-trip loader, the reference; libyaml reads a file only where `yaml_fast` holds its
reading to ruamel's, with the same guards before), duplicate keys rejected, files over 5 MiB (`MAX_FILE_BYTES`) refused
before parsing, `MAX_NODES` counted while the file is composed (so a 5 MiB list stops after its first 200,000 items,
not after parsing all of it) and again after alias expansion, deep nesting reported as an error. Only the tags of the
YAML core schema are read (`!!python/object`, `!!binary`, local tags are refused), and text that no XML or terminal
output can carry (control characters, lone surrogates, U+FFFE/U+FFFF) is refused where it stands, raw or escaped.
"""

from __future__ import annotations

import io
import re
import warnings
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from archgen import cache, code_version, yaml_fast, yaml_guard
from archgen.errors import Location, SpecError, SpecProblem, UnreadableError, excerpt, excerpts
from archgen.spec_files import find_files as find_files
from archgen.spec_files import packaged as packaged
from archgen.spec_files import shipped_catalog as shipped_catalog
from archgen.spec_files import shown_file as shown_file
from archgen.yaml_guard import MAX_DEPTH, MAX_INT, NOT_TEXT, NOT_YAML, char_name, composer, precount, too_many

MAX_NODES = 200_000
#: Characters of text a file may expand to through its aliases: four times the largest file.
MAX_EXPANDED_CHARS = 4 * yaml_guard.MAX_FILE_BYTES

Positions = Mapping[tuple[str | int, ...], tuple[int, int]]


@dataclass(frozen=True)
class SourceDocument:
    """One YAML document: plain Python data plus the file:line:col of every key path in it."""

    file: str
    data: dict[str, Any]
    positions: Positions

    @property
    def kind(self) -> str:
        """The document's `kind` (e.g. `Rack`)."""
        return str(self.data.get("kind", ""))

    @property
    def id(self) -> str:
        """The document's `id`."""
        return str(self.data.get("id", ""))

    def locate(self, path: Sequence[str | int] = ()) -> Location:
        """Location of the deepest prefix of `path` present in the document."""
        path = tuple(path)
        for n in range(len(path), -1, -1):
            pos = self.positions.get(path[:n])
            if pos:
                return Location(self.file, *pos)
        return Location(self.file)

    def key(self, path: Sequence[str | int] = ()) -> str:
        """A field's key path as one text that no unrelated edit moves: ``fabrics[compute].core.rack``.

        A list item is named by its `id` where it has one (``requirements[REQ-PWR-001].target``), so that adding an
        item before it does not rename it; else by its index (``racks[3]``). Keys not in the data (a default, a key
        given under its old name) are kept as they are.
        """
        out: list[str] = []
        node: Any = self.data
        for step in path:
            if isinstance(step, int):
                item = node[step] if isinstance(node, list) and 0 <= step < len(node) else None
                ident = item.get("id") if isinstance(item, dict) else None
                out[-1:] = [f"{out[-1] if out else ''}[{ident if isinstance(ident, str) and ident else step}]"]
                node = item
            else:
                out.append(str(step))
                node = node.get(step) if isinstance(node, dict) else None
        return ".".join(out)


def shown(location: Location | None, absolute: bool = False) -> Location | None:
    """A location with its file as `shown_file` gives it (None stays None)."""
    return None if location is None else replace(location, file=shown_file(location.file, absolute))


def load_paths(paths: Iterable[str | Path], found: bool = False) -> list[SourceDocument]:
    """Every document of every spec file under `paths` (files `find_files` gave, if `found`); problems raised once.

    The files together are held to `yaml_guard.TreeBudget` (bytes and entries of the whole tree, not only each file).
    """
    docs: list[SourceDocument] = []
    problems: list[SpecProblem] = []
    files = [Path(p) for p in paths] if found else find_files(paths)
    budget = yaml_guard.TreeBudget(files)         # the whole tree's bytes, before any file is read
    for i, f in enumerate(files):
        try:
            got = load_file(f)
        except SpecError as err:
            problems.extend(err.problems)
            continue
        docs.extend(got)
        if (over := budget.add(f, i, sum(len(d.positions) - (() in d.positions) for d in got))) is not None:
            raise UnreadableError([*problems, over])   # stops within one file past the cap
    if problems:
        raise UnreadableError(problems)
    return docs


def load_file(path: Path, keys: str = "'kind' and 'id'") -> list[SourceDocument]:
    """All documents of one YAML file (`cached`); `keys` names what each must hold, for the error messages."""
    return cached(yaml_guard.read_text(path), str(path), keys)


def cached(text: str, name: str, keys: str = "'kind' and 'id'") -> list[SourceDocument]:
    """`load_text` through `LOADED` and the parsed-YAML cache, both by `name` and a hash of `text` (parsing is slow)."""
    key = parse_key(text)
    known = LOADED.get((name, key))
    if known is not None:
        return list(known)
    kept = code_version.parser_digest() is not None   # else the parser is unknown: nothing is read or kept on disk
    hit = cache.load("yaml", key) if kept else None
    if isinstance(hit, list):
        try:
            docs = [SourceDocument(name, data, {tuple(p): (line, col) for p, line, col in positions})
                    for data, positions in hit]
            if all(isinstance(d.data, dict) for d in docs):
                return _shared(name, key, docs)
        except (TypeError, ValueError):  # not an entry of ours: parse the file
            pass
    docs = load_text(text, name, keys)
    if kept:
        cache.store("yaml", key, [(d.data, [(list(p), *pos) for p, pos in d.positions.items()]) for d in docs])
    return _shared(name, key, docs)


def parse_key(text: str) -> str:
    """The key of `text`'s parse in `LOADED` and the parsed-YAML cache: its content, the node limit, the parser.

    The parser is `code_version.parser_digest`, the text of the modules that parse: an edit to them or an upgrade of
    ruamel.yaml is another key; a commit elsewhere in archgen, or another checkout of the same parser, is not.
    """
    code = code_version.parser_digest()
    return cache.digest(text, str(MAX_NODES), code.hex() if code is not None else "unknown")


#: The files this process has loaded, by name and content: a file read again unchanged (the catalog, in each
#: `pipeline.run`) gives the same documents, unparsed. Shared, so read only (`migrate` copies a document it changes).
LOADED = cache.Memo[list[SourceDocument]](1024)
_SHARED: weakref.WeakValueDictionary[int, SourceDocument] = weakref.WeakValueDictionary()  # LOADED's, by id()


def _shared(name: str, key: str, docs: list[SourceDocument]) -> list[SourceDocument]:
    """`docs`, the documents of the file `name` whose content has `key`, kept in `LOADED` (a new list each call)."""
    _SHARED.update((id(d), d) for d in docs)
    return list(LOADED.put((name, key), docs))


def shared(doc: SourceDocument) -> bool:
    """Whether `doc` is a document `load_file` gave (one that no one changes): `validate` may memoise its model."""
    return _SHARED.get(id(doc)) is doc


def load_text(text: str, name: str, keys: str = "'kind' and 'id'") -> list[SourceDocument]:
    """Parse YAML text (one or more documents) into `SourceDocument`s; `name` is for locations, `keys` for messages.

    libyaml reads a file in `yaml_fast`'s plain subset (the same values and positions), ruamel every other file.
    """
    if not text.strip() or all(not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()):
        raise UnreadableError([SpecProblem(Location(name, 1, 1), message="file is empty",
                                     expected=f"one or more YAML documents with {keys}")])
    bad = NOT_YAML.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        col = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise UnreadableError([SpecProblem(Location(name, line, col), message=f"{char_name(bad.group())} in the file",
                                           expected="printable text (YAML allows no control characters)")])
    version = _YAML_DIRECTIVE.search(text)
    if version and version.group(1) not in ("1.1", "1.2"):
        line = text.count("\n", 0, version.start()) + 1
        raise UnreadableError([SpecProblem(Location(name, line, 1), message=f"%YAML {version.group(1)} directive",
                                           expected="YAML 1.2 (or 1.1); no other version exists")])
    precount(text, name, MAX_NODES)
    fast = yaml_fast.documents(text, MAX_NODES, MAX_EXPANDED_CHARS)
    if fast is not None:
        return [SourceDocument(name, data, positions) for data, positions in fast]
    return ruamel_documents(text, name, keys)


def ruamel_documents(text: str, name: str, keys: str) -> list[SourceDocument]:
    """`load_text`'s documents as ruamel's YAML 1.2 round-trip loader reads them (the reference), once guarded."""
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning

    yaml = YAML(typ="rt", pure=True)
    yaml.allow_duplicate_keys = False
    yaml.Composer = composer(name, MAX_NODES)
    counter = _Counter(name)
    try:
        with warnings.catch_warnings():   # YAML 1.2 lets an anchor be defined again (section 3.2.2.2); ruamel's
            warnings.simplefilter("ignore", ReusedAnchorWarning)  # warning printed the anchor whole, and a path
            raw_docs = [d for d in yaml.load_all(io.StringIO(text)) if d is not None]
    except DuplicateKeyError as exc:
        mark = exc.problem_mark
        key = (exc.problem or "").split('"')[1] if '"' in (exc.problem or "") else ""
        first = _first_key_line(text, key, exc.context_mark.line if exc.context_mark else 0, mark.line)
        raise UnreadableError([SpecProblem(Location(name, mark.line + 1, mark.column + 1),
                                           message=f"duplicate key '{excerpt(key)}' (first defined at line {first})",
                                           hint="remove or rename one of the keys")]) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Location(name, mark.line + 1, mark.column + 1) if mark else Location(name)
        what = excerpts(" ".join(x for x in (exc.context, exc.problem) if x))
        raise UnreadableError([SpecProblem(loc, message=f"YAML syntax error: {what}",
                                           hint=_tab_hint(text, mark) if "'\\t'" in what else "")]) from None
    except RecursionError:
        raise UnreadableError([SpecProblem(Location(name), message="YAML nesting is too deep")]) from None
    docs = []
    for raw in raw_docs:
        positions: dict[tuple[str | int, ...], tuple[int, int]] = {}
        start = (raw.lc.line + 1, raw.lc.col + 1) if hasattr(raw, "lc") else (1, 1)
        positions[()] = start
        if not isinstance(raw, dict):
            what = "a list" if isinstance(raw, list) else "a scalar"  # never quoted: the file may not be YAML at all
            raise UnreadableError([SpecProblem(Location(name, *start), expected=f"a mapping with {keys}",
                                               message=f"a document must be a mapping, got {what}")])
        docs.append(SourceDocument(name, _plain(raw, (), positions, counter, 0), positions))
    return docs


def _tab_hint(text: str, mark: Any) -> str:
    """What to write for the tab a YAML error is about: YAML 1.2.2 section 6.1 allows no tab in indentation."""
    lines = text.splitlines()
    line = lines[mark.line] if mark and mark.line < len(lines) else ""
    if "\t" in line[:len(line) - len(line.lstrip(" \t"))]:
        return "indent with spaces: YAML allows no tab in indentation (YAML 1.2.2, section 6.1)"
    return "write a space where the tab is (the YAML reader refuses a tab there)"


#: A `%YAML` directive of any version (ruamel's resolver fails with a KeyError on one it has no table for).
_YAML_DIRECTIVE = re.compile(r"^%YAML[ \t]+(\S*)", re.MULTILINE)


def _first_key_line(text: str, key: str, start: int, end: int) -> int:
    """1-based line of the first `key:` between lines `start` and `end` (0-based), else the mapping's start."""
    pattern = re.compile(rf"^\s*(-\s+)?['\"]?{re.escape(key)}['\"]?\s*:")
    for n, line in enumerate(text.splitlines()[start:end], start=start):
        if pattern.match(line) or re.search(rf"[{{,]\s*{re.escape(key)}\s*:", line):
            return n + 1
    return start + 1


class _Counter:
    """Nodes and text characters of a document as its aliases expand them.

    Bytes, not only nodes: a 1 MB file that aliases a 1 MiB string 3,000 times expands to 3 GB of text in every
    later stage that copies or quotes it.
    """

    def __init__(self, name: str) -> None:
        self.name, self.n, self.chars = name, 0, 0

    def tick(self, pos: tuple[int, int]) -> None:
        self.n += 1
        if self.n > MAX_NODES:
            raise UnreadableError([too_many(Location(self.name, *pos), MAX_NODES, "expands to")])

    def text(self, value: str, pos: tuple[int, int]) -> None:
        self.chars += len(value)
        if self.chars > MAX_EXPANDED_CHARS:
            raise UnreadableError([SpecProblem(Location(self.name, *pos), message=(
                f"the file's aliases expand it to more than {MAX_EXPANDED_CHARS // 2**20} MiB of text"),
                expected="a spec that repeats long text by reference no more than its size allows")])


def _scalar(value: Any) -> Any:
    """Ruamel scalar subclasses (ScalarFloat, HexInt, TaggedScalar) to plain Python values."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if hasattr(value, "value") and isinstance(value.value, str):  # TaggedScalar: keep the text, drop the tag
        return str(value.value)
    return str(value)


def _plain(node: Any, path: tuple, positions: dict, counter: _Counter, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise UnreadableError([SpecProblem(Location(counter.name, *positions.get(path, (0, 0))),
                                     message=f"YAML nesting deeper than {MAX_DEPTH} levels")])
    if isinstance(node, Mapping):
        _merged_once(node, counter.name)
        out = {}
        for key, value in node.items():
            k = _scalar(key)
            k = k if isinstance(k, str) else str(k)
            pos = _pos(node, key, is_map=True) or positions.get(path, (0, 0))  # merged keys: the mapping's line
            positions[path + (k,)] = pos
            counter.tick(pos)
            k = _text(k, counter.name, pos)
            out[k] = _plain(value, path + (k,), positions, counter, depth + 1)
        return out
    if isinstance(node, list):
        out_list = []
        for i, value in enumerate(node):
            pos = _pos(node, i, is_map=False) or positions.get(path, (0, 0))
            positions[path + (i,)] = pos
            counter.tick(pos)
            out_list.append(_plain(value, path + (i,), positions, counter, depth + 1))
        return out_list
    value = _scalar(node)
    if isinstance(value, str):
        counter.text(value, positions.get(path, (0, 0)))
        value = _text(value, counter.name, positions.get(path, (0, 0)))
    elif isinstance(value, int) and not isinstance(value, bool) and not -MAX_INT <= value <= MAX_INT:
        raise UnreadableError([SpecProblem(Location(counter.name, *positions.get(path, (0, 0))), value=value,
                                           message="integer out of range",
                                           expected=f"a whole number of at most {MAX_INT:,} in size")])
    return value


#: The attribute of a ruamel mapping that holds the mappings a merge key (`<<: [*a, *b]`) merged into it, in order:
#: `ruamel.yaml.comments.merge_attrib` (named here: ruamel is imported when a file is first parsed).
MERGED = "_yaml_merge"


def _merged_once(node: Any, name: str) -> None:
    """Refuse a key that two mappings merged into `node` both give, as a duplicate key is refused.

    A merge takes each key from the first mapping that gives it (YAML's merge key, yaml.org/type/merge.html), so
    `<<: [{max: 1.7 kW}, {max: 2 kW}]` read 1.7 kW without a word. A key of `node`'s own overrides the merged ones
    (that is what a merge is for) and stays allowed, even where two of them give it.
    """
    first: dict[Any, tuple[int, int]] = {}
    merges = getattr(node, MERGED, ())
    own = {key for key, _ in node.non_merged_items()} if merges else set()
    for merged in merges:
        for key in [k for k in merged if k not in own]:   # in order: the first duplicate is reported
            lc = merged.lc
            try:
                pos = lc.key(key)
            except (KeyError, TypeError):   # merged into `merged` itself: its mapping's line
                pos = (lc.line, lc.col)
            if key in first:
                shown_key, (line, col) = excerpt(str(_scalar(key))), first[key]
                at = f"line {line + 1}" + (f", column {col + 1}" if line == pos[0] else "")
                raise UnreadableError([SpecProblem(
                    Location(name, pos[0] + 1, pos[1] + 1),
                    message=f"duplicate key '{shown_key}' in the mappings '<<' merges into the mapping at line "
                            f"{node.lc.line + 1} (first given at {at})",
                    hint="a merge takes each key from the first mapping that gives it: give the key in one of them, "
                         "or once in this mapping, which overrides them")])
            first[key] = pos


def _text(value: str, name: str, pos: tuple[int, int]) -> str:
    """`value` with escaped UTF-16 surrogate pairs joined, as JSON writes them; refused if no output can carry it.

    The characters refused are `yaml_guard.NOT_TEXT`, written as YAML escapes (the file itself was checked before
    parsing).
    """
    bad = NOT_TEXT.search(value)
    if bad and "\ud800" <= bad.group() <= "\udfff":
        value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        bad = NOT_TEXT.search(value)
    if bad:
        shown = NOT_TEXT.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
        raise UnreadableError([SpecProblem(Location(name, *pos), message=f"{char_name(bad.group())} in a string",
                                           value=shown, expected="printable text")])
    return value


def _pos(node: Any, key: Any, *, is_map: bool) -> tuple[int, int] | None:
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    try:
        line, col = lc.value(key) if is_map else lc.item(key)
        if is_map and (isinstance(node[key], Mapping | list) or node[key] is None and line > lc.key(key)[0]):
            line, col = lc.key(key)   # an empty value (`max:`): its key's line, not where the next token starts
    except (KeyError, TypeError, IndexError):
        return None
    return (line + 1, col + 1)

