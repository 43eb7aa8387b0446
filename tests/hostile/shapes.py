"""Pathological markdown, each shape a function of its size, for the hostile tests (which
count the work at two small sizes) and ``benchmarks/hostile.py`` (which times the full ones).

The shapes follow the inputs markdown-it-py keeps from OSS-Fuzz (tests/test_fuzzer.py:
``>```\\n>``, ``>-\\n>\\n>``, ``[](so&#4H0;!``, and ``?c_`` repeated, which it notes is slow),
its fatal.md (comment and CDATA openers that once hung its regexes), and the pathological
sequences markdown-it (and cmark before it) time: nested and unmatched emphasis, brackets
and links, backtick runs, ``<`` runs, deep block quotes and lists. ``full`` is the size
close to theirs; the three fixed reproducers are repeated. A shape whose text grows with the
square of its count (a ladder of ever deeper quotes) takes the root of ``n``, so every
shape's text grows in step with ``n``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import isqrt


@dataclass(frozen=True)
class Shape:
    build: Callable[[int], str]
    full: int  # the size the benchmark times

    def size_for(self, chars: int) -> int:
        """The least power of two ``n`` whose text holds at least ``chars`` characters."""
        n = 1
        while len(self.build(n)) < chars:
            n *= 2
        return n


SHAPES: dict[str, Shape] = {
    # markdown-it-py's OSS-Fuzz reproducers and fatal.md
    "oss-fuzz-55363": Shape(lambda n: ">```\n>" * n, 1_000),
    "oss-fuzz-55367": Shape(lambda n: ">-\n>\n>" * n, 1_000),
    "oss-fuzz-55371": Shape(lambda n: "[](so&#4H0;!" * n, 1_000),
    "oss-fuzz-55401": Shape(lambda n: "?c_" * n + "c_", 100_000),
    "comment-opener": Shape(lambda n: "foo <!--- " + "x" * n + " ->\n\nfoo <!" + "-" * n + ">", 50_000),
    "cdata-opener": Shape(lambda n: "foo <![CDATA[ " + "x" * n + " ]>", 50_000),
    "bad-uri": Shape(lambda n: "[foo](<&#x25;test>) [foo](%C3) [foo](&#xD800;) " * n, 2_000),
    # emphasis
    "nested-inlines": Shape(lambda n: "*" * n + "a" + "*" * n, 30_000),
    "nested-strong-emph": Shape(lambda n: "*a **a " * n + "b" + " a** a*" * n, 5_000),
    "emph-closers": Shape(lambda n: "a_ " * n, 30_000),
    "emph-openers": Shape(lambda n: "_a " * n, 30_000),
    "emph-mismatched": Shape(lambda n: "*a_ " * n, 25_000),
    "emph-cmark-389": Shape(lambda n: "*a " * n + "_a*_ " * n, 10_000),
    "emph-multiple-of-3": Shape(lambda n: "a**b" + "c* " * n, 25_000),
    "emph-star-under": Shape(lambda n: "**_* " * n, 20_000),
    # brackets and links
    "link-closers": Shape(lambda n: "a]" * n, 10_000),
    "link-openers": Shape(lambda n: "[a" * n, 10_000),
    "link-emph": Shape(lambda n: "[ a_" * n, 10_000),
    "bracket-paren": Shape(lambda n: "[ (](" * n, 20_000),
    "image-brackets": Shape(lambda n: "![[]()" * n, 10_000),
    "nested-brackets": Shape(lambda n: "[" * n + "a" + "]" * n, 20_000),
    "unclosed-link-a": Shape(lambda n: "[a](<b" * n, 15_000),
    "unclosed-link-b": Shape(lambda n: "[a](b" * n, 15_000),
    "unresolved-references": Shape(lambda n: "[x] [y][z] " * n, 20_000),
    "many-definitions": Shape(lambda n: "".join(f"[r{i}]: /u{i}\n" for i in range(n)) + "[r1] " * (n // 10),
                              10_000),
    # code, html, entities
    "backtick-runs": Shape(lambda n: "".join("e" + "`" * i for i in range(isqrt(2 * n))), 2_000_000),
    "backtick-escapes": Shape(lambda n: "``\\" * n, 30_000),
    "angle-run": Shape(lambda n: "<" * n + ">", 200_000),
    "comment-run": Shape(lambda n: "</" + "<!--" * n, 50_000),
    "entities": Shape(lambda n: "&amp;" * n + "&#" * n + "&#x;" * (n // 5), 50_000),
    "hard-break-spaces": Shape(lambda n: "x" + " " * n + "x  \nx", 150_000),
    # blocks
    "blockquotes-spaced": Shape(lambda n: "> " * n + "a", 50_000),
    "blockquotes-tight": Shape(lambda n: ">" * n + " The limit is 5 requests. `x`", 20_000),
    "blockquote-ladder": Shape(lambda n: "\n".join(">" * i + " x `c`" for i in range(1, isqrt(2 * n))), 2_000_000),
    "nested-lists": Shape(lambda n: "".join("  " * i + "* a `c`\n" for i in range(isqrt(n))), 1_000_000),
    "nested-ordered": Shape(lambda n: "".join("   " * i + "1. a\n" for i in range(isqrt(2 * n // 3))), 1_500_000),
    "list-quote-mix": Shape(lambda n: "".join(("> " if i % 2 else "- ") * i + "x\n" for i in range(isqrt(n))), 90_000),
    "heading-run": Shape(lambda n: "#" * n + " x\n" + "# h\n" * (n // 10), 100_000),
    "table-pipes": Shape(lambda n: "| a |\n|---|\n" + "|" * n + "\n", 100_000),
    "table-many-rows": Shape(lambda n: "| T | V |\n|---|---|\n" + "| `a` | 5 s |\n" * n, 2_000),
    "table-wide": Shape(lambda n: "|" + " a |" * n + "\n|" + "---|" * n + "\n" + ("|" + " `x` |" * n + "\n") * 10,
                        1_000),
    "unclosed-fence": Shape(lambda n: "```\n" + "x\n" * n, 50_000),
    "long-line-words": Shape(lambda n: "# T\n\n" + "word " * n + "The limit is 5 requests.\n", 200_000),
    "long-line-code": Shape(lambda n: "# T\n\n" + "`a` " * n + "\n", 20_000),
    "long-line-code-phrase": Shape(lambda n: "# T\n\nThe limit is " + "`a` " * n + "requests.\n", 20_000),
    "long-sentence-numbers": Shape(lambda n: "# T\n\nafter " + "1 " * n + "requests.\n", 50_000),
    "nul-and-controls": Shape(lambda n: "# T\n\n" + "a\x00b\x01c\x1b[31m `\x00` " * n, 10_000),
    "crlf-and-cr": Shape(lambda n: "# T\r\n\r\n| T |\r|---|\r| `a` |\r" * n, 2_000),
}

SENTENCES: dict[str, Shape] = {
    # one sentence a phrase template reads, after "after": runs of digits, separators, units,
    # number words, articles and dashes that its quantity pattern could try at every position
    "digits": Shape(lambda n: "1" * n, 100_000),
    "thousands": Shape(lambda n: "1,000" * n, 20_000),
    "units": Shape(lambda n: "1h" * n, 50_000),
    "number-words": Shape(lambda n: "ten-" * n, 30_000),
    "articles": Shape(lambda n: "half an " * n, 20_000),
    "spaced-digits": Shape(lambda n: "1 " * n, 50_000),
    "dashes": Shape(lambda n: "-" * n + "1", 50_000),
}
