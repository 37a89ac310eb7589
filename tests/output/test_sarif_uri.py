"""SARIF artifact URIs are RFC 3986 URI references (SARIF 2.1.0, 3.10.2): a spec file name with a space or a `#`
was written as it stands, an invalid URI that code-scanning tools reject or cut at the `#`."""

import json

from archgen.checks import Finding
from archgen.errors import Location
from archgen.output.findings import sarif


def test_file_names_are_percent_encoded_in_sarif_uris():
    finding = Finding(id="PWR002", severity="error", object="rack/r", message="over", summary="", hint="",
                      location=Location("specs/racks/my rack #2.yaml", 3, 1))
    (result,) = json.loads(sarif([finding]))["runs"][0]["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "specs/racks/my%20rack%20%232.yaml", "uriBaseId": "%SRCROOT%"}
