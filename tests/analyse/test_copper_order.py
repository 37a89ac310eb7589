"""cab29: two copper assemblies of one tier, listed in either order, give a run the same part: the one sold at its length.

NVIDIA's twin-port DAC (MCP4Y10) is sold 0.5-2 m, passive (0.1 W an end in the catalog); its linear active copper
cable (LACC) "extends the reach to 3, 4, and 5-meters" at 1.5 W an end (LinkX 100G-PAM4 product line overview,
https://docs.nvidia.com/networking/display/400g100gpam4ovpub/linkx-100g-pam4-product-line-overview;
catalog links/dac-800g-osfp.yaml, acc-800g-osfp.yaml). The LACC continues the DAC past its lengths; it is no
alternative to it at 1 m. On main a tier listing `[acc-800g-osfp, dac-800g-osfp]` gave a 1 m run the 3 m LACC (the
first option that reaches, ordered at its shortest length sold), and `[dac, acc]` a 1 m DAC: the part hung on the
list's order. Now a copper option is pulled at a run only where no copper option of the list is sold nearer the
run's length (the least slack, the first listed among equals); the order still ranks copper against fibre, and
fibre against fibre (docs/clusters.md, Media choice).
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from archgen.analyse.cabling import media_choice
from archgen.analyse.copper_choice import cable_power, copper_rivals
from archgen.build import LinkOption
from archgen.model.network import Link
from tests.conftest import SPECS


def _option(part: str) -> LinkOption:
    data = yaml.safe_load((SPECS / "catalog" / "links" / f"{part}.yaml").read_text(encoding="utf-8"))
    link = Link.model_validate(data)
    return LinkOption(link, link, ("test",))


#: Runs (m): below the DAC's 0.5 m, within its 0.5-2 m, between the DAC's 2 m and the LACC's 3 m, within the LACC's
#: 3-5 m, past both (the SR8's 50 m), and past every reach (the longest-reach option, CAB001).
RUNS = np.array([0.3, 1.0, 2.5, 4.0, 20.0, 80.0])
#: The part each run takes, whatever the copper options' order.
EXPECTED = ["dac-800g-osfp", "dac-800g-osfp", "acc-800g-osfp", "acc-800g-osfp", "mmf-800g-sr8", "mmf-800g-sr8"]


@pytest.mark.parametrize("order", [("dac-800g-osfp", "acc-800g-osfp", "mmf-800g-sr8"),
                                   ("acc-800g-osfp", "dac-800g-osfp", "mmf-800g-sr8"),
                                   ("acc-800g-osfp", "mmf-800g-sr8", "dac-800g-osfp")])
def test_copper_choice_does_not_hang_on_the_order(order: tuple[str, ...]) -> None:
    """A 1 m run takes the DAC (was the 3 m LACC with `[acc, dac]`), a 2.5 m run the LACC at 3 m, in every order."""
    options = tuple(_option(p) for p in order)
    choice = media_choice(RUNS, options)
    assert [options[i].label for i in choice] == EXPECTED


def test_the_order_still_ranks_fibre_before_copper_when_so_listed() -> None:
    """An optical option listed first is the stated preference: a 1 m run takes it, copper only past its reach."""
    options = (_option("mmf-800g-sr8"), _option("acc-800g-osfp"), _option("dac-800g-osfp"))
    assert [options[i].label for i in media_choice(RUNS, options)] == ["mmf-800g-sr8"] * 6


#: An AEC class part sold 2-7 m at 12 W an end (catalog aec-800g-osfp, unconfirmed) and the DAC sold 0.5-2 m at
#: < 0.1 W an end: both are sold at a 2.0 m run, with no cable past it. net30: the list's order gave it the first
#: listed (the AEC with `[aec, dac]`, 24 W a cable); now the one drawing less, the DAC (0.2 W), in either order.
@pytest.mark.parametrize("order", [("aec-800g-osfp", "dac-800g-osfp"), ("dac-800g-osfp", "aec-800g-osfp")])
def test_both_sold_at_the_length_the_lower_power_one(order: tuple[str, ...]) -> None:
    options = tuple(_option(p) for p in order)
    runs = np.array([1.0, 2.0, 2.5])
    assert [options[i].label for i in media_choice(runs, options)] == ["dac-800g-osfp", "dac-800g-osfp",
                                                                         "aec-800g-osfp"]
    rivals = copper_rivals(runs, media_choice(runs, options), options)
    assert [(options[i].label, options[j].label, list(m)) for i, j, m in rivals] == [
        ("dac-800g-osfp", "aec-800g-osfp", [False, True, False])]
    assert cable_power(options[0]) + cable_power(options[1]) == pytest.approx(2 * 0.1 + 2 * 12)


def test_nothing_separates_two_equal_parts_the_first_listed_and_a_rival() -> None:
    """Two vendors' DACs of one reach, lengths and power: the first listed is counted, and the pair is named."""
    dac = _option("dac-800g-osfp")
    other = dac.a.model_copy(update={"id": "dac-800g-osfp-b"})
    options = (LinkOption(other, other, ("test",)), dac)
    runs = np.array([1.0])
    assert list(media_choice(runs, options)) == [0]
    [(i, j, mask)] = copper_rivals(runs, media_choice(runs, options), options)
    assert (i, j, list(mask)) == (0, 1, [True]) and cable_power(options[i]) == cable_power(options[j])


def test_the_cabling_section_says_the_power_choice(tmp_path) -> None:
    """CAB011's passing case: 16 access runs of 1.4-1.8 m in one rack, where an active cable sold from 1 m (3 W a
    cable) is listed before the DAC (0.2 W): they take the DAC, the section names both, and no CAB011."""
    from archgen.render.cabling import cabling
    from tests.conftest import case_files, run_specs

    r = run_specs(tmp_path, case_files("CAB011", "pass_the_lower_power_assembly_sold_at_the_length"))
    a = r.clusters["cluster/c"]
    assert {i for tr in a.cabling.runs for i in tr.option} == {1}
    text = " ".join(str(b) for b in cabling(a).blocks)
    assert ("fabric f endpoint to leaf, 16 link(s) of 1.4-1.8 m on dac-800g-osfp (0.2 W a cable), not "
            "acc-800g-osfp-1m (3 W)") in text
    assert not [f for f in r.findings if f.id == "CAB011"]
