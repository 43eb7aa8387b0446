"""The config file: schema, validation with key paths, and the frozen Config.

Every error names the config file, the line and the key path
(``rules[2].direction``) and says what was expected. Unknown keys are errors
with a close-match suggestion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from driftguard import languages
from driftguard.config import globs, yamlsafe
from driftguard.config.schema import Reader
from driftguard.config.specs import CLAIM_KEYS, CLAIM_OPTIONS, ClaimForm
from driftguard.model import ConfigError, Direction, Location

if TYPE_CHECKING:
    from driftguard.config.specs import Selector

CONFIG_NAME = "driftguard.yaml"
DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
MAX_FILE_SIZE_LIMIT = 1 << 30
RULE_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
"""A rule id, matched whole (``fullmatch``): ``ttl\n`` is not one."""
CASES = ("sensitive", "insensitive")


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
    ignore: tuple[str, ...] = ()  # members (or a map's keys) left out of the fact

    def __post_init__(self) -> None:
        if not self.files:
            object.__setattr__(self, "files", (self.file,))

    @property
    def scalar(self) -> bool:
        return bool(self.selector.scalar)

    @property
    def map(self) -> bool:
        """Whether its items are entries, each item's label its key."""
        return self.selector.map


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
    entry: str | None = None  # ``entry: KEY``: the one entry of a map fact, judged as a scalar
    ignore: tuple[str, ...] = ()  # members left out on both sides

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
    baseline: Path | None = None  # ``baseline:``: the known findings (driftguard.judging.baseline)

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


def load_config(path: Path, root: Path | None = None, max_file_size: int | None = None,
                require_rules: bool = True) -> Config:
    """Read and validate the config at ``path``; ``root`` overrides its ``root`` key. Without
    ``require_rules`` a config of facts alone loads (``driftguard facts`` reads one)."""
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
    return _build(Reader(shown), data, path, root, max_file_size, require_rules)


def _build(r: Reader, data: Any, path: Path, root: Path | None, max_size: int | None,
           require_rules: bool = True) -> Config:
    top = r.mapping(data, "", required={"version", "rules"} if require_rules else {"version"},
                    optional={"facts", "root", "max_file_size", "baseline", "rules"})
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
        written = r.value(top, "root", str, default=".")
        if "\0" in written:
            r.fail(top, "root", f"root: expected a folder, got {written!r} (it holds a NUL character)")
        root = (path.parent / written).resolve()
    size = max_size or r.value(top, "max_file_size", int, default=DEFAULT_MAX_FILE_SIZE)
    if not 0 < size <= MAX_FILE_SIZE_LIMIT:
        r.fail(top, "max_file_size", f"max_file_size: expected a number of bytes from 1 to {MAX_FILE_SIZE_LIMIT} "
               f"(1 GiB), got {size}")
    facts_map = r.child(top, "facts", "facts", any_keys=True) if top.get("facts") is not None else {}
    facts = {name: _fact(r, facts_map, name, root) for name in facts_map}
    rules_list = r.sequence(top, "rules") if "rules" in top or require_rules else []
    expanded = [_rule(r, rules_list, i, facts, root) for i in range(len(rules_list))]
    rules = tuple(rule for entry in expanded for rule in entry)
    if not rules and require_rules:
        r.fail(top, "rules",
               "rules: expected at least one rule; a config with none judges nothing and would always pass")
    seen: dict[str, int] = {}
    for entry in expanded:  # one entry per rule written, however many documents its glob names
        rule = entry[0]
        if rule.id in seen:
            raise ConfigError(
                f"rules: duplicate rule id {rule.id!r} (first at line {seen[rule.id]})",
                Location(r.path, rule.line),
            )
        seen[rule.id] = rule.line
    baseline = path.parent / r.relpath(top, "baseline", "") if "baseline" in top else None
    return Config(path=path, root=root, facts=facts, rules=rules, max_file_size=size, root_origin=origin,
                  baseline=baseline)


def fact_of(path: str, body: Any, root: Path, name: str = "selected") -> FactSpec:
    """The fact ``body`` (a fact's mapping, from outside a config file) describes."""
    wrapped = yamlsafe.LineDict({name: body})
    wrapped.key_lines = {name: 1}
    return _fact(Reader(path), wrapped, name, root)


