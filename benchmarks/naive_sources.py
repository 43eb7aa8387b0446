"""The baseline's fact readers: regexes over raw Go and Python text.

Each reader takes the file's text (read again for every rule) and the fact's
config mapping, and returns a list of values (one for a scalar). Comment
lines and trailing comments are cut first; blocks are found by brace counting
(Go) or indentation (Python). ``Missing`` means the fact was not found;
``Unsupported`` means the naive reader does not know this selector.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from naive_values import Unevaluable, Value, evaluate


class Missing(Exception):
    pass


class Unsupported(Exception):
    pass


def strip_comments(text: str, go: bool) -> str:
    if go:
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
        return re.sub(r"\s+//.*$", "", text, flags=re.M)
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    return re.sub(r"\s+#.*$", "", text, flags=re.M)


def read_fact(text: str, spec: dict[str, Any], go: bool) -> list[Value]:
    code = strip_comments(text, go)
    lookup = _go_lookup(code) if go else _py_lookup(code)
    if "pattern" in spec:
        return _pattern(text, spec)
    if "constants" in spec:
        sel = spec["constants"]
        pairs = (_go_typed(code, sel["type"]) if go else _py_members(code, sel["type"])) if sel.get("type") \
            else _assignments(code, go, sel["name"])
        if not pairs:
            raise Missing("no constants")
        if sel.get("values") == "names":
            return [("str", name) for name, _ in pairs]
        return _values(pairs, lookup)
    if "constant" in spec:
        source = lookup(spec["constant"])
        if source is None:
            raise Missing(spec["constant"])
        return [_eval(source, lookup)]
    if "string_method" in spec and go:
        body = _go_func(code, rf"func\s*\(\s*\w*\s*\*?{re.escape(spec['string_method'])}\s*\)\s*String\s*\(\s*\)")
        found = re.findall(r'case\s+[^:\n]+:\s*return\s+"([^"]*)"', body)
        if not found:
            raise Missing("String cases")
        return [("str", s) for s in found]
    if "map_keys" in spec:
        sel = spec["map_keys"] if isinstance(spec["map_keys"], dict) else {"name": spec["map_keys"]}
        return _map_keys(code, sel, go, lookup)
    if "call" in spec:
        return [_call(code, spec["call"], go, lookup)]
    if "list" in spec:
        return _list(code, spec["list"], lookup)
    raise Unsupported(", ".join(k for k in spec if k != "file"))


def _values(pairs: list[tuple[str, str]], lookup: Callable[[str], str | None]) -> list[Value]:
    return [_eval(source, lookup) for _, source in pairs]


def _eval(source: str, lookup: Callable[[str], str | None]) -> Value:
    try:
        return evaluate(source, lookup)
    except (Unevaluable, KeyError, IndexError) as exc:
        raise Missing(f"cannot evaluate {source!r}: {exc}") from None


def _pattern(text: str, spec: dict[str, Any]) -> list[Value]:
    from naive_values import quantity

    found = re.findall(spec["pattern"], text)
    if not found:
        raise Missing("pattern")
    found = [f if isinstance(f, str) else f[0] for f in found]
    if spec.get("scalar"):
        return [quantity(found[0])]
    return [("str", f) for f in found]


# -- Go -----------------------------------------------------------------------

def _go_typed(code: str, type_: str) -> list[tuple[str, str]]:
    return re.findall(rf"^[ \t]*(\w+)[ \t]+{re.escape(type_)}[ \t]*=[ \t]*(.+?)[ \t]*$", code, re.M)


_GO_ASSIGN = re.compile(r"^[ \t]*(?:const[ \t]+)?(\w+)[ \t]*(?:[\w.]+[ \t]*)?=(?!=)[ \t]*(.+?)[ \t]*$", re.M)
_PY_ASSIGN = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=(?!=)[ \t]*(.+?)[ \t]*$", re.M)


def _assignments(code: str, go: bool, name_regex: str) -> list[tuple[str, str]]:
    found = (_GO_ASSIGN if go else _PY_ASSIGN).findall(code)
    wanted = re.compile(name_regex)
    return [(n, v) for n, v in found if wanted.search(n) and not v.rstrip().endswith(("{", "(", "["))]


def _go_lookup(code: str) -> Callable[[str], str | None]:
    def lookup(name: str) -> str | None:
        m = re.search(rf"^[ \t]*(?:const[ \t]+)?{re.escape(name)}[ \t]*(?:[\w.]+[ \t]*)?=(?!=)[ \t]*(.+?)[ \t]*$",
                      code, re.M)
        return m.group(1) if m else None
    return lookup


def _go_func(code: str, header: str) -> str:
    m = re.search(header + r"[^{\n]*\{", code)
    if not m:
        raise Missing(header)
    return _balanced(code, m.end() - 1)


def _balanced(code: str, open_at: int, pair: str = "{}") -> str:
    """The text between the bracket at ``open_at`` and its match (strings skipped)."""
    depth, i, quote = 0, open_at, ""
    while i < len(code):
        c = code[i]
        if quote:
            if c == "\\" and quote != "`":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        elif c == pair[0]:
            depth += 1
        elif c == pair[1]:
            depth -= 1
            if depth == 0:
                return code[open_at + 1:i]
        i += 1
    raise Missing("unbalanced brackets")


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets and strings."""
    parts, depth, quote, start = [], 0, "", 0
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


