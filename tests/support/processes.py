"""Processes seen through /proc: what a test checks after docai (or its workers) should
have ended."""

from __future__ import annotations

import os


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, through /proc (children of each of its threads)."""
    found: set[int] = set()
    queue = [pid]
    while queue:
        parent = queue.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", encoding="ascii") as listing:
                    children = {int(child) for child in listing.read().split()}
            except OSError:
                continue
            queue.extend(children - found)
            found |= children
    return found


def alive(pid: int) -> bool:
    """Running or sleeping; a zombie (dead, not yet reaped by whoever adopted it) is not."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")
