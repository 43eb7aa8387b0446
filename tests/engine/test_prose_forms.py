"""Claims from all that a document says: text by regex (code block lines too), headings
and bullet items as members, strings and lists in a phrase, scoped by a path of headings
or one bullet or row, the Nth same-headed table, cell regexes, and values and keys of
YAML, JSON and TOML blocks and the flags of shell blocks; each on the shapes real
documents use, each failing on an injected drift with the document, line and value."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.config.loader import load_config
from driftguard.model import ConfigError
from tests.helpers import check, write_tree

GO = """\
package config

import "time"

const DefaultScrapeInterval = 1 * time.Minute
const DefaultDataDir = "data/"
const MaxConnections = 100
const MaxKeepalive = 20
const DevPort = 5173

var Resolved = []string{".mjs", ".js", ".ts"}

var ServerOptions = map[string]int{"server.port": 1, "server.host": 2, "server.strictPort": 3}

var GlobalKeys = map[string]int{"scrape_interval": 1, "evaluation_interval": 2}

var CLIFlags = map[string]int{"storage.tsdb.path": 1, "web.listen-address": 2, "next-phase": 3}

var Settings = map[string]int{"x509sha1": 1, "http2client": 2}

var Limits = map[string]int{"max_connections": 1, "max_keepalive_connections": 2}
"""

DOC = """\
---
title: Configuration
---

Prometheus is configured through flags and a file.

## Global

```yaml
global:
  # How frequently to scrape targets by default.
  [ scrape_interval: <duration> | default = 1m ]
```

An example:

```yaml
global:
  scrape_interval: 1m
  evaluation_interval: 1m
```

## Storage

Blocks go to a folder. Defaults to `data/`.

## Limits

- `max_connections`: connections at once (Default 100)
- `max_keepalive_connections`: idle ones kept (Default 20)

## Options

### `server.port`

- **Default:** `5173`

### `server.host`

### `server.strictPort`

Resolved extensions: `['.mjs', '.js', '.ts']`.

## Version

| rule | what |
|---|---|
| short | prints the short form |

| rule | what |
|---|---|
| `--next-phase` | the next phase |

## Compatibility

Set `GODEBUG=x509sha1=1` or `GODEBUG=http2client=0` to go back.

## Start

```console
$ prometheus --storage.tsdb.path=data/ \\
    --web.listen-address=:9090
level=info msg="the --ignored flag is output"
```

```toml
[server]
port = 5173
```
"""

CONFIG = """\
version: 1
facts:
  scrape: {file: config.go, constant: DefaultScrapeInterval}
  datadir: {file: config.go, constant: DefaultDataDir}
  maxconn: {file: config.go, constant: MaxConnections}
  keepalive: {file: config.go, constant: MaxKeepalive}
  port: {file: config.go, constant: DevPort}
  resolved: {file: config.go, pattern: '"(\\.\\w+)"'}
  options: {file: config.go, map_keys: ServerOptions}
  global_keys: {file: config.go, map_keys: GlobalKeys}
  cli_flags: {file: config.go, map_keys: CLIFlags}
  settings: {file: config.go, map_keys: Settings}
  limits: {file: config.go, map_keys: Limits}
