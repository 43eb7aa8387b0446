"""The packages a Go file imports, by the name the file calls them.

``import kp "github.com/alecthomas/kingpin/v2"`` is ``kp``; without a name, a
package is called by the last element of its path, skipping a major version
(``github.com/urfave/cli/v2`` is ``cli``) and cutting gopkg.in's version
(``gopkg.in/alecthomas/kingpin.v2`` is ``kingpin``). Dot and blank imports
name nothing.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from driftguard.sources.go.evaluate import decode_string, named

_MAJOR = re.compile(r"v[0-9]+")


def imports(root: Node) -> dict[str, str]:
    """Local name -> import path, for every import of the file."""
    out: dict[str, str] = {}
    for decl in (c for c in root.children if c.type == "import_declaration"):
        specs = [s for part in named(decl) for s in ([part] if part.type == "import_spec" else named(part))]
        for spec in specs:
            path_node = spec.child_by_field_name("path")
            if spec.type != "import_spec" or path_node is None:
                continue
            path = decode_string(path_node)
            alias = spec.child_by_field_name("name")
            name = (alias.text or b"").decode() if alias is not None else default_name(path)
            if name not in (".", "_"):
                out[name] = path
    return out


def default_name(path: str) -> str:
    """The name a package is called by when its import gives none."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and _MAJOR.fullmatch(parts[-1]):
        parts.pop()
    last = parts[-1] if parts else path
    return last.split(".")[0] if path.startswith("gopkg.in/") else last


def names_of(root: Node, *paths: str) -> set[str]:
    """The local names of the imports whose path is one of ``paths`` or ends with one
    after a slash (``urfave/cli`` matches ``github.com/urfave/cli/v3``)."""
    found = set()
    for name, path in imports(root).items():
        bare = path.split(".v")[0] if path.startswith("gopkg.in/") else path
        trimmed = bare.rsplit("/", 1)[0] if _MAJOR.fullmatch(bare.rsplit("/", 1)[-1]) else bare
        if any(trimmed == p or trimmed.endswith("/" + p) for p in paths):
            found.add(name)
    return found
