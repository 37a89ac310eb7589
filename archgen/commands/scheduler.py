"""A Dask scheduler as the place a sweep's chunks run (`archgen sweep --scheduler`, the `distributed` extra).

`probe` checks that an address answers as a Dask scheduler does before Dask's client connects to it; `DaskPool` is
Dask's executor, which can also say whether the scheduler has a worker (`commands.workers.Pending` asks it while it
waits); `from_dask` tells Dask's errors from the sweep's own, and `lost` says what a Dask error lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Iterator
from concurrent.futures import CancelledError, Executor, Future

from archgen.errors import UsageError

#: How long to wait for a Dask scheduler to answer.
SCHEDULER_TIMEOUT = "10s"
SCHEDULER_TIMEOUT_S = 10.0


class DaskPool(Executor):
    """Dask's executor (`distributed.Client.get_executor`), which can also say whether its scheduler has no worker.

    A Dask scheduler with no worker (none started yet, or every one lost: a worker killed without a nanny to restart
    it) holds the chunks until one joins, and the sweep waited with nothing said (newuser40: 120 s of silence until
    `timeout` ended it). `Pending.result` asks `idle` every `WATCH_S` while it waits and says so once (`note`).
    """

    def __init__(self, client, address: str) -> None:
        self.client, self.address = client, address
        self.executor = client.get_executor()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        """`fn(*args, **kwargs)` on a worker of the scheduler (Dask's executor's `submit`)."""
        return self.executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Dask's executor's `shutdown` (its client, closed by `commands.workers.executor`, releases the rest)."""
        self.executor.shutdown(wait=wait)

    def idle(self) -> bool:
        """Whether the scheduler has no worker now (False where it cannot say: Dask's own errors reach `result`)."""
        try:
            return not self.client.nthreads()
        except Exception:  # noqa: BLE001 the scheduler gone or failing: the chunk's future says how
            return False


def from_dask(err: BaseException) -> bool:
    """Whether an error came from Dask's client or its transport (a peer that greets like a scheduler, then fails).

    A chunk's future cancelled (`concurrent.futures.CancelledError`) is one: the sweep cancels its chunks only on
    its way out of an error, so a cancelled chunk it still waits for was cancelled by Dask, whose client cancels
    every future when the connection to its scheduler is lost for good (a scheduler killed midway: newuser40).
    """
    top = type(err).__module__.split(".")[0]
    return top in ("distributed", "tornado", "msgpack") or isinstance(err, (OSError, TimeoutError, CancelledError))


def lost(err: BaseException, address: str) -> UsageError:
    """What Dask's error `err` means to the user of `--scheduler address`: what was lost, and that nothing was written.

    The sweep writes its files once every point is evaluated (`commands.sweep.write`), so an error while the chunks
    run leaves `--out` as it was.
    """
    unwritten = "the sweep stopped before writing any file (run it again once the cluster is up)"
    if isinstance(err, CancelledError):
        return UsageError(f"--scheduler {address}: the Dask scheduler was lost while the sweep's chunks ran (it "
                          f"stopped, or the connection to it closed, and Dask cancelled the chunks); {unwritten}")
    if type(err).__name__ == "KilledWorker":  # distributed.scheduler.KilledWorker(task, last_worker, allowed_failures)
        times = getattr(err, "allowed_failures", None)
        last = getattr(getattr(err, "last_worker", None), "address", None)
        return UsageError(f"--scheduler {address}: Dask workers were lost running one of the sweep's chunks"
                          f"{'' if times is None else f' ({times + 1} workers in turn)'}, as many times as the "
                          f"scheduler allows{'' if last is None else f'; the last was {last}'}; {unwritten}")
    return UsageError(f"--scheduler {address}: the scheduler failed ({type(err).__name__}: {err}); {unwritten}")


class _Quiet(logging.Filter):
    """Drops the Dask client's log of a lost connection, with its traceback: `lost` says it in one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        err = record.exc_info[1] if record.exc_info else None
        return not isinstance(err, (asyncio.CancelledError, CancelledError, OSError)) and not (
            err is not None and type(err).__module__.startswith("distributed.comm"))


@contextlib.contextmanager
def quiet_client() -> Iterator[None]:
    """Dask's client without its traceback of a lost scheduler (`_Quiet`), for as long as the sweep runs."""
    log, quiet = logging.getLogger("distributed.client"), _Quiet()
    log.addFilter(quiet)
    try:
        yield
    finally:
        log.removeFilter(quiet)


def probe(address: str, timeout: float = SCHEDULER_TIMEOUT_S) -> None:
    """Check that a `tcp://` address answers as a Dask scheduler does before Dask itself connects to it.

    Dask's client reads the first 8 bytes of the peer's greeting as a message length and allocates that many bytes,
    and waits for a greeting that an HTTP or SSH server never sends: an HTTP server hung it past its timeout and an
    SSH banner asked for 2.8 EiB. A scheduler greets first with a short handshake (msgpack naming its
    `pickle-protocol`), so a peer that sends nothing within `timeout`, more than 64 KiB or something else is refused
    here, with a message. Other schemes (`tls://`, `inproc://`, `ucx://`) are left to Dask and its timeout.
    """
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme != "tcp":
        return
    host, _, port = rest.rstrip("/").rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--scheduler {address}: expected a Dask scheduler address such as tcp://host:8786")
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as conn:
            head = _receive(conn, 8, deadline)
            size = int.from_bytes(head, "little") if len(head) == 8 else 0
            body = _receive(conn, size, deadline) if 0 < size <= 65536 else b""
    except OSError as err:
        raise UsageError(f"--scheduler {address}: cannot reach the Dask scheduler ({err})") from None
    if b"pickle-protocol" not in body:
        said = (head + body)[:24].decode("ascii", "backslashreplace")
        what = f"answered {said!r}" if head else f"sent nothing within {timeout:g} s"
        raise UsageError(f"--scheduler {address}: not a Dask scheduler (it {what}); give the address the scheduler "
                         "prints at start, such as tcp://host:8786")


def _receive(conn: socket.socket, n: int, deadline: float) -> bytes:
    """Up to `n` bytes from `conn`, whatever arrived by `deadline`."""
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        conn.settimeout(left)
        try:
            chunk = conn.recv(n - len(data))
        except TimeoutError:
            break
        if not chunk:
            break
        data += chunk
    return data
