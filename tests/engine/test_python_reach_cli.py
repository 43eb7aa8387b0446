"""The ``flags`` and ``env`` selectors on the shapes real programs write: argparse
scripts (Pulse), click decorators (httpx's ``_main.py``, click's examples), typer
parameters, and environment reads (httpx's ``_config.py``); as sets of names, and
with ``defaults: true`` as maps from name to default (one item per name, labelled
with it)."""

from __future__ import annotations

import pytest

from driftguard.config.specs import Env, Flags
from driftguard.model import AmbiguousFact, FactNotFound, Kind
from tests.engine.python_source import SourceReader

PATH = "scripts/report.py"


SOURCE = SourceReader(PATH)
read = SOURCE.read
names = SOURCE.values
entries = SOURCE.entries
skipped = SOURCE.skipped


# -- argparse (Pulse's scripts) ---------------------------------------------------

ARGPARSE = '''\
import argparse

DEFAULT_DB_PATH = "licenses.sqlite"
FLAG = "--" + "dynamic"

def build_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("report_dir", nargs="?", default="tmp/eval-reports")
    parser.add_argument("--db-path", default=DEFAULT_DB_PATH, help="path to licenses.sqlite")
    parser.add_argument("--since-days", type=int, default=7, help="history window to inspect")
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
    )
    parser.add_argument("-n", "--dry-run", action="store_true")
    parser.add_argument("--keep", action="store_false")
    parser.add_argument("-v", action="count")
    parser.add_argument("--when", default=compute())
    parser.add_argument(OPTION_NAME, default=1)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quiet", action="store_true")
    parser.add_argument(FLAG)
    return parser

def other(parser):
    parser.add_argument("--elsewhere")
'''


def test_argparse_long_names_are_read_without_dashes_positionals_left_out() -> None:
    items = read(ARGPARSE, Flags(within="build_parser"))
    assert [i.value.data for i in items] == ["db-path", "since-days", "format", "dry-run", "keep", "v", "when",
                                               "quiet", "dynamic"]
    assert [i.location.line for i in items][:4] == [9, 10, 12, 16]


def test_flags_without_within_read_the_whole_file() -> None:
    assert names(ARGPARSE, Flags())[-1] == "elsewhere"


def test_argparse_defaults_are_a_map_from_name_to_default() -> None:
    assert entries(ARGPARSE, Flags(within="build_parser", defaults=True)) == [
        ("db-path", "licenses.sqlite", 9),  # through the module constant
        ("since-days", 7, 10),
        ("format", "text", 14),
        ("dry-run", False, 16),  # store_true: argparse's own default
        ("keep", True, 17),
        ("v", "", 18),
        ("when", "", 19),
        ("quiet", False, 22),
        ("dynamic", "", 23),
    ]


def test_what_the_flags_leave_out_is_listed() -> None:
    assert skipped(ARGPARSE, Flags(within="build_parser")) == [
        "line 20: option name `OPTION_NAME` is not a literal; left out"]
    assert skipped(ARGPARSE, Flags(within="build_parser", defaults=True)) == [
        "line 18: --v has no default; the entry is empty",
        "line 19: --when default `compute()` is not a literal (`compute()` is a call, not a constant expression); "
        "the entry is empty",
        "line 20: option name `OPTION_NAME` is not a literal; left out",
        "line 23: --dynamic has no default; the entry is empty",
    ]


def test_no_option_at_all_is_fact_not_found() -> None:
    with pytest.raises(FactNotFound, match="no argparse, click or typer option is defined in build"):
        read("def build(parser):\n    parser.add_argument('name')\n", Flags(within="build"))
    with pytest.raises(FactNotFound, match="no function, method or class missing"):
        read(ARGPARSE, Flags(within="missing"))


def test_one_flag_with_two_defaults_is_ambiguous_and_a_repeat_without_one_is_not() -> None:
    source = ('def a(p):\n    p.add_argument("--timeout", default=30)\n'
              'def b(p):\n    p.add_argument("--timeout", default=60)\n    p.add_argument("--timeout")\n')
    with pytest.raises(AmbiguousFact, match=r"the flag timeout has two defaults: 30 \(line 2\) and 60 \(line 4\)"):
        read(source, Flags(defaults=True))
    assert entries(source, Flags(within="b", defaults=True)) == [("timeout", 60, 4)]
    assert names(source, Flags()) == ["timeout"]


# -- click (httpx's _main.py, click's examples) ------------------------------------

CLICK = '''\
import click
from click import option as opt

@click.command()
@click.version_option()
@click.argument("url")
@click.option(
    "--timeout",
    "timeout",
    type=float,
    default=5.0,
    help="Timeout value. [Default: 5.0]",
)
@click.option("--no-verify", "verify", is_flag=True, default=True, help="Disable SSL verification.")
@click.option("--shout/--no-shout", default=False)
@click.option("--http2/--http1")
@click.option("ty", "--moored", flag_value="moored", default=True)
@click.option("-r", "--radius", default=2, show_default=True, help="The blur radius.")
@opt("--speed", metavar="KN", default=10)
@click.option("-q", is_flag=True)
def main(url, timeout, verify, shout, http2, ty, radius, speed, q):
    pass

command = click.Command("sub", params=[click.Option(["--name", "-n"], default="world"), click.Argument(["x"])])
'''


