"""How many test workers this machine really runs at once."""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_V2_LIMIT = Path("/sys/fs/cgroup/cpu.max")
CGROUP_V1_QUOTA = Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
CGROUP_V1_PERIOD = Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us")


def cgroup_cpu_limit(
    v2: Path = CGROUP_V2_LIMIT, v1_quota: Path = CGROUP_V1_QUOTA, v1_period: Path = CGROUP_V1_PERIOD
) -> int | None:
    """The CPUs a cgroup quota allows (rounded up), or `None` where no quota is set or readable."""
    try:
        quota, period = v2.read_text().split()[:2]
    except (OSError, ValueError):
        try:
            quota, period = v1_quota.read_text().strip(), v1_period.read_text().strip()
        except OSError:
            return None
    if quota in ("max", "-1"):
        return None
    try:
        return max(1, math.ceil(int(quota) / int(period)))
    except (ValueError, ZeroDivisionError):
        return None


def usable_cores() -> int:
    """The CPUs this process may run on, capped by its cgroup's quota.

    `psutil.cpu_count()`, which pytest-xdist's `-n auto` reads, counts the
    host's cores: in a container limited to 2 of 64 it starts 64 workers, each
    with its own PostgreSQL server, on 2 CPUs.
    """
    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    limit = cgroup_cpu_limit()
    return max(1, min(allowed or 1, limit or allowed or 1))