# -- Python ---------------------------------------------------------------------

def _py_block(code: str, header: str) -> str:
    m = re.search(header, code, re.M)
    if not m:
        raise Missing(header)
    lines, indent, out = code[m.end():].split("\n")[1:], None, []
    for line in lines:
        if not line.strip():
            continue
        width = len(line) - len(line.lstrip())
        if indent is None:
            indent = width
        if width < indent:
            break
        out.append(line)
    return "\n".join(out)


def _py_members(code: str, type_: str) -> list[tuple[str, str]]:
    body = _py_block(code, rf"^[ \t]*class[ \t]+{re.escape(type_)}\b[^\n]*:[ \t]*$")
    indent = len(body) - len(body.lstrip()) if body else 0
    found = re.findall(rf"^ {{{indent}}}([A-Za-z]\w*)[ \t]*=[ \t]*(.+?)[ \t]*$", body, re.M)
    return [(n, v) for n, v in found if not (n.startswith("_") and n.endswith("_"))]


def _py_lookup(code: str) -> Callable[[str], str | None]:
    def lookup(name: str) -> str | None:
        m = re.search(rf"^[ \t]*{re.escape(name)}[ \t]*(?::[^=\n]+)?=(?!=)[ \t]*(.+?)[ \t]*$", code, re.M)
        return m.group(1) if m else None
    return lookup


# -- maps and calls ---------------------------------------------------------------

def _list(code: str, name: str, lookup: Callable[[str], str | None]) -> list[Value]:
    """The elements of the list or tuple literal bound to ``name``, as a hand-written test reads them."""
    m = re.search(rf"^[ \t]*{re.escape(name)}[ \t]*(?::[^=\n]+)?=[ \t]*([(\[])", code, re.M)
    if not m:
        raise Missing(name)
    pair = "()" if m.group(1) == "(" else "[]"
    return [_eval(part, lookup) for part in _split_top(_balanced(code, m.start(1), pair))]


def _map_keys(code: str, sel: dict[str, Any], go: bool, lookup: Callable[[str], str | None]) -> list[Value]:
    name = re.escape(sel["name"])
    m = re.search(rf"\b{name}[ \t]*(?::=|(?::[^=\n]+)?=)[ \t]*(?:map\[[^\]]*\][\w.*]*)?[ \t]*\{{", code)
    if not m:
        raise Missing(sel["name"])
    out: list[Value] = []
    for entry in _split_top(_balanced(code, m.end() - 1)):
        key = _split_colon(entry)
        if key[:1] in "\"'":
            out.append(("str", key[1:-1]))
        elif sel.get("resolve"):
            out.append(_eval(key, lookup))
        else:
            out.append(("str", key.rsplit(".", 1)[-1]))
    if not out:
        raise Missing("no keys")
    return out


def _split_colon(entry: str) -> str:
    depth, quote = 0, ""
    for i, c in enumerate(entry):
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0:
            return entry[:i].strip()
    return entry.strip()


def _call(code: str, sel: dict[str, Any], go: bool, lookup: Callable[[str], str | None]) -> Value:
    scope = code
    if sel.get("within"):
        within = sel["within"]
        if go:
            head = rf"func\s*\(\s*\w*\s*\*?{re.escape(within.split('.')[0])}\s*\)\s*{re.escape(within.split('.')[-1])}\s*\(" \
                if "." in within else rf"func\s+(?:\([^)]*\)\s*)?{re.escape(within)}\s*\("
            scope = _go_func(code, head)
        else:
            last = re.escape(within.split(".")[-1])
            scope = _py_block(code, rf"^[ \t]*(?:class|def|async[ \t]+def)[ \t]+{last}\b[^\n]*:[ \t]*$")
    fn = sel["function"]
    pattern = re.escape(fn) if "." in fn else rf"(?:[\w.]+\.)?{re.escape(fn)}"
    matches = []
    for m in re.finditer(rf"(?<![\w.]){pattern}\s*\(", scope):
        args = _split_top(_balanced(scope, m.end() - 1, "()"))
        where = {int(k[3:]): v for k, v in (sel.get("where") or {}).items()}
        if len(args) > sel.get("arg", 0) and all(
                n < len(args) and " ".join(args[n].split()) == " ".join(v.split()) for n, v in where.items()):
            matches.append(args[sel.get("arg", 0)])
    if len(matches) != 1:
        raise Missing(f"{len(matches)} calls of {fn}")
    return _eval(matches[0], lookup)