rules:
  - id: annotated-default
    fact: scrape
    doc: docs/configuration.md
    text: 'default = (\\S+) \\]'
    blocks: true
    scalar: true
  - id: example-interval
    fact: scrape
    doc: docs/configuration.md
    block: {lang: yaml, path: global.scrape_interval}
  - id: example-keys
    fact: global_keys
    doc: docs/configuration.md
    block: {lang: yaml, keys: global}
  - id: data-dir
    fact: datadir
    doc: docs/configuration.md
    phrase: 'Defaults to {value}'
  - id: max-connections
    fact: maxconn
    doc: docs/configuration.md
    section: Limits
    within: {item: '`max_connections`'}
    text: '\\(Default (\\d+)\\)'
    scalar: true
  - id: keepalive
    fact: keepalive
    doc: docs/configuration.md
    within: {item: '`max_keepalive_connections`'}
    phrase: '(Default {value})'
  - id: options
    fact: options
    doc: docs/configuration.md
    section: 'Configuration > Options'
    headings: {level: 3, match: '^`([^`]+)`'}
  - id: port-default
    fact: port
    doc: docs/configuration.md
    section: server.port
    text: '^Default: (\\S+)$'
    scalar: true
  - id: limits
    fact: limits
    doc: docs/configuration.md
    section: Limits
    items: true
  - id: resolved
    fact: resolved
    doc: docs/configuration.md
    phrase: 'Resolved extensions: {value}'
  - id: phases
    fact: cli_flags
    doc: docs/configuration.md
    table: {header: rule, nth: 2}
    cells: '^--([\\w.-]+)'
    direction: doc-to-code
  - id: godebug
    fact: settings
    doc: docs/configuration.md
    text: 'GODEBUG=(\\w+)=\\d'
  - id: start-flags
    fact: cli_flags
    doc: docs/configuration.md
    block: {lang: sh, flags: true}
    direction: doc-to-code
  - id: toml-port
    fact: port
    doc: docs/configuration.md
    block: {lang: toml, path: server.port}
