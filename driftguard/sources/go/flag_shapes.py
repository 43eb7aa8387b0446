"""Where a Go file defines command-line flags, in the shapes four libraries write them.

- std ``flag`` and ``pflag`` (cobra): a call of a flag-set method on the package
  (``flag.String``), on a cobra command's set (``cmd.Flags()``,
  ``PersistentFlags()``, ...) or on a name the file binds to a set
  (``fs := flag.NewFlagSet(...)``, a parameter or field typed ``*flag.FlagSet``).
  The method gives the layout: ``String(name, value, usage)``, ``StringP(name,
  shorthand, value, usage)``, ``StringVar(p, name, value, usage)``,
  ``StringVarP(p, name, shorthand, value, usage)``; ``Var``, ``Func``,
  ``BoolFunc`` and ``Count`` take no default. A call whose argument count does
  not fit its layout is not a definition (``cmd.Flags().Lookup("x")``).
- kingpin: ``X.Flag(name, help)`` with exactly two arguments and a chain after it
  (``.Default("4").Hidden().IntVar(&x)``, in any order); the default is the one
  argument of ``.Default(...)``. A wrapper is recognised two ways: a function of
  the same file that returns ``app.Flag(p, ...)...`` for one of its parameters
  ``p`` (prometheus' ``serverOnlyFlag(a, "name", help)``) defines, at each call,
  the flag named by the argument in ``p``'s place; a function of another file is
  taken as a wrapper only when its name ends in ``Flag`` and its result is
  chained into ``.Default(...)``, and then its first string literal argument is
  the name.
- urfave/cli (v1 to v3): a ``cli.XxxFlag{Name: ..., Value: ...}`` composite literal
  of a package imported from ``urfave/cli``.

A definition is hidden from help by kingpin's ``.Hidden()``, pflag's
``MarkHidden("name")`` and urfave's ``Hidden: true``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from driftguard.sources.go.evaluate import named
from driftguard.sources.go.imports import names_of
from driftguard.sources.go.index import nodes_of, text

_TYPES = frozenset({
    "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "Uint", "Uint8", "Uint16", "Uint32", "Uint64", "Float32",
    "Float64", "String", "Duration", "BoolSlice", "StringSlice", "StringArray", "IntSlice", "Int32Slice",
    "Int64Slice", "UintSlice", "Float32Slice", "Float64Slice", "DurationSlice", "StringToString", "StringToInt",
    "StringToInt64", "IP", "IPSlice", "IPMask", "IPNet", "BytesHex", "BytesBase64", "Text",
})
_LAYOUTS = {"": (0, 1, 3), "P": (0, 2, 4), "Var": (1, 2, 4), "VarP": (1, 3, 5)}  # name, default, arguments
_NO_DEFAULT = {"Var": (1, 3), "VarP": (1, 4), "VarPF": (1, 4), "Func": (0, 3), "FuncP": (0, 4), "BoolFunc": (0, 3),
               "BoolFuncP": (0, 4), "Count": (0, 2), "CountP": (0, 3), "CountVar": (1, 3), "CountVarP": (1, 4)}
COBRA_SETS = frozenset({"Flags", "PersistentFlags", "LocalFlags", "InheritedFlags", "NonInheritedFlags",
                        "LocalNonPersistentFlags"})
KINGPIN_CLAUSE = frozenset({"Default", "Hidden", "Required", "PlaceHolder", "Envar", "Short", "Enum", "Enums",
                            "PreAction", "Action", "NoEnvar", "HintOptions", "HintAction"})


@dataclass(frozen=True)
class FlagDef:
    """One flag definition: the expressions of its name and default (None when the
    definition gives none), the whole definition, and how it is written."""

    name: Node
    default: Node | None
    site: Node  # the outermost call of the chain, or the composite literal
    library: str  # "flag" (std flag and pflag), "kingpin" or "urfave"
    hidden: str = ""  # how the library hides it from help, "" when shown
    several: bool = False  # kingpin's ``Default`` given several values or a spread
    shorthand: Node | None = None  # the shorthand argument of a pflag ``P`` method


def definitions(root: Node, scopes: list[Node]) -> list[FlagDef]:
    """The flag definitions inside ``scopes`` (nodes of the tree ``root``), in source order."""
    packages = names_of(root, "flag", "spf13/pflag")
    sets = _flag_sets(root, packages)
    urfave = names_of(root, "urfave/cli")
    wrappers = kingpin_wrappers(root)
    inside = [fn for fn, _ in wrappers.values()]
    found: list[FlagDef] = []
    for scope in scopes:
        for call in nodes_of(scope, ("call_expression",)):
            if any(fn.start_byte <= call.start_byte < fn.end_byte for fn in inside):
                continue
            found += _std(call, packages, sets) + _kingpin(call, wrappers)
        if urfave:
            found += [d for lit in nodes_of(scope, ("composite_literal",)) for d in _urfave(lit, urfave)]
    return sorted(found, key=lambda d: d.site.start_byte)


def hidden_names(root: Node) -> list[Node]:
    """The arguments of every ``MarkHidden(name)`` call (pflag hides that flag)."""
    out = []
    for call in nodes_of(root, ("call_expression",)):
        callee, args = call.child_by_field_name("function"), named(call.child_by_field_name("arguments"))
        if callee is not None and callee.type == "selector_expression" and len(args) == 1 \
                and text(callee.child_by_field_name("field")) == "MarkHidden":
            out.append(args[0])
    return out


# -- std flag and pflag -------------------------------------------------------------


def _std(call: Node, packages: set[str], sets: set[str]) -> list[FlagDef]:
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "selector_expression":
        return []
    receiver = callee.child_by_field_name("operand")
    layout = layout_of(text(callee.child_by_field_name("field")))
    args = named(call.child_by_field_name("arguments"))
    if layout is None or receiver is None or len(args) != layout[2] or not _is_flag_set(receiver, packages, sets):
        return []
    name_at, default_at, _ = layout
    method = text(callee.child_by_field_name("field"))
    short = args[name_at + 1] if method.endswith(("P", "PF")) and name_at + 1 < len(args) else None
    default = args[default_at] if default_at is not None else None
    if default is not None and default.type == "nil":  # ``StringSlice("x", nil, ...)``: no default
        default = None
    return [FlagDef(args[name_at], default, call, "flag", shorthand=short)]


def layout_of(method: str) -> tuple[int, int | None, int] | None:
    """(name position, default position or None, argument count) of a flag-set method."""
    if method in _NO_DEFAULT:
        name_at, count = _NO_DEFAULT[method]
        return name_at, None, count
    for suffix in ("VarP", "Var", "P", ""):
        base = method[:len(method) - len(suffix)] if suffix else method
        if method.endswith(suffix) and base in _TYPES and (base != "Text" or "Var" in suffix):
            return _LAYOUTS[suffix]
    return None


def _is_flag_set(receiver: Node, packages: set[str], sets: set[str]) -> bool:
    if receiver.type == "identifier":
        return text(receiver) in packages or text(receiver) in sets
    if receiver.type == "call_expression":
        callee = receiver.child_by_field_name("function")
        last = text(callee.child_by_field_name("field")) if callee is not None and \
            callee.type == "selector_expression" else text(callee)
        return last in COBRA_SETS and not named(receiver.child_by_field_name("arguments"))
    if receiver.type == "selector_expression":
        operand, field = receiver.child_by_field_name("operand"), text(receiver.child_by_field_name("field"))
        return field in sets or (field == "CommandLine" and text(operand) in packages)
    return False


def _flag_sets(root: Node, packages: set[str]) -> set[str]:
    """Names the file binds to a flag set: assigned ``flag.NewFlagSet(...)`` or a cobra
    command's set, or declared with type ``*flag.FlagSet``."""
    types = {f"{p}.FlagSet" for p in packages}
    names: set[str] = set()
    for node in nodes_of(root, ("short_var_declaration", "assignment_statement", "var_spec")):
        left = node.child_by_field_name("left") if node.type != "var_spec" else None
        right = node.child_by_field_name("right" if node.type != "var_spec" else "value")
        targets = named(left) if left is not None else list(node.children_by_field_name("name"))
        for target, value in zip(targets, named(right)):
            if value.type == "call_expression" and _makes_set(value, packages):
                names.add(text(target).rsplit(".", 1)[-1])
    for node in nodes_of(root, ("parameter_declaration", "var_spec", "field_declaration")):
        type_node = node.child_by_field_name("type")
        if type_node is not None and text(type_node).lstrip("*") in types:
            names.update(text(n) for n in node.children_by_field_name("name"))
    return names


