#!/usr/bin/env python3
"""guest-prune.py ROOT READELF PROGRAM...: of the Debian packages extracted
into ROOT (scripts/build-rootfs.sh), keep the PROGRAMs (paths in ROOT) and
the shared libraries they load, found through their DT_NEEDED entries as
the dynamic linker would in ROOT; remove every other ELF file and the
symlinks to what was removed.

The guest runs busybox, dash and a few Debian tools; the packages bring
along perl, dpkg, debconf, passwd's user tools and their libraries, which
nothing in the guest runs, and each megabyte of the initramfs costs every
boot of the test kernel time to unpack.  A program or library that is
missing, or a library no directory holds, is an error: nothing is left
half-linked."""
import os
import re
import stat
import subprocess
import sys

# where the dynamic linker of an armel Debian looks, in ROOT
LIB_DIRS = ["lib/arm-linux-gnueabi", "usr/lib/arm-linux-gnueabi", "lib", "usr/lib"]
# the dynamic linker itself, which no DT_NEEDED names
LOADERS = ["lib/ld-linux.so.3"]
NEEDED = re.compile(r"\(NEEDED\)\s+Shared library: \[(.+?)\]")


def resolve(root, rel):
    """The path in root that rel names, its symlinks followed inside root
    (an absolute target is root's, not the host's); None if nothing is
    there."""
    path, seen = rel.lstrip("/"), 0
    while True:
        full = os.path.join(root, path)
        if not os.path.lexists(full):
            return None
        if not os.path.islink(full):
            return os.path.normpath(path)
        seen += 1
        if seen > 40:
            return None
        target = os.readlink(full)
        path = os.path.normpath(target.lstrip("/") if target.startswith("/")
                                else os.path.join(os.path.dirname(path), target))
        if path.startswith(".."):
            return None


def is_elf(full):
    st = os.lstat(full)
    if not stat.S_ISREG(st.st_mode):
        return False
    with open(full, "rb") as f:
        return f.read(4) == b"\x7fELF"


def orphan_script(root, full):
    """A script whose interpreter is not an ELF file kept in root (perl's
    tools, debconf's): run, it could only fail."""
    st = os.lstat(full)
    if not stat.S_ISREG(st.st_mode):
        return False
    with open(full, "rb") as f:
        head = f.readline(200)
    if not head.startswith(b"#!") or not head[2:].split():
        return False
    interpreter = resolve(root, head[2:].split()[0].decode(errors="replace"))
    return interpreter is None or not is_elf(os.path.join(root, interpreter))


def needed(readelf, full):
    out = subprocess.run([readelf, "-d", full], capture_output=True, text=True, check=True)
    return NEEDED.findall(out.stdout)


def closure(root, readelf, programs):
    """The files (paths in root) the programs are and load."""
    keep, todo = set(), list(programs) + LOADERS
    while todo:
        rel = todo.pop()
        path = resolve(root, rel)
        if path is None:
            raise SystemExit(f"guest-prune: {rel} is not in {root}")
        if path in keep:
            continue
        keep.add(path)
        for lib in needed(readelf, os.path.join(root, path)):
            where = next((os.path.join(d, lib) for d in LIB_DIRS
                          if resolve(root, os.path.join(d, lib))), None)
            if where is None:
                raise SystemExit(f"guest-prune: {lib}, which {path} needs, is not in {root}")
            todo.append(where)
    return keep


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__.split("\n\n")[0])
    root, readelf, programs = sys.argv[1], sys.argv[2], sys.argv[3:]
    keep = closure(root, readelf, programs)
    removed, freed = set(), 0
    # the ELF files first, then the scripts whose interpreter went
    for orphan in (is_elf, lambda full: orphan_script(root, full)):
        for dirpath, _, files in os.walk(root):
            for name in files:
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root)
                if rel not in keep and orphan(full):
                    freed += os.lstat(full).st_size
                    os.remove(full)
                    removed.add(rel)
    # then the links that led to what was removed, and to those links (the
    # others, /dev/stdin -> /proc/self/fd/0, resolve at run time)
    links, more = 0, True
    while more:
        more = False
        for dirpath, _, files in os.walk(root):
            for name in files:
                full = os.path.join(dirpath, name)
                if not os.path.islink(full):
                    continue
                rel = os.path.relpath(full, root)
                target = os.readlink(full)
                path = os.path.normpath(target.lstrip("/") if target.startswith("/")
                                        else os.path.join(os.path.dirname(rel), target))
                if path in removed:
                    os.remove(full)
                    removed.add(rel)
                    links += 1
                    more = True
    print(f"kept {len(keep)} files; removed {len(removed) - links} programs, libraries and "
          f"scripts ({freed // 1024} KiB) and {links} links to them")


if __name__ == "__main__":
    main()
