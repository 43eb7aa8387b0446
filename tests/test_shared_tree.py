"""The shared copy the shipped-config tests borrow (tests/helpers.py): one test's edit never
reaches another, and a write in place into the shared files is caught and undone."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.helpers import SharedTree, edit, own, write_tree


@pytest.fixture
def shared(tmp_path: Path) -> SharedTree:
    sources = write_tree(tmp_path / "sources", {"a.txt": "alpha\n", "docs/b.md": "# B\n"})
    return SharedTree(tmp_path / "copy", {"a.txt": sources / "a.txt", "docs/b.md": sources / "docs/b.md"})


def test_a_lent_tree_links_the_copy_and_the_copy_is_read_only(shared: SharedTree, tmp_path: Path) -> None:
    tree = shared.lend(tmp_path / "one")
    assert (tree / "docs/b.md").read_text(encoding="utf-8") == "# B\n"
    assert (tree / "a.txt").stat().st_ino == (shared.copy / "a.txt").stat().st_ino
    assert not stat.S_IMODE((shared.copy / "a.txt").stat().st_mode) & 0o222


def test_an_edit_stays_in_its_own_tree(shared: SharedTree, tmp_path: Path) -> None:
    one, two = shared.lend(tmp_path / "one"), shared.lend(tmp_path / "two")
    edit(one / "a.txt", "alpha", "beta")
    own(one / "docs/b.md")
    (one / "docs/b.md").write_text("# changed\n", encoding="utf-8")
    assert (one / "a.txt").read_text(encoding="utf-8") == "beta\n"
    assert (two / "a.txt").read_text(encoding="utf-8") == "alpha\n"
    assert (two / "docs/b.md").read_text(encoding="utf-8") == "# B\n"
    shared.assert_untouched()
    assert shared.lend(tmp_path / "three").joinpath("a.txt").read_text(encoding="utf-8") == "alpha\n"


def test_a_write_in_place_is_caught_and_the_copy_restored(shared: SharedTree, tmp_path: Path) -> None:
    tree = shared.lend(tmp_path / "one")
    path = tree / "a.txt"
    path.chmod(0o644)  # what a careless test (or root, who ignores the mode) does
    path.write_text("written in place\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"written in place .*\['a.txt'\]"):
        shared.assert_untouched()
    assert (shared.copy / "a.txt").read_text(encoding="utf-8") == "alpha\n"
    assert shared.lend(tmp_path / "two").joinpath("a.txt").read_text(encoding="utf-8") == "alpha\n"
    shared.assert_untouched()
