"""What every command shares: the exit codes, the config, the cache and the output."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING

from driftguard.model import ConfigError
from driftguard.text import printable

if TYPE_CHECKING:
    from driftguard.config.loader import Config
    from driftguard.judging.cache import FactCache


class ExitCode(IntEnum):
    CLEAN = 0
    DRIFT = 1
    ERROR = 2


def load(args: argparse.Namespace, require_rules: bool = True) -> Config:
    from driftguard.config.loader import CONFIG_NAME, find_config, load_config
    from driftguard.model import ConfigError

    path = Path(args.config) if args.config else find_config(Path.cwd())
    if path is None:
        raise ConfigError(f"no {CONFIG_NAME} here or above; run `driftguard init` to write one "
                          "(or name one with --config F)")
    root = Path(args.root).resolve() if args.root else None
    if root is not None and not root.is_dir():
        raise ConfigError(f"--root {args.root}: expected a directory")
    config = load_config(path, root=root, require_rules=require_rules)
    if getattr(args, "output", None):
        refuse_overwriting_inputs(args.output, config)
    return config


class OutputRefused(ConfigError):
    """``--output`` names a file that must not be written; nothing is."""


def refuse_overwriting_inputs(output: str, config: Config) -> None:
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


def cache_for(args: argparse.Namespace) -> FactCache | None:
    """The on-disk fact cache for check, report and facts, unless turned off."""
    if getattr(args, "no_cache", False):
        return None
    from driftguard.judging.cache import default_cache

    explicit = os.environ.get("DRIFTGUARD_CACHE_DIR")
    if explicit and not os.path.isabs(explicit):
        print(printable(f"driftguard: DRIFTGUARD_CACHE_DIR={explicit} is not an absolute path; "
                        "running without the cache"), file=sys.stderr)
    return default_cache()


def emit(args: argparse.Namespace, text: str) -> None:
    if text and not text.endswith("\n"):
        text += "\n"
    text = printable(text)
    if args.output:
        write_atomic(Path(args.output), text.encode("utf-8"))
    else:
        sys.stdout.write(text)


def write_atomic(path: Path, data: bytes) -> None:
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


def given_paths(paths: Sequence[str], config: Config, command: str) -> list[str]:
    """``paths`` relative to the config's root; ConfigError naming the first that does not exist."""
    from driftguard.model import Location

    for given in paths:
        if not Path(given).exists():
            raise ConfigError(f"no such file or folder; every path given to {command} must exist", Location(given))
    return [relative(p, config.root) for p in paths]


def relative(path: str, root: Path) -> str:
    full = Path(path).resolve()
    try:
        return full.relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()
