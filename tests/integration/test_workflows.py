"""The CI workflow and the composite action: they parse, validate, and call real commands."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftguard.cli import build_parser
from driftguard.reporters import CHECK_FORMATS

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / ".github" / "workflows" / "ci.yml"
ACTION = ROOT / "action.yml"
OPERATORS = {"&&", "||", ";", "|", ">", ">>", "<", "&", "(", ")"}
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
SHELL_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


def action_defaults() -> dict[str, str]:
    return {name: str(spec.get("default", "")) for name, spec in load(ACTION)["inputs"].items()}


def resolve(text: str, inputs: dict[str, str]) -> str:
    """GitHub expressions the commands use, with the action's input defaults."""

    def one(match: re.Match[str]) -> str:
        expr = match.group(1)
        if expr.startswith("inputs."):
            return inputs[expr.removeprefix("inputs.")]
        return "/placeholder"

    return EXPRESSION.sub(one, text)


def invocations(script: str, env: dict[str, str]) -> list[list[str]]:
    """Every ``driftguard ...`` command in a shell script, variables expanded from ``env``."""
    found = []
    for line in script.splitlines():
        expanded = SHELL_VAR.sub(lambda m: env.get(m.group(1) or m.group(2), "/placeholder"), line)
        lexer = shlex.shlex(expanded, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
        for i, token in enumerate(tokens):
            if token == "driftguard" and (i == 0 or tokens[i - 1] in OPERATORS | {"then", "else", "do"}):
                rest = tokens[i + 1:]
                end = next((j for j, t in enumerate(rest) if t in OPERATORS), len(rest))
                found.append(rest[:end])
    return found


def run_steps(steps: list[dict[str, Any]], inputs: dict[str, str]) -> list[tuple[dict[str, Any], list[str]]]:
    out = []
    for step in steps:
        if "run" not in step:
            continue
        env = {k: resolve(str(v), inputs) for k, v in (step.get("env") or {}).items()}
        for argv in invocations(resolve(step["run"], inputs), env):
            out.append((step, argv))
    return out


def parse_cli(argv: list[str]) -> Any:
    """``argv`` through driftguard's own parser; a usage error fails with argparse's words."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            args = build_parser().parse_args(argv)
    except SystemExit:
        pytest.fail(f"`driftguard {' '.join(argv)}` is not a valid command: {err.getvalue().strip()}")
    assert args.command, f"`driftguard {' '.join(argv)}` names no subcommand"
    return args


def ci_steps(job: str) -> list[dict[str, Any]]:
    return load(CI)["jobs"][job]["steps"]


def ci_commands() -> list[tuple[dict[str, Any], list[str]]]:
    return [pair for job in load(CI)["jobs"] for pair in run_steps(ci_steps(job), {})]


def action_commands() -> list[tuple[dict[str, Any], list[str]]]:
    return run_steps(load(ACTION)["runs"]["steps"], action_defaults())


def test_the_command_finder_rejects_a_wrong_flag() -> None:
    (argv,) = invocations('driftguard check --formt "$F" || true', {"F": "github"})
    assert argv == ["check", "--formt", "github"]
    with pytest.raises(pytest.fail.Exception):
        parse_cli(argv)
    with pytest.raises(pytest.fail.Exception):
        parse_cli(["check", "--format", "yaml"])


def test_ci_runs_the_tests_on_every_python() -> None:
    data = load(CI)
    assert {"push", "pull_request"} <= set(data.get("on", data.get(True)))  # YAML 1.1 reads `on` as true
    test = data["jobs"]["test"]
    assert test["strategy"]["matrix"]["python-version"] == ["3.10", "3.11", "3.12", "3.13"]
    assert any(step.get("run") == "bash .ci/run" for step in test["steps"])


def test_ci_runs_driftguard_and_uploads_sarif() -> None:
    job = load(CI)["jobs"]["driftguard"]
    assert job["permissions"]["security-events"] == "write"
    commands = [parse_cli(argv) for _, argv in run_steps(job["steps"], {})]
    assert any(a.command == "check" and a.format == "github" for a in commands)
    sarif = [a for a in commands if a.command == "check" and a.format == "sarif"]
    assert len(sarif) == 1 and sarif[0].output
    upload = [s for s in job["steps"] if str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif@")]
    assert len(upload) == 1 and upload[0]["with"]["sarif_file"] == sarif[0].output
    summary = [s for s in job["steps"] if "driftguard report" in s.get("run", "")]
    assert len(summary) == 1 and '>> "$GITHUB_STEP_SUMMARY"' in summary[0]["run"]
    assert parse_cli(run_steps(summary, {})[0][1]).format == "markdown"


def test_ci_uses_the_action_itself() -> None:
    steps = load(CI)["jobs"]["action"]["steps"]
    assert any(step.get("uses") == "./" for step in steps)


@pytest.mark.parametrize("source", ["ci", "action"])
def test_every_driftguard_command_exists(source: str) -> None:
    commands = ci_commands() if source == "ci" else action_commands()
    assert len(commands) >= 3, commands  # the finder saw them
    for _, argv in commands:
        parse_cli(argv)


def test_action_is_composite_with_config_and_format_inputs() -> None:
    action = load(ACTION)
    assert action["name"] and action["description"]
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    assert inputs["config"]["default"] == "driftguard.yaml"
    assert inputs["format"]["default"] == "github" and inputs["format"]["default"] in CHECK_FORMATS
    for name, spec in inputs.items():
        assert spec.get("description"), f"input {name} has no description"


def test_action_inputs_and_outputs_are_wired() -> None:
    action = load(ACTION)
    steps = action["runs"]["steps"]
    text = ACTION.read_text(encoding="utf-8")
    used = set(re.findall(r"inputs\.([\w-]+)", text))
    assert used == set(action["inputs"]), "every input is used, and only declared inputs are"
    for step in steps:
        if "run" in step:
            assert step.get("shell"), f"composite run steps need a shell: {step.get('name')}"
            assert "${{" not in step["run"], "expressions go through env, never into the script"
    ids = {step.get("id") for step in steps}
    for name, spec in action["outputs"].items():
        (step_id,) = re.findall(r"steps\.([\w-]+)\.outputs", spec["value"])
        assert step_id in ids, f"output {name} reads a step that does not exist"


def test_action_installs_itself_and_runs_check_with_its_inputs() -> None:
    steps = load(ACTION)["runs"]["steps"]
    assert any(str(s.get("uses", "")).startswith("actions/setup-python@") for s in steps)
    install = [s for s in steps if "pip install" in s.get("run", "")]
    assert len(install) == 1 and install[0]["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    argvs = [argv for _, argv in action_commands()]
    parsed = [parse_cli(argv) for argv in argvs]
    checks = [a for a in parsed if a.command == "check"]
    assert checks and all(a.config == "driftguard.yaml" and a.format == "github" for a in checks)
    with_output = ["--output" in argv for argv in argvs if argv[0] == "check"]
    assert sorted(with_output) == [False, True]  # the `output` input, set or not
    assert any(a.command == "report" and a.format == "markdown" for a in parsed)


@pytest.mark.parametrize("path, schema", [(CI, "vendor.github-workflows"), (ACTION, "vendor.github-actions")])
def test_schema_check(path: Path, schema: str) -> None:
    """check-jsonschema ships SchemaStore's schemas for both files; nothing is fetched."""
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_schema_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  x:\n    steps:\n      - run: echo\n", encoding="utf-8")  # no runs-on
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                           "vendor.github-workflows", str(bad)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
