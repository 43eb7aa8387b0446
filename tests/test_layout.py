"""The package's shape: no import cycles, small modules, few type ignores, a lean check path."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("driftguard", "reference_impl")
MAX_LINES = 400
MAX_ROOT_MODULES = 12
MAX_TYPE_IGNORES = 10


def _modules(package: str) -> dict[str, Path]:
    out = {}
    for path in sorted((REPO / package).rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(name: str, path: Path, known: set[str], *, type_checking: bool = False) -> set[str]:
    """Every module of ``known`` that ``name`` imports, at any depth of the file
    (function-local imports count); ``if TYPE_CHECKING:`` blocks are skipped
    unless ``type_checking`` is set."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def target(base: str, attr: str | None) -> None:
        if attr and f"{base}.{attr}" in known:
            found.add(f"{base}.{attr}")
        elif base in known:
            found.add(base)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child) and not type_checking:
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    target(alias.name, None)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = name.split(".")
                    anchor = anchor[: len(anchor) - child.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in child.names:
                    target(base, alias.name)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_counting_function_local_imports(package: str) -> None:
    modules = _modules(package)
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    assert _cycles(graph) == []


def test_reference_impl_has_no_cycle_even_through_type_checking_imports() -> None:
    """The port's packages import one way: not even an annotation-only import looks back."""
    modules = _modules("reference_impl")
    graph = {name: _imports(name, path, set(modules), type_checking=True) for name, path in modules.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_sees_a_function_local_cycle(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from pkg import b\n")
    b.write_text("def f():\n    from pkg import a\n")
    known = {"pkg", "pkg.a", "pkg.b"}
    graph = {"pkg.a": _imports("pkg.a", a, known), "pkg.b": _imports("pkg.b", b, known), "pkg": set()}
    assert _cycles(graph) == [["pkg.a", "pkg.b"]]
    b.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n")
    graph["pkg.b"] = _imports("pkg.b", b, known)
    assert _cycles(graph) == []
    graph["pkg.b"] = _imports("pkg.b", b, known, type_checking=True)
    assert _cycles(graph) == [["pkg.a", "pkg.b"]]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_is_over_the_line_limit(package: str) -> None:
    long = {str(p.relative_to(REPO)): n for p in _modules(package).values()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_few_modules_stay_at_the_package_root() -> None:
    root = sorted(p.name for p in (REPO / "driftguard").glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root


def test_type_ignores_are_few_and_each_gives_its_reason() -> None:
    ignores = []
    for package in PACKAGES:
        for path in _modules(package).values():
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if "# type: ignore" in line:
                    ignores.append((f"{path.relative_to(REPO)}:{number}", line.split("# type: ignore", 1)[1]))
    assert len(ignores) <= MAX_TYPE_IGNORES, ignores
    unexplained = [where for where, rest in ignores if "#" not in rest]
    assert unexplained == []


def test_one_place_builds_the_markdown_parser() -> None:
    builders = [str(p.relative_to(REPO)) for p in _modules("driftguard").values()
                if "MarkdownIt(" in p.read_text(encoding="utf-8")]
    assert builders == ["driftguard/documents/parser.py"]


LEAN = ("tree_sitter", "tree_sitter_go", "libcst", "markdown_it", "driftguard.documents.reader",
        "driftguard.sources.go", "driftguard.sources.python")


def test_a_cached_check_imports_no_parser(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from driftguard.cli import main\n"
        "code = main(['check', '--config', sys.argv[1], '--root', sys.argv[2]])\n"
        f"print(sorted(m for m in {LEAN!r} if m in sys.modules))\n"
        "raise SystemExit(code)\n"
    )
    config = REPO / "examples" / "pulse" / "driftguard.yaml"
    env = {**os.environ, "DRIFTGUARD_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DRIFTGUARD_NO_CACHE", None)
    args = [sys.executable, "-c", probe, str(config), str(REPO / "tests" / "fixtures" / "pulse")]
    cold = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    assert cold.returncode == 0, cold.stdout + cold.stderr
    assert "tree_sitter" in cold.stdout  # the first run parses: the probe can see it
    warm = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    assert warm.returncode == 0, warm.stdout + warm.stderr
    assert warm.stdout.strip().splitlines()[-1] == "[]", warm.stdout


_PRIVATE_STDLIB = {"sre_parse", "sre_compile", "sre_constants"}  # re's internals under their old names


def _private_stdlib(module: str) -> bool:
    """Whether ``module`` is a private part of the standard library (``re._parser``, ``_thread``...)."""
    parts = module.split(".")
    hidden = any(p.startswith("_") and not p.endswith("__") for p in parts)  # __future__ is public
    return module in _PRIVATE_STDLIB or (parts[0] in sys.stdlib_module_names and hidden)


def _imported_names(tree: ast.AST) -> list[tuple[int, str]]:
    """Every module ``tree`` imports: ``import``/``from`` statements at any depth, and each
    string in the arguments of an ``import_module(...)`` or ``__import__(...)`` call."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found += [(node.lineno, node.module)] + [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in ("import_module", "__import__"):
            found += [(node.lineno, s.value) for arg in node.args for s in ast.walk(arg)
                      if isinstance(s, ast.Constant) and isinstance(s.value, str)]
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_a_private_module_of_the_standard_library(package: str) -> None:
    """``re._parser`` and its old names change without notice between Python versions."""
    private = [f"{path.relative_to(REPO)}:{line}: {name}" for path in _modules(package).values()
               for line, name in _imported_names(ast.parse(path.read_text(encoding="utf-8")))
               if _private_stdlib(name)]
    assert private == []


@pytest.mark.parametrize("source, names", [
    ("import sre_parse\n", ["sre_parse"]),
    ("from re import _parser\n", ["re._parser"]),
    ("import re._parser as p\n", ["re._parser"]),
    ("def f():\n    import sre_compile\n", ["sre_compile"]),
    ("import importlib, sys\n_SRE = importlib.import_module('re._parser' if sys.version_info >= (3, 11) else 'sre_parse')\n",
     ["re._parser", "sre_parse"]),
    ("__import__('_thread')\n", ["_thread"]),
    ("import re, collections.abc\nfrom driftguard import _version\nimport libcst._nodes\n", []),
])
def test_the_private_import_scan_finds_each_spelling(source: str, names: list[str]) -> None:
    assert [name for _, name in _imported_names(ast.parse(source)) if _private_stdlib(name)] == names
