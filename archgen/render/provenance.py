"""Where a document comes from: the git revision of its spec files and a hash of the validated inputs.

Never the wall-clock time: two renders of the same input give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterable
from pathlib import Path

from archgen.model import Document as SpecDocument


def input_hash(docs: Iterable[SpecDocument]) -> str:
    """SHA-256 (first 12 hex digits) of the validated documents a target uses, independent of file layout.

    Of the fields each document sets (pydantic's ``exclude_unset``), not of the defaults archgen fills in, so a field
    a release adds with a default leaves every digest as it was, and a partner comparing two deliveries' digests sees
    a change only where the specs changed (newuser87).
    """
    h = hashlib.sha256()
    for doc in sorted(docs, key=lambda d: (type(d).__name__, d.id)):
        h.update(type(doc).__name__.encode())
        h.update(json.dumps(doc.model_dump(mode="json", by_alias=True, exclude_unset=True), sort_keys=True).encode())
    return h.hexdigest()[:12]


def git_revision(files: Iterable[str | Path]) -> str:
    """The last commit that changed any of `files` (``+uncommitted`` when one differs from it), or ''.

    Commits that touch other files do not change it, so documents only change when their inputs do.

    Returns '' when git or a repository is not available.
    """
    paths = [Path(f).resolve() for f in files]
    if not paths:
        return ""
    cwd = paths[0].parent
    try:
        head = subprocess.run(["git", "log", "-1", "--format=%h", "--abbrev=12", "--", *map(str, paths)], cwd=cwd,
                              capture_output=True, text=True, timeout=10, check=False)
        if head.returncode != 0:
            return ""
        status = subprocess.run(["git", "status", "--porcelain", "--", *map(str, paths)], cwd=cwd,
                                capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    rev = head.stdout.strip()
    if not rev:
        return "uncommitted"
    return f"{rev}+uncommitted" if status.stdout.strip() else rev
