"""Regenerate the renderer's golden files from the shipped examples (`make golden`); review them with git diff."""

from __future__ import annotations

import shutil

from tests.render.golden_util import GOLDEN, render_golden
from tests.test_metrics_baseline import write_baseline


def main() -> None:
    """Write tests/render/golden/<target>/<target>.{md,html} (removing goldens of targets that no longer exist) and
    tests/data/check-metrics.json."""
    files = render_golden()
    if GOLDEN.exists():
        shutil.rmtree(GOLDEN)
    for rel, text in sorted(files.items()):
        path = GOLDEN / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(path)
    print(write_baseline())


if __name__ == "__main__":
    main()
