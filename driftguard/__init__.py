"""driftguard: keep architecture documents true to the code they describe.

``driftguard.run(config_path)`` judges a config and returns a result with
``ok`` and ``findings``; ``driftguard.assert_clean(config_path)`` raises an
AssertionError listing the findings. Both are imported on first use.
"""

from __future__ import annotations

from typing import Any

from driftguard._version import __version__

__all__ = ["run", "assert_clean", "ConfigError", "DriftguardError", "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("run", "assert_clean"):
        from driftguard import api

        return getattr(api, name)
    if name in ("ConfigError", "DriftguardError"):
        from driftguard import model

        return getattr(model, name)
    raise AttributeError(f"module 'driftguard' has no attribute {name!r}")