FACT_KEYS = frozenset({"file", "unit", "unwrap", "ignore"})
"""The keys of a fact besides its selector and the selector's siblings (``SelectorSpec.siblings``)."""


def _fact(r: Reader, facts: Any, name: str, root: Path) -> FactSpec:
    from driftguard.config.specs import SELECTOR_KEYS  # the selectors load with the first fact
    from driftguard.quantities import FACT_UNITS

    key = f"facts.{name}"
    line = r.line_of(facts, name)
    siblings = frozenset().union(*(kind.siblings for kind in SELECTOR_KEYS.values()))
    body = r.mapping(facts[name], key, required={"file"}, optional={*SELECTOR_KEYS, *FACT_KEYS, *siblings},
                     line=line)
    chosen = [k for k in SELECTOR_KEYS if k in body]
    if len(chosen) != 1:
        found = ", ".join(chosen) or "none"
        raise ConfigError(
            f"{key}: expected exactly one selector of {', '.join(SELECTOR_KEYS)}; found {found}",
            Location(r.path, line),
        )
    kind = SELECTOR_KEYS[chosen[0]]
    for extra in sorted((siblings - kind.siblings) & body.keys()):
        r.fail(body, extra, f"{key}.{extra}: not used with a `{kind.key}` selector")
    written, files = _files(r, body, key, root)
    unit = r.choice(body, "unit", tuple(FACT_UNITS), key, default=None)
    selector = replace(kind.from_config(r, body, key), unwrap=_names(r, body, "unwrap", key))
    if unit is not None and (kind.names or getattr(selector, "values", "") == "names"):
        r.fail(body, "unit", f"{key}.unit: `{chosen[0]}` yields names, which carry no unit")
    return FactSpec(name=name, file=written, selector=cast("Selector", selector), line=line, files=files, unit=unit,
                    ignore=_names(r, body, "ignore", key))


def _names(r: Reader, body: Any, key: str, where: str) -> tuple[str, ...]:
    """A list of names (or one name) under ``key``."""
    if key not in body:
        return ()
    raw = body[key]
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        r.fail(body, key, f"{where}.{key}: expected a name or a non-empty list of names")
    return tuple(names)


def _files(r: Reader, body: Any, where: str, root: Path) -> tuple[str, tuple[str, ...]]:
    """``file:`` as written and the paths it names: a path, a glob, a list, or a mapping
    of ``include`` (the same) and ``exclude`` (globs whose matches are left out)."""
    if not isinstance(body["file"], dict):
        return _expand(r, body, "file", where, root)
    at = f"{where}.file"
    spec = r.child(body, "file", at, required={"include"}, optional={"exclude"})
    written, files = _expand(r, spec, "include", at, root)
    if "exclude" not in spec:
        return written, files
    excluded = r.relpaths(spec, "exclude", at)
    for pattern in excluded:
        if globs.problem(pattern):
            r.fail(spec, "exclude", f"{at}.exclude: the glob {pattern!r} {globs.problem(pattern)}")
    kept = tuple(f for f in files if not any(globs.matches(pattern, f) for pattern in excluded))
    if not kept:
        r.fail(spec, "exclude", f"{at}.exclude: leaves none of the {len(files)} files `{written}` matches")
    return f"{written} (excluding {', '.join(excluded)})", kept


def _expand(r: Reader, body: Any, key: str, where: str, root: Path) -> tuple[str, tuple[str, ...]]:
    """The key as written and the paths it names; a glob that matches no file is an error."""
    patterns = r.relpaths(body, key, where)
    for pattern in patterns:
        problem = globs.problem(pattern)
        if problem:
            r.fail(body, key, f"{where}.{key}: the glob {pattern!r} {problem}")
    paths, empty = globs.expand_all(root, patterns)
    if empty:
        r.fail(body, key, f"{where}.{key}: the glob {empty[0]!r} matches no file under the root {root}"
               + (f" (test files ({languages.test_files_shown()}, ...) are left out unless the glob names them)"
                  if globs.expand(root, empty[0], tests=True) else ""))
    return ", ".join(patterns), tuple(paths)


