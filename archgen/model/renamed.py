"""Spec keys that were renamed: per document kind, the old key path, the new one and the release that moved it.

A rename keeps the old name working, as mkdocs' `Deprecated(moved_to=...)` does for a moved setting
(mkdocs/config/config_options.py): the loader (`archgen.migrate`) moves the value to the new key before the schema
sees it and reports a warning at the old key (SPC003), with the file:line, the old name and the new one; a document
that gives both is an error at the old key. The old name is dropped from this table, and so refused as an unknown
key, no sooner than the release after `since`.

Paths are dotted keys inside the document (`training.overlap_tp_comm`); `*` stands for every item of a list
(`fabrics.*.speed`) and must stand at the same places in the old and the new path. No spec key has been renamed
yet (docs/spec-reference.md across its history adds and removes keys, never moves one), so the table is empty;
tests register renames of their own.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Renamed:
    """One renamed key of a kind: `old` and `new` dotted paths, and the release that renamed it."""

    old: str
    new: str
    since: str

    def __post_init__(self) -> None:
        old, new = self.old.split("."), self.new.split(".")
        if [i for i, p in enumerate(old) if p == "*"] != [i for i, p in enumerate(new) if p == "*"] or old == new:
            raise ValueError(f"rename {self.old!r} -> {self.new!r}: '*' must stand at the same places, and the names "
                             "must differ")


#: Renamed keys by document kind (`archgen.model.KINDS`), oldest first.
RENAMED: dict[str, tuple[Renamed, ...]] = {}
