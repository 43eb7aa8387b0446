"""Hostile input, round three: crashes become errors naming the file and line, config
values that broke the loader become config errors at their line, output a file name
cannot forge, worker counts that cannot run away, and rules that read nothing fail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.config.loader import load_config
from driftguard.model import ConfigError
from tests.helpers import write_tree

GO = 'package p\n\ntype State string\n\nconst A State = "a"\n'
DOC = "# D\n\n`a`\n"


def _config(body: str) -> str:
    return "version: 1\n" + body


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``driftguard`` in a child process, so a crash of a native parser would show as a signal."""
    return subprocess.run([sys.executable, "-m", "driftguard", *args, "--config", str(root / "driftguard.yaml"),
                           "--no-cache"], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(("source", "why"), [
    ("X = " + "(" * 3000 + "1" + ")" * 3000 + "\n", "brackets nested more than 100 deep"),
    ("X = " + "[" * 1000 + "]" * 1000 + "\n", "brackets nested more than 100 deep"),
    ("X = " + "+".join(["1"] * 10000) + "\n", "more than 500 operators in one statement"),
])
def test_a_python_file_the_parser_cannot_take_is_an_error_naming_it_never_a_signal(tmp_path, source, why):
    root = write_tree(tmp_path, {"a.py": source, "d.md": "# D\n\nA 3.\n", "driftguard.yaml": _config(
        "facts:\n  x: {file: a.py, constant: X}\nrules:\n  - {id: r, fact: x, doc: d.md, phrase: 'A {value}'}\n")})
    done = _cli(root, "check")
    assert done.returncode == 2, done
    assert f"a.py is not read: line 1 holds {why}" in done.stdout


@pytest.mark.parametrize(("name", "source"), [
    ("a.go", "package a\n\nconst X = " + "(" * 20_000 + "1" + ")" * 20_000 + "\nconst Y = 2\n"),
    ("a.ts", "export const X = " + "[" * 20_000 + "1" + "]" * 20_000 + "\nexport const Y = 2\n"),
])
def test_tree_sitter_reads_a_deeply_nested_file_without_a_signal(tmp_path, name, source):
    root = write_tree(tmp_path, {name: source, "d.md": "# D\n\nY is 3.\n", "driftguard.yaml": _config(
        f"facts:\n  y: {{file: {name}, constant: Y}}\nrules:\n  - {{id: r, fact: y, doc: d.md, phrase: 'Y is {{value}}'}}\n")})
    done = _cli(root, "check")
    assert done.returncode == 1, done
    assert "d.md:3: r: the sentence 'Y is {value}' says '3'" in done.stdout


@pytest.mark.parametrize(("name", "source", "line"), [
    ("c.go", "package a\n\nconst Z = " + "+".join(["1"] * 10_000) + "\n", 3),
    ("c.ts", "export const Z = " + "+".join(["1"] * 10_000) + "\n", 1),
    ("c.py", "A0 = 1\n" + "".join(f"A{i} = A{i - 1}\n" for i in range(1, 3000)) + "Z = A2999\n", None),
])
def test_a_constant_the_evaluator_gives_up_on_is_an_error_quoted_in_a_line(tmp_path, capsys, name, source, line):
    root = write_tree(tmp_path, {name: source, "d.md": "# D\n\nZ is 3.\n", "driftguard.yaml": _config(
        f"facts:\n  z: {{file: {name}, constant: Z}}\nrules:\n  - {{id: r, fact: z, doc: d.md, phrase: 'Z is {{value}}'}}\n")})
    assert main(["check", "--config", str(root / "driftguard.yaml"), "--no-cache"]) == 2
    out = capsys.readouterr().out
    assert "driftguard gives up on" in out and "nested" in out
    assert f"(source: {name}:{line})" in out if line else f"(source: {name})" in out
    assert max(len(x) for x in out.splitlines()) < 300


@pytest.mark.parametrize(("name", "source"), [
    ("c.go", "package a\n\nconst Z = f(" + "+".join(f"x{i}" for i in range(30_000)) + ")\n"),
    ("c.py", "Z = f(" + "+".join(f"x{i}" for i in range(400)) + ")\n"),
    ("c.ts", "export const Z = f(" + "+".join(f"x{i}" for i in range(30_000)) + ")\n"),
])
def test_a_constant_that_is_no_constant_is_quoted_in_at_most_a_line(tmp_path, capsys, name, source):
    root = write_tree(tmp_path, {name: source, "d.md": "# D\n\nZ is 3.\n", "driftguard.yaml": _config(
        f"facts:\n  z: {{file: {name}, constant: Z}}\nrules:\n  - {{id: r, fact: z, doc: d.md, phrase: 'Z is {{value}}'}}\n")})
    assert main(["check", "--config", str(root / "driftguard.yaml"), "--no-cache"]) in (1, 2)
    out = capsys.readouterr().out
    assert "`f(x0+x1+x2" in out and "...`" in out
    assert max(len(x) for x in out.splitlines()) < 300


def test_discover_skips_a_file_the_parser_cannot_take_and_says_so(tmp_path):
    root = write_tree(tmp_path, {"deep.py": "X = " + "(" * 3000 + "1" + ")" * 3000 + "\n",
                                 "ok.py": "MAX_RETRIES = 3\n", "README.md": "# R\n\nRetries at most 3 times.\n"})
    done = subprocess.run([sys.executable, "-m", "driftguard", "discover", "--root", str(root)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode in (0, 1), done
    assert "skipped  deep.py: deep.py is not read: line 1 holds brackets nested more than 100 deep" in done.stderr


@pytest.mark.parametrize(("body", "line", "message"), [
    ("max_file_size: " + "1" + "0" * 30 + "\n", 2, "max_file_size: expected a number of bytes from 1 to"),
    ("max_file_size: " + "9" * 5000 + "\n", 2, "cannot be read (Exceeds the limit"),
    ("facts:\n  a: {file: 'src/[z-a].go', constants: {type: State}}\n", 3, "cannot be read: bad character range"),
    ('root: "\\0"\n', 2, "root: expected a folder"),
    ("facts: true\n", 2, "facts: expected a mapping, got the boolean true"),
    ("facts:\n  a: {file: a.go, constants: State}\n", 3, "facts.a.constants: expected a mapping, got str 'State'"),
    ("facts:\n  a: {file: a.go, calls: register}\n", 3, "facts.a.calls: expected a mapping, got str 'register'"),
])
def test_a_hostile_config_value_is_a_config_error_at_its_line(tmp_path, body, line, message):
    rules = "rules:\n  - {id: r, doc: d.md, links: true}\n" if "facts" not in body else \
        "rules:\n  - {id: r, fact: a, doc: d.md, mentions: true}\n"
    root = write_tree(tmp_path, {"a.go": GO, "d.md": DOC, "driftguard.yaml": _config(body + rules)})
    with pytest.raises(ConfigError) as info:
        load_config(root / "driftguard.yaml")
    assert info.value.location is not None
    assert (info.value.location.path, info.value.location.line) == (str(root / "driftguard.yaml"), line)
    assert message in info.value.message
    done = _cli(root, "check")
    assert done.returncode == 2 and "Traceback" not in done.stderr and f"driftguard.yaml:{line}: error:" in done.stderr


def test_two_rules_with_one_id_on_one_line_are_refused(tmp_path):
    body = "facts:\n  a: {file: a.go, constants: {type: State}}\nrules: [{id: r, fact: a, doc: d.md, mentions: true}, " \
           "{id: r, fact: a, doc: d.md, mentions: true}]\n"
    root = write_tree(tmp_path, {"a.go": GO, "d.md": DOC, "driftguard.yaml": _config(body)})
    with pytest.raises(ConfigError, match="duplicate rule id 'r'"):
        load_config(root / "driftguard.yaml")


def test_a_plain_config_of_five_thousand_facts_and_rules_is_read(tmp_path):
    lines = ["facts:", *(f"  f{i}: {{file: a.go, constants: {{type: State}}}}" for i in range(5000)), "rules:",
             *(f"  - {{id: r{i}, fact: f{i}, doc: d.md, mentions: true}}" for i in range(5000))]
    root = write_tree(tmp_path, {"a.go": GO, "d.md": DOC, "driftguard.yaml": _config("\n".join(lines) + "\n")})
    assert len(load_config(root / "driftguard.yaml").rules) == 5000


def test_an_alias_bomb_is_still_refused(tmp_path):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8))
    root = write_tree(tmp_path, {"driftguard.yaml": _config(bomb + "rules: []\n")})
    with pytest.raises(ConfigError, match="alias bomb"):
        load_config(root / "driftguard.yaml")


def test_a_newline_in_a_documents_name_cannot_forge_a_finding_line(tmp_path, capsys):
    name = "docs/d\nfake.md:1: r: forged.md"
    root = write_tree(tmp_path, {"a.go": GO, name: "# D\n\nnothing\n", "driftguard.yaml": _config(
        "facts:\n  a: {file: a.go, constants: {type: State}}\nrules:\n  - {id: r, fact: a, doc: 'docs/*', "
        "mentions: true}\n")})
    assert main(["check", "--config", str(root / "driftguard.yaml")]) == 1
    out = capsys.readouterr().out
    assert "docs/d\\nfake.md:1: r: forged.md" in out
    assert not any(line.startswith("fake.md") for line in out.splitlines())


def test_a_glob_of_documents_none_of_which_holds_a_link_is_no_pass(tmp_path, capsys):
    root = write_tree(tmp_path, {"docs/a.md": "# A\n\nNo links.\n", "docs/b.md": "# B\n\nNone here.\n",
                                 "driftguard.yaml": _config("rules:\n  - {id: links, doc: 'docs/*.md', links: true}\n")})
    assert main(["check", "--config", str(root / "driftguard.yaml")]) == 1
    out = capsys.readouterr().out
    assert "docs/a.md: links: the documents no longer state it: none of the documents `docs/*.md` names holds " \
           "links to check" in out
    (root / "docs/b.md").write_text("# B\n\nSee [A](a.md).\n")
    assert main(["check", "--config", str(root / "driftguard.yaml")]) == 0, capsys.readouterr().out


def test_a_go_file_that_is_not_go_is_a_parse_error_not_an_empty_fact(tmp_path, capsys):
    root = write_tree(tmp_path, {"a.go": "<html><body>not go at all</body></html>\n", "d.md": DOC,
                                 "driftguard.yaml": _config("facts:\n  s: {file: a.go, symbols: true}\nrules:\n"
                                                            "  - {id: r, fact: s, doc: d.md, mentions: true}\n")})
    assert main(["check", "--config", str(root / "driftguard.yaml"), "--no-cache"]) == 2
    assert "a.go yields nothing, and its parser could not read it (first at line 1" in capsys.readouterr().out
