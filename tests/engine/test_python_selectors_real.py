"""The Python selectors on the shapes real projects take: an ``os.getenv`` default,
a nested default-config dict read by key path, options declared as calls in a
class body, a dict local to a property, and a ``__str__`` with a sentinel branch.

The reader is tested on each shape directly; the engine on the fixture tree
``tests/fixtures/python_shapes`` (a guide and its code), clean and with drift.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from driftguard.config.loader import load_config
from driftguard.config.specs import Call, Calls, Constant, MapKeys, StringMethod
from driftguard.judging.result import Result
from driftguard.model import AmbiguousFact, FactNotFound, Kind, Status
from driftguard.sources import python as reader
from tests.engine.python_source import SourceReader
from tests.helpers import edit, judge

PATH = "pkg/mod.py"
SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "python_shapes"


SOURCE = SourceReader(PATH)
read = SOURCE.read
values = SOURCE.values
not_found = SOURCE.not_found
skipped = SOURCE.skipped


# -- the evaluator: os.getenv defaults and conversions --------------------------


@pytest.mark.parametrize(("expression", "kind", "data"), [
    ('int(os.getenv("POETRY_REQUESTS_TIMEOUT", 15))', Kind.NUMBER, 15),
    ('int(os.getenv("POETRY_REQUESTS_TIMEOUT", "15"))', Kind.NUMBER, 15),
    ('os.getenv("X", 15)', Kind.NUMBER, 15),
    ('os.environ.get("X", "info")', Kind.STRING, "info"),
    ('environ.get("X", "info")', Kind.STRING, "info"),
    ('getenv("X", default="7")', Kind.STRING, "7"),
    ('float(os.getenv("X", "0.5"))', Kind.NUMBER, 0.5),
    ('str(os.getenv("X", 15))', Kind.STRING, "15"),
    ('bool(os.getenv("X", "yes"))', Kind.BOOL, True),
    ('int(os.getenv("X", DEFAULT_TIMEOUT))', Kind.NUMBER, 20),
    ('int("15")', Kind.NUMBER, 15),
    ('int(float("2.5") * 2)', Kind.NUMBER, 5),
])
def test_an_environment_default_is_the_value(expression: str, kind: Kind, data: object) -> None:
    source = f"import os\nfrom os import environ, getenv\nDEFAULT_TIMEOUT = 20\nVALUE = {expression}\n"
    [item] = read(source, Constant("VALUE"))
    assert (item.value.kind, item.value.data) == (kind, data)
    assert type(item.value.data) is type(data)
    assert item.value.text == expression and item.location.line == 4


@pytest.mark.parametrize(("expression", "reason"), [
    ('os.getenv("X")', "has no default: its value comes from the environment"),
    ('int(os.getenv("X"))', "has no default"),
    ('os.environ.get("X", None)', "has no default"),
    ('os.environ["X"]', "is not a constant expression"),
    ('int(os.getenv("X", "fifteen"))', "cannot be computed"),
    ('int(os.getenv("X", "15"), 16)', "is a call, not a constant expression"),
    ('float(os.getenv("X", "inf"))', "is not a finite number"),
    ('int(True)', "int() of a bool is not supported"),
    ('os.getenv("X", 15) or 3', "is not a constant expression"),
])
def test_an_environment_read_without_a_literal_default_is_refused(expression: str, reason: str) -> None:
    message = not_found(f"import os\nVALUE = {expression}\n", Constant("VALUE"))
    assert message.startswith("VALUE (line 2) cannot be evaluated") and reason in message


# -- string_method: a sentinel branch is left out -------------------------------

LEVEL = '''\
class Level:
    def __str__(self) -> str:
        if self.value == 0:
            return "debug"
        elif self.value == 1:
            return "info"
        elif self.value < 0:
            return f"invalid {self.value}"
        elif self.value > 9:
            return describe(self)
        match self.value:
            case 5:
                return 5
            case _:
                return "unknown"
'''


def test_a_branch_that_returns_no_literal_is_left_out() -> None:
    assert values(LEVEL, StringMethod("Level")) == ["debug", "info"]


def test_skipped_says_which_branches_were_left_out() -> None:
    assert skipped(LEVEL, StringMethod("Level")) == [
        'line 8: returns f"invalid {self.value}", not a literal; left out',
        "line 10: returns describe(self), not a literal; left out",
        "line 13: returns 5, a number, not a string; left out",
    ]


def test_no_literal_branch_at_all_is_fact_not_found() -> None:
    source = 'class Level:\n    def __str__(self):\n        if self.x:\n            return f"a{self.x}"\n' \
             '        return str(self.x)\n'
    assert not_found(source, StringMethod("Level")) == "Level.__str__ returns no string literal"
    assert skipped(source, StringMethod("Level")) == [
        'line 4: returns f"a{self.x}", not a literal; left out']


def test_skipped_is_empty_where_nothing_is_left_out_or_nothing_reads() -> None:
    assert skipped('class Level:\n    def __str__(self):\n        return "x"\n', StringMethod("Level")) == []
    assert skipped("X = 1\n", StringMethod("Level")) == []  # no class: extract reports it, not skipped
    assert skipped("X = 1\n", Constant("X")) == []


# -- map_keys within a function or method ---------------------------------------

COMMANDS = '''\
class ConfigCommand:
    @property
    def unique_config_values(self) -> dict:
        unique_config_values = {
            "cache-dir": (str, "the cache"),
            "virtualenvs.create": (bool, "create"),
        }
        return unique_config_values

    def handle(self):
        if self.option("list"):
            with self.io:
                listed = {"a": 1, "b": 2}
        def inner():
            nested = {"not": "here"}
        return {"returned": 1}

unique_config_values = {"module-level": 1}
'''


def test_map_keys_within_a_property_reads_its_local_dict() -> None:
    items = read(COMMANDS, MapKeys("unique_config_values", within="ConfigCommand.unique_config_values"))
    assert [i.value.data for i in items] == ["cache-dir", "virtualenvs.create"]
    assert [i.location.line for i in items] == [5, 6]
    assert values(COMMANDS, MapKeys("unique_config_values")) == ["module-level"]  # without within


def test_map_keys_within_reads_a_local_in_a_nested_block_not_a_nested_function() -> None:
    assert values(COMMANDS, MapKeys("listed", within="handle")) == ["a", "b"]
    message = not_found(COMMANDS, MapKeys("nested", within="ConfigCommand.handle"))
    assert message == "no assignment to nested inside ConfigCommand.handle"


def test_map_keys_within_a_missing_function_names_both() -> None:
    message = not_found(COMMANDS, MapKeys("unique_config_values", within="ConfigCommand.missing"))
    assert message == "no function or method ConfigCommand.missing (to read unique_config_values inside)"


def test_map_keys_within_twice_assigned_is_ambiguous() -> None:
    source = "def f(x):\n    d = {'a': 1}\n    if x:\n        d = {'b': 2}\n    return d\n"
    with pytest.raises(AmbiguousFact, match=r"d is assigned 2 times inside f \(lines 2, 4\)"):
        read(source, MapKeys("d", within="f"))


def test_declaration_of_a_local_dict_is_its_assignment() -> None:
    tree = reader.parse(PATH, COMMANDS)
    where, label = reader.declaration(tree, MapKeys("unique_config_values", within="unique_config_values"), PATH)
    assert (where.line, label) == (4, "dict unique_config_values in unique_config_values")


# -- constant with a key path ---------------------------------------------------

CONFIG = '''\
from typing import Any, ClassVar

DEFAULT_CACHE_DIR = "~/.cache"
WORKERS = 4

class Config:
    default_config: ClassVar[dict[str, Any]] = {
        "cache-dir": str(DEFAULT_CACHE_DIR),
        "virtualenvs": {
            "create": True,
            "in-project": None,
            "options": {"always-copy": False},
        },
        "installer": {"parallel": True, "max-workers": None, "workers": WORKERS},
        "requests": {"max-retries": 0},
        "installer": {"parallel": True, "max-workers": None},
    }

PORTS = {"listen": [8080, 8443], "pair": ("a", ("b", "c")), 3: "three", True: "yes"}
'''


@pytest.mark.parametrize(("written", "keys", "data", "line"), [
    ("Config.default_config", ("virtualenvs", "create"), True, 10),
    ("Config.default_config", ("virtualenvs", "options", "always-copy"), False, 12),
    ("Config.default_config", ("requests", "max-retries"), 0, 15),
    ("Config.default_config", ("installer", "parallel"), True, 16),  # a repeated key: the last, as Python
    ("Config.default_config", ("cache-dir",), "~/.cache", 8),
    ("PORTS", ("listen", 1), 8443, 19),
    ("PORTS", ("listen", -2), 8080, 19),
    ("PORTS", ("pair", 1, 0), "b", 19),
    ("PORTS", (3,), "three", 19),
])
def test_a_key_path_reads_inside_the_literal(written: str, keys: tuple, data: object, line: int) -> None:
    [item] = read(CONFIG, Constant(written, keys))
    assert item.value.data == data and type(item.value.data) is type(data)
    assert item.location.line == line


@pytest.mark.parametrize(("written", "keys", "message"), [
    ("Config.default_config", ("installer", "paralel"),
     '`Config.default_config["installer"]` (line 16) has no key "paralel" (its keys: parallel, max-workers)'),
    ("Config.default_config", ("virtualenvs", "options", "copy"),
     '`Config.default_config["virtualenvs"]["options"]` (line 12) has no key "copy" (its keys: always-copy)'),
    ("Config.default_config", ("installer", "max-workers"),
     '`Config.default_config["installer"]["max-workers"]` (line 16) is None, which is no value to compare'),
    ("Config.default_config", ("cache-dir", "x"),
     '`Config.default_config["cache-dir"]` (line 8) is not a dict literal: `str(DEFAULT_CACHE_DIR)`'),
    ("Config.default_config", ("requests", 0),
     '`Config.default_config["requests"]` (line 15) has no key 0 (its keys: max-retries)'),
    ("PORTS", ("listen", 2), '`PORTS["listen"]` (line 19) has no element 2 (it has 2)'),
    ("PORTS", (1,), "`PORTS` (line 19) has no key 1 (its keys: listen, pair, 3, True)"),  # True is no int key
    ("PORTS", ("listen", "first"), '`PORTS["listen"]` (line 19) is not a dict literal: `[8080, 8443]`'),
    ("Config.missing", ("a",), "no assignment to missing at class Config"),
    ("Settings.default_config", ("a",), "no class Settings"),
])
def test_a_key_path_that_is_not_there_names_the_path_reached(written: str, keys: tuple, message: str) -> None:
    assert not_found(CONFIG, Constant(written, keys)) == message


def test_a_key_path_error_carries_the_file_and_line() -> None:
    with pytest.raises(FactNotFound) as caught:
        read(CONFIG, Constant("Config.default_config", ("installer", "paralel")))
    assert (caught.value.location.path, caught.value.location.line) == (PATH, 16)


# -- calls: a set of call arguments ---------------------------------------------

OPTIONS = '''\
PHASE = object()

def option(name, short=None, description=""):
    return name

class VersionCommand:
    options = [
        option("short", "s", "Output the version number only"),
        option("dry-run", None, "Do not update pyproject.toml file"),
        option("next-phase", None, "Increment the phase"),
        option("short", "s", "Declared again"),
    ]

class BuildCommand:
    options = [option(PHASE, None, "Not a literal"), option("format", "f", "The format")]

def configure(parser):
    parser.option("verbose", "v")
    parser.option("quiet", "q")

class Broken:
    options = [option(PHASE)]
'''


def test_calls_in_a_class_body_read_every_literal_in_order_once() -> None:
    items = read(OPTIONS, Calls("option", arg=0, within="VersionCommand"))
    assert [i.value.data for i in items] == ["short", "dry-run", "next-phase"]
    assert [i.location.line for i in items] == [8, 9, 10]


def test_calls_without_within_read_the_whole_file() -> None:
    assert values(OPTIONS, Calls("option")) == ["short", "dry-run", "next-phase", "format", "verbose", "quiet"]
    assert values(OPTIONS, Calls("parser.option", within="configure")) == ["verbose", "quiet"]
    assert values(OPTIONS, Calls("option", arg=1, within="VersionCommand")) == ["s"]  # None is no value
    assert values(OPTIONS, Calls("option", within="VersionCommand", where=((1, "None"),))) == [
        "dry-run", "next-phase"]


def test_a_call_whose_argument_is_not_literal_is_left_out_and_said() -> None:
    assert values(OPTIONS, Calls("option", within="BuildCommand")) == ["format"]
    assert skipped(OPTIONS, Calls("option", within="BuildCommand")) == [
        "line 15: argument 0 `PHASE` is not a literal (`object()` is a call, not a constant expression); left out"]
    assert skipped(OPTIONS, Calls("option", within="VersionCommand")) == []


def test_calls_with_no_literal_argument_is_fact_not_found_saying_why() -> None:
    assert not_found(OPTIONS, Calls("option", within="Broken")) == (
        "no call of option in Broken has a literal argument 0: "
        "line 22: argument 0 `PHASE` is not a literal (`object()` is a call, not a constant expression)")


@pytest.mark.parametrize(("selector", "message"), [
    (Calls("argument", within="VersionCommand"), "no call of argument in VersionCommand with an argument 0 matches"),
    (Calls("option", arg=3, within="VersionCommand"), "no call of option in VersionCommand with an argument 3"),
    (Calls("option", within="Missing"), "no function, method or class Missing"),
])
def test_calls_that_match_nothing_are_fact_not_found(selector: Calls, message: str) -> None:
    assert not_found(OPTIONS, selector).startswith(message)


def test_the_scalar_call_selector_still_takes_the_one_match() -> None:
    assert values(OPTIONS, Call("option", within="BuildCommand", where=((1, '"f"'),))) == ["format"]
    with pytest.raises(AmbiguousFact, match="4 calls match the call of option in VersionCommand"):
        read(OPTIONS, Call("option", within="VersionCommand"))


def test_declaration_of_calls_within_a_class_is_the_class() -> None:
    tree = reader.parse(PATH, OPTIONS)
    where, label = reader.declaration(tree, Calls("option", within="VersionCommand"), PATH)
    assert (where.line, label) == (6, "class VersionCommand")


# -- the engine on the fixture tree ---------------------------------------------


@pytest.fixture
def shapes(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    shutil.copytree(SHAPES, root)
    return root


def findings(result: Result) -> list[tuple[str, str, str | None, int | None]]:
    return [(f.rule, f.kind.kind, f.value, f.doc.line if f.doc else None) for f in result.findings]


def test_the_fixture_tree_passes_every_rule(shapes: Path) -> None:
    result = judge(shapes)
    assert [rr.status for rr in result.rules] == [Status.PASS] * len(result.rules), findings(result)
    assert {rr.rule.id for rr in result.rules} == {
        "timeout", "retries", "settings", "parallel", "version-options", "config-keys", "levels"}


@pytest.mark.parametrize(("file", "old", "new", "expected", "named"), [
    ("src/app/constants.py", '"APP_REQUESTS_TIMEOUT", 15', '"APP_REQUESTS_TIMEOUT", 30',
     ("timeout", "value-mismatch", "15 seconds", 3), "30 seconds"),
    ("src/app/constants.py", '"APP_RETRIES", "3"', '"APP_RETRIES", "5"',
     ("retries", "value-mismatch", "3", 3), "'5'"),
    ("src/app/config.py", '"always-copy": False', '"always-copy": True',
     ("settings", "value-mismatch", "false", 10), "'true'"),
    ("src/app/config.py", '"max-retries": 0', '"max-retries": 2',
     ("settings", "value-mismatch", "0", 11), "'2'"),
    ("src/app/config.py", "8080, 8443", "8080, 9443", ("settings", "value-mismatch", "8443", 12), "9443"),
    ("src/app/config.py", '"parallel": True', '"parallel": False',
     ("parallel", "value-mismatch", "true", 16), "'false'"),
    ("src/app/commands.py", 'option("next-phase"', 'option("pre-phase"',
     ("version-options", "missing-in-doc", "pre-phase", 18), "`pre-phase` is declared in code"),
    ("src/app/commands.py", '"virtualenvs.create": (bool', '"virtualenvs.prefer": (bool',
     ("config-keys", "missing-in-doc", "virtualenvs.prefer", 24), "`virtualenvs.prefer` is declared in code"),
    ("src/app/level.py", 'return "error"', 'return "fatal"',
     ("levels", "missing-in-doc", "fatal", 32), "`fatal` is declared in code"),
])
def test_drift_in_each_shape_is_a_finding_at_its_document_line(
    shapes: Path, file: str, old: str, new: str, expected: tuple, named: str
) -> None:
    edit(shapes / file, old, new)
    result = judge(shapes)
    found = [f for f in result.findings if (f.rule, f.kind.kind, f.value, f.doc.line) == expected]
    assert found, findings(result)
    assert found[0].doc.path == "docs/guide.md" and named in found[0].message
    assert result.exit_code == 1


def test_an_option_gone_from_code_is_missing_in_code_at_the_class(shapes: Path) -> None:
    edit(shapes / "src/app/commands.py", '        option("next-phase", None, "Increment the phase of the current '
         'version"),\n', "")
    result = judge(shapes)
    [finding] = [f for f in result.findings if f.rule == "version-options"]
    assert (finding.kind.kind, finding.value, finding.doc.line) == ("missing-in-code", "next-phase", 22)
    assert finding.source.line == 19 and finding.declared == "class VersionCommand"


def test_a_misspelt_key_path_is_fact_not_found_naming_the_path(shapes: Path) -> None:
    edit(shapes / "driftguard.yaml", '["installer"]["parallel"]', '["installer"]["paralel"]')
    result = judge(shapes)
    [finding] = [f for f in result.findings if f.rule == "parallel"]
    assert finding.kind.kind == "fact-not-found"
    assert '`Config.default_config["installer"]` (line 21) has no key "paralel" ' \
           "(its keys: parallel, max-workers)" in finding.message
    assert result.exit_code == 1


def test_an_environment_read_losing_its_default_is_fact_not_found(shapes: Path) -> None:
    edit(shapes / "src/app/constants.py", '"APP_REQUESTS_TIMEOUT", 15', '"APP_REQUESTS_TIMEOUT"')
    [finding] = [f for f in judge(shapes).findings if f.rule == "timeout"]
    assert finding.kind.kind == "fact-not-found" and "has no default" in finding.message


def test_the_sentinel_branch_left_out_is_listed_for_the_facts_command(shapes: Path) -> None:
    spec = load_config(shapes / "driftguard.yaml").facts["levels"]
    tree = reader.parse(spec.file, (shapes / spec.file).read_text(encoding="utf-8"))
    assert reader.skipped(tree, spec.selector, spec.file) == [
        'line 18: returns f"invalid {self.value}", not a literal; left out']
