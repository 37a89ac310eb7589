"""`archgen gap` names the library racks a proposal's clusters place beside the objects its documents hold.

newuser107's vendor proposal placed the shipped catalog's DGX B200 compute rack with a network rack of its own: the
report judged the catalog rack (its findings were listed) but "Objects in the proposal" named only the network rack.
The proposal's clusters' library racks are now named apart (`Gap.library`), in the Markdown and the JSON.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from archgen.commands.gap import gap
from archgen.output.gap import markdown, to_json
from tests.conftest import SPECS
from tests.test_gap import REQUIREMENTS

LIBRARY = ("rack/dgx-b200-compute", "rack/dgx-b200-compute-3")   # specs/catalog/racks, placed by the cluster


def test_the_library_racks_a_proposal_places_are_named(tmp_path: Path) -> None:
    proposal = tmp_path / "vendor"
    proposal.mkdir()
    for f in (SPECS / "clusters" / "dgx-b200-superpod.yaml", SPECS / "racks" / "dgx-b200-network.yaml"):
        shutil.copy(f, proposal / f.name)   # its leaf and spine racks are the vendor's own; its compute racks not
    g = gap([proposal], [REQUIREMENTS])
    assert g.library == LIBRARY
    assert "rack/dgx-b200-leaf" in g.objects and not set(LIBRARY) & set(g.objects)
    assert {f.object for f in g.findings} & set(LIBRARY)   # judged with the proposal: their findings are listed
    for audience in ("internal", "customer"):
        md = markdown(g, audience)
        assert f"### Objects in the proposal ({len(g.objects) + 2})" in md
        assert "- library rack (2): `rack/dgx-b200-compute`, `rack/dgx-b200-compute-3` (the shipped catalog's" in md
        assert json.loads(to_json(g, audience))["library"] == list(LIBRARY)
