"""A rack's feeds against the power shelves plugged into them (PWR003's and PWR007's shelf side).

A power shelf has one AC input (`PowerShelf.input`): a feed lost takes the shelves on it with it
(`feed_loss_with_shelves`, `shelves_lost_with_a_feed`), and feeds beyond one a shelf connect to nothing
(`feeds_beyond_shelves`). The rack document's failure cases read `feed_loss_with_shelves` too.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from archgen.checks.registry import Violation
from archgen.display import kw
from archgen.model import PowerShelf
from archgen.units import Q_


@dataclass(frozen=True)
class FeedLoss:
    """One feed lost with the power shelves on it: `lost` of the `shelves` go, `left` is the capacity remaining."""

    feeds: Any      # analyse.power_chain.Stage: the feeds the shelves are plugged into
    shelves: Any    # analyse.power_chain.Stage: the power shelves, carrying the busbar load
    lost: int
    left: Any       # Q: the shelves' capacity that remains


def feed_loss_with_shelves(a: Any) -> FeedLoss | None:
    """The power shelves a lost feed takes with it, and what remains (PWR003; the rack document's failure cases).

    Shelves plugged into the feeds (not behind PDUs) have one AC input each (`PowerShelf.input`), so a feed that is
    lost takes the shelves on it with it. Spread as evenly as the feeds allow (the best case a spec that does not
    map feeds to shelves can claim), one feed carries ⌈S / F⌉ of the S shelves on the F feeds left for them: 8
    shelves of 33 kW on 2 feeds lose 4, and 132 kW remain. None where the rack has no such shelves.
    """
    p = a.power
    shelves = next((st for st in p.stages if st.key == "shelves"), None)
    if shelves is None or p.arrangement not in ("shelves", "side-by-side"):
        return None
    feeds = p.feed_groups[0]   # side by side: the feeds of the shelves come first (analyse.power_chain.power_chain)
    if feeds.count <= 0 or shelves.count <= 0:
        return None
    lost = math.ceil(shelves.count / feeds.count)
    return FeedLoss(feeds, shelves, lost, shelves.unit_capacity * max(shelves.count - lost, 0))


def shelves_lost_with_a_feed(path: str, a: Any) -> Iterator[Violation]:
    """PWR003's shelf side: the power shelves left when one feed is lost carry the busbar load.

    `feed_loss_with_shelves` works out what a lost feed takes; nothing where the rack claims no feed redundancy
    (newuser25).
    """
    spec = a.rack.spec
    loss = feed_loss_with_shelves(a)
    if loss is None or spec.power.feeds.redundancy == "N":
        return
    if loss.shelves.load > loss.left:
        yield Violation(path, spec.id, ("power", "feeds", "count"),
                        f"with one of {loss.feeds.count} {loss.feeds.kind} lost, the {loss.lost} power shelves on it "
                        f"go too: {kw(loss.left)} of shelves remain for {kw(loss.shelves.load)}", loss.shelves.load,
                        loss.left)


def feeds_beyond_shelves(path: str, a: Any) -> Iterator[Violation]:
    """PWR007's shelf side: power shelves plugged into the feeds take one feed each, so no more feeds than shelves.

    A shelf has one AC input (`PowerShelf.input`): 16 feeds for 8 shelves leave 8 connected to nothing, yet PWR002
    counted them (N+N of 16 x 34.5 kW: 276 kW usable) and the rack claimed 2N feeds its shelves cannot take
    (newuser25). Beside PDUs, the feeds left after one per PDU are the shelves'.
    """
    p = a.power
    shelves = sum(1 for item in a.rack.items if isinstance(item.part, PowerShelf))
    if not shelves or p.arrangement not in ("shelves", "side-by-side"):
        return
    feeds = p.feed_groups[0]   # side by side: the feeds of the shelves come first (analyse.power_chain.power_chain)
    if feeds.count > shelves:
        yield Violation(path, a.rack.spec.id, ("power", "feeds", "count"),
                        f"{feeds.count} {feeds.kind} for {shelves} power shelves of one AC input each: "
                        f"{feeds.count - shelves} connect to nothing (expected at most {shelves})",
                        Q_(feeds.count, ""), Q_(shelves, ""))
