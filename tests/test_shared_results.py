"""tests/shared_results.py: a repeated estimate is a copy of the first; nothing is shared while a patch is in force."""

from __future__ import annotations

from unittest import mock

import pytest

from tests import shared_results as S


def test_a_repeated_call_returns_a_copy_of_the_first_result():
    calls = []
    shared = S._shared("probe", lambda x, **k: calls.append(x) or {"x": [x]}, skip=("timing",))
    first, again = shared(1, timing=object()), shared(1, timing=object())   # `timing` is not in the key
    assert calls == [1] and first == again == {"x": [1]} and first is not again
    again["x"].append(2)
    assert shared(1) == {"x": [1]}                       # what a caller changes is not what the next one gets
    shared(2)
    assert calls == [1, 2]


def test_nothing_is_shared_while_a_monkeypatch_or_mock_patch_is_in_force():
    S.watch_patches()
    calls = []
    shared = S._shared("probe-patched", lambda x: calls.append(x) or x)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(S, "TIMED", ())
        assert S.patched()
        shared(1), shared(1)
    assert not S.patched()
    with mock.patch.object(S, "TIMED", ()):
        assert S.patched()
        shared(1)
    assert calls == [1, 1, 1] and not S.patched()
