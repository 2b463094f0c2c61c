# SPDX-License-Identifier: Apache-2.0
"""Strips man(7) roff markup to plain text: macros, font escapes and comments go,
text-bearing macro arguments (.SH, .B, .IR, .IP ...) stay. Paragraphs are joined by
blank lines. Good enough for feature extraction, not a typesetter."""
import re

TEXT_MACROS = {"SH", "SS", "B", "I", "BI", "BR", "IB", "IR", "RB", "RI", "SM", "SB", "IP", "TQ",
               "UR", "MT", "OP", "Nm", "Nd", "Sh", "Ss", "Fl", "Ar", "Op", "Pa", "Xr", "It", "Dl"}
BREAK_MACROS = {"PP", "LP", "P", "SH", "SS", "TP", "IP", "HP", "RS", "RE", "sp", "Pp", "Sh"}
NAMED = {"em": "—", "en": "–", "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "bu": "•",
         "co": "©", "rg": "®", "aq": "'", "dq": '"', "hy": "-", "mi": "-", "pl": "+",
         "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "<=": "≤", ">=": "≥", "mu": "×"}

_ESCAPE = re.compile(r"""\\(?:f(?:\(..|\[[^\]]*\]|.)      # font
                        |s[+-]?\d+|s\([+-]?\d\d           # size
                        |\*(?:\(..|\[[^\]]*\]|.)          # string
                        |\((..)                           # named char, group 1
                        |\[([^\]]*)\]                     # named char, group 2
                        |[&,/|^c%:]|e|-|\s|.)""", re.X)


def _escape(m):
    s = m.group(0)
    name = m.group(1) or m.group(2)
    if name is not None:
        return NAMED.get(name, "")
    if s == r"\e":
        return "\\"
    if s == r"\-":
        return "-"
    if len(s) == 2 and s[1].isspace():
        return " "
    if s.startswith((r"\f", r"\s", r"\*")) or len(s) == 2 and s[1] in "&,/|^c%:":
        return ""
    return s[1:]


def inline(text):
    """Removes inline escapes from one line of roff text."""
    i = text.find('\\"')
    if i >= 0:
        text = text[:i]
    return _ESCAPE.sub(_escape, text)


def _args(rest):
    """Macro arguments with quotes removed, joined by spaces."""
    parts = re.findall(r'"([^"]*)"|(\S+)', rest)
    return " ".join(a or b for a, b in parts)


def to_text(roff):
    """Returns (text, is_stub): is_stub is True for a '.so' redirect page."""
    paras, cur = [], []
    lines = roff.splitlines()
    real = [l for l in lines if l.strip() and not l.startswith(('.\\"', "'\\\"", '.\\}'))]
    if real and all(l.startswith(".so ") for l in real):
        return "", True
    skip_until = None  # inside .de/.am/.ig blocks: the line that ends them
    for line in lines:
        if skip_until is not None:
            if line.strip() == skip_until:
                skip_until = None
            continue
        if line.startswith(('.\\"', "'\\\"")):
            continue
        block = re.match(r"[.']\s*(de|de1|am|ig)\b\s*\S*\s*(\S*)", line.split('\\"')[0])
        if block:
            skip_until = "." + block.group(2) if block.group(2) else ".."
            continue
        if line.startswith((".", "'")) and len(line) > 1:
            m = re.match(r"[.']\s*(\S+)\s*(.*)", line)
            if not m:
                continue
            macro, rest = m.group(1), m.group(2)
            if macro in BREAK_MACROS and cur:
                paras.append(" ".join(cur))
                cur = []
            if macro in TEXT_MACROS:
                if macro == "IP":
                    rest = _args(rest).split(" ")[0] if rest else ""
                t = inline(_args(rest)).strip()
                if t:
                    cur.append(t)
            continue
        t = inline(line).strip()
        if t:
            cur.append(t)
    if cur:
        paras.append(" ".join(cur))
    return "\n\n".join(p for p in paras if p.strip()), False