"""


def _tree(tmp_path: Path, doc: str = DOC, config: str = CONFIG) -> Path:
    return write_tree(tmp_path, {"config.go": GO, "docs/configuration.md": doc, "driftguard.yaml": config})


def test_every_form_passes_on_a_page_that_agrees_with_the_code(tmp_path, capsys):
    code, out = check(capsys, _tree(tmp_path))
    assert code == 0, out


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("default = 1m ]", "default = 5m ]", "annotated-default: the text matching "
                                          "'default = (\\S+) \\]' says '5m'"),
    ("  scrape_interval: 1m\n", "  scrape_interval: 2m\n",
     "example-interval: 'global.scrape_interval' in the yaml blocks says '2m'"),
    ("  evaluation_interval: 1m\n", "  rule_interval: 1m\n",
     "example-keys: `rule_interval` is stated in the keys under 'global'"),
    ("Defaults to `data/`", "Defaults to `tmp/`",
     "data-dir: the sentence 'Defaults to {value}' says 'tmp/' (string tmp/)"),
    ("(Default 100)", "(Default 10)", "max-connections: the text matching "
                                      "'\\(Default (\\d+)\\)' says '10'"),
    ("(Default 20)", "(Default 25)", "keepalive: the sentence '(Default {value})' says '25'"),
    ("### `server.host`", "### `server.hostname`",
     "options: `server.hostname` is stated in the level-3 headings"),
    ("- **Default:** `5173`", "- **Default:** `5174`",
     "port-default: the text matching '^Default: (\\S+)$' says '5174'"),
    ("- `max_connections`:", "- `max_conns`:", "limits: `max_conns` is stated in the bullet "
                                               "items of section 'Limits'"),
    ("`['.mjs', '.js', '.ts']`", "`['.mjs', '.cjs', '.ts']`",
     "resolved: `.cjs` is stated in the sentence 'Resolved extensions: {value}'"),
    ("| `--next-phase` |", "| `--last-phase` |",
     "phases: `last-phase` is stated in the 'rule' table (table 2 so headed)"),
    ("`GODEBUG=http2client=0`", "`GODEBUG=http2server=0`",
     "godebug: `http2server` is stated in the text matching"),
    ("--web.listen-address=:9090", "--web.listen=:9090",
     "start-flags: `web.listen` is stated in the flags of the shell blocks"),
    ("port = 5173", "port = 3000", "toml-port: 'server.port' in the toml blocks says '3000'"),
])
def test_each_form_fails_on_an_injected_drift_naming_the_line_and_value(tmp_path, capsys, old, new, expected):
    line = DOC[:DOC.index(old)].count("\n") + 1
    code, out = check(capsys, _tree(tmp_path, DOC.replace(old, new)))
    assert code == 1, out
    assert f"docs/configuration.md:{line}: {expected}" in out, out


def test_the_code_side_of_a_set_form_is_judged_too(tmp_path, capsys):
    code, out = check(capsys, _tree(tmp_path, DOC.replace("### `server.strictPort`\n", "")))
    assert code == 1
    assert "options: `server.strictPort` is declared in code but missing from the level-3 headings" in out


def test_a_yaml_block_that_does_not_parse_is_a_parse_error_at_its_line(tmp_path, capsys):
    broken = DOC.replace("  evaluation_interval: 1m\n", "  evaluation_interval: [1m\n")
    code, out = check(capsys, _tree(tmp_path, broken))
    assert code == 2
    assert "example-interval: the yaml block does not parse" in out


def test_two_same_headed_tables_without_nth_are_ambiguous_and_say_how_to_pick_one(tmp_path, capsys):
    config = CONFIG.replace("table: {header: rule, nth: 2}", "table: rule")
    code, out = check(capsys, _tree(tmp_path, config=config))
    assert code == 1
    assert "2 tables are headed 'rule' (lines 46, 50); name the one meant with `table: {header: NAME, nth: N}`" in out


def test_a_path_of_headings_picks_one_of_two_same_named_sections(tmp_path, capsys):
    doc = DOC + "\n## Other\n\n### `server.port`\n\n- **Default:** `9999`\n"
    code, out = check(capsys, _tree(tmp_path, doc))
    assert code == 1
    assert "2 sections are headed 'server.port' (lines 34, 73); name the one meant by its path of headings, " \
           "'Other > server.port'" in out
    config = CONFIG.replace("section: server.port", "section: 'Options > server.port'")
    code, out = check(capsys, _tree(tmp_path, doc, config))
    assert code == 0, out


def test_within_an_item_that_is_gone_names_the_item(tmp_path, capsys):
    code, out = check(capsys, _tree(tmp_path, DOC.replace("`max_keepalive_connections`", "`keepalive_expiry`")))
    assert code == 1
    assert "keepalive: the document no longer states it: no bullet item '`max_keepalive_connections`'" in out


@pytest.mark.parametrize(("bad", "message"), [
    ("block: {lang: yaml}", "rules[1].block: expected exactly one of `path`, `keys` or `flags`"),
    ("block: {lang: yaml, flags: true}", "`flags` reads shell blocks"),
    ("block: {lang: rust, path: a}", "rules[1].block.lang: expected one of"),
    ("text: 'no group'", "expected a regular expression with one (group)"),
    ("headings: {level: 9}", "expected a heading level from 1 to 6"),
    ("table: {header: rule, nth: 0}", "expected a position from 1"),
    ("block: {lang: yaml, path: a}\n    within: {line: 3}", "rules[1].within"),
])
def test_a_bad_form_is_a_config_error_naming_its_key(tmp_path, bad, message):
    config = CONFIG.replace("block: {lang: yaml, path: global.scrape_interval}", bad)
    with pytest.raises(ConfigError, match=None) as info:
        load_config(_tree(tmp_path, config=config) / "driftguard.yaml")
    assert message in str(info.value)


def test_selftest_shows_every_form_can_fail(tmp_path, capsys):
    root = _tree(tmp_path)
    code = main(["selftest", "--config", str(root / "driftguard.yaml")])
    out = capsys.readouterr().out
    assert code == 0, out
    for label in ("doc: new member on a copied line", "doc: value changed", "code: new member (options)"):
        assert label in out


def test_fix_rewrites_a_stale_string_and_a_yaml_value(tmp_path, capsys):
    doc = DOC.replace("Defaults to `data/`", "Defaults to `tmp/`").replace("  scrape_interval: 1m\n",
                                                                          "  scrape_interval: 5m\n")
    root = _tree(tmp_path, doc)
    assert main(["fix", "--config", str(root / "driftguard.yaml")]) == 0, capsys.readouterr()
    assert (root / "docs/configuration.md").read_text() == DOC


RST = """\
Configuration
=============

