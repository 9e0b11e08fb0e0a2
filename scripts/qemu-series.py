#!/usr/bin/env python3
"""Make the QEMU patch series (patches/qemu) from the model's sources in qemu/.

    qemu-series.py PRISTINE OUTDIR
    qemu-series.py --hardware PATH     print qemu/PATH without its test machinery

PRISTINE is Debian's QEMU source tree; OUTDIR receives the series as
"git format-patch" files that "git am" applies to it.

qemu/ is laid out as QEMU's tree.  A file there that QEMU does not have
(the model, its header, its qtests) is added whole; a file that QEMU has
(hw/net/trace-events, Kconfig, meson.build) holds only our lines, which
are appended to QEMU's.  qemu/series/NNNN-*.patch are the commits in
order: the commit message, then after "---" a "Files:" line for each
file of qemu/ the commit brings, then a diff of the (small) changes to
QEMU's own files.

"Files: PATH (hardware)" brings PATH without its test machinery: the
lines between a line "/* test machinery { */" (or "# test machinery {")
and the next "/* } test machinery */" (or "# } test machinery").  A
later commit brings the whole file.  The marker lines themselves are
never part of the series.

The output depends only on the inputs: fixed identity and dates, so the
suite can check that patches/qemu is current.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SRC = os.path.join(TOP, "qemu")
SERIES = os.path.join(SRC, "series")
BEGIN = re.compile(r"^\s*(/\*|\*|#)\s*test machinery \{\s*(\*/)?\s*$")
END = re.compile(r"^\s*(/\*|\*|#)\s*\} test machinery\s*(\*/)?\s*$")
FILES = re.compile(r"^Files: (\S+)( \(hardware\))?$")


def die(msg):
    sys.exit(f"qemu-series: {msg}")


def variant(path, hardware):
    """The file at PATH under qemu/, whole or without its test machinery."""
    out, inside = [], None
    with open(os.path.join(SRC, path)) as f:
        for n, line in enumerate(f, 1):
            if BEGIN.match(line):
                if inside:
                    die(f"qemu/{path}:{n}: test machinery block inside the one at line {inside}")
                inside = n
            elif END.match(line):
                if not inside:
                    die(f"qemu/{path}:{n}: end of a test machinery block that did not begin")
                inside = None
            elif not (hardware and inside):
                out.append(line)
    if inside:
        die(f"qemu/{path}:{inside}: test machinery block without its end")
    return "".join(out)


def parse(patch):
    text = open(patch).read()
    msg, sep, rest = text.partition("\n---\n")
    if not sep:
        die(f"{patch}: no '---' line after the commit message")
    files, diff = [], []
    for n, line in enumerate(rest.splitlines(keepends=True)):
        m = FILES.match(line.rstrip("\n"))
        if m and not diff:
            files.append((m.group(1), bool(m.group(2))))
        elif line.startswith("diff --git ") or diff:
            diff.append(line)
        elif line.strip():
            die(f"{patch}: unexpected line after '---': {line.strip()}")
    for path, _ in files:
        if not os.path.isfile(os.path.join(SRC, path)):
            die(f"{patch}: Files: {path}: no such file under qemu/")
    return msg.rstrip("\n") + "\n", files, "".join(diff)


def git(tree, *args, stdin=None):
    p = subprocess.run(["git", "-C", tree, "-c", "core.abbrev=12", *args],
                       input=stdin, capture_output=True, text=True)
    if p.returncode:
        die(f"git {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--hardware":
        sys.stdout.write(variant(sys.argv[2], True))
        return
    if len(sys.argv) != 3:
        die("usage: qemu-series.py PRISTINE OUTDIR")
    pristine, outdir = sys.argv[1:]
    if not os.path.isfile(os.path.join(pristine, "VERSION")):
        die(f"{pristine}: not a QEMU source tree (make qemu fetches it)")
    patches = sorted(os.path.join(SERIES, p) for p in os.listdir(SERIES)
                     if re.match(r"\d{4}-.*\.patch$", p))
    if not patches:
        die("qemu/series has no NNNN-*.patch")
    commits = [parse(p) for p in patches]

    # Fixed identity and dates: the same sources give the same patches.
    name = subprocess.run(["git", "-C", TOP, "config", "user.name"], capture_output=True,
                          text=True).stdout.strip() or "ENCX24J600 developers"
    email = subprocess.run(["git", "-C", TOP, "config", "user.email"], capture_output=True,
                           text=True).stdout.strip() or "encx24j600@localhost"
    date = "2026-01-01T00:00:00+0000"
    os.environ.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name,
                      GIT_COMMITTER_EMAIL=email, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)

    # The scratch tree holds the QEMU files the series touches, nothing else.
    brought, diffed = set(), set()
    for _, files, diff in commits:
        brought |= {p for p, _ in files}
        diffed |= set(re.findall(r"(?m)^diff --git a/(\S+)", diff))
    if brought & diffed:
        die(f"{', '.join(sorted(brought & diffed))}: both in qemu/ and in a diff: "
            "the lines of a file live in one place")
    touched = brought | diffed
    base = {}
    with tempfile.TemporaryDirectory() as tree:
        for p in sorted(touched):
            src = os.path.join(pristine, p)
            if os.path.isfile(src):
                os.makedirs(os.path.dirname(os.path.join(tree, p)), exist_ok=True)
                shutil.copy(src, os.path.join(tree, p))
                base[p] = open(src).read()
        git(tree, "init", "-q")
        git(tree, "add", "-A")
        git(tree, "commit", "-q", "-m", "Debian QEMU source")
        for patch, (msg, files, diff) in zip(patches, commits):
            # the series' own MAINTAINERS entry names its author
            diff = diff.replace("@MAINTAINER@", f"{name} <{email}>")
            if diff:
                p = subprocess.run(["git", "-C", tree, "apply", "-"], input=diff,
                                   capture_output=True, text=True)
                if p.returncode:
                    die(f"{os.path.relpath(patch, TOP)}: its diff does not apply: "
                        f"{p.stderr.strip()}")
            for path, hardware in files:
                dst = os.path.join(tree, path)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "w") as f:
                    f.write(base.get(path, "") + variant(path, hardware))
            git(tree, "add", "-A")
            git(tree, "commit", "-q", "-s", "-F", "-", stdin=msg)
        os.makedirs(outdir, exist_ok=True)
        for old in os.listdir(outdir):
            if old.endswith(".patch"):
                os.unlink(os.path.join(outdir, old))
        git(tree, "format-patch", "-q", "--no-signature", "-o", outdir,
            f"HEAD~{len(commits)}")


if __name__ == "__main__":
    main()
