"""The pytest plugin: every rule of a driftguard config becomes one test item.

Registered through the ``pytest11`` entry point, so it is loaded wherever
driftguard is installed, and does nothing until it is enabled with
``--driftguard`` or the ini option ``driftguard = true``. ``driftguard_config``
names another config file (relative to the ini file); by default the config is
``driftguard.yaml`` in the rootdir or its parents, as ``driftguard check`` finds it.

How the config file is collected: when pytest's own walk reaches it (it lies
under a collected folder, or is named on the command line) ``pytest_collect_file``
collects it like any file. When the walk does not reach it (``testpaths`` leave
out the repository root), a ``tryfirst`` ``pytest_collection_modifyitems`` hook
collects it through ``Session.genitems``, so its items get the usual collection
report and errors, and ``-k`` and ``--deselect`` (later hooks) still apply. It is
collected at most once. That second path is taken whenever ``--driftguard`` is
given, and for the ini option only on runs without explicit paths (plain
``pytest``), so a run on one chosen test file stays focused.

The engine is built once per config file (each source and document is parsed
once per run) and shared by the file's items. It reads and writes the same fact
cache as ``driftguard check`` (``judging.cache.default_cache``), so a second run
parses only what changed; ``--driftguard-no-cache``, the ini option
``driftguard_no_cache = true`` or ``DRIFTGUARD_NO_CACHE=1`` turn it off, as
``check --no-cache`` does. The engine never imports pytest.

Node ids: a rule is ``CONFIG::RULE-ID``; a rule over a ``doc:`` glob is one item
per document, ``CONFIG::RULE-ID[DOC]``. Each item's id is built from that string
exactly as pytest rebuilds the ids it stores (``--lf``, ``--deselect``), so the
id pytest saved for a failed document selects that document alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from driftguard.config.loader import Rule
    from driftguard.judging.cache import FactCache
    from driftguard.judging.engine import Engine
    from driftguard.judging.result import RuleResult

_PLUGIN_NAME = "driftguard-rules"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("driftguard", "documentation drift (driftguard)")
    group.addoption(
        "--driftguard",
        action="store_true",
        default=False,
        help="check every rule of the driftguard config as a test item",
    )
    group.addoption(
        "--driftguard-no-cache",
        action="store_true",
        default=False,
        help="neither read nor write the fact cache driftguard check keeps (also DRIFTGUARD_NO_CACHE=1)",
    )
    parser.addini("driftguard", type="bool", default=False, help="enable the driftguard rules (true/false)")
    parser.addini("driftguard_no_cache", type="bool", default=False,
                  help="run the driftguard rules without the fact cache (true/false)")
    parser.addini(
        "driftguard_config",
        type="string",
        default="",
        help="the driftguard config file, relative to the ini file (default: driftguard.yaml found from rootdir)",
    )


def pytest_configure(config: pytest.Config) -> None:
    forced = bool(config.getoption("driftguard"))
    if not (forced or config.getini("driftguard")):
        return
    path = _config_path(config)
    no_cache = bool(config.getoption("driftguard_no_cache") or config.getini("driftguard_no_cache"))
    config.pluginmanager.register(_RulesPlugin(path, forced, cached=not no_cache), _PLUGIN_NAME)


def _config_path(config: pytest.Config) -> Path:
    """The config file the run checks; a usage error when none is set or found."""
    named = str(config.getini("driftguard_config") or "").strip()
    if named:
        base = config.inipath.parent if config.inipath else config.rootpath
        return (base / named).resolve()
    from driftguard.config.loader import CONFIG_NAME, find_config

    found = find_config(config.rootpath)
    if found is None:
        raise pytest.UsageError(
            f"driftguard: no {CONFIG_NAME} in {config.rootpath} or its parents; set the ini option driftguard_config"
        )
    return found.resolve()


class _RulesPlugin:
    """Per run: collect the config file once, by the walk or else after it."""

    def __init__(self, path: Path, forced: bool, cached: bool) -> None:
        self.path = path
        self.forced = forced
        self.collected = False
        self.cache: FactCache | None = None
        if cached:
            from driftguard.judging.cache import default_cache

            self.cache = default_cache()  # None too under DRIFTGUARD_NO_CACHE, or without a usable folder

    def pytest_report_header(self, config: pytest.Config) -> str:
        where = f"cache {self.cache.directory}" if self.cache else "no cache"
        return f"driftguard: {_shown(self.path, config.rootpath)} ({where})"

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> DriftguardFile | None:
        # pytest may build a node here that it then discards (pytest 8 lists a folder's
        # files to find the chosen ones), so only DriftguardFile.collect() marks it collected.
        if file_path.name != self.path.name or file_path.resolve() != self.path:
            return None
        return DriftguardFile.from_parent(parent, path=file_path)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list) -> None:
        if self.collected:
            return
        explicit = config.args_source is pytest.Config.ArgsSource.ARGS
        if explicit and not self.forced:
            return
        self.collected = True
        extra: dict[str, Any] = {}
        rel = _shown(self.path, config.rootpath)
        if rel.startswith(".."):  # outside rootdir: pytest would not derive a node id
            extra["nodeid"] = rel
        node = DriftguardFile.from_parent(session, path=self.path, **extra)
        items.extend(session.genitems(node))


def _shown(path: Path, rootpath: Path) -> str:
    """``path`` relative to the rootdir, posix, as node ids and messages show it."""
    return Path(os.path.relpath(path, rootpath)).as_posix()


class DriftguardFile(pytest.File):
    """A driftguard config: loaded once, one item per rule, one engine for all."""

    engine: Engine

    def collect(self) -> Iterator[DriftguardItem]:
        from driftguard.config.loader import load_config
        from driftguard.judging.engine import Engine
        from driftguard.model import DriftguardError, Location

        plugin = self.config.pluginmanager.get_plugin(_PLUGIN_NAME)
        cache = None
        if isinstance(plugin, _RulesPlugin):
            plugin.collected = True
            cache = plugin.cache
        try:
            config = load_config(self.path)
        except DriftguardError as exc:
            where = exc.location
            if where is not None and where.path == str(self.path):
                where = Location(_shown(self.path, self.config.rootpath), where.line, where.column)
            raise self.CollectError(f"{where or 'driftguard'}: {exc.message}") from None
        self.engine = Engine(config, cache)
        shared = {rule.id for rule in config.rules if rule.doc_pattern != rule.doc}
        for rule in config.rules:
            name = f"{rule.id}[{rule.doc}]" if rule.id in shared else rule.id
            # The id as a string, so pytest reads "[DOC]" as the parameters the way it reads the
            # ids it stored; built from the name alone, "[" would stay part of the name (pytest 9).
            yield DriftguardItem.from_parent(self, name=name, rule=rule, nodeid=f"{self.nodeid}::{name}")


class RuleFailed(Exception):
    """Raised by a rule's item when the rule does not pass; carries its result."""

    def __init__(self, result: RuleResult) -> None:
        super().__init__(result.rule.id)
        self.result = result


class DriftguardItem(pytest.Item):
    """One rule, judged by its file's shared engine."""

    def __init__(self, *, rule: Rule, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rule = rule

    def runtest(self) -> None:
        from driftguard.model import Status

        assert isinstance(self.parent, DriftguardFile)
        result = self.parent.engine.judge(self.rule)
        if result.status is not Status.PASS:
            raise RuleFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, RuleFailed):
            return self._describe(excinfo.value.result)
        return super().repr_failure(excinfo, style=style)

    def _describe(self, result: RuleResult) -> str:
        from driftguard.model import Status
        from driftguard.reporters.text import finding_line

        where = f"{_shown(self.path, self.config.rootpath)}:{self.rule.line}"
        if result.status is Status.ERROR:
            head = f"{where}: rule {self.rule.id} could not be judged (a file could not be read or parsed):"
        else:
            count = len(result.findings)
            head = f"{where}: rule {self.rule.id} found drift ({count} finding{'s' if count != 1 else ''}):"
        lines = [head, *(finding_line(f) for f in result.findings)]
        if self.rule.why:
            lines.append(f"  why {self.rule.id}: {self.rule.why}")
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.rule.line - 1, f"driftguard: {self.rule.id}"
