"""The config file: schema, validation with key paths, and the frozen Config.

Every error names the config file, the line and the key path
(``rules[2].direction``) and says what was expected. Unknown keys are errors
with a close-match suggestion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftguard.config import globs, yamlsafe
from driftguard.config.schema import Reader
from driftguard.config.specs import (
    CLAIM_KEYS,
    CLAIM_OPTIONS,
    SELECTOR_KEYS,
    Call,
    Calls,
    ClaimForm,
    Constant,
    Constants,
    MapKeys,
    Pattern,
    Selector,
    StringMethod,
    Symbols,
    TableClaim,
)
from driftguard.model import ConfigError, Direction, Location
from driftguard.quantities import FACT_UNITS

CONFIG_NAME = "driftguard.yaml"
DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
RULE_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
"""A rule id, matched whole (``fullmatch``): ``ttl\n`` is not one."""
CASES = ("sensitive", "insensitive")
_KEY_PATH = re.compile(r"""([^\[\]"']+)((?:\[(?:"[^"\\]*"|'[^'\\]*'|-?[0-9]+)\])*)""")
_KEY = re.compile(r"""\[(?:"([^"]*)"|'([^']*)'|(-?[0-9]+))\]""")


@dataclass(frozen=True)
class FactSpec:
    """A named selector over one or more files.

    ``file`` is the ``file:`` key as written (a path, a glob, or a list shown
    joined by ", "); ``files`` the root-relative paths it names, globs expanded.
    """

    name: str
    file: str
    selector: Selector
    line: int | None
    files: tuple[str, ...] = ()
    unit: str | None = None  # one of FACT_UNITS: what a bare number in the code measures

    def __post_init__(self) -> None:
        if not self.files:
            object.__setattr__(self, "files", (self.file,))

    @property
    def scalar(self) -> bool:
        return bool(self.selector.scalar)


@dataclass(frozen=True)
class Rule:
    """One rule judged against one document. A rule whose ``doc:`` is a glob or a
    list becomes one ``Rule`` per document, sharing the id; ``doc_pattern`` is the
    key as written."""

    id: str
    facts: tuple[str, ...]
    doc: str
    claim: ClaimForm
    direction: Direction
    line: int
    why: str = ""
    doc_pattern: str = ""
    case_insensitive: bool = False  # ``case: insensitive``: members and labels compare case-folded

    @property
    def scalar(self) -> bool:
        return bool(self.claim.scalar)


@dataclass(frozen=True)
class Config:
    path: Path  # the config file
    root: Path  # the folder every path is relative to
    facts: dict[str, FactSpec]
    rules: tuple[Rule, ...]
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    root_origin: str = ""  # what moved ``root`` from the config's folder, for messages about missing files

    @property
    def display_path(self) -> str:
        """The config's path as reports show it: relative to the root when inside it."""
        try:
            return self.path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(self.path)


def find_config(start: Path) -> Path | None:
    """``driftguard.yaml`` in ``start`` or its parents, stopping at the repository root."""
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
        if (folder / ".git").exists():
            return None
    return None


def load_config(path: Path, root: Path | None = None, max_file_size: int | None = None) -> Config:
    """Read and validate the config at ``path``; ``root`` overrides its ``root`` key."""
    shown = str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError("config file not found", Location(shown)) from None
    except IsADirectoryError:
        raise ConfigError("expected a config file, found a directory", Location(shown)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the config: {exc.strerror}", Location(shown)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config is not UTF-8 (byte {exc.start})", Location(shown)) from None
    data = yamlsafe.load(text, shown)
    return _build(Reader(shown), data, path, root, max_file_size)


def _build(r: Reader, data: Any, path: Path, root: Path | None, max_size: int | None) -> Config:
    top = r.mapping(data, "", required={"version", "rules"}, optional={"facts", "root", "max_file_size"})
    version = r.value(top, "version", int)
    if version != 1:
        r.fail(top, "version", f"expected version: 1, got {version!r}")
    if root is not None:
        origin = "given with --root"
    elif "root" in top:
        origin = f"set by `root: {r.value(top, 'root', str)}` in {path.name}, line {r.line_of(top, 'root')}"
    else:
        origin = ""
    if root is None:
        root = (path.parent / r.value(top, "root", str, default=".")).resolve()
    size = max_size or r.value(top, "max_file_size", int, default=DEFAULT_MAX_FILE_SIZE)
    if size <= 0:
        r.fail(top, "max_file_size", "expected a positive number of bytes")
    facts_map = r.mapping(top.get("facts", {}) or {}, "facts", any_keys=True)
    facts = {name: _fact(r, facts_map, name, root) for name in facts_map}
    rules_list = r.sequence(top, "rules")
    rules = tuple(rule for i in range(len(rules_list)) for rule in _rule(r, rules_list, i, facts, root))
    if not rules:
        r.fail(top, "rules",
               "rules: expected at least one rule; a config with none judges nothing and would always pass")
    seen: dict[str, int] = {}
    for rule in {rule.line: rule for rule in rules}.values():
        if rule.id in seen:
            raise ConfigError(
                f"rules: duplicate rule id {rule.id!r} (first at line {seen[rule.id]})",
                Location(r.path, rule.line),
            )
        seen[rule.id] = rule.line
    return Config(path=path, root=root, facts=facts, rules=rules, max_file_size=size, root_origin=origin)


def _fact(r: Reader, facts: Any, name: str, root: Path) -> FactSpec:
    key = f"facts.{name}"
    line = r.line_of(facts, name)
    body = r.mapping(facts[name], key, required={"file"}, optional={*SELECTOR_KEYS, "values", "scalar", "unit"},
                     line=line)
    chosen = [k for k in SELECTOR_KEYS if k in body]
    if len(chosen) != 1:
        found = ", ".join(chosen) or "none"
        raise ConfigError(
            f"{key}: expected exactly one selector of {', '.join(SELECTOR_KEYS)}; found {found}",
            Location(r.path, line),
        )
    written, files = _expand(r, body, "file", key, root)
    unit = r.choice(body, "unit", tuple(FACT_UNITS), key, default=None)
    selector = _selector(r, body, chosen[0], key)
    names = isinstance(selector, (StringMethod, MapKeys, Symbols)) or getattr(selector, "values", "") == "names"
    if unit is not None and names:
        r.fail(body, "unit", f"{key}.unit: `{chosen[0]}` yields names, which carry no unit")
    return FactSpec(name=name, file=written, selector=selector, line=line, files=files, unit=unit)


def _expand(r: Reader, body: Any, key: str, where: str, root: Path) -> tuple[str, tuple[str, ...]]:
    """The key as written and the paths it names; a glob that matches no file is an error."""
    patterns = r.relpaths(body, key, where)
    paths, empty = globs.expand_all(root, patterns)
    if empty:
        r.fail(body, key, f"{where}.{key}: the glob {empty[0]!r} matches no file under the root {root}"
               + (" (Go _test.go files are left out unless the glob ends in _test.go)"
                  if globs.expand(root, empty[0], tests=True) else ""))
    return ", ".join(patterns), tuple(paths)


def _selector(r: Reader, body: Any, kind: str, key: str) -> Selector:
    where = f"{key}.{kind}"
    if kind == "constants":
        spec = r.mapping(body[kind], where, optional={"type", "name", "values"})
        values = r.choice(spec, "values", ("values", "names"), where, default=None) or r.choice(
            body, "values", ("values", "names"), key, default="values"
        )
        type_ = r.value(spec, "type", str, where, default=None)
        name = r.regex(spec, "name", where) if "name" in spec else None
        if not type_ and not name:
            raise ConfigError(f"{where}: expected `type` or `name`", r.loc(body, kind))
        return Constants(type=type_, name=name, values=values)
    if kind == "constant":
        return _constant(r, body, key)
    if kind == "string_method":
        return StringMethod(type=r.value(body, kind, str, key))
    if kind == "map_keys":
        if not isinstance(body[kind], dict):
            return MapKeys(name=r.value(body, kind, str, key))
        spec = r.mapping(body[kind], where, required={"name"}, optional={"resolve", "within"})
        return MapKeys(name=r.value(spec, "name", str, where),
                       resolve=r.value(spec, "resolve", bool, where, default=False),
                       within=r.value(spec, "within", str, where, default=None))
    if kind == "symbols":
        if r.value(body, kind, bool, key) is not True:
            r.fail(body, kind, f"{key}.symbols: expected `symbols: true`")
        return Symbols()
    if kind == "pattern":
        regex = r.regex(body, kind, key, groups=1)
        return Pattern(regex=regex, scalar=r.value(body, "scalar", bool, key, default=False))
    spec = r.mapping(body[kind], where, required={"function"}, optional={"within", "where", "arg"})
    made = Calls if kind == "calls" else Call
    arg = r.value(spec, "arg", int, where, default=0)
    if arg < 0:
        r.fail(spec, "arg", f"{where}.arg: expected a position from 0, got {arg}")
    return made(
        function=r.value(spec, "function", str, where),
        arg=arg,
        within=r.value(spec, "within", str, where, default=None),
        where=r.where(spec, where),
    )


def _constant(r: Reader, body: Any, key: str) -> Constant:
    """``name`` or ``name["key"][0]...``: a key path into the literal bound to ``name``."""
    written = r.value(body, "constant", str, key)
    m = _KEY_PATH.fullmatch(written.strip())
    if not m or not m.group(1).strip():
        r.fail(body, "constant", f"{key}.constant: expected a name, optionally followed by keys such as "
               f"[\"installer\"] or [0], got {written!r}")
    keys: list[str | int] = []
    for part in _KEY.finditer(m.group(2)):
        quoted = part.group(1) if part.group(1) is not None else part.group(2)
        keys.append(quoted if quoted is not None else int(part.group(3)))
    return Constant(name=m.group(1).strip(), keys=tuple(keys))


def _rule(r: Reader, rules: Any, i: int, facts: dict[str, FactSpec], root: Path) -> tuple[Rule, ...]:
    key = f"rules[{i}]"
    line = rules.item_lines[i]
    body = r.mapping(rules[i], key, required={"id", "doc"},
                     optional={"why", "fact", "facts", "direction", "case", *CLAIM_OPTIONS}, line=line)
    rule_id = r.value(body, "id", str, key)
    if not RULE_ID.fullmatch(rule_id):
        r.fail(body, "id", f"{key}.id: expected lower case letters, digits and dashes, got {rule_id!r}")
    claim = _claim(r, body, key)
    names = _fact_names(r, body, key, claim)
    for name in names:
        if name not in facts:
            hint = r.suggest(name, facts)
            r.fail(body, "rows" if claim.labelled else ("fact" if "fact" in body else "facts"),
                   f"{key}: unknown fact {name!r}{hint}")
        if facts[name].scalar != claim.scalar:
            want = "a scalar fact (constant, call, or pattern with scalar: true)" if claim.scalar else "a set fact"
            r.fail(body, "fact" if "fact" in body else ("facts" if "facts" in body else "rows"),
                   f"{key}: this claim form needs {want}; {name!r} is not one")
    default = claim.default_direction.value
    direction = Direction(r.choice(body, "direction", tuple(d.value for d in Direction), key, default=default))
    if direction not in claim.directions:
        only = ", ".join(sorted(d.value for d in claim.directions))
        r.fail(body, "direction", f"{key}.direction: `{claim.key}` checks {only} only")
    written, docs = _expand(r, body, "doc", key, root)
    why = r.value(body, "why", str, key, default="")
    folded = r.choice(body, "case", CASES, key, default="sensitive") == "insensitive"
    return tuple(Rule(id=rule_id, facts=names, doc=doc, claim=claim, direction=direction, line=line,
                      why=why, doc_pattern=written, case_insensitive=folded) for doc in docs)


def _fact_names(r: Reader, body: Any, key: str, claim: ClaimForm) -> tuple[str, ...]:
    if claim.facts == "none":
        for extra in ("fact", "facts"):
            if extra in body:
                r.fail(body, extra, f"{key}: a `{claim.key}` rule reads no fact; drop `{extra}`")
        return ()
    if claim.facts == "optional" and "fact" not in body and "facts" not in body:
        return ()
    if isinstance(claim, TableClaim) and claim.labelled:
        if "fact" in body or "facts" in body:
            r.fail(body, "rows", f"{key}: a `rows` claim names its facts in `rows`; drop `fact`/`facts`")
        return tuple(dict.fromkeys(name for _, name in claim.rows))
    if ("fact" in body) == ("facts" in body):
        raise ConfigError(f"{key}: expected exactly one of `fact` or `facts`", r.loc_of(body))
    if "fact" in body:
        return (r.value(body, "fact", str, key),)
    names = r.sequence(body, "facts", key)
    if not names or not all(isinstance(n, str) for n in names):
        r.fail(body, "facts", f"{key}.facts: expected a non-empty list of fact names")
    return tuple(names)


def _claim(r: Reader, body: Any, key: str) -> ClaimForm:
    present = [k for k in CLAIM_KEYS if k in body]
    # a key that is also an option of another present form (``section``) names no form of its own
    forms = [k for k in present if not any(k in CLAIM_KEYS[o].options for o in present if o != k)]
    if len(forms) != 1:
        raise ConfigError(
            f"{key}: expected exactly one claim form of {', '.join(CLAIM_KEYS)}; "
            f"found {', '.join(forms) or 'none'}",
            r.loc_of(body),
        )
    form = CLAIM_KEYS[forms[0]]
    for extra in sorted((CLAIM_OPTIONS & body.keys()) - form.options):
        r.fail(body, extra, f"{key}.{extra}: not used with a `{form.key}` claim")
    return form.from_config(r, body, key)
