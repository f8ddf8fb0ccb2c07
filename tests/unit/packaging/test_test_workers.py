"""`-n auto` counts the cores a cgroup quota allows, not the host's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cores import cgroup_cpu_limit, usable_cores


def _limit(tmp_path: Path, v2: str | None, v1: tuple[str, str] | None = None) -> int | None:
    files = tmp_path / "v2", tmp_path / "quota", tmp_path / "period"
    if v2 is not None:
        files[0].write_text(v2)
    if v1 is not None:
        files[1].write_text(v1[0])
        files[2].write_text(v1[1])
    return cgroup_cpu_limit(*files)


@pytest.mark.parametrize(
    ("v2", "v1", "expected"),
    [
        ("200000 100000\n", None, 2),
        ("150000 100000\n", None, 2),  # one and a half CPUs: a second worker still helps
        ("50000 100000\n", None, 1),
        ("max 100000\n", None, None),
        (None, ("300000", "100000"), 3),
        (None, ("-1", "100000"), None),
        (None, None, None),
        ("garbage", None, None),
    ],
)
def test_a_quota_is_read_as_whole_cpus(
    tmp_path: Path, v2: str | None, v1: tuple[str, str] | None, expected: int | None
) -> None:
    assert _limit(tmp_path, v2, v1) == expected


def test_the_workers_never_exceed_the_cpus_this_process_may_use() -> None:
    assert 1 <= usable_cores() <= len(os.sched_getaffinity(0))
