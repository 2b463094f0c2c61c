# SPDX-License-Identifier: Apache-2.0
"""OpenCC character tables for the dataset scripts (one character -> its first mapping)."""
import os


def load_char_table(data_dir, name):
    """name: "TSCharacters" (Traditional->Simplified) or "STCharacters" (the reverse)."""
    table = {}
    path = os.path.join(data_dir, "opencc", "data", "dictionary", name + ".txt")
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or "\t" not in line:
                continue
            key, vals = line.rstrip("\n").split("\t", 1)
            if len(key) == 1 and vals:
                table[key] = vals.split(" ")[0]
    return table
