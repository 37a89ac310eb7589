"""Unit parses kept between the console script's runs (`unit_definitions._kept`, issue 25): a parse read back leaves
the registry as pint's own parse leaves it, and only a sealed entry is read."""

from __future__ import annotations

import atexit

import pytest

from archgen import unit_definitions
from archgen.pint_import import pint
from archgen.unit_definitions import _cached_registry, _definitions, _kept

#: Prefixed units (defined in the registry when first named), expressions, offset units with and without their
#: delta, the dimensionless forms, a currency rate.
UNITS = ["TFLOPS", "kW/s", "degC/s", "degC", "delta_degC", "GiB/s", "1/s", "", "dimensionless", "percent",
         "USD/kWh", "ms", "PFLOPS/W", "Tbit/s", "kg/m**2", "EB", "kilowatt_hour", "us"]


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("ARCHGEN_CACHE", raising=False)
    monkeypatch.setattr(unit_definitions, "_writing", [])
    return tmp_path


def _kept_once(key: str) -> None:
    """Parse `UNITS` through a first process's kept parses and write them, as its exit would."""
    parse = _kept(_cached_registry(_definitions()), key)
    for unit in UNITS:
        parse(unit, None, None)
    parse("degC/s", False, None)
    (write,) = unit_definitions._writing
    atexit.unregister(write)                 # written here, under this test's cache, not at the test process's exit
    write()


def test_a_kept_parse_leaves_the_registry_as_pints_own_parse(cache_home, monkeypatch):
    _kept_once("k")
    own, reader = _cached_registry(_definitions()), _cached_registry(_definitions())
    mine = [own.parse_units_as_container(u) for u in UNITS]
    plain = own.parse_units_as_container("degC/s", False)
    monkeypatch.setattr(pint.util.ParserHelper, "from_string", None)   # read back: nothing is parsed
    unit_definitions._writing.clear()
    replay = _kept(reader, "k")
    assert [replay(u, None, None) for u in UNITS] == mine
    assert replay("degC/s", False, None) == plain != mine[2]           # as_delta is part of the key
    assert list(reader._units) == list(own._units)                     # 'teraFLOPS' defined, in pint's order
    assert reader._units["teraFLOPS"] == own._units["teraFLOPS"]
    assert unit_definitions._writing == []                             # nothing new: nothing written


def test_an_entry_not_sealed_here_is_not_read(cache_home, monkeypatch):
    _kept_once("k")
    (path,) = (cache_home / "cache" / "archgen" / "units").glob("parses-k.pickle")
    mac, _, body = path.read_bytes().partition(b"\n")
    path.write_bytes(b"0" * len(mac) + b"\n" + body)
    calls = []
    monkeypatch.setattr(unit_definitions, "store_bytes", lambda *a: calls.append(a))
    reader = _cached_registry(_definitions())
    parse = _kept(reader, "k")
    assert parse("TFLOPS", None, None) == reader.__class__.parse_units_as_container(reader, "TFLOPS")
    assert unit_definitions._writing                                  # parsed anew: written at exit
    atexit.unregister(unit_definitions._writing[0])


def test_only_the_console_script_keeps_parses(cache_home):
    from archgen.units import ureg
    parse = ureg.parse_units_as_container
    parse("zettaFLOPS/s")                    # this process is no console script: pint's parse, kept in memory only
    assert unit_definitions._writing == []
    assert not list((cache_home / "cache").rglob("parses-*"))
