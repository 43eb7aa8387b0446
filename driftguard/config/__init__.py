"""The config stage: safe YAML with line numbers, the schema, and the frozen specs.

``load_config`` reads ``driftguard.yaml`` into one frozen ``Config`` that every
later stage is handed; errors name the file, the line and the key path.
"""

from __future__ import annotations

from driftguard.config.loader import CONFIG_NAME, Config, FactSpec, Rule, find_config, load_config

__all__ = ["CONFIG_NAME", "Config", "FactSpec", "Rule", "find_config", "load_config"]
