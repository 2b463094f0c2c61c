# SPDX-License-Identifier: Apache-2.0
"""The real-text material of the question-bank generator (qbank.py): sentences,
clauses, Tang couplets and command names from the pinned sources, deterministic.
  - stems: sentences of 12-40 characters, >= 60% Han, from fortunes-zh (`chinese`),
    Debian Reference zh-cn and the zh_CN pages of manpages-zh; deduplicated, and a
    sentence sharing its first or last 8 Han characters with an earlier one dropped;
  - clauses: all-Han clauses of 6-14 characters from the same paragraphs;
  - couplets: five- or seven-character couplets of the first 12 quantangshi files of
    chinese-poetry, folded to Simplified (OpenCC TSCharacters);
  - commands: names of manpages-zh's zh_CN man1/man8 pages.
"""
import glob
import json
import os
import re

import manpages
import sources
from opencc_chars import load_char_table

HAN = re.compile(r"[\u4e00-\u9fff]")
BAD = re.compile(r'["\\{}\x00-\x1f\x7f\u2028\u2029]')  # never in a JSON string unescaped


def _han_ratio(s):
    return len(HAN.findall(s)) / max(1, len(s))


def _sentences(paras):
    for p in paras:
        for s in re.split(r"(?<=[。！？；])", p):
            yield s.strip()


def _clauses(paras):
    for p in paras:
        for s in re.split(r"[，。；：、！？,.;:!?（）()“”\s]", p):
            yield s.strip()


class Pools:
    """The real-text material of the templates, deterministic for pinned sources."""

    def __init__(self, data_dir, man_root="/usr/share/man"):
        paras = sources.fortunes_zh_paragraphs()
        paras += [p for _, _, ps in sources.debref_sections("zh-cn") for p in ps]
        pages = manpages.pages(man_root, "zh_CN")
        for page in sorted(pages):
            text, stub = manpages.read_text(pages[page])
            if not stub:
                paras += [p.strip() for p in text.split("\n\n")]
        self.stems = self._stems(paras)
        self.clauses = self._dedup(c for c in _clauses(paras)
                                   if 6 <= len(c) <= 14 and _han_ratio(c) == 1.0)
        self.couplets = self._couplets(data_dir)
        self.commands = sorted({re.sub(r"\.\w+$", "", os.path.basename(p))
                                for p in pages
                                if re.match(r"man[18]/[a-z][a-z0-9-]{1,11}\.[18]$", p)})
        self.common = sorted({c for s in self.stems for c in HAN.findall(s)})
        self.s2t = {ord(k): v for k, v in load_char_table(data_dir, "STCharacters").items()}

    @staticmethod
    def _dedup(items):
        seen, out = set(), []
        for s in items:
            if s not in seen and not BAD.search(s):
                seen.add(s)
                out.append(s)
        return out

    @staticmethod
    def _stems(paras):
        out, keys = [], set()
        for s in _sentences(paras):
            if not 12 <= len(s) <= 40 or BAD.search(s) or _han_ratio(s) < 0.6:
                continue
            if s[-1] not in "。！？；" or not HAN.match(s[0]) or s.count("“") != s.count("”"):
                continue
            h = "".join(HAN.findall(s))
            k1, k2 = "a" + h[:8], "z" + h[-8:]
            if k1 in keys or k2 in keys:
                continue
            keys.update((k1, k2))
            out.append(s[:-1] + "。" if s[-1] == "；" else s)
        return out

    @staticmethod
    def _couplets(data_dir):
        t2s = load_char_table(data_dir, "TSCharacters")
        base = os.path.join(data_dir, "chinese-poetry", "dist", "quantangshi")
        files = sorted(glob.glob(os.path.join(base, "poet.tang.*.json")),
                       key=lambda f: int(f.rsplit(".", 2)[-2]))
        out, seen = [], set()
        for f in files[:12]:  # ~40k couplets are plenty
            with open(f, encoding="utf-8") as fh:
                for poem in json.load(fh):
                    for line in poem.get("paragraphs", []):
                        m = re.fullmatch(r"([\u4e00-\u9fff]{5}|[\u4e00-\u9fff]{7})，"
                                         r"([\u4e00-\u9fff]{5}|[\u4e00-\u9fff]{7})。", line)
                        if not m or len(m.group(1)) != len(m.group(2)):
                            continue
                        c = "".join(t2s.get(ch, ch) for ch in line[:-1])
                        if c not in seen:
                            seen.add(c)
                            out.append(c)
        return out
