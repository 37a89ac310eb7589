"""The cluster document names the training stack each estimate assumed, and where each switch came from (newuser38).

Before: `archgen render /tmp/newuser38 --target gb300-16k` held no "nemo" at all, and its Software stack section read
"The design states no software stack", though every step time used the nemo-2025 profile's switches. Each training
estimate now says which stack it took (stated, or the vendor's newest profile where the workload states none) and
its switches grouped by origin, as `archgen estimate --cases FILE --explain` groups them (`stacks.by_origin`); the
Software stack section names the stack of each training workload on the cluster.
"""

from __future__ import annotations

from archgen.perf.train.stacks import explain
from archgen.render import performance
from archgen.render.blocks import Para
from archgen.render.reference import software

W = "llama3-70b-pretrain-b200"   # the shipped training job on DGX B200: it states no stack


def _paras(section) -> list[str]:
    out = [b.text for b in section.blocks if isinstance(b, Para)]
    for sub in section.sections:
        out += _paras(sub)
    return out


def test_estimate_names_its_stack_and_switch_origins(shipped) -> None:
    r = shipped.workloads[f"workload/{W}"]
    assert r.switches == tuple(explain(r.workload.training, r.estimate.layout, False, r.vendor))
    (text,) = [p for p in _paras(performance.section([r])) if p.startswith("Training stack")]
    assert text.startswith("Training stack nemo-2025 (no stack stated: the newest profile): ")
    unstated = [u for u in r.switches[1:] if u.origin != "stated" and u.used]
    assert unstated and all(u.where == "default (profile nemo-2025)" for u in unstated)
    assert f"default (profile nemo-2025): {unstated[0].name}=" in text
    for u in r.switches[1:]:           # every switch is named with its value, the moot ones as not used
        assert f"{u.name}=" in text
    if any(not u.used for u in r.switches):
        assert "; not used: " in text


def test_amd_estimate_names_the_vendor_profile(shipped) -> None:
    r = shipped.workloads["workload/llama3-70b-pretrain-mi355x"]
    (text,) = [p for p in _paras(performance.section([r])) if p.startswith("Training stack")]
    assert text.startswith("Training stack primus-2025 (no stack stated")
    assert "default (profile primus-2025): " in text


def test_software_section_names_each_training_stack(shipped) -> None:
    r = shipped.workloads[f"workload/{W}"]
    a = shipped.clusters[f"cluster/{r.workload.cluster}"]
    text = " ".join(_paras(software(a, (r,))))
    assert f"nemo-2025 for {W} (no stack stated: the newest profile)" in text
    assert "The design states no software stack." not in text or a.cluster.spec.software is None


def test_collective_has_no_stack(shipped) -> None:
    assert shipped.workloads["workload/nccl-allreduce-gb200-su"].switches == ()
    assert shipped.workloads["workload/llama3-70b-serve-b200"].switches == ()
