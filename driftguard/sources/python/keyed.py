"""``constant`` with a key path: one value read out of the literal bound to a name.

``Config.default_config["installer"]["parallel"]`` follows the dict literal bound
to the class attribute (or module-level name) key by key, as deep as written; an
int key indexes a list or tuple literal (or is an int key of a dict). A key that
is not there is ``FactNotFound`` naming the path reached and the keys found
there. ``MappingProxyType({...})`` and ``dict({...})`` are read through.
"""

from __future__ import annotations

import libcst as cst

from driftguard.config.specs import Constant
from driftguard.model import FactNotFound, Item
from driftguard.sources.python.evaluate import EvalError
from driftguard.sources.python.lookups import evaluate_binding, one_binding
from driftguard.sources.python.scopes import Binding
from driftguard.sources.python.tree import PyTree


def keyed_constant(tree: PyTree, sel: Constant) -> list[Item]:
    """The value at ``sel.keys`` inside the literal bound to ``sel.name``."""
    binding, klass = one_binding(tree, sel.name)
    if binding.value is None:
        raise FactNotFound(f"{sel.name} (line {tree.line(binding.target)}) is not a plain assignment",
                           tree.location(binding.target))
    return [keyed_value(tree, binding.value, sel.keys, sel.name, klass)]


def keyed_value(tree: PyTree, node: cst.BaseExpression, keys: tuple[str | int, ...], name: str,
                klass: cst.ClassDef | None) -> Item:
    """The value at ``keys`` inside ``node`` (named ``name`` in messages); a name on the way
    is followed to the literal the file binds to it."""
    reached = f"`{name}`"
    for key in keys:
        node = _step(tree, _bound(tree, unwrapped(node), klass), key, reached, klass)
        reached = f"`{reached[1:-1]}{written_key(key)}`"
    where = f"{reached} (line {tree.line(node)})"
    if isinstance(node, cst.Name) and node.value == "None":
        raise FactNotFound(f"{where} is None, which is no value to compare", tree.location(node))
    return Item(evaluate_binding(tree, Binding(name, node, node), klass, where), tree.location(node))


def _bound(tree: PyTree, node: cst.BaseExpression, klass: cst.ClassDef | None) -> cst.BaseExpression:
    """The literal a name is bound to once in the class body or the module, else ``node``."""
    if not isinstance(node, cst.Name):
        return node
    found = tree.names.scope(klass).get(node.value) or tree.names.scope(None).get(node.value, [])
    value = found[0].value if len(found) == 1 else None
    return unwrapped(value) if value is not None else node


def written_key(key: str | int) -> str:
    """``["installer"]`` or ``[0]``, as a path is written."""
    return f'["{key}"]' if isinstance(key, str) else f"[{key}]"


def unwrapped(node: cst.BaseExpression) -> cst.BaseExpression:
    """The literal inside ``MappingProxyType({...})``, ``dict({...})`` or ``tuple([...])``, else ``node``."""
    if isinstance(node, cst.Call) and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star:
        inner = node.args[0].value
        return inner if isinstance(inner, (cst.Dict, cst.List, cst.Tuple)) else node
    return node


def _step(tree: PyTree, node: cst.BaseExpression, key: str | int, reached: str,
          klass: cst.ClassDef | None) -> cst.BaseExpression:
    if isinstance(node, cst.Dict):
        return _entry(tree, node, key, reached, klass)
    if isinstance(node, (cst.List, cst.Tuple)) and isinstance(key, int):
        return _element(tree, node, key, reached)
    what = "a dict literal" if isinstance(key, str) else "a dict, list or tuple literal"
    raise FactNotFound(f"{reached} (line {tree.line(node)}) is not {what}: `{_code(tree, node)}`",
                       tree.location(node))


def _entry(tree: PyTree, node: cst.Dict, key: str | int, reached: str,
           klass: cst.ClassDef | None) -> cst.BaseExpression:
    """The value of the last entry whose key is ``key`` (Python keeps the last)."""
    found: cst.BaseExpression | None = None
    keys: list[str] = []
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            keys.append(_code(tree, element))
            continue
        try:
            data = tree.names.evaluate(element.key, klass).data
        except EvalError:
            data = None
        keys.append(str(data) if data is not None else _code(tree, element.key))
        if data == key and type(data) is type(key):
            found = element.value
    if found is None:
        listed = ", ".join(keys) or "none, it is empty"
        raise FactNotFound(f'{reached} (line {tree.line(node)}) has no key {written_key(key)[1:-1]} '
                           f"(its keys: {listed})", tree.location(node))
    return found


def _element(tree: PyTree, node: cst.List | cst.Tuple, index: int, reached: str) -> cst.BaseExpression:
    elements = node.elements
    if any(isinstance(e, cst.StarredElement) for e in elements):
        raise FactNotFound(f"{reached} (line {tree.line(node)}) unpacks another sequence; "
                           "its elements cannot be counted", tree.location(node))
    if not -len(elements) <= index < len(elements):
        raise FactNotFound(f"{reached} (line {tree.line(node)}) has no element {index} "
                           f"(it has {len(elements)})", tree.location(node))
    return elements[index].value


def _code(tree: PyTree, node: cst.CSTNode) -> str:
    return " ".join(tree.module.code_for_node(node).split())
