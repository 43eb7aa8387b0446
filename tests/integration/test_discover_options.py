"""discover on an options reference (issue 23): flag and variable tables against the maps of
defaults the code reads, ``Default:`` lines under an option's heading, headings, bullets and
YAML blocks of options, and the concurrency cap a semaphore sets. Every proposal is run by
the engine on the tree it came from and must catch the drift it claims to guard."""

from __future__ import annotations

from pathlib import Path

import yaml

from driftguard.discover import discover, render_config
from driftguard.model import Status
from tests.helpers import edit, judge

KINGPIN = '''package main

import (
	"os"

	"github.com/alecthomas/kingpin/v2"
)

func main() {
	a := kingpin.New("relayd", "The relay.")
	a.Flag("web.listen-address", "Address to listen on.").Default(":9470").String()
	a.Flag("storage.retention", "How long to keep messages.").Default("15d").String()
	a.Flag("log.level", "Log level.").Default("info").String()
	kingpin.MustParse(a.Parse(os.Args[1:]))
}
'''
FLAG_TABLE = '''# relayd

| Flag | Description | Default |
| --- | --- | --- |
| <code class="text-nowrap">-h</code>, <code class="text-nowrap">--help</code> | Show help. | |
| <code class="text-nowrap">--web.listen-address</code> | Address to listen on. | `:9470` |
| <code class="text-nowrap">--storage.retention</code> | How long to keep messages. | `15d` |
| <code class="text-nowrap">--log.level</code> | Log level. | `info` |
'''


def _emit(root: Path):
    found = discover(root, jobs=1, limit=None)
    (root / "driftguard.yaml").write_text(render_config(found), encoding="utf-8")
    return found, yaml.safe_load((root / "driftguard.yaml").read_text(encoding="utf-8"))


def test_a_flag_table_with_defaults_is_the_map_of_flags_and_its_help_row_is_left_out(tree) -> None:
    root = tree({"cmd/relayd/main.go": KINGPIN, "docs/relayd.md": FLAG_TABLE})
    _, config = _emit(root)
    (rule,) = config["rules"]
    assert (rule["table"], rule["column"], rule["direction"], rule["ignore"]) == ("Flag", "Default", "both",
                                                                                 ["-h, --help"])
    assert config["facts"][rule["fact"]] == {"file": "cmd/relayd/main.go", "flags": {"defaults": True}}
    assert judge(root).rules[0].status is Status.PASS
    main = root / "cmd/relayd/main.go"
    edit(main, 'Default("15d")', 'Default("30d")')
    assert [f.kind.kind for f in judge(root).findings] == ["value-mismatch"]
    (root / "docs/relayd.md").write_text(FLAG_TABLE + "| `--web.max-connections` | Gone. | `512` |\n")
    assert sorted((f.kind.kind, f.value) for f in judge(root).findings) == [
        ("missing-in-code", "--web.max-connections"), ("value-mismatch", "15d")]


def test_a_flag_with_its_argument_in_the_cell_is_read_by_name(tree) -> None:
    table = FLAG_TABLE.replace("--web.listen-address</code>", "--web.listen-address=ADDR</code>")
    table = table.replace("<code class=\"text-nowrap\">", "`").replace("</code>", "`").replace("=ADDR", " <addr>")
    root = tree({"cmd/relayd/main.go": KINGPIN, "docs/relayd.md": table})
    _, config = _emit(root)
    (rule,) = config["rules"]
    assert rule["cells"] and "column" not in rule and rule["direction"] == "both"  # names only: `<addr>` is no key
    assert judge(root).rules[0].status is Status.PASS


def test_a_default_line_under_the_option_heading_binds_the_option_of_that_owner(tree) -> None:
    root = tree({
        "src/client.py": "class Client:\n    def __init__(self, *, timeout: float = 5.0, http2: bool = False):\n"
                         "        pass\n\n\ndef request(url, *, timeout=5.0):\n    pass\n",
        "docs/api.md": "# API\n\n## `Client`\n\n### `timeout`\n\nSeconds before giving up.\n\nDefault: `5.0`\n\n"
                       "### `http2`\n\nDefault: `False`\n\n## `request`\n\nIts `timeout` defaults to `5.0` too.\n",
    })
    found, config = _emit(root)
    facts = {r["id"]: config["facts"][r["fact"]]["default"] for r in config["rules"]}
    assert sorted(facts.values(), key=str) == [{"function": "Client", "param": "http2"},
                                               {"function": "Client", "param": "timeout"},
                                               {"function": "request", "param": "timeout"}]
    assert all(p.basis.startswith(("the section", "the sentence")) for p in found.proposals)
    assert {r.status for r in judge(root).rules} == {Status.PASS}


