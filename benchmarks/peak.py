"""Run a module or script in this interpreter and record its own peak memory.

    python benchmarks/peak.py OUT -m MODULE [ARGS...]
    python benchmarks/peak.py OUT SCRIPT [ARGS...]

At exit it writes the process's peak resident set (kB) to OUT. On Linux that
is ``VmHWM`` from /proc/self/status, which covers only this process's memory:
``ru_maxrss`` of a child started by a large parent also counts the parent's
pages the child had before ``exec``, so it would report the runner's size.
"""

from __future__ import annotations

import os
import resource
import runpy
import sys


def peak_kb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # kB on Linux, bytes on macOS


def main() -> None:
    out, rest = sys.argv[1], sys.argv[2:]
    try:
        if rest[0] == "-m":
            sys.argv = [rest[1], *rest[2:]]
            sys.path[0] = os.getcwd()  # as `python -m` has it
            runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = rest
            sys.path[0] = os.path.dirname(os.path.abspath(rest[0]))  # as `python SCRIPT` has it
            runpy.run_path(rest[0], run_name="__main__")
    finally:
        sys.stdout.flush()
        with open(out, "w", encoding="ascii") as fh:
            fh.write(str(peak_kb()))


if __name__ == "__main__":
    main()
