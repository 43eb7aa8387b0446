"""The Python API for hand-written tests: run a config, assert it is clean."""

from __future__ import annotations

from pathlib import Path

from driftguard.config.loader import load_config
from driftguard.judging.engine import Engine
from driftguard.judging.result import Result


def run(config_path: str | Path, root: str | Path | None = None) -> Result:
    """Judge every rule of the config at ``config_path``.

    The result has ``ok``, ``findings`` and ``exit_code``; a config that cannot
    be loaded raises ``driftguard.ConfigError``.
    """
    config = load_config(Path(config_path), root=Path(root).resolve() if root else None)
    return Engine(config).run()


def assert_clean(config_path: str | Path, root: str | Path | None = None) -> Result:
    """Run the config; raise AssertionError listing every finding unless all rules pass."""
    from driftguard.reporters.text import render_check

    result = run(config_path, root)
    if not result.ok:
        raise AssertionError("driftguard found drift:\n" + render_check(result))
    return result