Global
------

.. code-block:: yaml

   global:
     scrape_interval: 1m
     evaluation_interval: 1m

Options
-------

.. confval:: server.port

   The port. Default: ``5173``.

.. confval:: server.host

   The host.

.. confval:: server.strictPort

   Exit when taken.

Limits
------

- ``max_connections``: connections at once (Default 100)
- ``max_keepalive_connections``: idle ones kept (Default 20)

Start it:

.. code-block:: console

   $ prometheus --storage.tsdb.path=data/ --web.listen-address=:9090
"""

RST_CONFIG = """\
version: 1
facts:
  scrape: {file: config.go, constant: DefaultScrapeInterval}
  maxconn: {file: config.go, constant: MaxConnections}
  port: {file: config.go, constant: DevPort}
  options: {file: config.go, map_keys: ServerOptions}
  global_keys: {file: config.go, map_keys: GlobalKeys}
  cli_flags: {file: config.go, map_keys: CLIFlags}
  limits: {file: config.go, map_keys: Limits}
rules:
  - {id: interval, fact: scrape, doc: docs/configuration.rst, block: {lang: yaml, path: global.scrape_interval}}
  - {id: keys, fact: global_keys, doc: docs/configuration.rst, block: {lang: yaml, keys: global}}
  - {id: options, fact: options, doc: docs/configuration.rst, section: Options, headings: true}
  - {id: port, fact: port, doc: docs/configuration.rst, section: server.port, phrase: 'Default: {value}'}
  - {id: maxconn, fact: maxconn, doc: docs/configuration.rst, within: {item: '`max_connections`'},
     text: '\\(Default (\\d+)\\)', scalar: true}
  - {id: limits, fact: limits, doc: docs/configuration.rst, section: Limits, items: true}
  - {id: flags, fact: cli_flags, doc: docs/configuration.rst, block: {lang: sh, flags: true}, direction: doc-to-code}
"""


def _rst(tmp_path: Path, doc: str = RST) -> Path:
    return write_tree(tmp_path, {"config.go": GO, "docs/configuration.rst": doc, "driftguard.yaml": RST_CONFIG})


def test_the_forms_read_a_restructuredtext_page_as_they_read_markdown(tmp_path, capsys):
    code, out = check(capsys, _rst(tmp_path))
    assert code == 0, out


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("     scrape_interval: 1m", "     scrape_interval: 3m", "interval: 'global.scrape_interval' in the yaml blocks "
                                                            "says '3m'"),
    (".. confval:: server.host", ".. confval:: server.hostname", "options: `server.hostname` is stated"),
    ("Default: ``5173``", "Default: ``5174``", "port: the sentence 'Default: {value}' says '5174'"),
    ("(Default 100)", "(Default 99)", "maxconn: the text matching"),
    ("``max_keepalive_connections``", "``max_idle``", "limits: `max_idle` is stated"),
    ("--web.listen-address", "--web.listen", "flags: `web.listen` is stated"),
])
def test_each_form_fails_on_a_restructuredtext_page_at_the_values_line(tmp_path, capsys, old, new, expected):
    line = RST[:RST.index(old)].count("\n") + 1
    code, out = check(capsys, _rst(tmp_path, RST.replace(old, new)))
    assert code == 1, out
    assert f"docs/configuration.rst:{line}: {expected}" in out, out


def test_selftest_and_fix_work_on_the_restructuredtext_page(tmp_path, capsys):
    root = _rst(tmp_path)
    assert main(["selftest", "--config", str(root / "driftguard.yaml")]) == 0, capsys.readouterr().out
    capsys.readouterr()
    (root / "docs/configuration.rst").write_text(RST.replace("Default: ``5173``", "Default: ``5000``"))
    assert main(["fix", "--config", str(root / "driftguard.yaml")]) == 0, capsys.readouterr()
    assert (root / "docs/configuration.rst").read_text() == RST