RULE_KEYS = frozenset({"why", "fact", "facts", "direction", "case", "entry", "ignore"})
"""The keys of a rule besides ``id``, ``doc`` and its claim form's options."""


def _rule(r: Reader, rules: Any, i: int, facts: dict[str, FactSpec], root: Path) -> tuple[Rule, ...]:
    key = f"rules[{i}]"
    line = rules.item_lines[i]
    body = r.mapping(rules[i], key, required={"id", "doc"}, optional={*RULE_KEYS, *CLAIM_OPTIONS}, line=line)
    rule_id = r.value(body, "id", str, key)
    if not RULE_ID.fullmatch(rule_id):
        r.fail(body, "id", f"{key}.id: expected lower case letters, digits and dashes, got {rule_id!r}")
    claim = _claim(r, body, key)
    names = _fact_names(r, body, key, claim)
    entry = r.value(body, "entry", str, key, default=None)
    for name in names:
        if name not in facts:
            hint = r.suggest(name, facts)
            r.fail(body, "rows" if claim.labelled else ("fact" if "fact" in body else "facts"),
                   f"{key}: unknown fact {name!r}{hint}")
    used = [facts[name] for name in names]
    if any(f.map for f in used) and not entry:
        claim = claim.for_map()
    elif used and not entry and claim.scalar and not claim.labelled and not any(f.scalar or f.map for f in used):
        claim = claim.for_set()
    for fact in used:
        _fits(r, body, key, claim, fact, entry)
    default = claim.default_direction.value
    direction = Direction(r.choice(body, "direction", tuple(d.value for d in Direction), key, default=default))
    if direction not in claim.directions:
        only = ", ".join(sorted(d.value for d in claim.directions))
        r.fail(body, "direction", f"{key}.direction: `{claim.key}` checks {only} only")
    written, docs = _expand(r, body, "doc", key, root)
    why = r.value(body, "why", str, key, default="")
    folded = r.choice(body, "case", CASES, key, default="sensitive") == "insensitive"
    ignore = _names(r, body, "ignore", key)
    return tuple(Rule(id=rule_id, facts=names, doc=doc, claim=claim, direction=direction, line=line, why=why,
                      doc_pattern=written, case_insensitive=folded, entry=entry, ignore=ignore) for doc in docs)


def _fits(r: Reader, body: Any, key: str, claim: ClaimForm, fact: FactSpec, entry: str | None) -> None:
    """Refuse a fact whose shape the claim form cannot judge: a set against a scalar form,
    ``entry`` on a fact that is no map, a map against a scalar form without ``entry``."""
    where = "fact" if "fact" in body else ("facts" if "facts" in body else "rows")
    if entry is not None:
        if not fact.map:
            r.fail(body, "entry", f"{key}.entry: fact {fact.name!r} is not a map (flags or env with "
                   "`defaults: true`, or a query with @name)")
        if not claim.scalar:
            r.fail(body, "entry", f"{key}.entry: an entry is one value; use a scalar claim form (phrase, ...)")
        return
    if fact.map and claim.scalar:
        r.fail(body, where, f"{key}: fact {fact.name!r} is a map; name one of its entries with `entry:`")
    if not fact.map and fact.scalar != claim.scalar:
        want = "a scalar fact (constant, call, or pattern with scalar: true)" if claim.scalar else "a set fact"
        r.fail(body, where, f"{key}: this claim form needs {want}; {fact.name!r} is not one")


def _fact_names(r: Reader, body: Any, key: str, claim: ClaimForm) -> tuple[str, ...]:
    if claim.facts == "none":
        for extra in ("fact", "facts"):
            if extra in body:
                r.fail(body, extra, f"{key}: a `{claim.key}` rule reads no fact; drop `{extra}`")
        return ()
    if claim.facts == "optional" and "fact" not in body and "facts" not in body:
        return ()
    if claim.labelled:
        if "fact" in body or "facts" in body:
            r.fail(body, "rows", f"{key}: a `rows` claim names its facts in `rows`; drop `fact`/`facts`")
        return tuple(dict.fromkeys(name for _, name in claim.row_facts))
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
