"""Write the expected findings of every failing case in `tests/checks/cases/` (`make golden`; review the diff).

Each expected finding states its subject, line, message (with the customer's words where the check gives them,
`public`), and the value and limit the check compared (SI, as in the
JSON contract), so a case fails when a number or a message moves, not only when the flagged object changes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from tests.checks.test_cases import CASES, findings_of

FIELDS = ("subject", "line", "message", "public", "value", "limit")


def expected(finding) -> CommentedMap:
    """One finding as a case file's `expect` entry."""
    from archgen.quantity_json import to_json
    entry = CommentedMap(subject=finding.object, line=finding.location.line if finding.location else 0,
                         message=finding.message)
    if finding.public:   # the check's customer words (`Violation.public`), where the message is the team's
        entry["public"] = finding.public
    for name in ("value", "limit"):
        q = getattr(finding, name)
        if q is not None:
            m = CommentedMap(to_json(q))
            m.fa.set_flow_style()
            entry[name] = m
    return entry


def main() -> None:
    """Rewrite the `expect` list of every `fail_*` and `info_*` case from what the check finds now."""
    yaml = YAML()
    yaml.width = 4096
    yaml.preserve_quotes = True
    for path in sorted(CASES.glob("*.yml")):
        doc = yaml.load(path.read_text(encoding="utf-8"))
        for case in doc["cases"]:
            if not case["name"].startswith(("fail", "info")):
                continue
            with tempfile.TemporaryDirectory() as tmp:
                got = findings_of(doc["check"], case, Path(tmp))
            case["expect"] = CommentedSeq(expected(f) for f in got)
        with path.open("w", encoding="utf-8") as out:
            yaml.dump(doc, out)
        print(path)


if __name__ == "__main__":
    main()
