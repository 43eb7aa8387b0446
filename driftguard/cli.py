"""The command line: argparse, each command a function returning an exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING

from driftguard._version import __version__
from driftguard.model import ConfigError, DriftguardError
from driftguard.text import printable

if TYPE_CHECKING:
    from driftguard.config.loader import Config
    from driftguard.judging.cache import FactCache


class ExitCode(IntEnum):
    CLEAN = 0
    DRIFT = 1
    ERROR = 2


def _common(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--config", metavar="F", help="the config file (default: driftguard.yaml here or above)")
    sub.add_argument("--root", metavar="DIR", help="the folder config paths are relative to (overrides `root:`)")
    sub.add_argument("--output", metavar="F", help="write the output to F instead of standard output")
    sub.add_argument("--no-cache", action="store_true",
                     help="neither read nor write the fact cache (also DRIFTGUARD_NO_CACHE=1)")


def build_parser() -> argparse.ArgumentParser:
    from driftguard.coverage import COVERAGE_FORMATS
    from driftguard.reporters import CHECK_FORMATS, REPORT_FORMATS

    parser = argparse.ArgumentParser(
        prog="driftguard",
        description="Check that documents still state what the code declares.",
        epilog="Exit codes: 0 clean, 1 drift found, 2 usage, config, read or parse error.",
    )
    parser.add_argument("--version", action="version", version=f"driftguard {__version__}")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = subs.add_parser("check", help="judge every rule; print the findings")
    check.add_argument("paths", nargs="*", metavar="PATHS",
                       help="only the rules whose document or fact files are these")
    check.add_argument("--format", choices=sorted(CHECK_FORMATS), default="text")
    _common(check)

    report = subs.add_parser("report", help="every rule with its status, the facts it read and the mismatches")
    report.add_argument("--format", choices=sorted(REPORT_FORMATS), default="text")
    _common(report)

    facts = subs.add_parser("facts", help="what each fact extracts, with file:line per value")
    facts.add_argument("names", nargs="*", metavar="NAME")
    _common(facts)

    fix = subs.add_parser("fix", help="rewrite stale values and add missing table rows in the documents")
    fix.add_argument("rules", nargs="*", metavar="RULE", help="only these rules (default: every rule)")
    fix.add_argument("--dry-run", action="store_true", help="print a unified diff and write nothing")
    _common(fix)

    discover = subs.add_parser("discover", help="propose rules where documents and code already agree")
    discover.add_argument("--root", metavar="DIR", default=".", help="the repository to scan (default: here)")
    discover.add_argument("--output", metavar="F", help="write the proposed config to F instead of standard output")
    discover.add_argument("--force", action="store_true", help="let --output replace an existing file")
    discover.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: one per core)")
    discover.add_argument("--all", action="store_true", help="prove and write every proposal, not only the best 20")

    selftest = subs.add_parser("selftest", help="prove each rule can fail: mutate a copy of its files and re-judge")
    _common(selftest)

    coverage = subs.add_parser("coverage", help="which claims of the documents some rule guards, and which none does")
    coverage.add_argument("paths", nargs="*", metavar="PATHS",
                          help="only these documents, a folder for the markdown under it "
                               "(default: every document a rule reads)")
    coverage.add_argument("--format", choices=list(COVERAGE_FORMATS), default="text",
                          help="text (default), json, or html (a page; needs --output F)")
    coverage.add_argument("--show-missing", action="store_true", help="list the unguarded spans with their lines")
    coverage.add_argument("--fail-under", type=_percent, metavar="PCT",
                          help="exit 1 when the total percent guarded is below PCT")
    _common(coverage)
    return parser


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a percent from 0 to 100, got {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not args.command:
        parser.print_help(sys.stdout)
        return ExitCode.CLEAN
    command: Callable[[argparse.Namespace], int] = COMMANDS[args.command]
    try:
        return command(args)
    except DriftguardError as exc:
        print(printable(f"{exc.location or 'driftguard'}: error: {exc.message}"), file=sys.stderr)
        fmt = getattr(args, "format", "text") if args.command in ("check", "report") else "text"
        if isinstance(exc, OutputRefused):
            return ExitCode.ERROR  # the error document would go to the very file that was refused
        if fmt in ("github", "sarif"):  # machine formats still get a document that says why
            from importlib import import_module

            text = import_module(f"driftguard.reporters.{fmt}").render_error(exc)
        elif fmt == "json":  # TODO: move to driftguard.reporters.json_format.render_error
            import json

            from driftguard.model import FINDING_KINDS

            error = {"code": FINDING_KINDS[exc.kind].code, "kind": exc.kind, "message": exc.message,
                     "location": exc.location.to_json() if exc.location else None}
            summary = {"rules": 0, "passed": 0, "failed": 0, "errors": 1}
            text = json.dumps({"ok": False, "version": __version__, "error": error, "summary": summary,
                               "rules": [], "findings": []}, indent=2) + "\n"
        else:
            return ExitCode.ERROR
        try:
            _emit(args, text)
        except (OSError, DriftguardError):
            pass
        return ExitCode.ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # never a traceback for a user; DRIFTGUARD_DEBUG=1 shows it
        if os.environ.get("DRIFTGUARD_DEBUG"):
            raise
        print(f"driftguard: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return ExitCode.ERROR


def _load(args: argparse.Namespace) -> Config:
    from driftguard.config.loader import CONFIG_NAME, find_config, load_config
    from driftguard.model import ConfigError

    path = Path(args.config) if args.config else find_config(Path.cwd())
    if path is None:
        raise ConfigError(f"no {CONFIG_NAME} in this folder or its parents (use --config F)")
    root = Path(args.root).resolve() if args.root else None
    if root is not None and not root.is_dir():
        raise ConfigError(f"--root {args.root}: expected a directory")
    config = load_config(path, root=root)
    if getattr(args, "output", None):
        _refuse_overwriting_inputs(args.output, config)
    return config


class OutputRefused(ConfigError):
    """``--output`` names a file that must not be written; nothing is."""


def _refuse_overwriting_inputs(output: str, config: Config) -> None:
    """``--output`` may not name the config or any document or source the run reads."""
    target = Path(output).resolve()
    read = {config.path.resolve(): "the config"}
    for rule in config.rules:
        read.setdefault((config.root / rule.doc).resolve(), f"document {rule.doc}")
    for spec in config.facts.values():
        for file in spec.files:
            read.setdefault((config.root / file).resolve(), f"source {file}")
    if target in read:
        raise OutputRefused(f"--output {output}: that is {read[target]}, which this run reads; "
                            "nothing was written")


def _cache(args: argparse.Namespace) -> FactCache | None:
    """The on-disk fact cache for check, report and facts, unless turned off."""
    if getattr(args, "no_cache", False):
        return None
    from driftguard.judging.cache import default_cache

    explicit = os.environ.get("DRIFTGUARD_CACHE_DIR")
    if explicit and not os.path.isabs(explicit):
        print(printable(f"driftguard: DRIFTGUARD_CACHE_DIR={explicit} is not an absolute path; "
                        "running without the cache"), file=sys.stderr)
    return default_cache()


def _emit(args: argparse.Namespace, text: str) -> None:
    if text and not text.endswith("\n"):
        text += "\n"
    text = printable(text)
    if args.output:
        _write_atomic(Path(args.output), text.encode("utf-8"))
    else:
        sys.stdout.write(text)


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all (``fix``'s atomic write), keeping an existing
    file's mode and giving a new one the mode the umask allows."""
    import stat

    from driftguard.fix.write import atomic_write
    from driftguard.model import ConfigError, Location

    folder = path.parent
    if not folder.is_dir():
        raise ConfigError(f"--output {path}: the folder {folder} does not exist", Location(str(path)))
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    except OSError:
        mode = 0o644
    try:
        atomic_write(path, data, mode)
    except OSError as exc:
        raise ConfigError(f"--output {path}: cannot write: {exc.strerror or exc}", Location(str(path))) from None


