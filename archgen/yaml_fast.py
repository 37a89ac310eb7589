"""A spec file read by libyaml where it gives exactly what ruamel's YAML 1.2 reading gives, else not at all.

ruamel's pure-Python round-trip parse is the reference (YAML 1.2, its positions, its messages) and most of a cold
`check`'s time: 0.57 CPU-s for the 122 shipped spec files, where libyaml's event parser takes 0.016 (suite37). So
`documents` builds `load.load_text`'s plain values and positions from libyaml's events, for a plain subset only: no
anchor, alias, tag, directive or merge key, no key but a plain or quoted string, no duplicate key, no tab, no line
break but LF, no BOM, no second `...` before a `---`, no block scalar without an indentation indicator whose first
line is spaces only, no string that `yaml_guard.NOT_TEXT` refuses, and each plain scalar resolved by ruamel's own
YAML 1.2 table (`RESOLVERS`, held equal to `ruamel.yaml.resolver` by tests/test_yaml_fast.py), built as ruamel's
round-trip constructor builds it (ints without `_`, floats but NaN; timestamps declined). Anything else, any libyaml
error, a limit near (`MAX_DEPTH`, `MAX_INT`, nodes, expanded text) or a document that is not a mapping: None, and
`load_text` reads the file with ruamel, unchanged, so every error stays ruamel's. Without libyaml: None.
"""

from __future__ import annotations

import re
from typing import Any

from archgen.yaml_guard import MAX_DEPTH, MAX_INT, NOT_TEXT

