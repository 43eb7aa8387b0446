"""Plausible filler for generated trees: Go and Python functions, comments, prose.

Everything is deterministic for a given ``random.Random``. The filler never
declares a constant, type or method a benchmark config reads: Go filler
declares only functions, locals and structs with generated names; Python
filler declares only functions and plain classes; markdown filler has no
tables headed like a claim and no quantity phrases a template could match.
"""

from __future__ import annotations

import random

WORDS = (
    "agent audit backup bucket cache cluster config digest disk event fleet gauge guest host "
    "index journal ledger lease metric node policy pool probe queue quota relay replica report "
    "route sample schedule session shard signal snapshot storage stream target task tenant token "
    "volume window worker zone"
).split()
VERBS = "apply build check collect compute decode drain emit fetch filter flush load merge normalize " \
        "parse prune rank record refresh render resolve scan sort split summarize trim update validate".split()
NOTES = (
    "Callers hold no lock here; the store serializes access on its own.",
    "The order matters: later entries override earlier ones with the same key.",
    "An empty input is not an error; it yields an empty result.",
    "This mirrors the behaviour of the previous implementation, kept for compatibility.",
    "Values are copied so the caller may keep mutating its own slice.",
    "Errors are wrapped with the resource name so logs stay readable.",
    "The result is sorted to keep the output stable across runs.",
    "Nothing here talks to the network; it only reshapes data already fetched.",
)


def _name(rng: random.Random, used: set[str], style: str) -> str:
    while True:
        parts = [rng.choice(VERBS), rng.choice(WORDS), rng.choice(WORDS)]
        if style == "go":
            name = parts[0] + "".join(p.capitalize() for p in parts[1:])
        else:
            name = "_".join(parts)
        name += str(rng.randrange(10, 999))
        if name not in used:
            used.add(name)
            return name


def go_function(rng: random.Random, used: set[str]) -> str:
    """One top-level Go function (sometimes a struct type first) with comments."""
    name, noun = _name(rng, used, "go"), rng.choice(WORDS)
    typ = noun.capitalize() + "Entry" + str(rng.randrange(100, 999))
    lines = []
    if rng.random() < 0.4:
        lines += [f"// {typ} is one {noun} record as {name} sees it.", f"type {typ} struct {{",
                  "\tID       string", "\tName     string", "\tWeight   float64", "\tUpdated  time.Time",
                  "\tTags     map[string]string", "}", ""]
    else:
        typ = "map[string]interface{}"
    lines += [f"// {name} {rng.choice(VERBS)}s the {noun} entries of one {rng.choice(WORDS)}.",
              f"// {rng.choice(NOTES)}",
              f"func {name}(items []string, limit int) ([]string, error) {{",
              "\tif limit <= 0 {",
              f"\t\treturn nil, fmt.Errorf(\"{name}: limit must be positive, got %d\", limit)",
              "\t}",
              "\tout := make([]string, 0, len(items))",
              "\tseen := make(map[string]bool, len(items))"]
    lines += go_statements(rng, noun, rng.randint(2, 6), indent=1)
    lines += ["\tsort.Strings(out)", "\tif len(out) > limit {", "\t\tout = out[:limit]", "\t}",
              "\treturn out, nil", "}", ""]
    return "\n".join(lines) + "\n"


def go_statements(rng: random.Random, noun: str, count: int, indent: int = 1) -> list[str]:
    """Statements valid inside any Go function body that has ``items``/``out``/``seen``-free locals."""
    t = "\t" * indent
    lines: list[str] = []
    for n in range(count):
        var = f"{noun}{rng.choice(WORDS).capitalize()}{n}"
        shape = rng.randrange(4)
        lines.append(f"{t}// {rng.choice(NOTES)}")
        if shape == 0:
            lines += [f"{t}{var} := strings.TrimSpace(fmt.Sprintf(\"%s-%d\", \"{noun}\", {rng.randrange(1, 99)}))",
                      f"{t}if {var} == \"\" {{", f"{t}\t{var} = \"{rng.choice(WORDS)}\"", f"{t}}}",
                      f"{t}_ = {var}"]
        elif shape == 1:
            lines += [f"{t}{var} := make([]int, 0, {rng.randrange(2, 64)})",
                      f"{t}for i := 0; i < cap({var}); i++ {{", f"{t}\t{var} = append({var}, i*{rng.randrange(2, 9)})",
                      f"{t}}}", f"{t}_ = len({var})"]
        elif shape == 2:
            lines += [f"{t}switch {var} := \"{rng.choice(WORDS)}\"; {var} {{",
                      f"{t}case \"{rng.choice(WORDS)}\", \"{rng.choice(WORDS)}\":",
                      f"{t}\t_ = strings.ToUpper({var})", f"{t}default:", f"{t}\t_ = strings.ToLower({var})", f"{t}}}"]
        else:
            lines += [f"{t}{var} := map[string]int{{", f"{t}\t\"{rng.choice(WORDS)}\": {rng.randrange(100)},",
                      f"{t}\t\"{rng.choice(WORDS)}x\": {rng.randrange(100)},", f"{t}}}",
                      f"{t}for k, v := range {var} {{", f"{t}\tif v > {rng.randrange(100)} {{",
                      f"{t}\t\tdelete({var}, k)", f"{t}\t}}", f"{t}}}"]
    return lines


