"""A serving estimate's memory convention as the customer edition words it (words38, after review57).

The internal edition's convention names the engine's settings by key and archgen's files ("TensorRT-LLM's
free_gpu_memory_fraction", "(hw/reserve.py)", "(perf/serve/profile_peak.py)", the GB200 NVL72 SU golden). The
customer edition leaves the paths out (`edition.without_paths`) and writes each key in words (`field_words.said`),
an abbreviation in capitals: "free GPU memory fraction", not "free gpu memory fraction".
"""

from __future__ import annotations

from archgen.model.kv_memory import DEFAULT_FRACTION, KV_RULES
from archgen.perf.serve.profile_peak import memory_reserve
from archgen.render.blocks import Bullets, DocumentModel, Section
from archgen.render.edition import customer
from archgen.render.edition_text import leftovers


def test_the_memory_convention_names_no_engine_key_or_file_of_ours_in_the_customer_edition():
    text = "memory_reserve: " + memory_reserve("HBM", KV_RULES["tensorrt-llm"], DEFAULT_FRACTION, "NVIDIA")
    assert "(TensorRT-LLM's free_gpu_memory_fraction)" in text and "(hw/reserve.py)" in text   # the internal words
    doc = customer(DocumentModel("t", "cluster", "T", [], [Section("performance", "Performance", [Bullets((text,))])]))
    ((out,),) = [b.items for b in doc.sections[0].blocks]
    assert leftovers(out) == [] and ".py" not in out
    assert out.startswith("memory reserve: the KV cache's batch is sized in 90% of the HBM left after its profiling "
                          "peak (TensorRT-LLM's free GPU memory fraction); its profiling peak is the weights, the CUDA "
                          "context 0.4 GB and, for tp > 1, one NCCL communicator 0.688 GB, the training reserve's "
                          "cited figures, and the activations")
