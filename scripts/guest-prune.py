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
# what glibc loads by name, kept where the packages have it: libgcc_s for
# pthread_cancel (a threaded iperf3, 3.16 on)
DLOPENED = ["lib/arm-linux-gnueabi/libgcc_s.so.1"]
NEEDED = re.compile(r"\(NEEDED\)\s+Shared library: \[(.+?)\]")


def resolve(root, rel):
    """The path in root that rel names, every symlink on the way followed
    inside root, as the guest will see it (an absolute target is root's,
    not the host's); None if nothing is there."""
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    path, links = [], 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            path = path[:-1]
            continue
        full = os.path.join(root, *path, part)
        if os.path.islink(full):
            links += 1
            if links > 40:
                return None
            target = os.readlink(full)
            if target.startswith("/"):
                path = []
            parts = [p for p in target.split("/") if p not in ("", ".")] + parts
            continue
        if not os.path.lexists(full):
            return None
        path.append(part)
    return "/".join(path)


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
    keep = set()
    todo = list(programs) + LOADERS + [d for d in DLOPENED if resolve(root, d)]
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
    removed, freed = set(), {}
    # the ELF files first, then the scripts whose interpreter went
    for orphan in (is_elf, lambda full: orphan_script(root, full)):
        for dirpath, _, files in os.walk(root):
            for name in files:
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root)
                if rel not in keep and orphan(full):
                    st = os.lstat(full)
                    freed[(st.st_dev, st.st_ino)] = st.st_size     # a hardlink once
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
                # where it points, its directory resolved inside root
                where = target if target.startswith("/") else \
                    os.path.join(os.path.dirname(rel), target)
                parent = resolve(root, os.path.dirname(where))
                if parent is not None and \
                        os.path.join(parent, os.path.basename(where)) in removed:
                    os.remove(full)
                    removed.add(rel)
                    links += 1
                    more = True
    print(f"kept {len(keep)} files; removed {len(removed) - links} programs, libraries and "
          f"scripts ({sum(freed.values()) // 1024} KiB) and {links} links to them")


if __name__ == "__main__":
    main()
