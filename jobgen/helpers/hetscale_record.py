"""Write a hetscale run record (docs/run-record.md) from your own Python MPI program (mpi4py).

ctypes over libhetscale_record (hetscale_record_shim.h), which is the C helper
hetscale_record.h compiled: the record's format lives there alone. Worked example:
docs/experiment-spec.md.

    import hetscale_record
    share = hetscale_record.weight(rank, size)        # HETSCALE_WEIGHT, else 1/size
    ... run, time it ...
    run = hetscale_record.Run("heat", "500*M^2", "M", m, 500.0 * m * m, wall, verified=True)
    hetscale_record.gather_and_write(comm, run, share, compute, communication, wall)

gather_and_write is collective: rank 0 gathers every rank's figures and appends the record.
write() appends a record whose ranks you gathered yourself. Both do nothing outside a study
(HETSCALE_RECORD unset) and raise OSError when the record cannot be written (EINVAL for a
missing field or a number that is not finite, a rank's too).
"""

import ctypes
import os
from dataclasses import dataclass
from typing import List, Optional, Sequence

__all__ = ["RankTiming", "Run", "weight", "write", "gather_and_write"]

# The library's file name with its ABI version, found by the dynamic loader (the system's
# library directory, or LD_LIBRARY_PATH).
LIBRARY = "libhetscale_record.so.1"


@dataclass
class RankTiming:
    """One rank's figures, as the record's "ranks" entries."""
    rank: int
    host: str
    weight: float
    compute_seconds: float
    communication_seconds: float
    wall_seconds: float
    marked_speed: float = 0.0  # HETSCALE_MARKED_SPEED; 0 when unknown


@dataclass
class Run:
    """The run as a whole."""
    code: str                  # your program, e.g. "heat"
    workload: str              # the formula, as in the experiment spec: "500*M^2"
    parameter: str             # the parameter's name: "M"
    parameter_value: float     # its value in this run
    work: float                # W = workload(parameter_value), > 0
    wall_seconds: float        # T of the timed region on rank 0, > 0
    verified: bool = False     # your own answer check passed
    start_time: Optional[str] = None  # ISO 8601 UTC ("2026-11-21T06:10:00Z")
    end_time: Optional[str] = None


_library = None


def _c():
    global _library
    if _library is None:
        lib = ctypes.CDLL(LIBRARY)
        lib.hetscale_record_weight.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.hetscale_record_weight.restype = ctypes.c_double
        doubles = ctypes.POINTER(ctypes.c_double)
        lib.hetscale_record_append.argtypes = (
            [ctypes.c_char_p] * 3 + [ctypes.c_double] * 3 + [ctypes.c_int] + [ctypes.c_char_p] * 2 +
            [ctypes.c_int, ctypes.c_char_p, ctypes.c_int] + [doubles] * 5)
        lib.hetscale_record_append.restype = ctypes.c_int
        _library = lib
    return _library


def weight(rank: int, size: int) -> float:
    """This rank's share of the work: HETSCALE_WEIGHT when the SPANK plugin set it, else 1/size."""
    return _c().hetscale_record_weight(rank, size)


def _text(value: Optional[str]) -> Optional[bytes]:
    return None if value is None else value.encode()


def write(run: Run, ranks: Sequence[RankTiming]) -> None:
    """Appends the record to $HETSCALE_RECORD (nothing when unset); ranks in rank order."""
    count = len(ranks)
    hosts = [r.host.encode() for r in ranks]
    width = max((len(h) for h in hosts), default=0) + 1
    fields = b"".join(h.ljust(width, b"\0") for h in hosts)

    def column(values: List[float]):
        return (ctypes.c_double * max(count, 1))(*values)

    status = _c().hetscale_record_append(
        _text(run.code), _text(run.workload), _text(run.parameter), float(run.parameter_value),
        float(run.work), float(run.wall_seconds), 1 if run.verified else 0, _text(run.start_time),
        _text(run.end_time), count, fields, width, column([r.weight for r in ranks]),
        column([r.marked_speed for r in ranks]), column([r.compute_seconds for r in ranks]),
        column([r.communication_seconds for r in ranks]), column([r.wall_seconds for r in ranks]))
    if status != 0:
        raise OSError(status, "hetscale: cannot write the run record: " + os.strerror(status))


def gather_and_write(comm, run: Run, share: float, compute_seconds: float,
                     communication_seconds: float, wall_seconds: float,
                     marked_speed: float = 0.0) -> None:
    """Collective over the mpi4py communicator `comm`: every rank gives its own share and
    times, rank 0 gathers them with the ranks' host names and appends the record."""
    from mpi4py import MPI  # only here: weight() and write() need no MPI

    mine = RankTiming(comm.Get_rank(), MPI.Get_processor_name(), share, compute_seconds,
                      communication_seconds, wall_seconds, marked_speed)
    ranks = comm.gather(mine, root=0)
    if comm.Get_rank() == 0:
        write(run, ranks)
