# SPDX-License-Identifier: Apache-2.0
"""Readers for the pinned real-text sources of the dataset scripts (docs/quality.md).

All of them come from Debian 12 packages installed by scripts/setup:
  - fortunes-zh 2.98: /usr/share/games/fortunes/chinese (modern Chinese sayings and
    texts, ANSI colour codes stripped);
  - debian-reference-{en,zh-cn,zh-tw} 2.100: /usr/share/debian-reference/
    debian-reference.LANG.txt.gz, the plain-text book, split into its numbered sections;
  - manpages-zh 1.6.4.0-1: via manpages.py / roff.py.
Every reader returns its items in a fixed order, so the scripts stay byte-identical.
"""
import gzip
import re

FORTUNES_ZH = "/usr/share/games/fortunes/chinese"
DEBREF = "/usr/share/debian-reference/debian-reference.%s.txt.gz"

HAN = re.compile(r"[\u3400-\u9fff]")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_SECTION = re.compile(r"^(\d+(?:\.\d+)+)\. (\S.*)$")


def join_wrapped(lines):
    """Joins lines of one wrapped paragraph: no space between two CJK characters."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if out and not (HAN.match(out[-1]) or out[-1] in "，。；：、！？（）“”") \
                or out and not (HAN.match(line[0]) or line[0] in "，。；：、！？（）“”"):
            out += " "
        out += line
    return out


def fortunes_zh_paragraphs(path=FORTUNES_ZH):
    """The paragraphs of fortunes-zh's `chinese` file, in file order."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = _ANSI.sub("", fh.read())
    paras = []
    for fortune in text.split("\n%\n"):
        for block in re.split(r"\n\s*\n", fortune):
            lines = [l for l in block.split("\n") if not l.strip().startswith("--")]
            p = join_wrapped(lines)
            if p:
                paras.append(p)
    return paras


def debref_sections(lang):
    """[(number, title, [paragraph, ...])] of Debian Reference in LANG (en, zh-cn,
    zh-tw), one entry per numbered section ("1.3.3."), tables and indented code
    blocks dropped. Paragraphs are joined from their wrapped lines."""
    with gzip.open(DEBREF % lang, "rt", encoding="utf-8") as fh:
        lines = fh.read().replace("\u00a0", " ").split("\n")
    sections, cur, block = [], None, []

    def flush():
        if cur is not None and block:
            p = join_wrapped(block)
            if p:
                cur[2].append(p)
        block.clear()

    for line in lines:
        m = _SECTION.match(line)
        if m:
            flush()
            cur = (m.group(1), m.group(2).strip(), [])
            sections.append(cur)
            continue
        s = line.strip()
        if not s:
            flush()
            continue
        if s[0] in "|+" or line.startswith("     $ ") or line.startswith("      "):
            flush()  # tables, shell sessions, deeper-indented code
            continue
        block.append(s)
    flush()
    return [s for s in sections if s[2]]