def _makes_set(call: Node, packages: set[str]) -> bool:
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "selector_expression":
        return False
    field = text(callee.child_by_field_name("field"))
    return (field == "NewFlagSet" and text(callee.child_by_field_name("operand")) in packages) or field in COBRA_SETS


# -- kingpin ---------------------------------------------------------------------------


def kingpin_wrappers(root: Node) -> dict[str, tuple[Node, int]]:
    """Functions of the file returning ``X.Flag(p, ...)...`` for a parameter ``p``:
    name -> (function, position of ``p``)."""
    out = {}
    for fn in (c for c in root.children if c.type == "function_declaration"):
        params = [text(n) for p in named(fn.child_by_field_name("parameters"))
                  for n in p.children_by_field_name("name")]
        for ret in nodes_of(fn, ("return_statement",)):
            exprs = [e for group in named(ret) for e in named(group)]
            flag = _chain_root(exprs[0]) if exprs else None
            first = named(flag.child_by_field_name("arguments"))[0] if flag is not None else None
            if first is not None and first.type == "identifier" and text(first) in params:
                out[text(fn.child_by_field_name("name"))] = (fn, params.index(text(first)))
    return out


def _chain_root(expr: Node) -> Node | None:
    """The ``X.Flag(a, b)`` call a method chain starts from, or None."""
    node: Node | None = expr
    while node is not None and node.type == "call_expression":
        callee = node.child_by_field_name("function")
        if callee is None or callee.type != "selector_expression":
            return None
        if is_kingpin_flag(node):
            return node
        node = callee.child_by_field_name("operand")
    return None


