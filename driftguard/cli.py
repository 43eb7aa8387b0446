"""The command line: argparse, each command a function of ``driftguard.commands``
returning an exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from driftguard._version import __version__
from driftguard.commands.common import ExitCode, OutputRefused, emit
from driftguard.commands.judging import cmd_check, cmd_facts, cmd_report
from driftguard.commands.setup import cmd_baseline, cmd_init
from driftguard.commands.tools import cmd_coverage, cmd_discover, cmd_fix, cmd_selftest
from driftguard.model import DriftguardError
from driftguard.text import printable

__all__ = ["ExitCode", "build_parser", "main"]


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
    facts.add_argument("--file", metavar="PATH", help="with --select: read one selector from PATH, with no config")
    facts.add_argument("--select", metavar="YAML", help="a fact's selector as YAML: 'constants: {type: State}'")
    _common(facts)

    init = subs.add_parser("init", help="write a first driftguard.yaml for this tree, and a baseline of today's drift")
    init.add_argument("--root", metavar="DIR", default=".", help="the repository (default: here)")
    init.add_argument("--force", action="store_true", help="replace a driftguard.yaml that init wrote before")
    init.add_argument("--jobs", type=int, metavar="N", help="worker processes for discover (default: one per core)")

    baseline = subs.add_parser("baseline", help="the findings the project knows of and accepts for now")
    baseline.add_argument("--update", action="store_true",
                          help="rewrite the baseline from a run: add today's findings, drop the fixed ones")
    _common(baseline)

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
    discover.add_argument("--include", action="append", default=[], metavar="GLOB",
                          help="read a changelog, release notes or history page discover leaves out (repeatable)")

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
            emit(args, text)
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


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "check": cmd_check,
    "report": cmd_report,
    "facts": cmd_facts,
    "selftest": cmd_selftest,
    "fix": cmd_fix,
    "discover": cmd_discover,
    "coverage": cmd_coverage,
    "init": cmd_init,
    "baseline": cmd_baseline,
}
