"""A cluster's management and control plane (`Cluster.control_plane`) and software stack (`Cluster.software`).

Both are stated by the author, never derived: the cluster document prints what is given and "not provided" for the
rest (`archgen.render.reference`).
"""

from pydantic import Field

from archgen.model.base import Redundancy
from archgen.model.spec import Count, Ref, Spec
from archgen.units import Power


class ControlGroup(Spec):
    """One group of management-plane machines: head nodes, fabric managers, storage servers, login nodes."""

    role: str = Field(min_length=1, max_length=120, description=(
        "What the group does, e.g. 'head nodes (cluster manager)', 'UFM appliances (InfiniBand fabric manager)'."))
    model: str = Field("", max_length=200, description="The machine, e.g. 'NVIDIA UFM Enterprise Appliance 3.0'.")
    count: Count | None = Field(None, description="Machines in the group; absent: 'not provided'.")
    redundancy: Redundancy | None = Field(None, description="N, N+1 or N+N (also 2N) within the group.")
    rack: Ref | None = Field(None, description="Id of the rack type that holds them (one of the cluster's racks).")
    power: Power | None = Field(None, description="Maximum power of one machine, e.g. '1.1 kW'.")
    fabrics: list[str] = Field(default_factory=list, description=(
        "Ids of the cluster's fabrics the group attaches to, e.g. ['inband', 'oob']."))


class ControlPlane(Spec):
    """The management rack and control plane: what runs and manages the cluster outside its compute nodes."""

    groups: list[ControlGroup] = Field(default_factory=list, description="Groups of management-plane machines.")
    source: str = Field("", description="Where the groups come from (a reference architecture, a design decision).")


class Software(Spec):
    """The software stack the design is built and validated with; every field is optional ('not provided')."""

    os: str = Field("", description="Operating system and version of the nodes, e.g. 'DGX OS 7 (Ubuntu 24.04)'.")
    drivers: str = Field("", description="Accelerator driver and firmware, e.g. 'NVIDIA driver 570, CUDA 12.8'.")
    collectives: str = Field("", description="Collective library and version, e.g. 'NCCL 2.26' or 'RCCL 2.22'.")
    network: str = Field("", description="NIC and fabric software, e.g. 'DOCA-OFED 3.0, UFM 6.20'.")
    cluster_manager: str = Field("", description="Provisioning and cluster management, e.g. 'NVIDIA Mission Control'.")
    scheduler: str = Field("", description="Workload scheduler, e.g. 'Slurm 24.11' or 'Kubernetes 1.31'.")
    containers: str = Field("", description="Container runtime and registry, e.g. 'Enroot and Pyxis, NGC'.")
    storage_client: str = Field("", description="Parallel file system client, e.g. 'Lustre 2.15 client'.")
    monitoring: str = Field("", description="Telemetry and monitoring, e.g. 'DCGM exporter, Prometheus'.")
    source: str = Field("", description="Where the stack comes from.")
