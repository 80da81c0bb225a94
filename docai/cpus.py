"""How many CPUs this process may use: the parse workers and the embedding threads size
themselves by it. The affinity mask, not the machine's count, so a container or `taskset`
limited to two cores gets two; platforms without the mask (macOS) fall back to the count."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
