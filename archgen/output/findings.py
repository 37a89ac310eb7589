"""`archgen check`: findings and metrics as text, JSON, SARIF, JUnit and GitHub annotations (pure functions)."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from archgen import __version__, checks
from archgen.checks import RESERVED, RESERVED_SEVERITY, Finding
from archgen.checks.cascade import CAUSES, cause_of
from archgen.errors import Location, SpecProblem
from archgen.load import packaged, shown
from archgen.output.capped import SARIF_RESULTS, Key, capped, more_text
from archgen.output.envelope import document, dumps, finding, metric_quantity, with_old_names
from archgen.path_links import climbs_out
from archgen.units import Q

if TYPE_CHECKING:
    from archgen.perf.workload.bands import Band

FORMATS = ("text", "json", "sarif", "junit", "github")


def problem_findings(problems: Iterable[SpecProblem], check_id: str) -> list[Finding]:
    """Schema/unit problems (or unreadable files) as findings, so every output format can carry them."""
    out = []
    for p in problems:
        path = p.shown_path                          # a key quoted as an excerpt, as the message quotes it
        out.append(Finding(check_id, "error", path, p.location, p.text, RESERVED[check_id], p.hint, key=path))
    return out


def summary(findings: list[Finding], ran: Collection[str] | None = None) -> dict:
    """Counts of the findings (`checks.tally`) and of the checks that ran (default: all) with no failing one.

    Errors, warnings and info are the unwaived findings of each severity; `waived` counts the waived ones of any
    severity; `passed`, the checks with no unwaived error or warning.
    """
    failing = {f.id for f in findings if not f.waived and f.severity in ("error", "warning")}
    ids = set(checks.REGISTRY if ran is None else ran)
    t = checks.tally(findings)
    return {"errors": t["errors"], "warnings": t["warnings"], "info": t["info"], "passed": len(ids - failing),
            "waived": t["waived"]}


def text(findings: list[Finding], *, show_waived: bool = False, as_of: object = None) -> str:
    """flake8-style lines: ``file:line:col: severity: ID object: message``.

    `as_of`: the date waivers' `expires` was judged on (`as_of.AsOf`), named on the summary line; None where
    no waiver states `expires`, and then no date is printed.

    A finding that follows from a cause (`caused_by`: a REF finding, an infeasible fabric's error) is folded under it:
    printed after it, indented, with no line of its own in the file order, under the first finding of its cause only
    (a reference typed on two lines is two findings of one cause; newuser102 read each follower five times); a cause
    with such followers comes first (docs/checks.md, "Error cascades"). At most `capped.PER_FILE` findings of one file
    and check are printed, then a line with the count of the rest; the summary line counts them all.
    """
    shown_ = [f for f in _shown(findings) if show_waived or not f.waived]
    causes = {cause_of(f) for f in shown_ if f.id in CAUSES}
    under: dict[str, list[Finding]] = {}
    for f in shown_:
        if f.caused_by in causes:
            under.setdefault(f.caused_by, []).append(f)
    first = [f for f in shown_ if f.id in CAUSES and cause_of(f) in under]  # a typo with a cascade leads
    entries = []
    for f in first + [f for f in shown_ if f.caused_by not in causes and not any(f is c for c in first)]:
        entries.append((_key(f), _line(f)))   # a reference typed twice (two lines, one cause): its cascade once
        entries += [(_key(g), "    " + _line(g).replace("\n", "\n    "))   # its hint too, under it
                    for g in (under.pop(cause_of(f), []) if f.id in CAUSES else [])]
    lines = capped(entries, more_text)
    s = summary(findings)
    judged = f" (waivers judged as of {as_of})" if as_of is not None else ""
    lines.append(f"{s['errors']} error(s), {s['warnings']} warning(s), {s['info']} info, {s['waived']} waived{judged}")
    return "\n".join(lines) + "\n"


def _key(f: Finding) -> Key:
    """What `capped` counts a finding under: its file (as shown) and its check id."""
    return (f.location.file if f.location else "", f.id)


def _line(f: Finding) -> str:
    where = f"{f.location}: " if f.location else ""
    tag = f" (waived: {f.waived.strip()})" if f.waived else ""
    hint = f"\n  hint: {_own_hint(f)}" if _own_hint(f) else ""   # as a located error prints it (`SpecProblem`)
    return f"{where}{f.severity}: {f.id}{' ' if _named(f) else ': '}{said(f)}{tag}{hint}"


def said(f: Finding) -> str:
    """A finding's object and message as one text: ``rack/r: message``.

    Without an object (a file-level problem: a link out of the tree) the message alone, never ``: message``; a spec
    problem's message already starts with its field path, which is its object (``id: duplicate id 'r'``), so the
    path is not said twice.
    """
    return f"{f.object}: {f.message}" if _named(f) else f.message


def told(f: Finding) -> str:
    """`said` with the finding's own hint (`_own_hint`) on a line of its own (``hint: ...``), where it has one.

    SARIF and GitHub's annotations carry only a message: without it a CI's reader of an unknown key or a renamed
    metric saw what is wrong and not the allowed keys or the new name, which JSON gives.
    """
    return f"{said(f)}\nhint: {_own_hint(f)}" if _own_hint(f) else said(f)


def _own_hint(f: Finding) -> str:
    """The hint of a finding of a reserved ID (SPC000 to SPC006), else ''.

    A reserved ID's hint is the problem's own (the allowed keys, a renamed metric's new name); a registered check's
    is its rule's Fix, which SARIF gives as the rule's `help` and docs/checks.md under the check, so it is not
    repeated on each finding.
    """
    return "" if f.id in checks.REGISTRY else f.hint


def _named(f: Finding) -> bool:
    """Whether `said` puts the object before the message (there is one, and the message does not start with it)."""
    return bool(f.object) and not f.message.startswith(f"{f.object}: ")


def to_json(findings: list[Finding], metrics: dict[str, dict[str, Q]], ran: Collection[str] | None = None,
            bands: Mapping[str, Mapping[str, Band]] | None = None, requirements: Sequence[dict] = ()) -> str:
    """The `check --format json` contract.

    `bands` adds each estimated workload metric's error band (`output.estimate.band_json`), by object path;
    `requirements` is the compliance matrix, a row per requirement and object (`output.matrix.rows`).
    """
    from archgen.output.estimate import band_json  # the performance model's types: not for `archgen validate`
    return dumps(document(
        summary=summary(findings, ran),
        findings=[finding(f, absolute=True) for f in findings],
        requirements=list(requirements),
        metrics={subject: with_old_names({k: metric_quantity(k, v) for k, v in sorted(m.items())})
                 for subject, m in sorted(metrics.items())},
        bands={subject: with_old_names({k: band_json(b, metrics[subject][k], metrics[subject], k)
                                        for k, b in sorted(m.items())})
               for subject, m in sorted((bands or {}).items()) if m},
    ))


_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_PRIORITY = {"error": 0, "warning": 1, "info": 2}

#: The SARIF `uriBaseId` of a file of the catalog installed with archgen (`spec_files.packaged`): its `uri` is the path
#: inside the catalog (``systems/dgx-h100.yaml``), which the text and JSON reports show as ``catalog/<path>``.
CATALOG_BASE = "ARCHGEN_CATALOG"
_CATALOG_BASE_TEXT = ("The parts catalog shipped with archgen: the directory archgen/catalog of the installed "
                      "package (specs/catalog in archgen's repository).")


def in_repository(file: str) -> str:
    """A spec file as SARIF's ``%SRCROOT%`` and GitHub's annotations resolve it: relative to the repository's root.

    `file` is relative to the working directory (`spec_files.shown_file`). Where that directory lies below the root of
    the git work tree holding it (a job with ``working-directory: infra`` in a monorepo, or ``check ..`` from
    ``specs/racks``), the file is named from that root (``infra/specs/r.yaml``, not ``specs/r.yaml`` or
    ``../r.yaml``, which code scanning and annotations cannot place). Outside a work tree, or for a file outside
    it, `file` is returned as it is (`artifact_location` gives SARIF such a file as an absolute URI).
    """
    if Path(file).is_absolute():
        return file
    try:
        cwd = Path.cwd()
    except OSError:                               # the working directory was removed
        return file
    top = next((d for d in (cwd, *cwd.parents) if (d / ".git").exists()), None)
    if top is None or top == cwd:
        return file
    inside = os.path.relpath(os.path.normpath(cwd / file), top)
    return file if climbs_out(inside) else Path(inside).as_posix()


def artifact_location(file: str) -> dict[str, str]:
    """A spec file's SARIF ``artifactLocation`` (`file` as `in_repository` names it), as SARIF 2.1.0 allows it.

    A file under the repository's root (or, outside a work tree, the working directory) is a relative reference under
    ``%SRCROOT%``, percent-encoded (RFC 3986). Any other (``check /tmp/x``) is an absolute ``file://`` URI with no
    ``uriBaseId``: section 3.4.4 resolves a ``uri`` against its base only when it is a relative reference, and the
    SARIF SDK's validator refuses a base beside an absolute one (rule SARIF1004, UriBaseIdRequiresRelativeUri,
    microsoft/sarif-sdk commit a1e0f26); ``%SRCROOT%`` with ``../../../tmp/x/r.yaml`` named no file of the repository
    and said where the working directory was. GitHub code scanning cannot place such a file in either form.
    """
    if Path(file).is_absolute() or climbs_out(file):
        try:
            return {"uri": Path(os.path.abspath(file)).as_uri()}
        except OSError:                           # the working directory was removed: no absolute path to give
            pass
    return {"uri": quote(file), "uriBaseId": "%SRCROOT%"}


#: The `partialFingerprints` key of archgen's fingerprint (SARIF 2.1.0 3.27.17: a version in the name, so that a
#: consumer never compares fingerprints made two ways). v1 hashed file, check and object only, which two findings of
#: one check on one object share (REQ001 on two requirements of one rack; NET025 on two keys of one fabric).
FINGERPRINT = "archgenFinding/v2"
_NUMBER = re.compile(r"[0-9][0-9.,]*")


def _sarif_location(at: Location | None) -> Location | None:
    """A location as SARIF names it: shown, and named from the repository's root (`in_repository`)."""
    loc = shown(at, absolute=True)
    if loc and at and packaged(at.file) is None:
        loc = replace(loc, file=in_repository(loc.file))
    return loc


def _physical(at: Location | None) -> dict[str, Any] | None:
    """A SARIF physicalLocation (3.29); a file of the installed catalog under `CATALOG_BASE` (RFC 3986 quoted)."""
    loc = _sarif_location(at)
    if not at or not loc:
        return None
    region = {"startLine": max(loc.line, 1), **({"startColumn": loc.column} if loc.column else {})}
    inside = packaged(at.file)
    return {"artifactLocation": {"uri": quote(inside), "uriBaseId": CATALOG_BASE} if inside is not None
            else artifact_location(loc.file), "region": region}


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    """Each finding's SARIF partial fingerprint (`FINGERPRINT`): unique in the report, equal on a rerun.

    A hash of what identifies the finding and no edit elsewhere moves: its file, check, object, requirement and key
    path (`Finding.key`, list items named by id), never its line or its numbers. Findings that still agree on all of
    those (two problems of one field) are told apart by their rank among themselves, ordered by their message with
    its numbers left out, then by position, so that the common case depends on no other finding.
    """
    def base(f: Finding) -> str:
        loc = _sarif_location(f.location)
        return "|".join((loc.file if loc else "", f.id, f.object, f.requirement, f.key))

    bases = [base(f) for f in findings]
    rank = [0] * len(findings)
    groups: dict[str, list[int]] = {}
    for i, b in enumerate(bases):
        groups.setdefault(b, []).append(i)
    for same in groups.values():
        order = sorted(same, key=lambda i: (_NUMBER.sub("#", findings[i].message), findings[i].location or Location(""),
                                            findings[i].message))
        for n, i in enumerate(order):
            rank[i] = n
    keyed = (b if not n else f"{b}|{n}" for b, n in zip(bases, rank, strict=True))
    return [hashlib.sha256(k.encode()).hexdigest()[:32] for k in keyed]


#: The characters of SARIF 2.1.0's link syntax in a plain-text message (section 3.11.6): backslash and brackets.
_SARIF_LINK_CHARS = re.compile(r"([\\\[\]])")


def sarif_text(text: str) -> str:
    r"""`text` as a SARIF plain-text message in which no spec text is a link: ``\``, ``[`` and ``]`` escaped.

    SARIF 2.1.0 Plus Errata 01 (OASIS, 2023; section 3.11.6 "Messages with embedded links",
    https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/sarif-v2.1.0-errata01-os.html) reads
    ``"[" link text "](" destination ")"`` in a plain-text message as a link to any URI; in its grammar a backslash
    escapes ``\``, ``[`` and ``]``. A requirement's ``statement: "[details](https://evil.example)"`` quoted in a
    finding was a link (newuser77). Escaped everywhere, as CodeQL writes its messages and its viewer reads them back
    (github/vscode-codeql, extensions/ql-vscode/src/common/sarif-utils.ts at 6741f0c: `parseSarifPlainTextMessage`
    takes a link only at a ``[`` not escaped, `unescapeSarifText` shows the rest as written), no link can start.
    """
    return _SARIF_LINK_CHARS.sub(r"\\\1", text)


def sarif(findings: list[Finding]) -> str:
    """SARIF 2.1.0 for GitHub code scanning, with stable partial fingerprints (`fingerprints`).

    A waived finding is a result with a suppression (3.27.23, 3.35): kind ``inSource`` (the waiver is written in
    the spec file) and the waiver's reason as its justification, so that a reviewer sees what is waived and why.
    At most `capped.SARIF_RESULTS` results, unwaived errors first (GitHub rejects a run of more); the run's
    properties then state how many are not listed.
    """
    rules = [{"id": c.id, "name": c.name, "shortDescription": {"text": c.summary}, "help": {"text": c.fix},
              "defaultConfiguration": {"level": _SARIF_LEVEL[c.severity]}} for c in sorted(checks.REGISTRY.values(),
                                                                                         key=lambda c: c.id)]
    rules += [{"id": k, "name": k.lower(), "shortDescription": {"text": v},
               "defaultConfiguration": {"level": RESERVED_SEVERITY[k]}} for k, v in sorted(RESERVED.items())]
    results = []
    prints, packaged_used = fingerprints(findings), False
    first = sorted(range(len(findings)), key=lambda i: (bool(findings[i].waived), _PRIORITY[findings[i].severity]))
    kept = sorted(first[:SARIF_RESULTS])          # GitHub rejects a run of more: errors first, the waived last
    for f, print_ in ((findings[i], prints[i]) for i in kept):
        r: dict[str, Any] = {"ruleId": f.id, "level": _SARIF_LEVEL[f.severity],
                             "message": {"text": sarif_text(told(f))}, "partialFingerprints": {FINGERPRINT: print_}}
        judged = f.judged if f.judged and f.location and f.judged.file != f.location.file else None
        lead = judged is not None and f.value is not None and packaged(judged.file) is None   # its file first: README
        main, beside = map(_physical, (judged, f.location) if lead else (f.location, judged))
        if main:
            r["locations"] = [{"physicalLocation": main}]
            r |= {"relatedLocations": [{"id": 1, "physicalLocation": beside}]} if beside else {}
        packaged_used |= any(p["artifactLocation"].get("uriBaseId") == CATALOG_BASE for p in (main, beside) if p)
        if f.waived:
            r["suppressions"] = [{"kind": "inSource", "justification": f.waived.strip()}]
        if f.caused_by:                           # SARIF 3.8: a property bag for what the format has no field for
            r["properties"] = {"causedBy": f.caused_by}
        results.append(r)
    run: dict[str, Any] = {"tool": {"driver": {"name": "archgen", "version": __version__, "rules": rules}}}
    if packaged_used:                             # SARIF 3.14.14: no uri (no machine path), only what it names
        run["originalUriBaseIds"] = {CATALOG_BASE: {"description": {"text": _CATALOG_BASE_TEXT}}}
    run["results"] = results
    if len(kept) < len(findings):                 # SARIF 3.8: a property bag, so that the count is not lost
        run["properties"] = {"resultsTotal": len(findings), "resultsNotListed": len(findings) - len(kept),
                             "resultsNotListedNote": f"at most {SARIF_RESULTS:,} results are listed (GitHub code "
                                                     "scanning's limit per run); archgen check --format json lists "
                                                     "every finding"}
    doc = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
    return dumps(doc)


#: Characters XML 1.0 cannot carry, even escaped (section 2.2: Char is tab, line ends, x20-xD7FF, xE000-xFFFD,
#: x10000-x10FFFF), written as the ranges between (the negated class compiled in about 5 ms at every `check`, this in
#: under 1 ms, as `yaml_guard.NOT_YAML`; `tests/output/test_not_xml.py` holds the two equal).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def junit(findings: list[Finding], ran: Collection[str] | None = None) -> str:
    """JUnit XML: one test case per check that ran (default: all); a check with error findings fails."""
    from xml.sax.saxutils import escape, quoteattr  # here: it imports urllib, http and ssl (~12 ms, issue 25)
    cases = []
    by_id: dict[str, list[Finding]] = {}
    for f in _shown(findings):
        if not f.waived:
            by_id.setdefault(f.id, []).append(f)
    ids = sorted(set(checks.REGISTRY if ran is None else ran) | set(by_id))
    failures = 0
    for cid in ids:
        fs = by_id.get(cid, [])
        errs = [f for f in fs if f.severity == "error"]
        body = _NOT_XML.sub("\ufffd", "\n".join(f"{f'{f.location}: ' if f.location else ''}{f.severity}: {told(f)}"
                                                for f in fs))  # a file name may hold what XML 1.0 cannot
        if errs:
            failures += 1
            cases.append(f'  <testcase classname="archgen" name={quoteattr(cid)}><failure message='
                         f'{quoteattr(f"{len(errs)} error(s)")}>{escape(body)}</failure></testcase>')
        elif fs:
            cases.append(f'  <testcase classname="archgen" name={quoteattr(cid)}><system-out>{escape(body)}'
                         f'</system-out></testcase>')
        else:
            cases.append(f'  <testcase classname="archgen" name={quoteattr(cid)}/>')
    head = f'<testsuite name="archgen check" tests="{len(ids)}" failures="{failures}" errors="0">'
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + head + "\n" + "\n".join(cases) + "\n</testsuite>\n"


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands that annotate the pull request diff.

    A finding in the catalog installed with archgen (`spec_files.packaged`) is in no file of the repository, so its
    annotation names no file (GitHub lists it with the run) and its message starts with ``catalog/<path>:line:col``.
    At most `capped.PER_FILE` annotations of one file and check, then a notice with the count of the rest.
    """
    level = {"error": "error", "warning": "warning", "info": "notice"}
    entries = []
    files: dict[Key, str] = {}                    # each key's file property ("" for none), for its notice
    for f in findings:
        if f.waived:
            continue
        props, where = [f"title={_gh_escape(f.id, True)}"], ""
        loc = shown(f.location)
        key = (loc.file if loc else "", f.id)
        files[key] = ""
        if f.location and loc and packaged(f.location.file) is not None:
            where = f"{loc}: "                    # not a file of the repository: named in the message instead
        elif loc:
            at = [f"line={loc.line}", f"col={loc.column}"] if loc.line else []   # line 0: the file as a whole
            files[key] = f"file={_gh_escape(in_repository(loc.file), True)},"
            props = [files[key][:-1], *at, *props]
        entries.append((key, f"::{level[f.severity]} {','.join(props)}::{_gh_escape(where + told(f))}"))
    lines = capped(entries, lambda key, left: f"::notice {files[key]}title={_gh_escape(key[1], True)}::"
                                              f"{_gh_escape(more_text(key, left, not files[key]))}")
    return "\n".join(lines) + ("\n" if lines else "")


def _shown(findings: list[Finding]) -> list[Finding]:
    """The findings with their files as `check`'s reports show them (`spec_files.shown_file`, `absolute`)."""
    return [replace(f, location=shown(f.location, absolute=True)) for f in findings]


def render(fmt: str, findings: list[Finding], metrics: dict[str, dict[str, Q]],
           ran: Collection[str] | None = None, bands: Mapping[str, Mapping[str, Band]] | None = None,
           requirements: Sequence[dict] = ()) -> str:
    """Findings in one of `FORMATS`; `ran` names the checks that ran (default: all), for the pass counts.

    JSON also carries the metrics, their error `bands` and the requirements compliance matrix.
    """
    if fmt == "json":
        return to_json(findings, metrics, ran, bands, requirements)
    if fmt == "junit":
        return junit(findings, ran)
    if fmt == "text":
        return text(findings)
    return sarif(findings) if fmt == "sarif" else github(findings)
