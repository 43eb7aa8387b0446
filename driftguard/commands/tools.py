"""``fix``, ``discover``, ``selftest`` and ``coverage``: the tools on top of a judged run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from driftguard.commands.common import ExitCode, OutputRefused, cache_for, emit, given_paths, load
from driftguard.model import ConfigError
from driftguard.text import printable


def cmd_fix(args: argparse.Namespace) -> int:
    from driftguard.fix import apply_fixes, plan_fixes, render_fix

    outcome = apply_fixes(plan_fixes(load(args), args.rules or None), dry_run=args.dry_run)
    emit(args, render_fix(outcome))
    return outcome.exit_code


def cmd_discover(args: argparse.Namespace) -> int:
    from driftguard.discover import LIMIT, discover, render_config, render_summary
    from driftguard.model import ConfigError

    root = Path(args.root)
    if not root.is_dir():
        raise ConfigError(f"--root {args.root}: expected a directory")
    if args.output and Path(args.output).exists() and not args.force:
        raise OutputRefused(f"--output {args.output}: the file exists; pass --force to replace it "
                            "(nothing was written)")
    from driftguard.progress import Progress

    with Progress() as progress:
        found = discover(root.resolve(), jobs=args.jobs, limit=None if args.all else LIMIT, progress=progress,
                         include=args.include)
    if not found.proposals:  # a config needs a rule: an empty one would not load
        print(render_summary(found), file=sys.stderr)
        print("driftguard discover: no rule to propose; nothing written", file=sys.stderr)
        return ExitCode.CLEAN
    emit(args, render_config(found))
    print(render_summary(found), file=sys.stderr)
    return ExitCode.CLEAN


def cmd_selftest(args: argparse.Namespace) -> int:
    from driftguard.progress import Progress
    from driftguard.selftest import render_selftest, run_selftest

    config = load(args)
    with Progress() as progress:
        result = run_selftest(config, progress)
    emit(args, render_selftest(result))
    return result.exit_code


def cmd_coverage(args: argparse.Namespace) -> int:
    from driftguard.coverage import coverage_renderer
    from driftguard.coverage.measure import measure_coverage
    from driftguard.progress import Progress

    if args.format == "html" and not args.output:
        raise ConfigError("--format html writes a page: name its file with --output F")
    config = load(args)
    paths = given_paths(args.paths, config, "coverage")
    with Progress() as progress:
        result = measure_coverage(config, paths, cache_for(args), progress)
    emit(args, coverage_renderer(args.format)(result, args.show_missing))
    for error in result.errors:
        print(printable(error), file=sys.stderr)
    if result.errors:
        return ExitCode.ERROR
    if args.fail_under is not None and result.percent < args.fail_under:
        print(f"driftguard: total coverage {result.percent}% is below --fail-under {args.fail_under:g}",
              file=sys.stderr)
        return ExitCode.DRIFT
    return ExitCode.CLEAN
