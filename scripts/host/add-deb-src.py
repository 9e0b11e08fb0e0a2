#!/usr/bin/env python3
"""Enable deb-src for the Debian archive entries apt already uses.

"apt-get source qemu" needs source indexes.  Rather than naming a mirror,
turn on deb-src for exactly the entries that already serve Debian's binary
packages: in a deb822 .sources stanza add "deb-src" to Types, in a
one-line .list file add a deb-src twin of the line (options kept, so
Signed-By stays consistent).  Prints what it changed; idempotent.
"""
import subprocess
import sys


def debian_entries():
    out = subprocess.run(
        ["apt-get", "indextargets", "Created-By: Packages"],
        check=True, capture_output=True, text=True).stdout
    entries = set()
    for block in out.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines()
                      if ": " in line)
        if fields.get("Origin") == "Debian" and "Sourcesentry" in fields:
            path, line = fields["Sourcesentry"].rsplit(":", 1)
            entries.add((path, int(line)))
    return entries


def fix_deb822(path, lines_wanted):
    text = open(path).read().split("\n")
    changed = False
    # stanza numbering in Sourcesentry counts stanzas, starting at 1
    stanza = 0
    in_stanza = False
    for i, line in enumerate(text):
        if line.strip() == "":
            in_stanza = False
            continue
        if line.startswith("#"):
            continue
        if not in_stanza:
            in_stanza = True
            stanza += 1
        if stanza in lines_wanted and line.lower().startswith("types:"):
            types = line.split(":", 1)[1].split()
            if "deb-src" not in types:
                text[i] = "Types: " + " ".join(types + ["deb-src"])
                changed = True
    if changed:
        open(path, "w").write("\n".join(text))
    return changed


def fix_list(path, lines_wanted):
    text = open(path).read().split("\n")
    out = []
    changed = False
    have = {line.strip() for line in text}
    for n, line in enumerate(text, 1):
        out.append(line)
        if n in lines_wanted and line.lstrip().startswith("deb "):
            twin = line.replace("deb ", "deb-src ", 1)
            if twin.strip() not in have:
                out.append(twin)
                changed = True
    if changed:
        open(path, "w").write("\n".join(out))
    return changed


def main():
    by_file = {}
    for path, n in debian_entries():
        by_file.setdefault(path, set()).add(n)
    if not by_file:
        sys.exit("no Debian archive entries found in apt's sources")
    for path, wanted in sorted(by_file.items()):
        fix = fix_deb822 if path.endswith(".sources") else fix_list
        if fix(path, wanted):
            print(f"enabled deb-src in {path}")


if __name__ == "__main__":
    main()
