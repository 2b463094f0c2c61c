#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthetic "mail" dataset: English mailing-list and forum messages copied the way mail
copies them (forwarded, quoted in replies, re-wrapped, with headers, signatures and
list footers). Truth is by construction (each cluster = one original message).

Message bodies are real English technical prose: the numbered sections of Debian
Reference 2.100 in English (debian-reference-en, installed by scripts/setup), one
message per section of >= 400 characters (sources.debref_sections); a section whose
word 3-gram Jaccard with an earlier one is >= 0.3 is skipped.

Cluster sizes are heavy-tailed (Pareto, alpha 1.1, capped at 40). The first member is
the message as posted ("Subject: <section title>" and the body wrapped at 72 columns).
Each copy is, with these probabilities:
  forwarded (p=.35): a "---------- Forwarded message ---------" block with From, Date,
    Subject, To, and optionally (p=.5) one line of the forwarder's own on top;
  quoted in a reply (p=.35): "On <date>, <name> wrote:" and the body with "> " prefixes,
    plus a one- or two-sentence reply above or below (never longer than a fifth of the
    quote), sometimes (p=.3) with a paragraph of the quote cut ("[...]");
  re-sent (p=.3): the same message with "Re:"/"Fwd:"/"[debian-user]" subject tags.
and independently: re-wrapped at 60-78 columns or unwrapped (p=.5), a signature
(p=.4), a list footer (p=.3), CRLF line ends (p=.1), 1-3 changed words (p=.3).
Usage: mail.py OUT_DIR [--seed N] [--articles N]
Writes OUT_DIR/mail.jsonl ({"id","text"}) and OUT_DIR/mail_labels.jsonl.
"""
import argparse
import collections
import os
import random
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sources  # noqa: E402
from english import word_grams, write  # noqa: E402

NAMES = ["Alice Martin", "Bob Nguyen", "Carlos Diaz", "Dana Kowalski", "Erik Larsen",
         "Fatima Rahman", "Gao Wei", "Hannah Schmidt", "Ivan Petrov", "Julia Rossi"]
DATES = ["Mon, 3 Feb 2020 09:14:02 +0100", "Tue, 17 Mar 2020 22:41:55 -0500",
         "Wed, 1 Jul 2020 06:03:17 +0000", "Thu, 12 Nov 2020 13:30:00 +0800",
         "Fri, 5 Mar 2021 18:22:41 +0200", "Sat, 24 Jul 2021 11:09:12 -0700"]
REPLIES = ["Thanks, this fixed it for me.", "Same problem here on bookworm.",
           "Did you try this after a reboot? It did not work for me at first.",
           "See below, this is what the reference says.", "+1, worth adding to the wiki.",
           "I would be careful with this on a production server.",
           "Forwarding in case it helps. Let me know if you need the logs."]
FWD_NOTES = ["FYI, see below.", "Interesting read for the team.", "Can you have a look?"]
SIGS = ["-- \nBob\nSent from my phone", "-- \nregards,\nIvan", "--\nJulia Rossi\nSysadmin"]
FOOTERS = ["To UNSUBSCRIBE, email to debian-user-request@lists.debian.org with a subject "
           "of \"unsubscribe\". Trouble? Contact listmaster@lists.debian.org",
           "_______________________________________________\nforum mailing list\n"
           "https://lists.example.org/mailman/listinfo/forum"]


def load_messages(limit=None):
    out, kept = [], []
    for num, title, paras in sources.debref_sections("en"):
        body = [p for p in paras if not p.startswith("Table ")]
        if sum(len(p) for p in body) < 400:
            continue
        g = word_grams(" ".join(body))
        if any(len(g & h) >= 0.3 * len(g | h) for h in kept):
            continue
        kept.append(g)
        out.append((title, body))
        if limit is not None and len(out) >= limit:
            break
    return out


def wrap(paras, width):
    if width == 0:
        return "\n\n".join(paras)
    return "\n\n".join(textwrap.fill(p, width) for p in paras)


def change_words(rng, paras):
    paras = list(paras)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(paras))
        ws = list(re.finditer(r"[A-Za-z]{4,}", paras[i]))
        if len(ws) > 1:
            a, b = rng.sample(ws, 2)
            paras[i] = paras[i][:a.start()] + b.group(0) + paras[i][a.end():]
    return paras


def copy(rng, title, body):
    paras = change_words(rng, body) if rng.random() < 0.3 else list(body)
    width = rng.choice([0, 60, 66, 72, 78]) if rng.random() < 0.5 else 72
    sender, date = rng.choice(NAMES), rng.choice(DATES)
    kind = rng.random()
    if kind < 0.35:
        head = "---------- Forwarded message ---------\nFrom: %s <%s@example.org>\nDate: %s\n" \
               "Subject: %s\nTo: debian-user@lists.debian.org\n\n" % (
                   sender, sender.split()[0].lower(), date, title)
        note = rng.choice(FWD_NOTES) + "\n\n" if rng.random() < 0.5 else ""
        text = "Subject: Fwd: %s\n\n%s%s%s" % (title, note, head, wrap(paras, width))
    elif kind < 0.7:
        if rng.random() < 0.3 and len(paras) > 2:
            paras[rng.randrange(1, len(paras))] = "[...]"
        quoted = "\n".join("> " + l if l else ">" for l in wrap(paras, width - 2 if width else 0).split("\n"))
        reply = rng.choice(REPLIES)
        if rng.random() < 0.5:
            reply += " " + rng.choice(REPLIES)
        if len(reply) > len(quoted) / 5:
            reply = reply.split(". ")[0]
        lead = "On %s, %s wrote:\n" % (date, sender)
        text = "Subject: Re: %s\n\n" % title + (
            reply + "\n\n" + lead + quoted if rng.random() < 0.6 else lead + quoted + "\n\n" + reply)
    else:
        tag = rng.choice(["Re: ", "Fwd: ", "[debian-user] ", "Re: [debian-user] "])
        text = "Subject: %s%s\n\n%s" % (tag, title, wrap(paras, width))
    if rng.random() < 0.4:
        text += "\n\n" + rng.choice(SIGS)
    if rng.random() < 0.3:
        text += "\n\n" + rng.choice(FOOTERS)
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--articles", type=int, help="only the first N messages (test slices)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    messages = load_messages(args.articles)
    docs = []
    for c, (title, body) in enumerate(messages):
        size = min(40, int(rng.paretovariate(1.1)))
        docs.append(("t%04d" % c, "Subject: %s\n\n%s" % (title, wrap(body, 72))))
        for _ in range(size - 1):
            docs.append(("t%04d" % c, copy(rng, title, body)))
    rng.shuffle(docs)
    write(args.out_dir, "mail", "ml", docs)
    sizes = collections.Counter(collections.Counter(c for c, _ in docs).values())
    print("mail: %d messages, %d documents (seed %d); cluster sizes %s" %
          (len(messages), len(docs), args.seed, dict(sorted(sizes.items()))), file=sys.stderr)


if __name__ == "__main__":
    main()
