"""examples/real-shapes: the shapes real projects' documents take (an ``os.getenv``
default, a nested default-config dict, a ``String()`` with a sentinel case, a ratio
setting, options as calls, a local dict in a property), each guarded without a
regex: clean it passes, selftest proves every rule can fail, and each injected
drift is reported at its document line with its value."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from driftguard.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "real-shapes"


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLE, root)
    monkeypatch.chdir(root)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_example_passes_and_reads_no_regex(example, capsys):
    assert main(["check", "--no-cache"]) == 0, capsys.readouterr().out
    assert "pattern:" not in (example / "driftguard.yaml").read_text()


def test_selftest_proves_every_rule_can_fail(example, capsys):
    assert main(["selftest"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("file, old, new, expected", [
    ("src/shop/constants.py", '"SHOP_REQUESTS_TIMEOUT", 15', '"SHOP_REQUESTS_TIMEOUT", 30',
     "docs/configuration.md:11: requests-timeout:"),
    ("src/shop/config.py", '"max-workers": 4', '"max-workers": 8', "docs/configuration.md:8: settings-defaults:"),
    ("src/shop/config.py", '"parallel": True', '"parallel": False', "docs/configuration.md:17: parallel-default:"),
    ("src/shop/commands.py", 'option("next-phase"', 'option("pre-phase"', "`pre-phase` is declared in code"),
    ("src/shop/commands.py", '"installer.parallel": ("bool"', '"installer.workers": ("bool"',
     "`installer.workers` is declared in code"),
    ("internal/workflow/state.go", 'return "waiting"', 'return "blocked"', "`blocked` is declared in code"),
    ("internal/cache/config.go", "0.9", "0.8", "docs/architecture.md:15: eviction:"),
    ("internal/cache/config.go", "4 << 20", "8 << 20", "docs/architecture.md:15: max-entry:"),
    ("pylib/src/fetchlib/_config.py", "DEFAULT_MAX_REDIRECTS = 20", "DEFAULT_MAX_REDIRECTS = 30",
     "pylib/docs/clients.md:8: pylib-redirects:"),
    ("pylib/src/fetchlib/_config.py", "Timeout(timeout=5.0)", "Timeout(timeout=10.0)",
     "pylib/docs/clients.md:12: pylib-timeout:"),
    ("pylib/src/fetchlib/_config.py", "max_keepalive_connections=20)\n", "max_keepalive_connections=10)\n",
     "pylib/docs/clients.md:18: pylib-max-keepalive:"),
    ("pylib/src/fetchlib/_config.py", '"SSL_CERT_DIR"', '"SSL_CERT_PATH"', "`SSL_CERT_PATH` is declared in code"),
    ("pylib/src/fetchlib/_config.py", '"warning"', '"error"', "pylib/docs/environment.md:7: pylib-log-level:"),
    ("pylib/src/fetchlib/_exceptions.py", "class DecodingError(RequestError)", "class DecodeError(RequestError)",
     "`DecodeError` is declared in code"),
    ("pylib/src/fetchlib/_client.py", "trust_env: bool = True", "trust_env: bool = False",
     "pylib/docs/settings.rst:14: pylib-trust-env:"),
    ("gocli/cmd/scraper/main.go", 'Default("512")', 'Default("256")',
     "gocli/docs/command-line.md:12: gocli-flags: row '--web.max-connections'"),
    ("gocli/cmd/scraper/main.go", 'Default("15d")', 'Default("30d")', "gocli/docs/command-line.md:14: gocli-retention:"),
    ("gocli/cmd/scraper/main.go", '"web.listen-address"', '"web.listen"',
     "gocli/docs/command-line.md:20: gocli-shell-flags: `web.listen-address` is stated"),
    ("gocli/config/config.go", 'yaml:"scrape_timeout,omitempty"', 'yaml:"timeout,omitempty"',
     "`timeout` is declared in code"),
    ("gocli/config/config.go", "model.Duration(1 * time.Minute),\n\tScrapeTimeout", "model.Duration(2 * time.Minute),"
     "\n\tScrapeTimeout", "gocli/docs/configuration.md:12: gocli-scrape-interval:"),
    ("gocli/template/template.go", '"humanize":', '"humanise":', "`humanise` is declared in code"),
    ("gocli/template/template.go", 'case "canceled":', 'case "cancelled":', "`cancelled` is declared in code"),
    ("tstool/src/node/config.ts", "  cors?: boolean\n", "  cors?: boolean\n  proxy?: string\n",
     "tstool/docs/config/server-options.md:5: tstool-server-options: `proxy` is declared in code"),
    ("tstool/docs/config/server-options.md", "## server.cors", "## server.corsOrigin",
     "tstool/docs/config/server-options.md:33: tstool-server-options: `corsOrigin` is stated"),
    ("tstool/src/node/constants.ts", "DEFAULT_DEV_PORT = 5173", "DEFAULT_DEV_PORT = 3000",
     "tstool/docs/config/server-options.md:16: tstool-dev-port:"),
    ("tstool/src/node/config.ts", "strictPort = false", "strictPort = true",
     "tstool/docs/config/server-options.md:23: tstool-strict-port:"),
    ("tstool/src/node/config.ts", "'spa' | 'mpa' | 'custom'", "'spa' | 'mpa' | 'ssr' | 'custom'",
     "`ssr` is declared in code"),
    ("tstool/docs/config/shared-options.md", "`'spa' | 'mpa' | 'custom'`", "`'spa' | 'mpa' | 'static'`",
     "tstool/docs/config/shared-options.md:5: tstool-app-types: `static` is stated"),
    ("tstool/src/node/constants.ts", "  '.jsx',\n", "", "tstool/docs/config/shared-options.md:14: tstool-extensions: `.jsx` is stated"),
    ("tstool/src/node/cli.ts", "--strictPort", "--strict-port", "`strict-port` is declared in code"),
    ("tstool/docs/guide/cli.md", "| `--force`  ", "| `--forced` ",
     "tstool/docs/guide/cli.md:22: tstool-cli-flags: `forced` is stated"),
    ("tstool/src/node/config.ts", "process.env['TOOL_DEBUG_FILTER']", "process.env['TOOL_DEBUG_ONLY']",
     "`TOOL_DEBUG_ONLY` is declared in code"),
    ("pylib/docs/settings.rst", "Default: ``False``.\n\n.. confval:: max_redirects", "Default: ``True``.\n\n"
     ".. confval:: max_redirects", "pylib/docs/settings.rst:6: pylib-follow-redirects:"),
])
def test_each_drift_is_reported_at_its_line(example, capsys, file, old, new, expected):
    _edit(example / file, old, new)
    assert main(["check", "--no-cache"]) == 1
    assert expected in capsys.readouterr().out


def test_facts_says_which_string_case_it_left_out(example, capsys):
    assert main(["facts", "workflow_states", "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "note: internal/workflow/state.go:" in out and "stateCount" in out and "left out" in out
