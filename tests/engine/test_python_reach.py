"""The Python reader on the values real libraries hold: a keyword argument of a call
(``Timeout(timeout=5.0)``), a key path inside a literal argument, the default of a
parameter (``Client.__init__``'s ``follow_redirects``), the conversions and a fact's
``unwrap:``, a list bound to a name (``__all__``), a class hierarchy, and PEP 695
type aliases among the symbols.

Each shape is read from source written as httpx and click write it (see
``/work/research/shapes.md``); the engine, CLI and selftest on the fixture tree are
in ``test_python_reach_engine.py``.
"""

from __future__ import annotations

import textwrap

import pytest

from driftguard.config.specs import Call, Calls, Classes, Constant, Default, ListOf, Symbols
from driftguard.model import AmbiguousFact, FactNotFound, Kind
from driftguard.sources import python as reader
from tests.engine.python_source import SourceReader

PATH = "httpish/_config.py"


SOURCE = SourceReader(PATH)
read = SOURCE.read
values = SOURCE.values
not_found = SOURCE.not_found
skipped = SOURCE.skipped


# -- call and calls: a keyword argument, a key path ------------------------------

CONFIG = '''\
class Timeout:
    def __init__(self, timeout=None, *, connect=None):
        self.connect = connect

class Limits:
    def __init__(self, *, max_connections=None, max_keepalive_connections=None, keepalive_expiry=5.0):
        self.keepalive_expiry = keepalive_expiry

SERVER = {"host": "localhost", "port": 8080}
DEFAULT_TIMEOUT_CONFIG = Timeout(timeout=5.0)
DEFAULT_LIMITS = Limits(max_connections=100, max_keepalive_connections=20)
DEFAULT_MAX_REDIRECTS = 20
APP = create_app({"server": {"host": "localhost", "port": 8080}, "workers": [4, 8]}, debug=False)
OTHER = create_app(SERVER_CONFIG, debug=True)
SERVER_CONFIG = {"server": SERVER, "workers": [2]}
'''


def test_a_keyword_argument_is_read_by_its_name() -> None:
    [item] = read(CONFIG, Call("Timeout", arg="timeout"))
    assert (item.value.kind, item.value.data, item.location.line) == (Kind.NUMBER, 5.0, 10)
    assert values(CONFIG, Call("Limits", arg="max_keepalive_connections")) == [20]
    assert values(CONFIG, Call("create_app", arg="debug", where=((0, "SERVER_CONFIG"),))) == [True]


def test_a_keyword_the_call_does_not_pass_is_fact_not_found() -> None:
    message = not_found(CONFIG, Call("Limits", arg="keepalive_expiry"))
    assert message == "no call of Limits with an argument keepalive_expiry matches"


def test_a_path_reads_inside_a_literal_argument() -> None:
    source = 'APP = create_app({"server": {"host": "localhost", "port": 8080}, "workers": [4, 8]})\n'
    [port] = read(source, Call("create_app", arg=0, path=("server", "port")))
    assert (port.value.data, port.location.line, port.location.column) == (8080, 1, 59)
    assert values(source, Call("create_app", arg=0, path=("workers", -1))) == [8]


def test_a_path_follows_a_name_to_the_literal_bound_to_it() -> None:
    items = read(CONFIG, Calls("create_app", arg=0, path=("workers", 0)))
    assert [(i.value.data, i.location.line) for i in items] == [(4, 13), (2, 15)]


def test_a_path_that_is_not_there_names_the_keys_found() -> None:
    source = 'APP = create_app({"server": {"host": "localhost"}})\n'
    message = not_found(source, Call("create_app", arg=0, path=("server", "port")))
    assert message == ('`argument 0 of create_app["server"]` (line 1) has no key "port" (its keys: host)')


def test_calls_with_a_path_leave_out_a_call_without_the_key_and_say_so() -> None:
    source = 'A = setup({"port": 1})\nB = setup({"host": "x"})\n'
    assert values(source, Calls("setup", arg=0, path=("port",))) == [1]
    assert skipped(source, Calls("setup", arg=0, path=("port",))) == [
        'line 2: `argument 0 of setup` (line 2) has no key "port" (its keys: host); left out']


