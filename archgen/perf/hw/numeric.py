"""Elementwise `where`, `minimum` and `maximum` that stay plain floats for plain numbers.

The model's formulas broadcast over layouts (numpy arrays) or run on one layout's plain numbers; numpy's ufuncs on
scalars cost about a microsecond each (issue 25), so these take numpy only when an argument is an array.
"""

from __future__ import annotations

import math

import numpy as np

_ND = np.ndarray
#: Plain numbers (a tuple: `isinstance` with it is faster than with `float | int`, which is built at each call).
NUMBER = (float, int)


#: Types that are plain numbers for certain: one set lookup each, before the `isinstance` checks (issue 25); the
#: commonest, floats and a bool condition, are asked first by identity (cheaper than the set).
_PLAIN = frozenset((float, int, bool))
_F, _B = float, bool


def where(cond, a, b):
    """`np.where` that stays a plain float for scalar input (numpy ufuncs on scalars are slow)."""
    if type(a) is _F and type(b) is _F and type(cond) is _B or (
            type(cond) in _PLAIN and type(a) in _PLAIN and type(b) in _PLAIN):
        return a if cond else b
    if isinstance(cond, _ND) or isinstance(a, _ND) or isinstance(b, _ND):
        return np.where(cond, a, b)
    return a if cond else b


def minimum(a, b):
    """Elementwise minimum; a plain float for scalars."""
    if type(a) is _F and type(b) is _F or type(a) in _PLAIN and type(b) in _PLAIN:
        return a if a < b else b
    if isinstance(a, _ND) or isinstance(b, _ND):
        return np.minimum(a, b)
    return a if a < b else b


def maximum(a, b):
    """Elementwise maximum; a plain float for scalars."""
    if type(a) is _F and type(b) is _F or type(a) in _PLAIN and type(b) in _PLAIN:
        return a if a > b else b
    if isinstance(a, _ND) or isinstance(b, _ND):
        return np.maximum(a, b)
    return a if a > b else b


def ceil(x):
    """Elementwise ceiling; a plain float for a plain number.

    `np.ceil` of a float is a numpy scalar, which sends every formula after it down numpy's slower paths (issue 25:
    the DP bucket count made one estimate ~13 % slower). Infinities and NaN stay themselves, as `np.ceil` leaves them.
    """
    if type(x) in _PLAIN:
        try:
            return float(math.ceil(x))
        except (OverflowError, ValueError):
            return float(x)
    return np.ceil(x)


def as_float(x):
    """A float, or a float array for arrays, lists and tuples."""
    return np.asarray(x, dtype=float) if isinstance(x, (np.ndarray, list, tuple)) else float(x)  # noqa: UP038 (a tuple: faster than a union, issue 25)