def test_a_dotted_option_binds_a_key_of_its_owners_defaults(tree) -> None:
    root = tree({
        "src/server.ts": "export const serverDefaults = Object.freeze({ host: 'localhost', port: 4321 })\n"
                         "export const previewDefaults = Object.freeze({ port: 4173 })\n",
        "docs/server.md": "# Server Options\n\n## server.port\n\n- **Type:** `number`\n- **Default:** `4321`\n\n"
                          "## server.host\n\n- **Default:** `'localhost'`\n",
    })
    _, config = _emit(root)
    read = sorted(config["facts"][r["fact"]]["constant"] for r in config["rules"] if "phrase" in r)
    assert read == ['serverDefaults["host"]', 'serverDefaults["port"]']


def test_yaml_keys_and_option_headings_against_the_fields_their_tags_give(tree) -> None:
    root = tree({
        "config/config.go": 'package config\n\ntype GlobalConfig struct {\n\tPollInterval string `yaml:"poll_interval"`\n'
                            '\tMaxBatch int `yaml:"max_batch"`\n\tLabels map[string]string `yaml:"labels"`\n}\n',
        "docs/configuration.md": "# Configuration\n\n```yaml\nglobal:\n  poll_interval: 1m\n  max_batch: 500\n"
                                 "  labels: {}\n```\n\n## `global`\n\n### `poll_interval`\n\n### `max_batch`\n\n"
                                 "### `labels`\n",
    })
    _, config = _emit(root)
    forms = sorted(str(r.get("block") or r.get("headings")) for r in config["rules"])
    assert forms == ["{'lang': 'yaml', 'keys': 'global'}", "{'level': 3, 'match': '^`([A-Za-z_$][\\\\w$.-]*)`$'}"]
    assert {r.status for r in judge(root).rules} == {Status.PASS}


def test_bullets_of_flags_against_the_program_flags(tree) -> None:
    root = tree({
        "tool/__main__.py": "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--timeout', default=5.0)\n"
                            "p.add_argument('--http2', action='store_true')\np.add_argument('--output', '-o')\n",
        "docs/cli.md": "# CLI\n\n## Options\n\n- `--timeout SECONDS`: give up after\n- `--http2`: speak HTTP/2\n"
                       "- `--output FILE`: where the body goes\n",
    })
    _, config = _emit(root)
    (rule,) = config["rules"]
    assert rule["items"] is True and rule["section"] == "Options" and rule["direction"] == "both"
    cli = root / "tool/__main__.py"
    cli.write_text(cli.read_text() + "p.add_argument('--verbose', action='store_true')\n")
    assert [(f.kind.kind, f.value) for f in judge(root).findings] == [("missing-in-doc", "verbose")]


def test_a_semaphore_is_the_concurrency_cap_a_sentence_states(tree) -> None:
    root = tree({
        "loop/loop.go": "package loop\n\ntype Loop struct{}\n\nfunc (l *Loop) run(calls []string) {\n"
                        "\tsem := make(chan struct{}, 4)\n\tbuf := make([]string, len(calls))\n\t_, _ = sem, buf\n}\n",
        "docs/loop.md": "# The loop\n\nIndependent calls run in parallel, with concurrency capped at four.\n",
    })
    _, config = _emit(root)
    (rule,) = config["rules"]
    assert config["facts"][rule["fact"]]["call"] == {"function": "make", "within": "Loop.run",
                                                     "where": {"arg0": "chan struct{}"}, "arg": 1}
    assert rule["phrase"] == "capped at {value}"


LIMITS = "class Limits:\n    def __init__(self, *, max_connections: int = 100, keepalive_expiry: float = 5.0):\n" \
         "        pass\n"


def test_a_default_in_a_bullet_is_scoped_to_the_bullet_its_option_starts(tree) -> None:
    root = tree({
        "src/limits.py": LIMITS,
        "docs/limits.md": "# Limits\n\n- `max_connections`, maximum number of allowable connections, or `None`\n"
                          "for no limits. (Default 100)\n- `keepalive_expiry`, time limit on idle connections in "
                          "seconds. (Default 5)\n",
    })
    found, config = _emit(root)
    assert [(r["within"], r["phrase"]) for r in config["rules"]] == [
        ({"item": "`max_connections`"}, "Default {value}"), ({"item": "`keepalive_expiry`"}, "Default {value}")]
    assert found.proposals[1].basis.startswith("the bullet `keepalive_expiry` names the option keepalive_expiry")
    limits = root / "src/limits.py"
    edit(limits, "5.0", "10.0")
    assert [(f.rule, f.kind.kind) for f in judge(root).findings] == [("limits-keepalive-expiry", "value-mismatch")]


