"""The floor plan shows a multi-rack scale-up domain's racks and its trunk cables (newuser59 open item 4).

Before, `floor.svg` of a GB200 NVL36x2 pod drew its racks as any others: which racks form a domain and the trunk
runs between them were in no drawing (`grep -c trunk floor.svg` = 0).

Example: the NVL36x2 pod of `tests.analyse.test_scale_up_racks` (two racks of 36 GPUs and 9 switch trays each, one
72-GPU domain; its switch tray and trunk cable are test parts: no public NVL36 tray or trunk-cable figures exist), on
newuser59's floor (`tests.analyse.test_trunk_paths.FLOOR`), with a 10 m trunk so no run is refused. Expected counts
follow the model's formula (`analyse.scale_up_racks`): per pair of racks ⌈36 × 900 GB/s / 400 Gbit/s⌉ = 648 trunk
links, one link a cable (the test cable's 2 lanes at 400 Gbit/s carry one link), so 648 cables a pair. Text is drawn
as paths in the SVG, so the SVG is read by its element ids (`gid`), and the figure by its artists.
"""

from __future__ import annotations

import math

import pytest

from archgen.render import diagrams, floor_domains
from archgen.render.cluster import architecture
from archgen.render.cluster_diagrams import floor_plan
from tests.analyse.test_scale_up_racks import _text
from tests.analyse.test_trunk_paths import FLOOR
from tests.conftest import run_specs

#: Cables per pair of racks: a rack's 36 GPUs x 1.8 TB/s / 2 per direction over 400 Gbit/s links, one a cable.
PER_PAIR = math.ceil(36 * 900e9 * 8 / 400e9)


def _pod(tmp_path, *, racks: int = 4, per_row: int = 10, side: bool = True):
    """`racks` NVL36 racks (racks / 2 domains) on newuser59's floor, `per_row` racks a row."""
    text = _text(racks=racks, per_row=per_row, reach="10 m")
    head, _, rest = text.partition("floor: {")
    text = head + FLOOR.replace("PER_ROW", str(per_row)).replace("SIDE", ", side_by_side: true" if side else "") \
        + rest[rest.index("}") + 1:]
    r = run_specs(tmp_path, {"c.yaml": text})
    assert [f.message for f in r.findings if f.severity == "error"] == []
    return r.clusters["cluster/pod"]


def _svg(a) -> str:
    return diagrams.render("floor", lambda: floor_plan(a), ("svg",))["svg"].decode()


def test_side_by_side_domains_are_outlined_with_their_trunk_count(tmp_path) -> None:
    """Four racks in one row, side_by_side: two domains (D1: racks 1-2, D2: racks 3-4), each pair's 648 cables
    drawn straight across (solid), none via the tray."""
    assert PER_PAIR == 648
    a = _pod(tmp_path)
    svg = _svg(a)
    assert 'id="floor-scale-up-domains"' in svg
    assert 'id="floor-domain-D1-1"' in svg and 'id="floor-domain-D2-1"' in svg
    assert 'id="floor-trunks-straight"' in svg and "floor-trunks-via-tray" not in svg
    assert f'id="floor-trunk-nvl36-01-nvl36-02-{PER_PAIR}-cables"' in svg
    assert f'id="floor-trunk-nvl36-03-nvl36-04-{PER_PAIR}-cables"' in svg
    ax = floor_plan(a).axes[0]
    assert [t.get_text() for t in ax.texts].count(f"{PER_PAIR}") == 2
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[1:] == ["scale-up domain of 2 racks (D1-D2)", f"trunk cables straight across ({PER_PAIR} a pair)"]
    assert svg == _svg(a)   # deterministic


def test_without_a_side_path_the_trunks_go_via_the_tray_and_the_caption_says_so(tmp_path) -> None:
    """No side_by_side: each pair's cables go up to the tray and down (dashed), 2 x 1.5 + 0.6 + 2 = 5.6 m; the
    figure's caption, and its text alternative in every format (`alt_text.floor`), name the domains, the path and
    the count."""
    a = _pod(tmp_path, side=False)
    svg = _svg(a)
    assert 'id="floor-trunks-via-tray"' in svg and "floor-trunks-straight" not in svg
    (fig,) = [b for b in architecture(a).blocks if getattr(b, "id", "") == "fig-floor"]
    assert ("; 2 scale-up domains of 2 racks, each outlined in black and labelled D1 and D2 "
            "(D1: nvl36-01, nvl36-02; D2: nvl36-03, nvl36-04)") in fig.caption
    assert (f"2 pairs via the overhead tray (dashed line), {PER_PAIR} cables a pair; longest trunk run "
            f"{2 * 1.5 + 0.6 + 2:.2f} m") in fig.caption
    assert floor_domains.domain_words(a) in fig.caption and floor_domains.domain_words(a) in fig.alt


def test_a_domain_across_two_rows_takes_both_paths(tmp_path) -> None:
    """Three racks a row: D1 (racks 1-2) are neighbours, straight across; D2 (rack 3 at the row's end, rack 4 in
    the next row) goes via the tray, across the aisle, and is outlined in two parts, each labelled D2."""
    a = _pod(tmp_path, per_row=3)
    svg = _svg(a)
    assert 'id="floor-trunks-straight"' in svg and 'id="floor-trunks-via-tray"' in svg
    assert 'id="floor-domain-D2-1"' in svg and 'id="floor-domain-D2-2"' in svg
    (fig,) = [b for b in architecture(a).blocks if getattr(b, "id", "") == "fig-floor"]
    assert "1 pair straight across between neighbours (floor.side_by_side; solid line)" in fig.caption
    assert "1 pair via the overhead tray (dashed line)" in fig.caption
    # the longest run crosses the rows: 2 x 1.5 m drops + 1.2 m along the row + 3.6 m across + 2 m slack
    assert f"longest trunk run {2 * 1.5 + 1.2 + 3.6 + 2:.2f} m" in fig.caption


@pytest.mark.parametrize("cluster", ["gb200-nvl72-su"])
def test_one_rack_domains_draw_and_say_nothing_new(shipped_run, cluster) -> None:
    """A one-rack domain (the shipped NVL72 SU): no outline, no trunk, caption as before (the goldens hold it)."""
    a = shipped_run.clusters[f"cluster/{cluster}"]
    assert "floor-" not in _svg(a)
    (fig,) = [b for b in architecture(a).blocks if getattr(b, "id", "") == "fig-floor"]
    assert "scale-up domain" not in fig.caption