# -- default: a parameter's default ---------------------------------------------

CLIENT = '''\
import typing
from ._config import DEFAULT_LIMITS, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_CONFIG

LOCAL_TIMEOUT = Timeout(timeout=5.0)
RETRIES = 3

class BaseClient:
    def __init__(self, *, follow_redirects: bool = False, max_redirects: int = DEFAULT_MAX_REDIRECTS) -> None:
        pass

class Client(BaseClient):
    BATCH = 16

    def __init__(
        self,
        *,
        auth: typing.Any = None,
        verify: bool = True,
        timeout: typing.Any = DEFAULT_TIMEOUT_CONFIG,
        local: typing.Any = LOCAL_TIMEOUT,
        follow_redirects: bool = False,
        retries: int = RETRIES,
        base_url: str = "",
        default_encoding: str = "utf-8",
        transport=None,
    ) -> None:
        super().__init__()

    def send(self, request, stream=False, /, batch=BATCH, *, follow_redirects=True):
        return request

class Pool:
    def __init__(self, size=10, block=True):
        pass

@typing.overload
def request(method: str, *, timeout: float = ...) -> None: ...
def request(method, *, timeout=5.0, follow_redirects=False):
    return method
'''


@pytest.mark.parametrize(("function", "param", "kind", "data", "line"), [
    ("Client.__init__", "follow_redirects", Kind.BOOL, False, 21),
    ("Client.__init__", "verify", Kind.BOOL, True, 18),
    ("Client.__init__", "default_encoding", Kind.STRING, "utf-8", 24),
    ("Client.__init__", "base_url", Kind.STRING, "", 23),
    ("Client.__init__", "retries", Kind.NUMBER, 3, 22),  # through a module constant
    ("Client", "verify", Kind.BOOL, True, 18),  # a class alone: its __init__
    ("BaseClient.__init__", "follow_redirects", Kind.BOOL, False, 8),
    ("Client.send", "follow_redirects", Kind.BOOL, True, 29),  # keyword-only
    ("Client.send", "stream", Kind.BOOL, False, 29),  # positional-only
    ("Client.send", "batch", Kind.NUMBER, 16, 29),  # a class attribute: defaults evaluate in the class body
    ("Pool", "size", Kind.NUMBER, 10, 33),
    ("request", "timeout", Kind.NUMBER, 5.0, 38),  # the @overload stub is left out
])
def test_the_default_of_a_parameter_is_evaluated(function: str, param: str, kind: Kind, data: object,
                                                 line: int) -> None:
    [item] = read(CLIENT, Default(function, param))
    assert (item.value.kind, item.value.data, item.location.line) == (kind, data, line)


@pytest.mark.parametrize(("function", "param", "message"), [
    ("Client.__init__", "auth", "the default of auth of Client.__init__ (line 17) is None, which is no value "
                                "to compare"),
    ("Client.__init__", "timeout", "the default of timeout of Client.__init__ (line 19) cannot be evaluated: "
                                   "DEFAULT_TIMEOUT_CONFIG is imported from ._config, not a constant of this file"),
    ("Client.__init__", "local", "the default of local of Client.__init__ (line 20) cannot be evaluated: it is "
                                 "`Timeout(timeout=5.0)` (line 4), an object built by a call; read one of its "
                                 "arguments with `call: {function: Timeout, arg: timeout}`"),
    ("Client.send", "request", "parameter request of Client.send (line 29) has no default"),
    ("Client.__init__", "proxy", "Client.__init__ (line 14) has no parameter proxy (its parameters: auth, verify, "
                                 "timeout, local, follow_redirects, retries, base_url, default_encoding, transport)"),
    ("Session.__init__", "verify", "no function, method or class Session.__init__"),
])
def test_a_default_that_is_no_value_says_why(function: str, param: str, message: str) -> None:
    assert not_found(CLIENT, Default(function, param)) == message


