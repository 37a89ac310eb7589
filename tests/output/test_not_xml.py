"""`output.findings._NOT_XML`: the characters XML 1.0 cannot carry, as the ranges between its Char production."""

from __future__ import annotations

import re


def test_the_characters_xml_refuses_are_those_outside_its_char_production():
    """XML 1.0 section 2.2: Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."""
    from archgen.output.findings import _NOT_XML
    char = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")   # the production, negated
    every = "".join(map(chr, range(0x110000)))
    assert _NOT_XML.findall(every) == char.findall(every)
    assert len(_NOT_XML.findall(every)) == 9 + 2 + 18 + 2048 + 2