def test_click_options_are_read_from_decorators_classes_and_aliases() -> None:
    assert names(CLICK, Flags(within="main")) == ["version", "timeout", "no-verify", "shout", "http2", "moored",
                                                  "radius", "speed", "q"]
    assert names(CLICK, Flags())[-1] == "name"


def test_click_defaults_read_the_default_and_the_implied_flag_value() -> None:
    assert entries(CLICK, Flags(within="main", defaults=True)) == [
        ("version", "", 5),
        ("timeout", 5.0, 11),
        ("no-verify", True, 14),  # as the code says: the default of the `verify` parameter
        ("shout", False, 15),
        ("http2", False, 16),  # an on/off pair defaults to off
        ("moored", True, 17),
        ("radius", 2, 18),
        ("speed", 10, 19),
        ("q", False, 20),  # is_flag
    ]


# -- typer ------------------------------------------------------------------------

TYPER = '''\
from typing import Annotated
import typer

app = typer.Typer()

@app.command()
def fetch(
    url: str,
    retries: int = typer.Option(3, "--retries", "-r"),
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds.")] = 5.0,
    output_dir: str = typer.Option("downloads", help="Where to save."),
    token: str = typer.Option(..., "--token"),
    insecure: bool = False,
    name: Annotated[str, typer.Argument()] = "",
    ctx: typer.Context = None,
) -> None:
    pass

def helper(limit: int = 3):
    pass

def main(verbose: bool = False):
    pass

typer.run(main)
'''


def test_typer_options_are_read_from_parameters() -> None:
    assert names(TYPER, Flags(within="fetch")) == ["retries", "timeout", "output-dir", "token", "insecure"]
    assert "limit" not in names(TYPER, Flags())  # not a command
    assert names(TYPER, Flags(within="main")) == ["verbose"]  # passed to typer.run


def test_typer_defaults_come_from_the_option_or_the_parameter() -> None:
    assert entries(TYPER, Flags(within="fetch", defaults=True))[:5] == [
        ("retries", 3, 9), ("timeout", 5.0, 10), ("output-dir", "downloads", 11), ("token", "", 12),
        ("insecure", False, 13)]


# -- env ----------------------------------------------------------------------------

ENV = '''\
import os
from os import environ, getenv as lookup

NAME = "HTTPISH_HOME"

def create_ssl_context(trust_env=True):
    if trust_env and os.environ.get("SSL_CERT_FILE"):  # pragma: nocover
        return load(cafile=os.environ["SSL_CERT_FILE"])
    elif trust_env and os.environ.get("SSL_CERT_DIR"):
        return load(capath=os.environ["SSL_CERT_DIR"])

LOG_LEVEL = os.getenv("HTTPISH_LOG_LEVEL", "warning")
RETRIES = int(os.getenv("HTTPISH_RETRIES", 15))
RATIO = float(environ.get("HTTPISH_RATIO", "0.5"))
HOME = lookup(NAME)
DEBUG = "HTTPISH_DEBUG" in os.environ
PAGER = os.environ.get(self.envvar)
os.environ["HTTPISH_WRITTEN"] = "1"
del os.environ["HTTPISH_DELETED"]
CACHE = os.environ.setdefault("HTTPISH_CACHE", "~/.cache")
'''


def test_env_names_are_every_read_once_writes_left_out() -> None:
    items = read(ENV, Env())
    assert [i.value.data for i in items] == ["SSL_CERT_FILE", "SSL_CERT_DIR", "HTTPISH_LOG_LEVEL", "HTTPISH_RETRIES",
                                               "HTTPISH_RATIO", "HTTPISH_HOME", "HTTPISH_DEBUG", "HTTPISH_CACHE"]
    assert [i.location.line for i in items][:3] == [7, 9, 12]


def test_env_defaults_are_converted_as_the_code_converts_them() -> None:
    found = {label: (data, line) for label, data, line in entries(ENV, Env(defaults=True))}
    assert found == {
        "SSL_CERT_FILE": ("", 7), "SSL_CERT_DIR": ("", 9), "HTTPISH_LOG_LEVEL": ("warning", 12),
        "HTTPISH_RETRIES": (15, 13), "HTTPISH_RATIO": (0.5, 14), "HTTPISH_HOME": ("", 15),
        "HTTPISH_DEBUG": ("", 16), "HTTPISH_CACHE": ("~/.cache", 20),
    }
    retries = next(i for i in read(ENV, Env(defaults=True)) if i.label == "HTTPISH_RETRIES")
    assert retries.value.kind is Kind.NUMBER


def test_a_read_whose_name_is_not_a_literal_is_left_out_and_said() -> None:
    assert skipped(ENV, Env()) == ["line 17: the name `self.envvar` is not a literal; left out"]


def test_a_module_that_reads_no_variable_by_name_is_fact_not_found() -> None:
    with pytest.raises(FactNotFound, match="no environment variable is read by a literal name: line 2"):
        read("import os\nX = os.environ.get(key)\n", Env())
    with pytest.raises(FactNotFound, match="no environment variable is read by a literal name"):
        read("from urllib.request import getproxies\nproxies = getproxies()\n", Env())


def test_a_project_function_named_getenv_is_not_an_environment_read() -> None:
    assert names('from .config import getenv\nimport os\nA = getenv("NOT_ENV")\nB = os.getenv("ENV")\n',
                 Env()) == ["ENV"]