def is_kingpin_flag(call: Node) -> bool:
    """Whether ``call`` is ``X.Flag(name, help)``."""
    callee = call.child_by_field_name("function")
    return callee is not None and callee.type == "selector_expression" and \
        text(callee.child_by_field_name("field")) == "Flag" and len(named(call.child_by_field_name("arguments"))) == 2


def chain(start: Node) -> tuple[Node, list[tuple[str, Node]]]:
    """The outermost call of the method chain on ``start``'s result, and each
    (method, call) of the chain in order."""
    calls = []
    node = start
    while True:
        parent = node.parent
        if parent is None or parent.type != "selector_expression" or parent.child_by_field_name("operand") != node:
            break
        outer = parent.parent
        if outer is None or outer.type != "call_expression" or outer.child_by_field_name("function") != parent:
            break
        calls.append((text(parent.child_by_field_name("field")), outer))
        node = outer
    return node, calls


def _kingpin(call: Node, wrappers: dict[str, tuple[Node, int]]) -> list[FlagDef]:
    callee = call.child_by_field_name("function")
    args = named(call.child_by_field_name("arguments"))
    if callee is None:
        return []
    last = text(callee.child_by_field_name("field")) if callee.type == "selector_expression" else text(callee)
    outer, calls = chain(call)
    if not calls:
        return []
    methods = [m for m, _ in calls]
    if is_kingpin_flag(call):
        name: Node | None = args[0]
    elif callee.type == "identifier" and last in wrappers and wrappers[last][1] < len(args):
        name = args[wrappers[last][1]]
    elif last.endswith("Flag") and last != "Flag" and "Default" in methods:
        name = next((a for a in args if a.type in ("interpreted_string_literal", "raw_string_literal")), None)
    else:
        return []
    if name is None:
        return []
    default, several = None, False
    found = next((c for m, c in calls if m == "Default"), None)
    if found is not None:
        values = named(found.child_by_field_name("arguments"))
        several = len(values) != 1 or values[0].type == "variadic_argument"
        default = values[0] if values and not several else None
    return [FlagDef(name, default, outer, "kingpin", "`.Hidden()`" if "Hidden" in methods else "", several)]


# -- urfave/cli ------------------------------------------------------------------------


def _urfave(literal: Node, packages: set[str]) -> list[FlagDef]:
    type_node = literal.child_by_field_name("type")
    if type_node is None or type_node.type != "qualified_type":
        return []
    package, _, kind = text(type_node).partition(".")
    if package not in packages or not kind.endswith("Flag"):
        return []
    fields = keyed_fields(literal)
    if "Name" not in fields:
        return []
    hidden = "`Hidden: true`" if text(fields.get("Hidden")) == "true" else ""
    return [FlagDef(fields["Name"], fields.get("Value"), literal, "urfave", hidden)]


def keyed_fields(literal: Node) -> dict[str, Node]:
    """Field name -> value expression of a keyed composite literal."""
    out = {}
    for element in named(literal.child_by_field_name("body")):
        key, value = element.child_by_field_name("key"), element.child_by_field_name("value")
        if element.type != "keyed_element" or key is None or value is None:
            continue
        inner = named(value)
        out[text(key).strip()] = inner[0] if value.type == "literal_element" and len(inner) == 1 else value
    return out