def cmd_check(args: argparse.Namespace) -> int:
    from driftguard.judging.engine import Engine, rules_touching
    from driftguard.reporters import CHECK_FORMATS, renderer

    config = _load(args)
    rules = None
    if args.paths:
        rules = rules_touching(config, _given_paths(args.paths, config, "check"))
        if not rules:
            print(f"driftguard: no rule reads {', '.join(args.paths)}; nothing to judge", file=sys.stderr)
    result = Engine(config, _cache(args)).run(rules)
    _emit(args, renderer(CHECK_FORMATS, args.format)(result))
    return result.exit_code


def cmd_report(args: argparse.Namespace) -> int:
    from driftguard.judging.engine import Engine
    from driftguard.reporters import REPORT_FORMATS, renderer

    result = Engine(_load(args), _cache(args)).run()
    _emit(args, renderer(REPORT_FORMATS, args.format)(result))
    return result.exit_code


def cmd_facts(args: argparse.Namespace) -> int:
    from driftguard.judging.engine import Engine

    config = _load(args)
    unknown = [n for n in args.names if n not in config.facts]
    if unknown:
        print(f"driftguard: error: unknown fact(s): {', '.join(unknown)}; known: {', '.join(config.facts)}",
              file=sys.stderr)
        return ExitCode.ERROR
    engine = Engine(config, _cache(args))
    lines, code = [], ExitCode.CLEAN
    for name in args.names or list(config.facts):
        spec = config.facts[name]
        try:
            fact = engine.fact(spec)
        except DriftguardError as exc:
            lines.append(f"{name}: error: {exc}")
            code = ExitCode.ERROR
            continue
        kind = "scalar" if fact.scalar else f"{'map' if spec.map else 'set'} of {len(fact.items)}"
        lines.append(f"{name} ({kind}) from {spec.file}:")
        for item in fact.items:
            text = f"  [{item.value.text}]" if item.value.text and item.value.text != item.value.canonical else ""
            key = f"{item.label} = " if spec.map else ""
            lines.append(f"  {item.location}: {key}{item.value.canonical}{text}")
        lines += [f"  note: {note}" for note in engine.left_out(spec)]
        lines += [f"  warning: {warning}" for warning in fact.warnings]
    _emit(args, "\n".join(lines) + "\n")
    return code


