"""A numeric sweep axis written as a range, `{from:, to:, step:}` or `{from:, to:, count:, scale:}` (newuser40).

A 10^5-point grid needed an 833-value list from a script, and a 150,000-value axis (1.3 MB of YAML) took 23 s and
279 MB to be refused for `max_points`. A range is one line, checked with located errors, and a product past
`max_points` is refused from the ranges' sizes before any level is made (`model.sweep_ranges`).
"""

from __future__ import annotations

import pytest

from archgen.model import sweep_ranges
from archgen.model.sweep import Sweep
from archgen.model.sweep_ranges import RangeError, expand, size

HEAD = "kind: Sweep\nid: s\nworkload: llama3-70b-pretrain-b200\nobjectives: [{metric: tokens_per_second}]\naxes:\n"


def _sweep(axes: dict, **more) -> Sweep:
    return Sweep.model_validate({"kind": "Sweep", "id": "s", "workload": "w", "axes": axes,
                                 "objectives": [{"metric": "tokens_per_second"}], **more})


def test_ranges_make_the_lists_they_stand_for():
    """Step: from, from + step, ... up to `to` (0.5 + 3 x 0.05 is 0.65, as a list writes it); count: evenly spaced or,
    with scale log, in equal ratios (128 x 2^k); whole-number axes get whole numbers."""
    s = _sweep({"accelerators": {"from": 128, "to": 1024, "count": 4, "scale": "log"},
                "hbm_bandwidth": {"from": 0.5, "to": 1.0, "step": 0.05},
                "seq_len": {"from": 1024, "to": 16384, "step": 1024},
                "utilisation": {"from": 0.5, "to": 1, "count": 3}})
    given = s.axes.given()
    assert given["accelerators"] == [128, 256, 512, 1024] and all(type(v) is int for v in given["accelerators"])
    assert given["hbm_bandwidth"] == [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]
    assert given["seq_len"] == [1024 * k for k in range(1, 17)]
    assert given["utilisation"] == [0.5, 0.75, 1.0]
    assert list(given) == ["accelerators", "hbm_bandwidth", "seq_len", "utilisation"]   # the order written


@pytest.mark.parametrize(("spec", "words"), [
    ({"from": 1, "to": 2, "stp": 1}, "unknown range key(s) stp"),
    ({"to": 2, "step": 1}, "range needs 'from'"),
    ({"from": 1, "to": 2}, "either 'step' or 'count'"),
    ({"from": 1, "to": 2, "step": 1, "count": 2}, "either 'step' or 'count'"),
    ({"from": 2, "to": 1, "step": 1}, "'to' (1) is below 'from' (2)"),
    ({"from": 1, "to": 2, "step": 0}, "'step' must be positive"),
    ({"from": 1, "to": 2, "count": 0}, "'count' must be a whole number of at least 1"),
    ({"from": 0, "to": 2, "count": 3, "scale": "log"}, "a log range needs a positive 'from'"),
    ({"from": 1, "to": 2, "count": 3, "scale": "cubic"}, "'scale' must be linear or log"),
    ({"from": "1", "to": 2, "step": 1}, "range 'from' must be a number"),
    ({"from": 1, "to": 2e6, "step": 1}, "range makes 2,000,000 levels"),
])
def test_a_range_that_cannot_make_levels_says_why(spec, words):
    with pytest.raises(RangeError, match=None) as caught:
        size(spec)
    assert words in str(caught.value)


def test_a_whole_number_axis_refuses_a_range_that_misses_whole_numbers():
    with pytest.raises(RangeError, match="range level 2 is 203.187, not a whole number"):
        expand({"from": 128, "to": 512, "count": 4, "scale": "log"}, whole=True)


def test_range_errors_stand_at_their_axis_line(tmp_path, cli):
    """Each axis's error at its own line, all in one run; a range on an axis of names is refused."""
    (tmp_path / "s.yaml").write_text(HEAD + "  accelerators: {from: 128, to: 512, count: 4, scale: log}\n"
                                     "  precision: {from: 1, to: 2, step: 1}\n"
                                     "  hbm_bandwidth: {from: 0.5, to: 1.0, stp: 0.05}\n", encoding="utf-8")
    r = cli("validate", str(tmp_path))
    assert r.code == 1
    assert "s.yaml:6:3: error: axes.accelerators: axis 'accelerators' range level 2 is 203.187, not a whole number" \
        in r.err
    assert "s.yaml:7:3: error: axes.precision: axis 'precision' takes a list, not a range" in r.err
    assert "s.yaml:8:3: error: axes.hbm_bandwidth: axis 'hbm_bandwidth' unknown range key(s) stp" in r.err


def test_a_product_past_max_points_is_refused_before_any_level_is_made(tmp_path, cli, monkeypatch):
    """2 counts x 150,000 bandwidth levels: refused from the ranges' sizes, as a list of them would be, unexpanded."""
    def never(*_):
        raise AssertionError("a range was expanded")
    monkeypatch.setattr(sweep_ranges, "expand", never)
    monkeypatch.setattr("archgen.model.sweep_axes.expand", never)
    (tmp_path / "s.yaml").write_text(HEAD + "  accelerators: [256, 512]\n"
                                     "  hbm_bandwidth: {from: 0.00005, to: 7.5, step: 0.00005}\n", encoding="utf-8")
    r = cli("validate", str(tmp_path))
    assert r.code == 1 and ("s.yaml:5:1: error: axes: the axes make 300,000 points (2 accelerators x 150000 "
                            "hbm_bandwidth), more than max_points (100,000); shorten an axis or raise max_points") \
        in r.err, r.err
