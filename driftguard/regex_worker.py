"""The process that runs costly regex matches for ``driftguard.regex_guard``.

A channel carries framed bytes (an 8-byte length, then the body) to a worker
and back; the worker answers each request with ``answer(request)`` until its
input closes. Where ``os.fork`` exists and only one thread runs, the worker is
a fork of this process, talking over two pipes; elsewhere it is a spawned
``multiprocessing`` process (slower to start, same protocol). Killing the worker
is always safe: it holds nothing but the request it is working on.
"""

from __future__ import annotations

import os
import select
import struct
import threading
import time
from typing import Any, Callable

_HEADER = struct.Struct(">Q")
_CHUNK = 1 << 20
_START_LIMIT = 60.0  # seconds a spawned worker may take to start (not counted against the timeout)


class WorkerTimeout(Exception):
    """The worker did not answer before the deadline (it is then killed)."""


def start_channel(answer: Callable[[bytes], bytes], method: str | None = None) -> Any:
    """A started channel (``method``: "fork", "spawn", or the best one here), or None when none starts."""
    if method is None:
        method = "fork" if hasattr(os, "fork") and threading.active_count() == 1 else "spawn"
    try:
        return _ForkChannel(answer) if method == "fork" else _SpawnChannel()
    except (OSError, EOFError):
        return None


# -- fork -------------------------------------------------------------------------


class _ForkChannel:
    def __init__(self, answer: Callable[[bytes], bytes]) -> None:
        down_read, down_write = os.pipe()
        up_read, up_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            code = 0
            try:
                os.close(down_write)
                os.close(up_read)
                _serve_fds(down_read, up_write, answer)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(down_read)
        os.close(up_write)
        self.pid, self.out, self.inp = pid, down_write, up_read

    def exchange(self, data: bytes, deadline: float) -> bytes:
        _write_frame(self.out, data)
        reply = _read_frame(self.inp, deadline)
        if reply is None:
            raise EOFError("the worker exited")
        return reply

    def close(self) -> None:
        """Kill and reap the worker."""
        self.forget()
        try:
            os.kill(self.pid, 9)
        except OSError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass

    def forget(self) -> None:
        """Close this process's ends only (a fork of the owner must leave the worker alone)."""
        for fd in (self.out, self.inp):
            try:
                os.close(fd)
            except OSError:
                pass


def _serve_fds(inp: int, out: int, answer: Callable[[bytes], bytes]) -> None:
    while True:
        request = _read_frame(inp, None)
        if request is None:
            return
        _write_frame(out, answer(request))


def _write_frame(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view[:_CHUNK]):]


def _read_frame(fd: int, deadline: float | None) -> bytes | None:
    """One frame, or None at end of input; WorkerTimeout once ``deadline`` (monotonic) passes."""
    header = _read_exact(fd, _HEADER.size, deadline)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    body = _read_exact(fd, size, deadline)
    if body is None:
        raise EOFError("the worker's answer was cut short")
    return body


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes | None:
    parts, missing = [], size
    while missing:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise WorkerTimeout()
        chunk = os.read(fd, min(missing, _CHUNK))
        if not chunk:
            return None
        parts.append(chunk)
        missing -= len(chunk)
    return b"".join(parts)


# -- spawn ------------------------------------------------------------------------


class _SpawnChannel:
    def __init__(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=serve_connection, args=(child,), daemon=True)
        self.process.start()
        child.close()
        if not self.conn.poll(_START_LIMIT) or self.conn.recv_bytes() != b"ready":
            self.close()
            raise OSError("the regex worker did not start")

    def exchange(self, data: bytes, deadline: float) -> bytes:
        self.conn.send_bytes(data)
        if not self.conn.poll(max(deadline - time.monotonic(), 0.0)):
            raise WorkerTimeout()
        return bytes(self.conn.recv_bytes())

    def close(self) -> None:
        self.conn.close()
        self.process.kill()
        self.process.join()

    def forget(self) -> None:
        self.conn.close()


def serve_connection(conn: Any) -> None:
    """The spawned worker's loop (a module-level function, so that spawn can import it)."""
    from driftguard.regex_guard import answer

    conn.send_bytes(b"ready")
    while True:
        try:
            request = conn.recv_bytes()
        except (EOFError, OSError):
            return
        conn.send_bytes(answer(request))