def test_the_same_method_name_on_two_classes_is_told_apart_by_its_class() -> None:
    source = "class A:\n    def get(self, x=1): ...\nclass B:\n    def get(self, x=2): ...\n"
    assert values(source, Default("B.get", "x")) == [2]
    with pytest.raises(AmbiguousFact, match=r"2 functions are named get \(lines 2, 4\)"):
        read(source, Default("get", "x"))


def test_a_function_defined_in_both_branches_of_an_if_is_ambiguous() -> None:
    source = "import sys\nif sys.platform == 'win32':\n    def f(x=1): ...\nelse:\n    def f(x=2): ...\n"
    with pytest.raises(AmbiguousFact, match=r"2 functions are named f \(lines 3, 5\)"):
        read(source, Default("f", "x"))


DATACLASS = '''\
import dataclasses
from pydantic import BaseModel, Field

@dataclasses.dataclass
class Settings:
    port: int = 8080
    timeout: float = dataclasses.field(default=5.0)
    tags: list = dataclasses.field(default_factory=list)
    host: str = "localhost"

class Retry(BaseModel):
    attempts: int = Field(3, ge=0)
    backoff: float = Field(default=0.5)
'''


@pytest.mark.parametrize(("cls", "param", "data", "line"), [
    ("Settings", "port", 8080, 6),
    ("Settings", "timeout", 5.0, 7),
    ("Retry", "attempts", 3, 12),
    ("Retry", "backoff", 0.5, 13),
])
def test_a_class_without_init_gives_its_field_default(cls: str, param: str, data: object, line: int) -> None:
    [item] = read(DATACLASS, Default(cls, param))
    assert (item.value.data, item.location.line) == (data, line)


def test_a_default_factory_is_no_default() -> None:
    assert not_found(DATACLASS, Default("Settings", "tags")) == (
        "field tags of Settings (line 8) has no default (a default_factory is none either)")


# -- conversions and unwrap ---------------------------------------------------------

UNITS = '''\
from .units import Seconds, units

POOL_TIMEOUT = Seconds(30)
READ_TIMEOUT = units.Seconds(2.5)
CHUNK = int(65_536)
RATIO = float(3)
WRAPPED = Seconds(float(4))
'''


@pytest.mark.parametrize(("name", "unwrap", "data"), [
    ("POOL_TIMEOUT", ("Seconds",), 30),
    ("READ_TIMEOUT", ("Seconds",), 2.5),  # a bare name matches the callee's last part
    ("READ_TIMEOUT", ("units.Seconds",), 2.5),
    ("WRAPPED", ("Seconds",), 4.0),
    ("CHUNK", (), 65536),
    ("RATIO", (), 3.0),
])
def test_a_conversion_is_read_through(name: str, unwrap: tuple[str, ...], data: object) -> None:
    [item] = read(UNITS, Constant(name, unwrap=unwrap))
    assert item.value.data == data and type(item.value.data) is type(data)


def test_without_unwrap_a_project_wrapper_is_a_call_not_a_value() -> None:
    assert not_found(UNITS, Constant("POOL_TIMEOUT")) == (
        "POOL_TIMEOUT (line 3) cannot be evaluated: `Seconds(30)` is a call, not a constant expression")
    assert not_found(UNITS, Constant("READ_TIMEOUT", unwrap=("other.Seconds",))).endswith("is a call, not a "
                                                                                            "constant expression")


def test_unwrap_applies_to_a_call_argument_and_a_default_too() -> None:
    source = "from .units import Seconds\ndef connect(timeout=Seconds(10)): ...\nconnect(timeout=Seconds(3))\n"
    assert values(source, Default("connect", "timeout", unwrap=("Seconds",))) == [10]
    assert values(source, Call("connect", arg="timeout", unwrap=("Seconds",))) == [3]


def test_one_facts_unwrap_does_not_leak_into_another_on_the_same_tree() -> None:
    tree = reader.parse(PATH, UNITS)
    assert [i.value.data for i in reader.extract(tree, Constant("POOL_TIMEOUT", unwrap=("Seconds",)), PATH)] == [30]
    with pytest.raises(FactNotFound):
        reader.extract(tree, Constant("POOL_TIMEOUT"), PATH)


# -- list -----------------------------------------------------------------------------

