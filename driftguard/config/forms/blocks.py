"""The code-block claim form: a value or the keys at a path of the YAML, JSON or TOML
blocks of a scope, or the long flags the shell blocks use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from driftguard.config.forms.base import DocMember, Form, present, within_config, within_of
from driftguard.config.schema import Reader

DATA_LANGS = ("yaml", "json", "toml")
SHELL_LANGS = ("sh", "bash", "shell", "console", "zsh", "shell-session")
"""``lang: sh`` reads every fence these info strings open."""


@dataclass(frozen=True)
class BlockClaim(Form):
    """The fenced blocks of ``lang`` in the scope: the value at ``path`` (a scalar), the
    keys under ``keys`` (a set; "" for the top level), or for ``lang: sh`` with
    ``flags`` the long flags their command lines use (a set)."""

    lang: str
    path: str | None = None
    keys: str | None = None
    flags: bool = False
    section: str | None = None
    place: tuple[str, str] | None = None

    key: ClassVar[str] = "block"
    options: ClassVar[frozenset[str]] = frozenset({"block", "section", "within"})

    @property
    def scalar(self) -> bool:
        return self.path is not None

    @property
    def within(self) -> tuple[str, str] | None:
        return self.place

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def rewrites_values(self) -> bool:
        return self.path is not None

    @property
    def doc_member(self) -> DocMember:
        return DocMember.MATCH

    @property
    def langs(self) -> tuple[str, ...]:
        """The info-string languages this form reads."""
        return SHELL_LANGS if self.lang in SHELL_LANGS else (self.lang, "yml") if self.lang == "yaml" else (self.lang,)

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> BlockClaim:
        where = f"{key}.block"
        spec = r.child(body, "block", where, required={"lang"}, optional={"path", "keys", "flags"})
        lang = r.choice(spec, "lang", (*DATA_LANGS, "yml", *SHELL_LANGS), where, default=None)
        lang = "yaml" if lang == "yml" else ("sh" if lang in SHELL_LANGS else lang)
        chosen = [k for k in ("path", "keys", "flags") if k in spec]
        if len(chosen) != 1:
            r.fail(body, "block", f"{where}: expected exactly one of `path`, `keys` or `flags`")
        if ("flags" in spec) != (lang == "sh"):
            r.fail(spec, chosen[0], f"{where}: `flags` reads shell blocks (`lang: sh`); `path` and `keys` read "
                   f"{', '.join(DATA_LANGS)} blocks")
        if "flags" in spec and r.value(spec, "flags", bool, where) is not True:
            r.fail(spec, "flags", f"{where}.flags: expected `flags: true`")
        return cls(lang=lang, path=r.value(spec, "path", str, where, default=None),
                   keys=r.value(spec, "keys", str, where, default=None), flags="flags" in spec,
                   section=r.value(body, "section", str, key, default=None), place=within_of(r, body, key))

    def to_config(self) -> dict[str, Any]:
        return {**present(section=self.section), **within_config(self.place),
                "block": {"lang": self.lang, **present(path=self.path, flags=self.flags),
                          **({"keys": self.keys} if self.keys is not None else {})}}

    def describe(self) -> str:
        if self.flags:
            return "the flags of the shell blocks"
        if self.path is not None:
            return f"'{self.path}' in the {self.lang} blocks"
        return f"the keys under '{self.keys}' in the {self.lang} blocks" if self.keys else \
            f"the top-level keys of the {self.lang} blocks"