def go_filler(rng: random.Random, used: set[str], size: int) -> str:
    """Go functions until about ``size`` bytes."""
    parts: list[str] = []
    total = 0
    while total < size:
        part = go_function(rng, used)
        parts.append(part)
        total += len(part)
    return "\n".join(parts)


def python_function(rng: random.Random, used: set[str]) -> str:
    name, noun = _name(rng, used, "py"), rng.choice(WORDS)
    lines = [f"def {name}(items: list[str], limit: int = {rng.randrange(5, 50)}) -> list[str]:",
             f'    """{rng.choice(VERBS).capitalize()} the {noun} entries. {rng.choice(NOTES)}"""',
             "    if limit <= 0:", f'        raise ValueError(f"{name}: limit must be positive, got {{limit}}")',
             "    out: list[str] = []", "    seen: set[str] = set()"]
    for n in range(rng.randint(2, 5)):
        var = f"{noun}_{rng.choice(WORDS)}_{n}"
        lines.append(f"    # {rng.choice(NOTES)}")
        shape = rng.randrange(3)
        if shape == 0:
            lines += [f"    for {var} in items:", f"        if {var} in seen:", "            continue",
                      f"        seen.add({var})", f"        out.append({var}.strip().lower())"]
        elif shape == 1:
            lines += [f"    {var} = {{k: len(k) for k in items if k.startswith({rng.choice(WORDS)!r})}}",
                      f"    out.extend(sorted({var}, key={var}.get)[:{rng.randrange(2, 9)}])"]
        else:
            lines += [f"    {var} = [i * {rng.randrange(2, 9)} for i in range(len(items))]",
                      f"    if sum({var}) > {rng.randrange(100, 999)}:", f"        out.append(str(max({var})))"]
    lines += ["    return sorted(out)[:limit]", "", ""]
    return "\n".join(lines)


def python_filler(rng: random.Random, used: set[str], size: int) -> str:
    parts: list[str] = []
    total = 0
    while total < size:
        part = python_function(rng, used)
        parts.append(part)
        total += len(part)
    return "".join(parts)


def prose_paragraph(rng: random.Random) -> str:
    """A wrapped paragraph of plain sentences without quantities."""
    sentences = []
    for _ in range(rng.randint(3, 6)):
        a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
        sentences.append(f"The {a} layer {rng.choice(VERBS)}s each {b} before the {c} step sees it, "
                         f"and `{rng.choice(VERBS)}{b.capitalize()}` keeps the result.")
    words = " ".join(sentences).split(" ")
    lines, line = [], ""
    for word in words:
        if len(line) + len(word) + 1 > 76:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return "\n".join(lines) + "\n"


def markdown_filler(rng: random.Random, size: int, level: int = 2) -> str:
    """Sections of prose, a bullet list and a small ``| Field | Notes |`` table."""
    parts: list[str] = []
    total = 0
    while total < size:
        title = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} notes {rng.randrange(1000)}"
        body = [f"{'#' * level} {title}", "", prose_paragraph(rng), prose_paragraph(rng)]
        body += [f"- `{rng.choice(WORDS)}_{rng.choice(WORDS)}` is {rng.choice(VERBS)}ed on demand." for _ in range(3)]
        body += ["", "| Field | Notes |", "|-------|-------|"]
        body += [f"| `{rng.choice(WORDS)}` | {rng.choice(NOTES)} |" for _ in range(3)]
        body.append("")
        part = "\n".join(body) + "\n"
        parts.append(part)
        total += len(part)
    return "".join(parts)