#: ruamel.yaml 0.19's implicit resolvers for YAML 1.2 (`ruamel.yaml.resolver.implicit_resolvers`): tag, pattern,
#: flags, first characters, in its order (the first that matches wins).
RESOLVERS = (
    ("bool", r"""^(?:true|True|TRUE|false|False|FALSE)$""", re.X, tuple("tTfF")),
    ("float", r"""^(?:
         [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""", re.X, tuple("-+0123456789.")),
    ("int", r"""^(?:[-+]?0b[0-1_]+
        |[-+]?0o?[0-7_]+
        |[-+]?[0-9_]+
        |[-+]?0x[0-9a-fA-F_]+)$""", re.X, tuple("-+0123456789")),
    ("merge", r"^(?:<<)$", 0, ("<",)),
    ("null", r"""^(?: ~
        |null|Null|NULL
        | )$""", re.X, ("~", "n", "N", "")),
    ("timestamp", r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
        |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
        (?:[Tt]|[ \t]+)[0-9][0-9]?
        :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""", re.X, tuple("0123456789")),
    ("value", r"^(?:=)$", 0, ("=",)),
    ("yaml", r"^(?:!|&|\*)$", 0, tuple("!&*")),
)
_BY_FIRST: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
for _tag, _pattern, _flags, _first in RESOLVERS:
    for _ch in _first:
        _BY_FIRST.setdefault(_ch, []).append((_tag, re.compile(_pattern, _flags)))
#: Ints as ruamel builds them, sign and base: no `_` (ruamel keeps them in a ScalarInt; "0x_" fails there).
_INT = re.compile(r"([-+]?)(?:0x([0-9a-fA-F]+)|0o([0-7]+)|0b([01]+)|([0-9]+))")
#: Characters that send a file to ruamel: tab (libyaml and ruamel allow it in different places), line breaks other
#: than LF (YAML 1.1 breaks lines at NEL, LS and PS, 1.2 does not), BOM.
_DECLINED = re.compile("[\t\r\x85\u2028\u2029\ufeff]")
#: A document end marker `...` again before any `---`: libyaml reads it as nothing, ruamel 0.19 refuses it.
_ENDS = re.compile(r"^\.\.\.(?=[ \n]|$)(?:(?!^---(?:[ \n]|$)).)*?^\.\.\.(?=[ \n]|$)", re.MULTILINE | re.DOTALL)
#: A block scalar header without an indentation indicator whose next line is spaces only: ruamel 0.19 refuses a
#: later leading line or first content line indented more ("more indented follow up line than first"), libyaml not.
_BLANK_FIRST = re.compile(r"[|>][-+]?[ ]*(?:#[^\n]*)?\n[ ]+\n")


class _Decline(Exception):
    """The file is outside the subset: read it with ruamel."""


def resolve(value: str) -> str:
    """The core-schema tag (`int`, `str`, ...) ruamel's YAML 1.2 reading gives the plain scalar `value`."""
    for tag, pattern in _BY_FIRST.get(value[:1], ()):
        if pattern.match(value):
            return tag
    return "str"


def _scalar(value: str, plain: bool) -> Any:
    """The plain Python value of a scalar as ruamel's round-trip constructor and `load._scalar` give it."""
    if not plain:
        return value
    tag = resolve(value)
    if tag == "str":
        return value
    if tag == "null":
        return None
    if tag == "bool":
        return value.lower() == "true"
    if tag == "int" and len(value) <= 19 and (m := _INT.fullmatch(value)):
        sign, hexa, octal, binary, decimal = m.groups()
        number = int(hexa, 16) if hexa else int(octal, 8) if octal else int(binary, 2) if binary else int(decimal)
        number = -number if sign == "-" else number
        if -MAX_INT <= number <= MAX_INT:
            return number
    if tag == "float" and "_" not in value:
        text = value.lower()
        sign = -1 if text[0] == "-" else 1
        text = text[1:] if text[0] in "+-" else text
        if text == ".inf":
            return sign * float("inf")
        if text != ".nan":
            return sign * float(text)
    raise _Decline


def documents(text: str, max_nodes: int, max_chars: int) -> list[tuple[dict, dict]] | None:
    """Each non-empty document of `text` as (values, positions) as `load.load_text` builds them; None: use ruamel."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        return None
    if not getattr(yaml, "__with_libyaml__", False) or _DECLINED.search(text) or _ENDS.search(text) \
            or _BLANK_FIRST.search(text):
        return None
    try:
        return _build(yaml.CBaseLoader(text), yaml, max_nodes, max_chars, text.endswith("\n"))
    except (_Decline, yaml.YAMLError):
        return None


def _build(parser: Any, yaml: Any, max_nodes: int, max_chars: int, ends: bool) -> list[tuple[dict, dict]]:
    docs: list[tuple[dict, dict]] = []
    counts = [0, 0]  # entries, characters of string values: `load._Counter`'s, over the whole file
    while (event := parser.get_event()) is not None:
        if isinstance(event, yaml.DocumentStartEvent):
            if event.version or event.tags:
                raise _Decline
            positions: dict[tuple[str | int, ...], tuple[int, int]] = {}
            root = _node(parser, parser.get_event(), yaml, (), positions, counts, 0, (max_nodes, max_chars, ends))
            if root is not None:
                if not isinstance(root, dict):
                    raise _Decline   # ruamel's message: a document must be a mapping
                docs.append((root, positions))
        elif not isinstance(event, yaml.StreamStartEvent | yaml.StreamEndEvent | yaml.DocumentEndEvent):
            raise _Decline
    return docs


def _node(parser: Any, event: Any, yaml: Any, path: tuple, positions: dict, counts: list[int], depth: int,
          limits: tuple[int, int, bool]) -> Any:
    """The value of the node `event` starts, its entries' positions added to `positions` in ruamel's order."""
    if isinstance(event, yaml.AliasEvent) or event.anchor is not None or event.tag is not None \
            or depth >= MAX_DEPTH:
        raise _Decline
    mark = event.start_mark
    if not path:
        positions[()] = (mark.line + 1, mark.column + 1)
    if isinstance(event, yaml.ScalarEvent):
        value = _scalar(event.value, event.implicit[0])
        if isinstance(value, str):
            counts[1] += len(value)
            if counts[1] > limits[1] or NOT_TEXT.search(value):
                raise _Decline
        return value
    if isinstance(event, yaml.SequenceStartEvent):
        items: list[Any] = []
        while not isinstance(item := parser.get_event(), yaml.SequenceEndEvent):
            if isinstance(item, yaml.ScalarEvent) and item.implicit[0] and item.value == "":
                raise _Decline   # an empty item (`- `): where ruamel and libyaml place it is not held equal
            at = path + (len(items),)
            positions[at] = (item.start_mark.line + 1, item.start_mark.column + 1)
            _tick(counts, limits)
            items.append(_node(parser, item, yaml, at, positions, counts, depth + 1, limits))
        return items
    if not isinstance(event, yaml.MappingStartEvent):
        raise _Decline
    out: dict[str, Any] = {}
    while not isinstance(key := parser.get_event(), yaml.MappingEndEvent):
        if not isinstance(key, yaml.ScalarEvent) or key.anchor is not None or key.tag is not None:
            raise _Decline
        name = _scalar(key.value, key.implicit[0])
        if not isinstance(name, str) or name in out or NOT_TEXT.search(name):
            raise _Decline
        value = parser.get_event()
        at, k, v = path + (name,), key.start_mark, value.start_mark
        # `load._pos`: a collection, or an empty value on a later line, at its key; a scalar where it stands. An
        # empty value (`max:`) is where ruamel's next token starts, libyaml's just after the colon: the next event
        # on a later line is at the key in both, anything else (`{max: }`, `max:` ending the file) declined.
        empty = isinstance(value, yaml.ScalarEvent) and value.implicit[0] and value.value == ""
        if empty and (parser.peek_event().start_mark.line <= k.line or not limits[2]):
            raise _Decline   # at the end of a file without a last line break libyaml marks the next line
        on_key = empty or not isinstance(value, yaml.ScalarEvent) or (
            v.line > k.line and value.implicit[0] and resolve(value.value) == "null")
        positions[at] = (k.line + 1, k.column + 1) if on_key else (v.line + 1, v.column + 1)
        _tick(counts, limits)
        out[name] = _node(parser, value, yaml, at, positions, counts, depth + 1, limits)
    return out


def _tick(counts: list[int], limits: tuple[int, int, bool]) -> None:
    counts[0] += 1
    if counts[0] > limits[0]:
        raise _Decline
