"""``snippet: true``: each fenced block a marker ties to code equals that code, by lines
or by a symbol's whole declaration in Go, Python and TypeScript; fix rewrites the block;
selftest changes each side."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import cli_on, write_tree

GO = """\
package server

// NewServer makes a server.
func NewServer(addr string) *Server {
\treturn &Server{addr: addr}
}

func (s *Server) Close() error {
\treturn nil
}
"""

PY = """\
import os


def load(path):
    with open(path) as f:
        return f.read()


class Client:
    def send(self, data):
        return len(data)
"""

TS = """\
export function port(): number {
  return 5173;
}

export class Server {
  listen(): void {}
}
"""

DOC = """\
# Guide

Make one:

<!-- driftguard: snippet server/server.go symbol=NewServer -->
```go
func NewServer(addr string) *Server {
\treturn &Server{addr: addr}
}
```

Load a file:

<!-- driftguard: snippet app/load.py#L4-L6 -->

```python
    def load(path):
        with open(path) as f:
            return f.read()
```

- Send, inside a list:

  <!-- driftguard: snippet app/load.py symbol=Client.send -->
  ```python
  def send(self, data):
      return len(data)
  ```

<!-- driftguard: snippet web/port.ts symbol=port -->
```ts
export function port(): number {
  return 5173;
}
```

An unmarked block is never compared:

```go
func Other() {}
```
"""

CONFIG = """\
version: 1
rules:
  - id: snippets
    doc: docs/guide.md
    snippet: true
"""


def _tree(tmp_path: Path, doc: str = DOC, go: str = GO) -> Path:
    return write_tree(tmp_path, {"server/server.go": go, "app/load.py": PY, "web/port.ts": TS,
                                 "docs/guide.md": doc, "driftguard.yaml": CONFIG})


def test_marked_blocks_equal_to_their_code_pass(tmp_path, capsys):
    code, out = cli_on(capsys, _tree(tmp_path), "check")
    assert code == 0, out


def test_a_changed_line_of_code_is_named_at_the_blocks_line(tmp_path, capsys):
    go = GO.replace("return &Server{addr: addr}", "return &Server{addr: addr, log: nil}")
    code, out = cli_on(capsys, _tree(tmp_path, go=go), "check")
    assert code == 1
    assert ("docs/guide.md:8: snippets: the snippet of server/server.go symbol=NewServer differs from the code at "
            "its line 2: the document has `return &Server{addr: addr}`, the code has "
            "`return &Server{addr: addr, log: nil}` (source: server/server.go:5)") in out


def test_a_target_that_names_nothing_is_fact_not_found(tmp_path, capsys):
    doc = DOC.replace("app/load.py#L4-L6", "app/load.py#L40-L60").replace("symbol=NewServer", "symbol=Gone")
    code, out = cli_on(capsys, _tree(tmp_path, doc), "check")
    assert code == 1
    assert "snippet app/load.py#L40-L60: app/load.py has 12 lines, not 40 to 60" in out
    assert "snippet server/server.go symbol=Gone: server/server.go declares no one `Gone`" in out


def test_a_page_with_no_marked_block_states_nothing(tmp_path, capsys):
    code, out = cli_on(capsys, _tree(tmp_path, "# Guide\n\n```go\nfunc X() {}\n```\n"), "check")
    assert code == 1
    assert "no fenced block follows a `<!-- driftguard: snippet ... -->` marker" in out


def test_fix_rewrites_a_stale_block_from_the_code_keeping_its_indent(tmp_path, capsys):
    root = _tree(tmp_path, DOC.replace("      return len(data)", "      return 0"))
    code, out = cli_on(capsys, root, "fix")
    assert code == 0, out
    assert (root / "docs/guide.md").read_text() == DOC
    assert cli_on(capsys, root, "check")[0] == 0


def test_selftest_changes_the_code_and_the_block(tmp_path, capsys):
    code, out = cli_on(capsys, _tree(tmp_path), "selftest")
    assert code == 0, out
    assert "code: snippet source changed (server/server.go symbol=NewServer)" in out
    assert "doc: snippet line changed" in out
