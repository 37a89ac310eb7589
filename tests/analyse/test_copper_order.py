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