def cmd_fix(args: argparse.Namespace) -> int:
    from driftguard.fix import apply_fixes, plan_fixes, render_fix

    outcome = apply_fixes(plan_fixes(_load(args), args.rules or None), dry_run=args.dry_run)
    _emit(args, render_fix(outcome))
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
        found = discover(root.resolve(), jobs=args.jobs, limit=None if args.all else LIMIT, progress=progress)
    if not found.proposals:  # a config needs a rule: an empty one would not load
        print(render_summary(found), file=sys.stderr)
        print("driftguard discover: no rule to propose; nothing written", file=sys.stderr)
        return ExitCode.CLEAN
    _emit(args, render_config(found))
    print(render_summary(found), file=sys.stderr)
    return ExitCode.CLEAN


def cmd_selftest(args: argparse.Namespace) -> int:
    from driftguard.progress import Progress
    from driftguard.selftest import render_selftest, run_selftest

    config = _load(args)
    with Progress() as progress:
        result = run_selftest(config, progress)
    _emit(args, render_selftest(result))
    return result.exit_code


def cmd_coverage(args: argparse.Namespace) -> int:
    from driftguard.coverage import coverage_renderer
    from driftguard.coverage.measure import measure_coverage
    from driftguard.progress import Progress

    if args.format == "html" and not args.output:
        raise ConfigError("--format html writes a page: name its file with --output F")
    config = _load(args)
    paths = _given_paths(args.paths, config, "coverage")
    with Progress() as progress:
        result = measure_coverage(config, paths, _cache(args), progress)
    _emit(args, coverage_renderer(args.format)(result, args.show_missing))
    for error in result.errors:
        print(printable(error), file=sys.stderr)
    if result.errors:
        return ExitCode.ERROR
    if args.fail_under is not None and result.percent < args.fail_under:
        print(f"driftguard: total coverage {result.percent}% is below --fail-under {args.fail_under:g}",
              file=sys.stderr)
        return ExitCode.DRIFT
    return ExitCode.CLEAN


def _given_paths(paths: Sequence[str], config: Config, command: str) -> list[str]:
    """``paths`` relative to the config's root; ConfigError naming the first that does not exist."""
    from driftguard.model import Location

    for given in paths:
        if not Path(given).exists():
            raise ConfigError(f"no such file or folder; every path given to {command} must exist", Location(given))
    return [_relative(p, config.root) for p in paths]


def _relative(path: str, root: Path) -> str:
    full = Path(path).resolve()
    try:
        return full.relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "check": cmd_check,
    "report": cmd_report,
    "facts": cmd_facts,
    "selftest": cmd_selftest,
    "fix": cmd_fix,
    "discover": cmd_discover,
    "coverage": cmd_coverage,
}
