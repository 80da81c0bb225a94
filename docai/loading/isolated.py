"""A parse run where a memory and a time limit hold: in a child process of its own.

Why: some parsers can blow up where Python cannot stop them. PDFium (a C library) fed a
2 KB PDF whose form XObjects fan out takes gigabytes, and the timer signal of
`loading.deadline` cannot interrupt a C call; under a memory limit it aborts, and an abort
in docai's own process would end the whole session. So such a parse runs in a forked
child: its address space capped (`RLIMIT_AS`, PARSE_MEMORY_BYTES above what it inherited),
killed when it outlives its time limit, and whatever ends it (an abort, the kernel's
SIGKILL, a Python error) becomes a `Failed` reason for the caller, never its end.

The child sends its result back as JSON (`parsed_json`): it read hostile bytes, so what it
says is data, never code to unpickle. It dies with its parent (PR_SET_PDEATHSIG, set first
thing), ignores Ctrl-C (the parent kills it), prints nothing (its stdout and stderr go
to /dev/null) and never runs the parent's exit handlers (`os._exit`). Fork copies only
the calling thread; the child touches nothing another thread may hold a lock on (no
stdin, no logging, no multiprocessing), so forking from a busy process is safe here.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from docai.loading.deadline import TimeLimitExceeded
from docai.loading.parsed import Parsed, UnusableFile
from docai.loading.parsed_json import failure_to_json, parsed_to_json, reply_from_json

# What the parse may add to the address space the child inherits. Real PDFs of the 20 MB
# size limit parse in well under 200 MB; a bomb stops here, under 1 GB all told.
PARSE_MEMORY_BYTES = 640 * 1024 * 1024
# Linux's prctl option that sends the calling process a signal when its parent ends.
_PR_SET_PDEATHSIG = 1
# Exit statuses the child uses for outcomes that are not a parse.
_EXIT_NO_MEMORY = 3
_EXIT_FAILED = 4


@dataclass(frozen=True, slots=True)
class Failed:
    """Why the isolated parse gave nothing: `kind` is "memory", "crash", "nested" or
    "unusable" (then `detail` is the parser's own reason), or "error" (a bug: `detail`
    names the exception)."""

    kind: str
    detail: str = ""


def can_isolate() -> bool:
    """Whether this platform can fork a limited child (not Windows)."""
    return hasattr(os, "fork")


def parse_isolated(parse: Callable[[], Parsed], seconds: float,
                   memory_bytes: int = PARSE_MEMORY_BYTES) -> Parsed | Failed:
    """`parse()` run in a forked child limited to `memory_bytes` more than it inherits and
    to `seconds`; raises TimeLimitExceeded when it ran out of time, as `time_limit` does."""
    parent = os.getpid()
    try:
        read_end, write_end = os.pipe()
    except OSError as error:  # out of file descriptors
        return Failed("crash", error.strerror or str(error))
    try:
        pid = os.fork()
    except OSError as error:  # out of processes or memory: this file waits for a rebuild
        os.close(read_end)
        os.close(write_end)
        return Failed("crash", error.strerror or str(error))
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(parse, write_end, parent, memory_bytes)
    os.close(write_end)
    try:
        payload = _collect(read_end, seconds)
    except BaseException:
        _end(pid)
        raise
    finally:
        os.close(read_end)
    if payload is None:
        _end(pid)
        raise TimeLimitExceeded
    _, status = os.waitpid(pid, 0)
    return _outcome(payload, status)


def die_with_parent() -> None:
    """Have the kernel kill this process when its parent (strictly: the thread that
    started it) ends; nothing where prctl is missing."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _child(parse: Callable[[], Parsed], sink: int, parent: int, memory_bytes: int) -> None:
    code = _EXIT_FAILED
    try:
        die_with_parent()
        if os.getppid() != parent:  # the parent ended before the kernel was told to watch
            os._exit(code)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _silence()
        _cap_memory(memory_bytes)
        try:
            message = parsed_to_json(parse())
        except UnusableFile as unusable:
            message = failure_to_json("unusable", unusable.reason)
        except RecursionError:
            message = failure_to_json("nested")
        except MemoryError:
            code = _EXIT_NO_MEMORY
            raise
        except Exception as error:  # noqa: BLE001 (a parser's bug: named, not fatal)
            message = failure_to_json("error", type(error).__name__)
        _write_all(sink, message.encode("ascii"))
        code = 0
    finally:
        os._exit(code)


def _silence() -> None:
    """Nothing the child prints reaches the user or the agent: stdout may be MCP's
    channel, and a library's warnings or a crash report on stderr say nothing a user can
    act on (the reason the caller gives does)."""
    import faulthandler

    faulthandler.disable()
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.close(quiet)


def _cap_memory(extra: int) -> None:
    import resource

    inherited = _address_space()
    if not inherited:  # no /proc to say what is mapped: a cap could be below it
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = inherited + extra
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _address_space() -> int:
    """Bytes of address space this process has mapped (Linux's VmSize; 0 elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _collect(source: int, seconds: float) -> bytes | None:
    """Everything the child writes, until it closes the pipe; None past `seconds`."""
    deadline = time.monotonic() + seconds
    parts: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([source], [], [], left)
        if not ready:
            return None
        part = os.read(source, 1 << 20)
        if not part:
            return b"".join(parts)
        parts.append(part)


def _end(pid: int) -> None:
    """Kill the child and reap it (it may be gone already)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _outcome(payload: bytes, status: int) -> Parsed | Failed:
    if os.WIFSIGNALED(status):
        return Failed("crash", signal.Signals(os.WTERMSIG(status)).name
                      if os.WTERMSIG(status) in signal.valid_signals() else str(status))
    code = os.WEXITSTATUS(status)
    if code == _EXIT_NO_MEMORY:
        return Failed("memory")
    if code != 0 or not payload:
        return Failed("crash", f"exit {code}")
    try:
        reply = reply_from_json(payload)
    except ValueError:
        return Failed("crash", "bad reply")
    return Failed(*reply) if isinstance(reply, tuple) else reply
