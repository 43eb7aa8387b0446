"""A ``symbols`` fact over many files: items held as columns (``NameItems``), the
whole fact cached as one entry, and the files read by worker processes; each
gives exactly what the plain serial path gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from driftguard.config.loader import load_config
from driftguard.config.specs import Symbols
from driftguard.judging import processes
from driftguard.judging.cache import FactCache
from driftguard.judging.cache_codec import items_from_json, items_to_json, names_from_json
from driftguard.judging.engine import Engine
from driftguard.model import Item, Kind, Location, NameItems, Value
from driftguard.sources import load_reader, reader_name

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "symbols"


def _item(name: str, path: str, line: int, label: str = "") -> Item:
    return Item(Value(Kind.STRING, name, name), Location(path, line), None, label)


def test_name_items_behave_as_the_tuple_of_their_items() -> None:
    packed = NameItems.joined((NameItems.of_file({"Run": 3, "Stop": 9}, "a.go"),
                               NameItems.of_file({"idle": 4}, "a.go", "literal")))
    plain = (_item("Run", "a.go", 3), _item("Stop", "a.go", 9), _item("idle", "a.go", 4, "literal"))
    assert packed == plain and tuple(packed) == plain and len(packed) == 3
    assert packed[1] == plain[1] and packed[-1] == plain[-1] and packed[:2] == plain[:2]
    assert packed != plain[:2] and packed != list(plain)
    assert hash(packed) == hash(plain)


def test_unique_keeps_the_first_of_each_name_in_order() -> None:
    packed = NameItems.joined((NameItems.of_file({"Run": 3, "Stop": 9}, "a.go"),
                               NameItems.of_file({"Stop": 1, "Go": 2}, "b.go")))
    assert packed.unique() == (_item("Run", "a.go", 3), _item("Stop", "a.go", 9), _item("Go", "b.go", 2))


def test_columns_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError):
        NameItems(["a", "b"], ["x.go"], [1, 2], ["", ""])


def test_the_json_form_of_name_items_round_trips_and_refuses_damage() -> None:
    packed = NameItems.joined((NameItems.of_file({"Run": 3}, "a.go"), NameItems.of_file({"x": 5}, "b.go", "literal")))
    raw = items_to_json(packed)
    back = items_from_json(raw)
    assert isinstance(back, NameItems) and back == packed
    assert isinstance(raw, dict)
    for damaged in ({**raw, "names": ["Run", 7]}, {**raw, "lines": [3, "5"]}, {**raw, "paths": [["a.go", 1]]},
                    {**raw, "labels": [["", -1], ["literal", 3]]}, {**raw, "paths": "a.go"}):
        with pytest.raises(ValueError):
            names_from_json(damaged)


def _serial(path: str, text: str) -> object:
    reader = load_reader(reader_name(path, Symbols()))
    found = reader.extract(reader.parse(path, text), Symbols(), path)
    return found


def test_worker_processes_give_what_the_serial_path_gives(tmp_path: Path) -> None:
    texts = {f"src/{f.name}": f.read_text(encoding="utf-8") for f in sorted(FIXTURES.iterdir()) if f.is_file()}
    texts["src/broken.py"] = "def broken(:\n"
    found = processes.extract_many(Symbols(), texts, jobs=2, smallest=0)
    assert set(found) == set(texts) - {"src/broken.py"}  # what a worker could not parse is left to the serial path
    for path, items in found.items():
        assert items == _serial(path, texts[path]), path


def test_too_few_characters_or_one_job_start_no_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("no pool should start")

    monkeypatch.setattr(processes, "ProcessPoolExecutor", refuse)
    texts = {"a.go": "package a\nfunc A() {}\n", "b.go": "package b\nfunc B() {}\n"}
    assert processes.extract_many(Symbols(), texts) == {}
    assert processes.extract_many(Symbols(), texts, jobs=1, smallest=0) == {}


def test_the_jobs_variable_sets_the_worker_count_up_to_the_usable_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "usable_cpus", lambda: 4)
    monkeypatch.setenv("DRIFTGUARD_JOBS", "3")
    assert processes.default_jobs() == 3
    monkeypatch.setenv("DRIFTGUARD_JOBS", "100000")
    assert processes.default_jobs() == 4
    monkeypatch.setenv("DRIFTGUARD_JOBS", "zero")
    assert processes.default_jobs() == 4


def test_no_more_workers_start_than_there_are_files_or_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []

    class Pool:
        def __init__(self, max_workers: int, mp_context: object) -> None:
            started.append(max_workers)

        def __enter__(self) -> Pool:
            return self

        def __exit__(self, *args: object) -> None:
            return None

        def map(self, fn: object, *args: object) -> list[object]:
            return []

    monkeypatch.setattr(processes, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(processes, "usable_cpus", lambda: 2)
    monkeypatch.setenv("DRIFTGUARD_JOBS", "100000")
    texts = {f"{i}.go": "package a\n" * 50 for i in range(40)}
    processes.extract_many(Symbols(), texts, smallest=0)
    assert started == [2]


def _tree(tmp_path: Path, files: int = 6) -> Path:
    root = tmp_path / "tree"
    for i in range(files):
        path = root / f"internal/p{i}/f{i}.go"
        path.parent.mkdir(parents=True)
        path.write_text(f'package p{i}\n\ntype T{i} struct {{\n\tName string `json:"name{i}"`\n}}\n\n'
                        f'func (t *T{i}) Run() string {{ return "run-{i}" }}\n', encoding="utf-8")
    (root / "frontend").mkdir()
    (root / "frontend/view.ts").write_text("export interface View { title: string }\n", encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs/a.md").write_text("# A\n\nCall `T0.Run()`, read `View.title`, see `name5` and `GoneAway`.\n",
                                    encoding="utf-8")
    (root / "driftguard.yaml").write_text(
        "version: 1\nfacts:\n  symbols: {file: ['internal/**/*.go', 'frontend/*.ts'], symbols: true}\n"
        "rules:\n  - {id: references, fact: symbols, doc: docs/a.md, references: {repository: false, strict: true}}\n",
        encoding="utf-8")
    return root


def _outcome(engine: Engine) -> tuple[object, ...]:
    result = engine.run().rules[0]
    return result.status, tuple(f.message for f in result.findings), tuple(result.facts[0].items)


def test_the_whole_fact_is_one_cache_entry_and_an_edit_misses_only_its_file(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    config = load_config(root / "driftguard.yaml")
    plain = _outcome(Engine(config))
    assert plain[1] and "`GoneAway` names nothing" in plain[1][0]  # the drift is found, not hidden by the cache
    folder = tmp_path / "cache"
    assert _outcome(Engine(config, FactCache(folder))) == plain
    warm = FactCache(folder)
    assert _outcome(Engine(config, warm)) == plain
    assert (warm.hits, warm.misses, warm.writes) == (3, 0, 0)  # the whole fact, the claim, the document's verdict
    edited = root / "internal/p3/f3.go"
    edited.write_text(edited.read_text(encoding="utf-8") + "\nfunc GoneAway() {}\n", encoding="utf-8")
    after = FactCache(folder)
    status, messages, items = _outcome(Engine(load_config(root / "driftguard.yaml"), after))
    assert messages == () and "GoneAway" in {str(i.value.data) for i in items}  # type: ignore[union-attr]
    # the whole fact (found by its files' stamps, then by their content), the one edited file, the verdict
    assert after.misses == 4 and after.writes == 4


def test_the_engine_gives_the_same_fact_through_worker_processes(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path, files=8)
    shutil.copy(FIXTURES / "shapes.go", root / "internal/p0/shapes.go")
    config = load_config(root / "driftguard.yaml")
    serial = _outcome(Engine(config))
    calls: list[int] = []
    real = processes.extract_many

    def counted(selector: Symbols, texts: dict[str, str], jobs: int | None = None,
                smallest: int | None = None) -> dict[str, object]:
        found = real(selector, texts, jobs=2, smallest=0)
        calls.append(len(found))
        return found  # type: ignore[return-value]

    monkeypatch.setattr(processes, "extract_many", counted)
    assert _outcome(Engine(config)) == serial
    assert calls == [len(config.facts["symbols"].files)]


def test_a_pool_that_cannot_start_changes_nothing_but_the_speed(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)
    config = load_config(root / "driftguard.yaml")
    serial = _outcome(Engine(config))

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(processes, "ProcessPoolExecutor", broken)
    monkeypatch.setattr(processes, "PARALLEL_FROM", 0)
    monkeypatch.setenv("DRIFTGUARD_JOBS", "2")
    assert processes.extract_many(Symbols(), {"a.go": "package a\n", "b.go": "package b\n"}) == {}
    assert _outcome(Engine(config)) == serial
