"""Time a cached ``driftguard check`` on the Pulse fixture against ``python -c "import yaml"``.

Both are whole fresh processes, run in turn (A B A B ...) after a warm-up that
also fills the cache, so the ratio holds when the machine's speed drifts. It
also lists which parser modules the cached check imported (it should be none).

    python benchmarks/startup.py [--repeat 15] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "examples" / "pulse" / "driftguard.yaml"
TREE = REPO / "tests" / "fixtures" / "pulse"
PARSERS = ("tree_sitter", "tree_sitter_go", "libcst", "markdown_it")
PROBE = (
    "import sys\n"
    "from driftguard.cli import main\n"
    "code = main(sys.argv[1:])\n"
    f"print('imported:', sorted(m for m in {PARSERS!r} if m in sys.modules), file=sys.stderr)\n"
    "raise SystemExit(code)\n"
)


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{cmd} exited {done.returncode}")
    return elapsed


def measure(repeat: int) -> dict[str, object]:
    check = [sys.executable, "-m", "driftguard", "check", "--config", str(CONFIG), "--root", str(TREE)]
    floor = [sys.executable, "-c", "import yaml"]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "DRIFTGUARD_CACHE_DIR": cache}
        env.pop("DRIFTGUARD_NO_CACHE", None)
        _wall(check, env)  # fills the cache
        probe = subprocess.run([sys.executable, "-c", PROBE, *check[3:]], env=env, capture_output=True,
                               text=True, check=False)
        imported = probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else "?"
        _wall(floor, env)
        pairs = [(_wall(check, env), _wall(floor, env)) for _ in range(repeat)]
    checks, floors = [a for a, _ in pairs], [b for _, b in pairs]
    return {
        "cached_check_s": round(statistics.median(checks), 4),
        "import_yaml_s": round(statistics.median(floors), 4),
        "ratio": round(statistics.median(a / b for a, b in pairs), 2),
        "runs": repeat,
        "parsers": imported,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    result = measure(args.repeat)
    print(f"cached check {result['cached_check_s']:.3f} s, import yaml {result['import_yaml_s']:.3f} s, "
          f"ratio {result['ratio']}x (median of {result['runs']} pairs); {result['parsers']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
