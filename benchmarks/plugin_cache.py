"""Time ``pytest --driftguard`` against ``driftguard check`` of the same config, warm and cold.

The pytest plugin once ignored the fact cache, so a pytest run of this repository's own
``driftguard.yaml`` took about 15 times a warm ``check``. Each round runs, in turn:

- check, warm: ``driftguard check`` with the cache the warm-up round filled (the peer);
- plugin, warm: ``pytest -p no:cacheprovider --driftguard driftguard.yaml``, run in the
  repository (its ``pyproject.toml``: rootdir, ``addopts``, the ini option) with the same
  cache; naming the config file collects it alone, so no test module is imported;
- check, cold and plugin, cold: the same with a fresh cache folder each;
- plugin, no cache: ``--driftguard-no-cache``, what the plugin did before it read the cache;
- pytest floor: pytest with the same ini and plugins, the driftguard plugin left out
  (``-p no:driftguard``), collecting an empty folder: what any pytest run costs here.

The ratios are plugin/check, warm and cold; the floor shows how much of the plugin's run
is pytest's own start. Peak memory is each process's own ``VmHWM``; medians of
``--repeat`` rounds after a warm-up round. The plugin and check must agree on how many
rules (items) pass and fail.

    python benchmarks/plugin_cache.py [--repeat 3] [--repo DIR] [--project DIR --config F] [--json out.json]

``--repo`` times another checkout of driftguard; ``--project`` runs on another project
(a folder with a ``pyproject.toml`` and the config); ``--no-bytecode-cache`` leaves the
environment's ``PYTHONDONTWRITEBYTECODE`` set, as this sandbox has it: pytest then
assertion-rewrites driftguard's package (and hypothesis's) on every run.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from rounds import Run, child_env, ratio, rounds

REPO = Path(__file__).resolve().parent.parent
PYTEST = ["-m", "pytest", "-p", "no:cacheprovider", "-q"]


def runs(repo: Path, project: Path, config: str, work: Path, round_no: int, bytecode: bool = True) -> dict[str, Run]:
    """One round's runs of the checkout ``repo`` on ``project``'s config (relative to it)."""

    def env(cache: str) -> dict[str, str]:
        return child_env(repo, work, bytecode, DRIFTGUARD_CACHE_DIR=str(work / cache))

    check = ["-m", "driftguard", "check", "--config", config]
    plugin = [*PYTEST, "--driftguard", config]
    floor = [*PYTEST, "-p", "no:driftguard", "--rootdir", str(project), "-c", str(project / "pyproject.toml"),
             str(work / "empty")]
    return {
        "check, warm": Run(check, project, env("warm")),
        "plugin, warm": Run(plugin, project, env("warm")),
        "check, cold": Run(check, project, env(f"cold-check-{round_no}")),
        "plugin, cold": Run(plugin, project, env(f"cold-plugin-{round_no}")),
        "plugin, no cache": Run([*plugin, "--driftguard-no-cache"], project, env("unused")),
        "pytest floor": Run(floor, project, env("unused"), codes=(5,)),  # 5: no tests collected
    }


def verdicts(check: str, pytest: str) -> dict[str, Any]:
    """Passed and failed rules as check's summary and pytest's last line count them."""
    summary = re.search(r"(\d+) rules?: (\d+) passed(?:, (\d+) failed)?", check)
    by_check = (int(summary[2]), int(summary[3] or 0)) if summary else None
    counted = dict((word, int(n)) for n, word in re.findall(r"(\d+) (passed|failed)", pytest.strip().splitlines()[-1]))
    by_pytest = (counted.get("passed", 0), counted.get("failed", 0))
    return {"check": by_check, "pytest": by_pytest, "agree": by_check == by_pytest}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repo", type=Path, default=REPO, help="the driftguard checkout to time")
    parser.add_argument("--project", type=Path, default=REPO, help="the project pytest runs in (its pyproject.toml)")
    parser.add_argument("--config", default="driftguard.yaml", help="the config, relative to --project")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="keep the environment's PYTHONDONTWRITEBYTECODE (pytest then rewrites on every run)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    repo, project = args.repo.resolve(), args.project.resolve()
    with tempfile.TemporaryDirectory(prefix="plugin-cache-") as tmp:
        work = Path(tmp)
        (work / "empty").mkdir()
        result = rounds(lambda i: runs(repo, project, args.config, work, i, not args.no_bytecode_cache),
                        args.repeat)
    outputs = result.pop("outputs")
    med, mb = result["median_s"], result["peak_mb"]
    result.update(repo=str(repo), project=str(project), config=args.config, repeat=args.repeat,
                  bytecode_cache=not args.no_bytecode_cache,
                  warm_ratio=ratio(med["plugin, warm"], med["check, warm"]),
                  cold_ratio=ratio(med["plugin, cold"], med["check, cold"]),
                  no_cache_ratio=ratio(med["plugin, no cache"], med["check, warm"]),
                  warm_over_floor_ratio=ratio(med["plugin, warm"] - med["pytest floor"], med["check, warm"]),
                  verdicts={k: verdicts(outputs[f"check, {k}"], outputs[f"plugin, {k}"]) for k in ("warm", "cold")})
    peers = {"check, warm": "check, warm", "plugin, warm": "check, warm", "check, cold": "check, cold",
             "plugin, cold": "check, cold", "plugin, no cache": "check, warm", "pytest floor": "check, warm"}
    cached = "" if args.no_bytecode_cache else ", children with a bytecode cache"
    print(f"{project / args.config} (driftguard of {repo}{cached}): median of {args.repeat}\n")
    print("| run | median s | peak MB | against |\n|---|---:|---:|---|")
    for name, peer in peers.items():
        print(f"| {name} | {med[name]} | {mb[name]} | {ratio(med[name], med[peer])}x {peer} |")
    print(f"\nplugin/check: warm {result['warm_ratio']}x, cold {result['cold_ratio']}x; "
          f"warm plugin less the pytest floor: {result['warm_over_floor_ratio']}x a warm check")
    agree = all(v["agree"] for v in result["verdicts"].values())
    print("plugin and check agree (passed, failed): " + ", ".join(
        f"{k} {v['check']} / {v['pytest']}" for k, v in result["verdicts"].items()))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
