"""The on-disk fact cache: a hit gives exactly what a fresh parse gives, never an error."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.config.loader import load_config
from driftguard.config.specs import LinksClaim
from driftguard.judging import fingerprints
from driftguard.judging.cache import FactCache, default_cache
from driftguard.judging.cache_codec import (
    Uncacheable,
    claim_from_json,
    claim_to_json,
    items_from_json,
    items_to_json,
)
from driftguard.judging.engine import Engine
from driftguard.judging.fingerprints import library_fingerprint, library_version, package_fingerprint
from driftguard.model import Claim, FactNotFound, Item, Kind, Location, Value
from driftguard.reporters import CHECK_FORMATS, REPORT_FORMATS, renderer

ROOT = Path(__file__).resolve().parents[2]
PULSE_CONFIG = ROOT / "examples" / "pulse" / "driftguard.yaml"
PULSE_FIXTURE = ROOT / "tests" / "fixtures" / "pulse"
PARSER_MODULES = ("libcst", "tree_sitter", "tree_sitter_go", "markdown_it",
                  "driftguard.documents.claims", "driftguard.documents.reader", "driftguard.sources.go",
                  "driftguard.sources.python")


def outputs(config_path: Path, root: Path | None, cache: FactCache | None) -> tuple[str, str]:
    """``check --format json`` and ``report --format json`` of one fresh run each."""
    config = load_config(config_path, root=root)
    check = renderer(CHECK_FORMATS, "json")(Engine(config, cache).run())
    report = renderer(REPORT_FORMATS, "json")(Engine(config, cache).run())
    return check, report


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json"))


# -- identical results ----------------------------------------------------------


@pytest.mark.parametrize("config_path, root", [(ROOT / "driftguard.yaml", None), (PULSE_CONFIG, PULSE_FIXTURE)],
                         ids=["this-repository", "pulse"])
def test_cold_and_warm_cached_runs_give_byte_identical_json(tmp_path: Path, config_path: Path,
                                                            root: Path | None) -> None:
    uncached = outputs(config_path, root, None)
    cache = FactCache(tmp_path / "cache")
    cold = outputs(config_path, root, cache)
    written = len(entries(cache.directory))
    assert cache.writes == written > 0 and cache.hits > 0  # the report run already hits
    warm_cache = FactCache(tmp_path / "cache")
    warm = outputs(config_path, root, warm_cache)
    assert warm_cache.misses == 0 and warm_cache.writes == 0 and warm_cache.hits > 0
    assert cold == uncached
    assert warm == uncached
    assert json.loads(uncached[0])["rules"], "the comparison must cover real rules"


def test_editing_a_source_or_a_document_misses_and_changes_the_result(tmp_path: Path) -> None:
    tree = tmp_path / "pulse"
    shutil.copytree(PULSE_FIXTURE, tree)
    cache = FactCache(tmp_path / "cache")
    clean, _ = outputs(PULSE_CONFIG, tree, cache)
    assert json.loads(clean)["ok"] is True

    fsm = tree / "internal" / "ai" / "chat" / "fsm.go"
    fsm.write_text(fsm.read_text().replace("RecoveryTTL = 10 * time.Minute", "RecoveryTTL = 15 * time.Minute"))
    safety = tree / "docs" / "ASSISTANT_SAFETY.md"
    safety.write_text(safety.read_text().replace("| `RESOLVING` |", "| `RESOLVED` |"))

    warm = FactCache(tmp_path / "cache")
    edited, _ = outputs(PULSE_CONFIG, tree, warm)
    assert warm.misses > 0 and warm.hits > 0  # only what reads the two edited files misses
    assert edited == outputs(PULSE_CONFIG, tree, None)[0]
    found = json.loads(edited)["findings"]
    assert any(f["value"] == "RESOLVED" for f in found) and any("RESOLVING" == f["value"] for f in found)
    assert any(f["rule"] == "recovery-ttl" and f["kind"] == "value-mismatch" for f in found), found


def test_the_same_content_under_two_paths_keeps_each_path(tree, tmp_path: Path) -> None:
    go = 'package p\n\ntype K string\n\nconst (\n\tA K = "a"\n\tB K = "b"\n)\n'
    root = tree({
        "x/one.go": go, "y/two.go": go,
        "driftguard.yaml": """
            version: 1
            facts:
              one: {file: x/one.go, constants: {type: K}}
              two: {file: y/two.go, constants: {type: K}}
            rules: [{id: r, fact: one, doc: d.md, table: K}]
        """,
    })
    config = load_config(root / "driftguard.yaml")
    cache = FactCache(tmp_path / "cache")
    for _ in range(2):
        engine = Engine(config, cache)
        one, two = engine.fact(config.facts["one"]), engine.fact(config.facts["two"])
        assert {i.location.path for i in one.items} == {"x/one.go"}
        assert {i.location.path for i in two.items} == {"y/two.go"}
    assert cache.hits == 4 and cache.writes == 4  # each file's items, and what of it did not parse


def test_errors_are_never_stored(tree, tmp_path: Path) -> None:
    root = tree({"a.go": "package p\n", "driftguard.yaml": """
        version: 1
        facts:
          gone: {file: a.go, constant: Missing}
        rules: [{id: r, fact: gone, doc: d.md, phrase: 'a {value}'}]
    """})
    config = load_config(root / "driftguard.yaml")
    cache = FactCache(tmp_path / "cache")
    for _ in range(2):
        with pytest.raises(FactNotFound):
            Engine(config, cache).fact(config.facts["gone"])
    assert cache.misses == 2 and cache.writes == 0 and entries(cache.directory) == []


def test_engine_is_uncached_unless_asked(tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRIFTGUARD_CACHE_DIR", str(tmp_path / "would-be-cache"))
    root = tree({"a.go": 'package p\n\nconst N = 3\n', "driftguard.yaml": """
        version: 1
        facts:
          n: {file: a.go, constant: N}
        rules: [{id: r, fact: n, doc: d.md, phrase: 'a {value}'}]
    """})
    config = load_config(root / "driftguard.yaml")
    engine = Engine(config)
    assert engine.cache is None and engine.fact(config.facts["n"]).items[0].value.data == 3.0
    assert not (tmp_path / "would-be-cache").exists()


WARM_SCRIPT = f"""
import sys
from pathlib import Path
from driftguard.judging.cache import FactCache
from driftguard.config.loader import load_config
from driftguard.judging.engine import Engine
from driftguard.reporters import CHECK_FORMATS, renderer
config = load_config(Path(sys.argv[1]), root=Path(sys.argv[2]) if sys.argv[2] else None)
cache = FactCache(sys.argv[3])
sys.stdout.write(renderer(CHECK_FORMATS, "json")(Engine(config, cache).run()))
loaded = sorted(m for m in sys.modules if m in {PARSER_MODULES!r} or m.split(".")[0] in {PARSER_MODULES!r})
sys.stderr.write(f"{{cache.misses}} {{' '.join(loaded)}}")
"""


@pytest.mark.parametrize("config_path, root", [(ROOT / "driftguard.yaml", None), (PULSE_CONFIG, PULSE_FIXTURE)],
                         ids=["this-repository", "pulse"])
def test_a_warm_run_imports_no_parser(tmp_path: Path, config_path: Path, root: Path | None) -> None:
    def run() -> tuple[str, str]:
        args = [sys.executable, "-c", WARM_SCRIPT, str(config_path), str(root or ""), str(tmp_path / "c")]
        done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
        return done.stdout, done.stderr

    cold_out, cold_err = run()
    assert cold_err.split()[0] != "0" and "markdown_it" in cold_err.split()  # the cold run parsed
    warm_out, warm_err = run()
    assert warm_out == cold_out
    misses, *loaded = warm_err.split()
    assert misses == "0", f"a warm run missed the cache: {warm_err}"
    links = any(isinstance(r.claim, LinksClaim) for r in load_config(config_path, root=root).rules)
    # a links rule reads the anchors of every document it links to: markdown, never a source parser
    allowed = {m for m in loaded if m.startswith(("markdown_it", "mdurl", "driftguard.documents"))} if links else set()
    assert set(loaded) == allowed, f"a warm run imported: {warm_err}"


# -- damaged entries and the folder ---------------------------------------------


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "other-key", "bad-value"])
def test_a_damaged_entry_is_a_miss_and_is_rewritten(tmp_path: Path, damage: str) -> None:
    expected = outputs(PULSE_CONFIG, PULSE_FIXTURE, None)
    folder = tmp_path / "cache"
    outputs(PULSE_CONFIG, PULSE_FIXTURE, FactCache(folder))
    victims = entries(folder)
    pristine = {p: p.read_bytes() for p in victims}
    damaged = 0
    for path in victims:
        data = pristine[path]
        damaged += 1
        head, _, body = data.partition(b"\n")
        if damage == "truncate":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "flip":  # one character of the value changed (a line number, a name): only the digest tells
            at = body.index(b'"value"') + len(b'"value"')
            alnum = next((i for i, c in enumerate(body[at:]) if chr(c).isalnum()), None)
            if alnum is None:  # an empty list: one element more
                at = body.index(b"]", at)
                path.write_bytes(head + b"\n" + body[:at] + b"0" + body[at:])
            else:
                at += alnum
                was = body[at:at + 1]
                now = (b"8" if was == b"7" else b"7") if was.isdigit() else (b"x" if was != b"x" else b"y")
                path.write_bytes(head + b"\n" + body[:at] + now + body[at + 1:])
        elif damage == "garbage":
            path.write_bytes(os.urandom(64))
        elif damage == "empty":
            path.write_bytes(b"")
        else:
            entry = json.loads(body)
            if damage == "other-key":
                entry["key"][3] = "elsewhere.go"
            else:
                entry["value"] = {"items": [["no-such-kind", 1, "", "", None, None, ""]], "location": None}
            new = json.dumps(entry, separators=(",", ":")).encode()
            path.write_bytes(fingerprints.digest(new).encode() + b"\n" + new)
    again = FactCache(folder)
    assert outputs(PULSE_CONFIG, PULSE_FIXTURE, again) == expected
    assert again.misses == damaged and again.writes == damaged and damaged > 0
    assert {p: p.read_bytes() for p in entries(folder)} == pristine  # rewritten whole


def test_an_unwritable_folder_only_costs_the_speed(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = FactCache(blocker / "cache")
    assert outputs(PULSE_CONFIG, PULSE_FIXTURE, cache) == outputs(PULSE_CONFIG, PULSE_FIXTURE, None)
    assert cache.writes == 0 and cache.misses > 0


def test_prune_keeps_the_newest_and_clears_stale_temporary_files(tmp_path: Path) -> None:
    cache = FactCache(tmp_path, max_entries=10)
    for i in range(30):
        path = tmp_path / f"{i:064x}.json"
        path.write_text("x")
        os.utime(path, ns=(i * 10**9, (1000 + i) * 10**9))
    stale, fresh = tmp_path / ".tmp-1-old", tmp_path / ".tmp-2-new"
    stale.write_text("x")
    fresh.write_text("x")
    os.utime(stale, (0, 0))
    assert cache.prune() == 30 - 9 + 1
    assert [p.name for p in entries(tmp_path)] == [f"{i:064x}.json" for i in range(21, 30)]
    assert fresh.exists() and not stale.exists()


def test_a_writing_run_prunes_the_folder_once(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    for i in range(12):
        (folder / f"{i:064x}.json").write_text("x")
        os.utime(folder / f"{i:064x}.json", (1, 1))
    cache = FactCache(folder, max_entries=10)
    outputs(PULSE_CONFIG, PULSE_FIXTURE, cache)
    assert len(entries(folder)) < 12 + cache.writes and not (folder / f"{0:064x}.json").exists()


# -- where the command line's cache lives ---------------------------------------


def test_default_cache_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DRIFTGUARD_CACHE_DIR", "DRIFTGUARD_NO_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache().directory == tmp_path / "home" / ".cache" / "driftguard"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache().directory == tmp_path / "xdg" / "driftguard"
    monkeypatch.setenv("DRIFTGUARD_CACHE_DIR", str(tmp_path / "explicit"))
    made = default_cache()
    assert made.directory == tmp_path / "explicit" and made.directory.is_dir()
    if hasattr(os, "getuid"):
        assert made.directory.stat().st_mode & 0o077 == 0
    for off in ("1", "yes", "true"):
        monkeypatch.setenv("DRIFTGUARD_NO_CACHE", off)
        assert default_cache() is None
    monkeypatch.setenv("DRIFTGUARD_NO_CACHE", "0")
    assert default_cache() is not None


def test_default_cache_refuses_a_folder_it_cannot_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DRIFTGUARD_NO_CACHE", raising=False)
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("DRIFTGUARD_CACHE_DIR", str(tmp_path / "file" / "cache"))
    assert default_cache() is None
    if hasattr(os, "getuid"):
        shared = tmp_path / "shared"
        shared.mkdir()
        shared.chmod(0o777)
        monkeypatch.setenv("DRIFTGUARD_CACHE_DIR", str(shared))
        assert default_cache() is None  # another user could plant entries


def test_a_relative_cache_dir_is_refused_not_made_in_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRIFTGUARD_CACHE_DIR", "relative/cache")
    monkeypatch.delenv("DRIFTGUARD_NO_CACHE", raising=False)
    assert default_cache() is None
    assert not (tmp_path / "relative").exists()


def test_the_entry_bound_holds_within_one_run(tmp_path: Path) -> None:
    cache = FactCache(tmp_path / "cache", max_entries=20)
    made = (Item(Value(Kind.NUMBER, 1.0, "1"), Location("a.go", 1, 1)),)
    for n in range(150):
        cache.items("driftguard.sources.text", f"f{n}.go", f"text {n}", "sel", lambda: made)
        assert len(entries(cache.directory)) <= 20, n
    assert cache.writes == 150


# -- the key ----------------------------------------------------------------------


def test_package_fingerprint_follows_every_python_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "sub" / "b.py").write_text("B = 2\n")
    first = package_fingerprint(tmp_path, ("0.1.0",))
    assert package_fingerprint(tmp_path, ("0.1.0",)) == first
    assert package_fingerprint(tmp_path, ("0.1.1",)) != first
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.cpython-311.py").write_text("x")
    (tmp_path / "notes.txt").write_text("x")
    assert package_fingerprint(tmp_path, ("0.1.0",)) == first
    info = (tmp_path / "sub" / "b.py").stat()
    (tmp_path / "sub" / "b.py").write_text("B = 3\n")  # same size: only the mtime tells
    os.utime(tmp_path / "sub" / "b.py", ns=(info.st_atime_ns, info.st_mtime_ns + 1000))
    assert package_fingerprint(tmp_path, ("0.1.0",)) != first


def test_library_fingerprints_name_each_parser_version() -> None:
    import markdown_it
    import tree_sitter
    import yaml

    assert f"tree-sitter={tree_sitter.__version__}@" in library_fingerprint("driftguard.sources.go")
    assert "tree-sitter-go=" in library_fingerprint("driftguard.sources.go")
    assert library_fingerprint("driftguard.sources.python").startswith("libcst=")
    assert f"markdown-it-py={markdown_it.__version__}@" in library_fingerprint("driftguard.documents.claims")
    assert library_fingerprint("driftguard.sources.text") == ""
    assert library_version("yaml", "PyYAML").startswith(f"PyYAML={yaml.__version__}")
    assert library_version("no_such_module_here", "nope") is None
    assert library_fingerprint("driftguard.sources.unknown") is None


def test_an_unknown_reader_is_never_cached(tmp_path: Path) -> None:
    cache = FactCache(tmp_path)
    calls = []
    made = (Item(Value.string("x"), Location("a.x", 1)),)
    for _ in range(2):
        assert cache.items("some.new.reader", "a.x", "text", "sel", lambda: calls.append(1) or made) == made
    assert len(calls) == 2 and entries(tmp_path) == []


def test_the_key_covers_content_selector_and_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache, calls = FactCache(tmp_path), []
    made = (Item(Value(Kind.NUMBER, 1.0, "1"), Location("a.go", 2, 3)),)

    def get(text: str, selector: str) -> None:
        cache.items("driftguard.sources.text", "a.go", text, selector, lambda: calls.append(1) or made)

    get("one", "s")
    get("one", "s")
    assert len(calls) == 1
    get("two", "s")
    get("one", "t")
    assert len(calls) == 3
    monkeypatch.setattr(fingerprints, "_code", "another build of driftguard")
    get("one", "s")
    assert len(calls) == 4


# -- the JSON form ----------------------------------------------------------------


def plain(item: Item) -> tuple[object, ...]:
    """Every field, with the exact type of the data (Value's equality ignores text and unit)."""
    data = item.value.data
    shown = "nan" if isinstance(data, float) and math.isnan(data) else repr(data)
    return (item.value.kind, type(data), shown, item.value.text, item.value.unit,
            item.location, item.span, item.label)


texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
datas = st.one_of(st.floats(allow_nan=True), st.integers(), st.booleans(), texts)
locations = st.none() | st.builds(Location, texts, st.none() | st.integers(0, 10**6), st.none() | st.integers(0, 999))
spans = st.none() | st.tuples(st.integers(0, 10**6), st.integers(0, 10**6))
items_strategy = st.builds(Item, st.builds(Value, st.sampled_from(Kind), datas, texts, texts), locations, spans, texts)


@settings(deadline=None, max_examples=200)
@given(st.lists(items_strategy, max_size=6).map(tuple), st.builds(Location, texts, st.integers(1, 99)))
def test_items_and_claims_come_back_exactly(items: tuple[Item, ...], where: Location) -> None:
    back = items_from_json(json.loads(json.dumps(items_to_json(items))))
    assert [plain(i) for i in back] == [plain(i) for i in items]
    claim = claim_from_json(json.loads(json.dumps(claim_to_json(Claim(items, where)))))
    assert claim.location == where and [plain(i) for i in claim.items] == [plain(i) for i in items]


class OddString(str):
    pass


@pytest.mark.parametrize("item", [
    Item(Value(Kind.NUMBER, complex(1, 2))),  # type: ignore[arg-type]
    Item(Value(Kind.STRING, OddString("x"))),
    Item(Value.string("x"), span=(1, 2, 3)),  # type: ignore[arg-type]
    Item(Value.string("x"), Location("a", True)),
])
def test_what_json_cannot_carry_exactly_is_computed_not_stored(tmp_path: Path, item: Item) -> None:
    with pytest.raises(Uncacheable):
        items_to_json((item,))
    cache = FactCache(tmp_path)
    assert cache.items("driftguard.sources.text", "a", "t", "s", lambda: (item,)) == (item,)
    assert cache.writes == 0 and entries(tmp_path) == []


# -- two runs at once ---------------------------------------------------------------


def _hammer(folder: str, rounds: int, expected: tuple[str, str], queue: multiprocessing.Queue) -> None:
    wrong = 0
    for i in range(rounds):
        cache = FactCache(folder, max_entries=4)  # pruning races the other process's reads
        if outputs(PULSE_CONFIG, PULSE_FIXTURE, cache) != expected:
            wrong += 1
        if i % 3 == 0:
            cache.prune()
    queue.put(wrong)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_two_processes_hammering_one_folder_both_stay_correct(tmp_path: Path) -> None:
    expected = outputs(PULSE_CONFIG, PULSE_FIXTURE, None)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    workers = [context.Process(target=_hammer, args=(str(tmp_path), 8, expected, queue)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    assert [w.exitcode for w in workers] == [0, 0]
    assert [queue.get(timeout=5), queue.get(timeout=5)] == [0, 0]
    assert not list(tmp_path.glob(".tmp-*"))  # no temporary file left behind
    for path in entries(tmp_path):  # whatever survived is whole
        head, _, body = path.read_bytes().partition(b"\n")
        assert head.decode() == fingerprints.digest(body)
