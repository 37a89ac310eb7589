"""The note of a training estimate on multi-token prediction (mtp35): what its MTP layers add, or that none is trained.

A model states the MTP modules its architecture has (`Model.mtp_layers`: DeepSeek-V3's one), a training job the ones
it trains (`training.mtp_layers`, Megatron-core's --mtp-num-layers, None by default: none). Trained, each is charged
beside the loss (`perf.train.layer.mtp_time`, `perf.hw.memory.mtp_split`), on the last pipeline stage where there
are several, and counted in the model FLOPs as Megatron-LM counts them (`perf.hw.arch`); the note says so, since
that stage may then set the pace (at pp 1 it names no stage). Left out where the model has some, the note says what
is not charged. No number depends on it.
"""

from __future__ import annotations

from archgen.model.workload import Model, Training


def mtp_note(model: Model, t: Training | None, pp: int | str | None = None) -> list[str]:
    """The multi-token prediction note of a training estimate; nothing for a model without MTP layers trained or had.

    `pp`: the estimate's pipeline stages; at 1 (or none known) there is no last stage to name, only the loss.
    """
    if t is None or not (t.mtp_layers or model.mtp_layers):
        return []
    if not t.mtp_layers:
        n = model.mtp_layers
        return [f"multi-token prediction: model '{model.id}' has {n} MTP module{'s' if n > 1 else ''} that this "
                "training leaves out (training.mtp_layers 0, Megatron-core's default): not charged; state "
                f"training.mtp_layers {n} to train {'them' if n > 1 else 'it'}"]
    kind = "an MoE" if model.moe is not None and model.moe.dense_layers < model.layers else "a dense"
    where = "on the last pipeline stage beside the loss" if isinstance(pp, int) and pp > 1 else "beside the loss"
    return [f"multi-token prediction: {t.mtp_layers} MTP layer{'s' if t.mtp_layers > 1 else ''} trained {where}, "
            f"as Megatron-core places them (each {kind} block as the last layer, its "
            "projection and the output layer and cross entropy again): counted in the model FLOPs and MFU as "
            "Megatron-LM counts them; the tokens per second count each token once"]
