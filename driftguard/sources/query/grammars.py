"""The tree-sitter grammars a ``query`` fact may name, one line each.

A grammar comes from its own maintained package (``tree-sitter-rust``, ...),
never from ``tree-sitter-language-pack``, which downloads parsers at run time.
The packages are optional: ``pip install 'driftguard[languages]'`` installs them
all, and a fact naming a language whose package is missing is a config error
saying which package to install.

This module imports no parser: the cache's fingerprints read ``libraries``
here to key a query fact by its grammar package's version, and a cached run
never imports tree-sitter. ``load`` imports the grammar when a file is parsed.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftguard.model import ConfigError, Location

if TYPE_CHECKING:
    from tree_sitter import Language

BINDINGS = ("tree_sitter", "tree-sitter")
"""The bindings every grammar is read through: (import name, distribution)."""

EXTRA = "driftguard[languages]"


@dataclass(frozen=True)
class Grammar:
    name: str  # as a fact names it: "rust", "cpp"
    module: str  # the grammar package's import name
    function: str  # the function of ``module`` returning the language pointer
    distribution: str  # what ``pip install`` takes
    zero_octal: bool = True  # whether ``017`` is an octal literal (C, Java, Ruby, Go, JS), not 17 (Rust, Python)


GRAMMARS: dict[str, Grammar] = {g.name: g for g in (
    Grammar("c", "tree_sitter_c", "language", "tree-sitter-c"),
    Grammar("cpp", "tree_sitter_cpp", "language", "tree-sitter-cpp"),
    Grammar("go", "tree_sitter_go", "language", "tree-sitter-go"),
    Grammar("java", "tree_sitter_java", "language", "tree-sitter-java"),
    Grammar("javascript", "tree_sitter_javascript", "language", "tree-sitter-javascript"),
    Grammar("python", "tree_sitter_python", "language", "tree-sitter-python", zero_octal=False),
    Grammar("ruby", "tree_sitter_ruby", "language", "tree-sitter-ruby"),
    Grammar("rust", "tree_sitter_rust", "language", "tree-sitter-rust", zero_octal=False),
    Grammar("tsx", "tree_sitter_typescript", "language_tsx", "tree-sitter-typescript"),
    Grammar("typescript", "tree_sitter_typescript", "language_typescript", "tree-sitter-typescript"),
)}
"""Every language a ``query`` fact may name."""

ALIASES = {"c++": "cpp", "js": "javascript", "ts": "typescript", "golang": "go", "py": "python", "rb": "ruby",
           "rs": "rust"}

_loaded: dict[str, Language] = {}


def find(name: str) -> Grammar | None:
    """The grammar ``name`` (or an alias of it, in any case) names."""
    key = name.strip().lower()
    return GRAMMARS.get(ALIASES.get(key, key))


def libraries(name: str) -> tuple[tuple[str, str], ...] | None:
    """(import name, distribution) of what a query over language ``name`` depends on: the
    bindings and the grammar package; None for an unknown language (never cached)."""
    grammar = find(name)
    return None if grammar is None else (BINDINGS, (grammar.module, grammar.distribution))


def grammar_of(name: str, path: str) -> Grammar:
    """The grammar ``name`` names; a ``ConfigError`` listing the known ones otherwise."""
    grammar = find(name)
    if grammar is None:
        close = difflib.get_close_matches(name.lower(), [*GRAMMARS, *ALIASES], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"no tree-sitter grammar is known for language {name!r}{hint}; `query` reads "
                          + ", ".join(GRAMMARS) + " (also written " + ", ".join(ALIASES) + ")", Location(path))
    return grammar


def load(grammar: Grammar, path: str) -> Language:
    """The tree-sitter language of ``grammar``, imported on first use; a ``ConfigError``
    naming the package to install when it (or the bindings) is missing or too old."""
    found = _loaded.get(grammar.name)
    if found is not None:
        return found
    try:
        from tree_sitter import Language

        module = importlib.import_module(grammar.module)
        found = Language(getattr(module, grammar.function)())
    except ImportError:
        raise ConfigError(f"reading {grammar.name} needs the grammar package {grammar.distribution}, "
                          f"which is not installed: pip install {grammar.distribution} "
                          f"(or pip install '{EXTRA}' for every grammar)", Location(path)) from None
    except (AttributeError, ValueError, TypeError) as exc:  # an ABI the bindings do not read
        raise ConfigError(f"the installed {grammar.distribution} cannot be loaded ({exc}); "
                          f"upgrade it and tree-sitter together: pip install -U tree-sitter {grammar.distribution}",
                          Location(path)) from None
    _loaded[grammar.name] = found
    return found
