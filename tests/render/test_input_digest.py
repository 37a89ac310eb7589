"""A document's input digest is of what the specs state, not of the defaults archgen fills in.

newuser87's trial: a partner compares the input digest of two deliveries to see whether the spec moved. It moved
with no spec change whenever archgen added a field with a default (README's changelog: "Goldens: PWR012's text and the
input digests (the new field) only"), as `provenance.input_hash` hashed every field of the validated model. It now
hashes the fields the documents set (pydantic's `exclude_unset`), so only an edit of the specs moves it.
"""

from __future__ import annotations

from pydantic import create_model

from archgen.model.requirements import Requirements
from archgen.render.provenance import input_hash

SPEC = {"kind": "Requirements", "id": "hall", "revision": "A",
        "requirements": [{"id": "REQ-1", "statement": "Rack IT load", "subject": "rack/*", "metric": "it_power",
                          "target": "<= 45 kW"}]}


def test_a_default_field_added_by_archgen_leaves_the_digest():
    # the same document read by an archgen whose Requirements kind has one more field, with a default
    later = create_model("Requirements", __base__=Requirements, review_board=(str, "not stated"))
    assert later.__name__ == Requirements.__name__
    assert input_hash([later.model_validate(SPEC)]) == input_hash([Requirements.model_validate(SPEC)])


def test_an_edit_of_the_spec_moves_the_digest():
    edited = SPEC | {"revision": "B"}
    assert input_hash([Requirements.model_validate(edited)]) != input_hash([Requirements.model_validate(SPEC)])
    stated = {**SPEC, "requirements": [SPEC["requirements"][0] | {"level": "should"}]}
    assert input_hash([Requirements.model_validate(stated)]) != input_hash([Requirements.model_validate(SPEC)])