def test_the_keyword_arguments_of_a_default_object_are_the_defaults_its_bullets_state(tree) -> None:
    root = tree({
        "src/timeouts.py": "class Timeouts:\n    def __init__(self, *, connect=None, read=None):\n        pass\n\n\n"
                           "DEFAULT_TIMEOUTS = Timeouts(connect=3.0, read=30.0)\n",
        "docs/timeouts.md": "# Timeouts\n\n- `connect`, seconds to open a connection. (Default 3)\n"
                            "- `read`, seconds to wait for a chunk. (Default 30)\n",
    })
    _, config = _emit(root)
    assert [config["facts"][r["fact"]]["call"] for r in config["rules"]] == [
        {"function": "Timeouts", "arg": "connect"}, {"function": "Timeouts", "arg": "read"}]
    source = root / "src/timeouts.py"
    edit(source, "read=30.0", "read=60.0")
    assert [(f.rule, f.kind.kind) for f in judge(root).findings] == [("timeouts-read", "value-mismatch")]


ENV_GO = ('package main\n\nimport "os"\n\nfunc envOr(k, d string) string {\n\tif v := os.Getenv(k); v != "" {\n'
          '\t\treturn v\n\t}\n\treturn d\n}\n\nfunc main() {\n\t_ = os.Getenv("APP_TOKEN")\n'
          '\t_ = envOr("APP_PORT", "8080")\n}\n')
ENV_TABLE = ("# Environment\n\n| Variable | Default | Meaning |\n| --- | --- | --- |\n| `APP_TOKEN` | | the token |\n"
             "| `APP_PORT` | `8080` | the port |\n")


def test_an_environment_table_against_the_variables_the_code_reads_both_ways(tree) -> None:
    root = tree({"cmd/app/main.go": ENV_GO, "docs/env.md": ENV_TABLE})
    _, config = _emit(root)
    (rule,) = config["rules"]
    assert config["facts"][rule["fact"]] == {"file": "cmd/app/main.go", "env": {"defaults": True}}
    assert (rule["table"], rule["column"], rule["direction"]) == ("Variable", "Default", "both")
    main = root / "cmd/app/main.go"
    edit(main, '"8080"', '"9090"')
    edit(main, "return d\n}\n", 'return d\n}\n\nfunc debug() string { return os.Getenv("APP_DEBUG") }\n')
    (root / "docs/env.md").write_text(ENV_TABLE + "| `APP_LEGACY` | | gone |\n")
    assert sorted((f.kind.kind, f.value) for f in judge(root).findings) == [
        ("missing-in-code", "APP_LEGACY"), ("missing-in-doc", "APP_DEBUG"), ("value-mismatch", "8080")]


def test_typescript_constants_parameter_defaults_and_unions(tree) -> None:
    root = tree({
        "src/constants.ts": "export const DEFAULT_DEV_PORT = 5173\nexport type LogLevel = 'info' | 'warn' | 'error'\n",
        "src/preview.ts": "export function preview({ port = 4173, strictPort = false } = {}) { return port }\n",
        "docs/server.md": "# Server\n\nThe dev server listens on port 5173 by default (`DEFAULT_DEV_PORT`).\n\n"
                          "## logLevel\n\n| Level | Meaning |\n| --- | --- |\n| `info` | all |\n| `warn` | warnings |\n"
                          "| `error` | errors |\n",
        "docs/preview.md": "# `preview`\n\n## `port`\n\nDefault: `4173`\n\n## `strictPort`\n\nDefault: `false`\n",
    })
    _, config = _emit(root)
    read = {r["id"]: {k: v for k, v in config["facts"][r["fact"]].items() if k != "file"} for r in config["rules"]}
    assert read == {"preview-port": {"default": {"function": "preview", "param": "port"}},
                    "preview-strict-port": {"default": {"function": "preview", "param": "strictPort"}},
                    "default-dev-port": {"constant": "DEFAULT_DEV_PORT"},
                    "log-level": {"constants": {"type": "LogLevel"}}}
    preview = root / "src/preview.ts"
    edit(preview, "4173", "4174")
    constants = root / "src/constants.ts"
    edit(constants, "'error'", "'error' | 'silent'")
    assert sorted((f.rule, f.kind.kind) for f in judge(root).findings) == [
        ("log-level", "missing-in-doc"), ("preview-port", "value-mismatch")]


def test_a_records_fields_and_their_defaults_against_a_field_table(tree) -> None:
    root = tree({
        "src/pool.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass PoolConfig:\n"
                       "    max_connections: int = 100\n    keepalive_expiry: float = 5.0\n",
        "docs/pool.md": "# Pool\n\n| Field | Default | Meaning |\n| --- | --- | --- |\n| `max_connections` | `100` | a |\n"
                        "| `keepalive_expiry` | `5.0` | b |\n",
    })
    _, config = _emit(root)
    assert sorted(r.get("rows", {}).get("max_connections", r.get("fact")) for r in config["rules"]) == [
        "pool_config", "pool_config_max_connections"]
    assert config["facts"]["pool_config"]["fields"] == {"type": "PoolConfig"}
    pool = root / "src/pool.py"
    pool.write_text(pool.read_text() + "    retries: int = 3\n")
    assert [(f.kind.kind, f.value) for f in judge(root).findings] == [("missing-in-doc", "retries")]