EXPORTS = '''\
from ._api import *
from ._auth import __all__ as _auth_all

__all__ = [
    "__description__",
    "AsyncClient",
    "Client",
]
__all__ += ["Timeout"]
__all__.append("Limits")
if True:
    __all__.extend(["Proxy"])

class Codes:
    PUBLIC = ("ok", "not_found")

def names():
    found = ["a", NAME, *_auth_all]
    return found

NAME = "b"
BASE = ["x", "y"]
ALL = [*BASE, "z"] + ["w"]
'''


def test_a_list_is_built_as_python_builds_it() -> None:
    items = read(EXPORTS, ListOf("__all__"))
    assert [i.value.data for i in items] == ["__description__", "AsyncClient", "Client", "Timeout", "Limits",
                                               "Proxy"]
    assert [i.location.line for i in items] == [5, 6, 7, 9, 10, 12]


def test_a_list_reads_a_class_attribute_a_local_and_unpacked_names() -> None:
    assert values(EXPORTS, ListOf("Codes.PUBLIC")) == ["ok", "not_found"]
    assert values(EXPORTS, ListOf("found", within="names")) == ["a", "b"]
    assert values(EXPORTS, ListOf("ALL")) == ["x", "y", "z", "w"]


def test_an_element_that_is_not_a_literal_is_left_out_and_said() -> None:
    assert skipped(EXPORTS, ListOf("found", within="names")) == [
        "line 18: `_auth_all` is not a literal (_auth_all is imported from ._auth.__all__, not a constant of "
        "this file); left out"]


def test_a_name_bound_to_no_list_literal_is_fact_not_found() -> None:
    assert not_found(EXPORTS, ListOf("NAME")) == "no list, tuple or set literal is assigned to NAME"
    assert not_found(EXPORTS, ListOf("MISSING")) == "no list, tuple or set literal is assigned to MISSING"


# -- classes --------------------------------------------------------------------------

EXCEPTIONS = '''\
import httpx

class HTTPError(Exception):
    pass

class RequestError(HTTPError):
    pass

class TransportError(RequestError):
    pass

class TimeoutException(TransportError):
    pass

class ConnectTimeout(TimeoutException):
    pass

class HTTPStatusError(HTTPError):
    pass

class InvalidURL(Exception):
    pass

class StreamError(RuntimeError):
    pass

class StreamConsumed(StreamError):
    pass

class Wrapped(httpx.HTTPError):
    class Inner(RequestError):
        pass

class Generic_(HTTPStatusError, typing.Generic[T]):
    pass
'''


def test_classes_are_every_descendant_through_classes_of_the_file() -> None:
    items = read(EXCEPTIONS, Classes("HTTPError"))
    assert [i.value.data for i in items] == ["RequestError", "TransportError", "TimeoutException",
                                               "ConnectTimeout", "HTTPStatusError", "Wrapped", "Inner", "Generic_"]
    assert items[0].location.line == 6


def test_classes_of_another_base_and_none() -> None:
    assert values(EXCEPTIONS, Classes("StreamError")) == ["StreamConsumed"]
    assert values(EXCEPTIONS, Classes("httpx.HTTPError"))[:2] == ["RequestError", "TransportError"]
    assert not_found(EXCEPTIONS, Classes("OSError")) == "no class of this file derives from OSError"


def test_declaration_of_classes_is_the_base_class() -> None:
    tree = reader.parse(PATH, textwrap.dedent(EXCEPTIONS))
    where, label = reader.declaration(tree, Classes("HTTPError"), PATH)
    assert (where.line, label) == (3, "class HTTPError")


# -- symbols: PEP 695 type aliases ----------------------------------------------------


def test_a_type_statement_is_a_symbol_and_its_strings_are_literals() -> None:
    source = 'type Point = tuple[float, float]\nclass Shape:\n    type Side = int\nNAME = "circle"\n'
    items = read(source, Symbols())
    assert [(i.value.data, i.label) for i in items] == [
        ("Point", ""), ("Shape", ""), ("Shape.Side", ""), ("NAME", ""), ("circle", "literal")]
