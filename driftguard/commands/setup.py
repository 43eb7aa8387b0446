"""``init`` and ``baseline``: a first config for a tree, and the findings it adopts."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from driftguard.commands.common import ExitCode, emit, load
from driftguard.model import ConfigError
from driftguard.text import printable


def cmd_init(args: argparse.Namespace) -> int:
    from driftguard.init import init_config
    from driftguard.progress import Progress

    root = Path(args.root)
    if not root.is_dir():
        raise ConfigError(f"--root {args.root}: expected a directory")
    with Progress() as progress:
        done = init_config(root.resolve(), force=args.force, jobs=args.jobs, progress=progress)
    lines = [f"driftguard init: wrote {done.config.name} ({done.rules} rules) for "
             + (", ".join(f"{len(files)} {name}" for name, files in sorted(done.survey.sources.items())) or "no")
             + f" source files and {len(done.survey.documents)} documents"]
    if done.known:
        lines.append(f"and {done.baseline.name} with the {len(done.known)} findings the tree has today "
                     "(check fails only on new ones; fix these and run `driftguard baseline --update`):")
        lines += [f"  {f.doc or f.source}: {f.rule}: {f.message}" for f in done.known]
    else:
        lines.append(f"and an empty {done.baseline.name}: the tree has no finding today")
    lines += ["next:", "  driftguard check                    # passes on this tree",
              "  driftguard selftest                 # shows every rule can fail",
              "  driftguard coverage --show-missing  # what the documents claim that no rule guards"]
    print(printable("\n".join(lines)))
    return ExitCode.CLEAN


def cmd_baseline(args: argparse.Namespace) -> int:
    from driftguard.fix.write import atomic_write
    from driftguard.judging.baseline import baseline_text, key_of, read_baseline
    from driftguard.judging.engine import Engine

    config = load(args)
    if config.baseline is None:
        raise ConfigError("the config names no baseline: add `baseline: driftguard.baseline.json` to it")
    before = read_baseline(config.baseline)
    result = Engine(replace(config, baseline=None)).run()
    now = [f for f in result.findings if not f.is_error]
    keys = {key_of(f) for f in now}
    fixed = [e for e in before.entries if (e["rule"], e["doc"], e["kind"], e["value"]) not in keys]
    known = before.counts()
    added = []
    for finding in now:
        if known[key_of(finding)] > 0:
            known[key_of(finding)] -= 1
        else:
            added.append(finding)
    verb = "wrote" if args.update else "would write"
    lines = [f"driftguard baseline: {verb} {len(now)} findings to {config.baseline.name}"]
    lines += [f"  fixed, dropped: {e['doc']}: {e['rule']}: {e['message']}" for e in fixed]
    lines += [f"  new, added: {f.doc or f.source}: {f.rule}: {f.message}" for f in added]
    if args.update:
        atomic_write(config.baseline, baseline_text(now).encode("utf-8"), 0o644)
    elif fixed or added:
        lines.append("(run with --update to write it)")
    emit(args, "\n".join(lines))
    errors = [f for f in result.findings if f.is_error]
    for error in errors:
        print(printable(f"{error.doc or error.source}: {error.rule}: {error.message}"), file=sys.stderr)
    return ExitCode.ERROR if errors else ExitCode.CLEAN
