"""Precision and recall of `driftguard discover` on the labelled service-shaped fixtures.

The fixtures (``tests/fixtures/discover_<name>/``) and their ``labels.yaml`` were written
before discover was changed for issue 13; the figures benchmarks/README.md reports come
from the same script (``benchmarks/discover_precision.py``) these tests run.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from driftguard.discover import discover, render_config

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
NAMES = ("discover_orders", "discover_billing", "discover_gateway", "discover_relay", "discover_fetchkit",
         "discover_devkit")
NEW = NAMES[3:]
"""Issue 23's fixtures: a Go server (kingpin flags, a YAML configuration reference), a Python
library (keyword-argument defaults, an environment table), a TypeScript tool (a VitePress
options reference)."""


@pytest.fixture(scope="module")
def precision_script(tmp_path_factory: pytest.TempPathFactory):
    import importlib.util

    spec = importlib.util.spec_from_file_location("discover_precision", REPO / "benchmarks" / "discover_precision.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@pytest.mark.parametrize("name", NAMES)
def test_every_labelled_coupling_is_found_and_nothing_else_is_proposed(precision_script, name: str) -> None:
    figures = precision_script.measure(name)
    assert figures.missing == () and figures.false == (), (figures.missing, figures.false)
    assert (figures.precision, figures.recall) == (1.0, 1.0)
    assert figures.rules <= 20


@pytest.mark.parametrize("name", NEW)
def test_each_service_shaped_fixture_gets_ten_proposals_or_more(precision_script, name: str) -> None:
    figures = precision_script.measure(name)
    assert figures.rules >= 10 and figures.precision >= 0.8 and figures.recall >= 0.7


def test_the_labels_name_real_places(precision_script) -> None:
    """A label whose regex or file went stale would make recall meaningless."""
    for name in NAMES:
        root = FIXTURES / name
        atoms = precision_script.labelled_atoms(root)
        assert atoms, name
        for atom in atoms:
            assert (root / atom[1]).is_file() and (root / atom[-2 if atom[0] == "scalar" else -1]).is_file(), atom


def _emitted(tmp_path: Path, name: str) -> tuple[Path, str]:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    return root, render_config(discover(root, limit=None))


@pytest.mark.parametrize("name", NAMES)
def test_no_rule_reads_generated_code_or_freezes_values_into_a_regex(tmp_path: Path, name: str) -> None:
    root, text = _emitted(tmp_path, name)
    config = yaml.safe_load(text)
    assert not any(f["file"].endswith(("pb.go", "_pb2.py")) for f in (config["facts"] or {}).values())
    for rule in config["rules"]:
        regex = rule.get("code_spans")
        if regex:  # a shape: a value written later is read too
            assert re.search(regex, "driftguard_selftest") or re.search(regex, "driftguardselftest"), regex


def test_the_state_table_with_a_sentinel_string_case_is_bound_both_ways(tmp_path: Path) -> None:
    _, text = _emitted(tmp_path, "discover_orders")
    config = yaml.safe_load(text)
    (rule,) = [r for r in config["rules"] if r.get("table") == "State"]
    assert rule["direction"] == "both"
    assert config["facts"][rule["fact"]] == {"file": "internal/worker/state.go", "string_method": "State"}
    assert "table 'State' at docs/architecture.md:16 lists 11 values; 11 of them are declared in code" in text
    assert "only in the document: none; only in code: none" in text  # the sentinel and the default left out


def test_plain_word_tables_bind_to_an_enum_and_to_map_keys(tmp_path: Path) -> None:
    _, text = _emitted(tmp_path, "discover_billing")
    config = yaml.safe_load(text)
    tables = {r["table"]: config["facts"][r["fact"]] for r in config["rules"] if "table" in r}
    assert tables == {"State": {"file": "billing/invoice.py", "constants": {"type": "InvoiceState"}},
                      "Provider": {"file": "billing/providers.py", "map_keys": "PAYMENT_PROVIDERS"}}
