"""An id that differs from a known one by a Unicode look-alike or by case (trialfix item 3, from the new-user trials).

Before, `part: dgx-hо100` (a Cyrillic 'о') read "expected a string matching ^[a-z0-9][a-z0-9._-]*$, got 'dgx-hо100'",
which looks like the pattern's own value; and `metric: it_pоwer` offered "did you mean 'it_power'?", the same text
to the eye. Each message now names the character, its code point and its position.
"""

from __future__ import annotations

import shutil

import pytest

from archgen.errors import did_you_mean, odd_character
from tests.conftest import SPECS

RACK = "dgx-h100-4.yaml"


@pytest.fixture
def rack(tmp_path, monkeypatch):
    """The shipped DGX H100 rack in `racks/`, to be edited; the working directory is its parent."""
    shutil.copytree(SPECS / "racks", tmp_path / "racks")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "racks" / RACK


@pytest.mark.parametrize(("old", "new", "said"), [
    ("part: dgx-h100,", "part: dgx-h\u043e100,",
     "racks/dgx-h100-4.yaml:13:19: error: slots.0.part: character 6 is 'о' (U+043E CYRILLIC SMALL LETTER O), not "
     "ASCII: expected a string matching ^[a-z0-9][a-z0-9._-]*$, got 'dgx-hо100'"),
    ("part: dgx-h100,", "part: DGX-H100,",
     "racks/dgx-h100-4.yaml:13:19: error: slots.0.part: character 1 is 'D' (U+0044 LATIN CAPITAL LETTER D), upper "
     "case: expected a string matching ^[a-z0-9][a-z0-9._-]*$, got 'DGX-H100'"),
    ("REQ-PWR-010", "req-pwr-010",
     "racks/dgx-h100-4.yaml:22:10: error: requirements.0.id: character 1 is 'r' (U+0072 LATIN SMALL LETTER R), lower "
     "case: expected a string matching ^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$, got 'req-pwr-010'"),
    ("metric: it_power", "metric: it_p\u043ewer",
     "unknown metric 'it_pоwer'; did you mean 'it_power'? (character 5 is 'о' (U+043E CYRILLIC SMALL LETTER O), "
     "not 'o')"),
    ("metric: it_power", "metric: IT_POWER",
     "unknown metric 'IT_POWER'; did you mean 'it_power'? (character 1 is 'I' (U+0049 LATIN CAPITAL LETTER I), "
     "not 'i')"),
], ids=["cyrillic-ref", "upper-case-ref", "lower-case-requirement-id", "cyrillic-metric", "upper-case-metric"])
def test_a_look_alike_names_its_character(rack, cli, old, new, said):
    text = rack.read_text(encoding="utf-8")
    assert old in text
    rack.write_text(text.replace(old, new, 1), encoding="utf-8")
    r = cli("check", "racks")
    assert r.code == 1 and "Traceback" not in r.err
    assert said in r.err


def test_the_helpers_name_nothing_for_a_plain_typo():
    assert did_you_mean("it_powr", ["it_power"]) == "did you mean 'it_power'?"
    assert did_you_mean("it_pover", ["it_power"]) == "did you mean 'it_power'?"
    assert odd_character("dgx_h100!", r"^[a-z0-9][a-z0-9._-]*$") == ""
    assert odd_character(3, r"^[a-z]$") == "" and odd_character("x", None) == ""


def test_a_compatibility_form_is_offered_whatever_the_ratio():
    """Full-width 'ＤＧＸ-Ｈ100' shares no character with 'dgx-h100' that difflib sees; NFKC and case make it one."""
    assert did_you_mean("ＤＧＸ-Ｈ100", ["dgx-h100", "dgx-b200"]) == ("did you mean 'dgx-h100'? (character 1 is 'Ｄ' "
                                                                  "(U+FF24 FULLWIDTH LATIN CAPITAL LETTER D), not 'd')")
