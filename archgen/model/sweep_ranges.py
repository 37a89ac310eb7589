"""A range of numbers as a sweep axis's levels: `{from: 1024, to: 16384, step: 1024}` or `{from:, to:, count:}`.

A 10^5-point grid needed an 833-value list made by a script, and a 150,000-value axis (1.3 MB of YAML) took 23 s
and 279 MB just to be refused for `max_points` (newuser40). A range is written in a line; its size (`size`) is
known before it is expanded, so `model.sweep.Sweep` refuses a product past `max_points` without making the levels,
and `expand` makes them, each error located at the axis.

- `step`: from, from + step, ... up to `to` (`to` itself where it lands on a step, to 1e-9 of a step).
- `count`: `count` levels from `from` to `to`, both included, evenly spaced (`scale: linear`, the default) or in
  equal ratios (`scale: log`: from × (to / from)^(k / (count - 1)), both ends positive).

An axis of whole numbers (accelerators, tp, seq_len, ...) takes whole-number levels only: a range whose level is not
one (a log range of counts that does not land on them) is refused with the level, not rounded. Decimal levels are
rounded to 12 significant digits, so that 0.5 + 3 x 0.05 reads 0.65, as written in a list.
"""

import math

#: Keys a range may have.
KEYS = ("from", "to", "step", "count", "scale")
#: Most levels one range may make (a sweep has at most 10^6 points).
MOST = 1_000_000


class RangeError(ValueError):
    """A range that cannot make levels, in words for the author."""


def _number(spec: dict, key: str) -> float:
    value = spec.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RangeError(f"range '{key}' must be a number, got {value!r}")
    return value


def size(spec: dict) -> int:
    """How many levels the range `spec` makes (its checks first: keys, numbers, direction, step or count)."""
    unknown = [k for k in spec if k not in KEYS]
    if unknown:
        raise RangeError(f"unknown range key(s) {', '.join(map(str, unknown))}; a range has from, to and either step "
                         "or count (with scale: linear or log), e.g. {from: 1024, to: 16384, step: 1024}")
    for key in ("from", "to"):
        if key not in spec:
            raise RangeError(f"range needs '{key}', e.g. {{from: 1024, to: 16384, step: 1024}}")
    low, high = _number(spec, "from"), _number(spec, "to")
    if ("step" in spec) == ("count" in spec):
        raise RangeError("range needs either 'step' or 'count', not both or neither")
    if high < low:
        raise RangeError(f"range 'to' ({high:g}) is below 'from' ({low:g})")
    scale = spec.get("scale", "linear")
    if scale not in ("linear", "log"):
        raise RangeError(f"range 'scale' must be linear or log, got {scale!r}")
    if "step" in spec:
        if scale != "linear":
            raise RangeError("a range with 'step' is linear; give 'count' for a log scale")
        step = _number(spec, "step")
        if step <= 0:
            raise RangeError(f"range 'step' must be positive, got {step:g}")
        n = math.floor((high - low) / step + 1e-9) + 1
    else:
        count = spec["count"]
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise RangeError(f"range 'count' must be a whole number of at least 1, got {count!r}")
        if count == 1 and high != low:
            raise RangeError("a range of count 1 needs 'to' equal to 'from'")
        if scale == "log" and low <= 0:
            raise RangeError(f"a log range needs a positive 'from', got {low:g}")
        n = count
    if n > MOST:
        raise RangeError(f"range makes {n:,} levels, more than a sweep's {MOST:,} points")
    return n


def expand(spec: dict, whole: bool) -> list[int | float]:
    """The levels of the range `spec`, in order; whole numbers where `whole` (an axis of counts)."""
    n = size(spec)
    low, high = _number(spec, "from"), _number(spec, "to")
    if "step" in spec:
        raw = [low + k * spec["step"] for k in range(n)]
    elif n == 1:
        raw = [low]
    elif spec.get("scale", "linear") == "log":
        raw = [low * (high / low) ** (k / (n - 1)) for k in range(n)]
    else:
        raw = [low + (high - low) * k / (n - 1) for k in range(n)]
    if not whole:
        return [float(f"{x:.12g}") for x in raw]
    out = []
    for k, x in enumerate(raw):
        if abs(x - round(x)) > 1e-9 * max(1.0, abs(x)):
            raise RangeError(f"range level {k + 1} is {x:.6g}, not a whole number (this axis takes whole numbers)")
        out.append(round(x))
    return out
