#!/usr/bin/env python3
"""The Debian pool: what the host installs, and what the build fetches.

The host installs packages of its own release only (bookworm, with its
updates and security suites).  What the build takes from other suites of
the same mirror (QEMU's source from trixie, Linux from trixie-backports,
meson from bookworm-backports) it fetches with an apt configuration of
its own, under build/: the host's apt never sees those suites, so no
"apt-get upgrade" of the host can ever take a package from them, and
that configuration pins them at -1, is download-only and has /bin/false
for dpkg besides, so nothing is installed from them even through it.  Its entries use the mirror the host's apt already
uses for its release: no host name is written anywhere.

    debian-pool.py config DIR SUITE...
        write DIR/apt.conf: an apt configuration for SUITE... (binary and
        source indexes), pinned at -1, download-only, its dpkg /bin/false,
        with an empty package status
    debian-pool.py check --allow SUITE [--allow SUITE]... PACKAGE...
        what installing PACKAGE... on a machine with nothing installed
        would take, and from which suite (with apt's configuration as
        APT_CONFIG names it, the host's by default); fails naming every
        package that would come from a suite not allowed
"""
import os
import re
import subprocess
import sys


def die(msg):
    sys.exit(f"debian-pool: {msg}")


def host_codename():
    with open("/etc/os-release") as f:
        for line in f:
            if line.startswith("VERSION_CODENAME="):
                return line.split("=", 1)[1].strip().strip('"')
    die("/etc/os-release names no VERSION_CODENAME")


def index_targets():
    """apt's binary index targets as dicts (apt-get indextargets)."""
    out = subprocess.run(["apt-get", "indextargets", "Created-By: Packages"],
                         check=True, capture_output=True, text=True).stdout
    for block in out.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines()
                      if ": " in line)
        if fields:
            yield fields


def release_entry():
    """The Debian mirror and keyring that serve the host's own release."""
    codename = host_codename()
    for t in index_targets():
        if t.get("Origin") == "Debian" and t.get("Codename") == codename:
            path, n = t["Sourcesentry"].rsplit(":", 1)
            return t["Repo-URI"], signed_by(path, int(n))
    die(f"apt has no Debian entry for {codename}: no mirror to fetch from")


def signed_by(path, n):
    """Signed-By of entry N of PATH (a deb822 stanza or a one-line entry)."""
    text = open(path).read()
    if path.endswith(".sources"):
        stanzas = [s for s in re.split(r"\n\s*\n", text)
                   if any(l.strip() and not l.startswith("#") for l in s.splitlines())]
        m = re.search(r"(?mi)^Signed-By:\s*(\S+)\s*$", stanzas[n - 1])
    else:
        m = re.search(r"signed-by=([^\s\]]+)", text.splitlines()[n - 1])
    return m.group(1) if m else None


def config(d, suites):
    uri, key = release_entry()
    d = os.path.abspath(d)
    for sub in ("lists/partial", "cache/archives/partial", "none"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    opt = f" [signed-by={key}]" if key else ""
    with open(os.path.join(d, "sources.list.new"), "w") as f:
        for s in suites:
            f.write(f"deb{opt} {uri} {s} main\ndeb-src{opt} {uri} {s} main\n")
    os.replace(os.path.join(d, "sources.list.new"), os.path.join(d, "sources.list"))
    with open(os.path.join(d, "preferences"), "w") as f:
        f.write("# Fetched from, never installed from\n")
        for s in suites:
            f.write(f"Package: *\nPin: release n={s}\nPin-Priority: -1\n\n")
    open(os.path.join(d, "status"), "w").close()
    # Fetch only: an install through this configuration stops once it has
    # downloaded, and its dpkg is /bin/false besides (a pin does not stop
    # "apt-get install -t trixie")
    with open(os.path.join(d, "apt.conf.new"), "w") as f:
        f.write(f'''Dir::Etc::SourceList "{d}/sources.list";
Dir::Etc::SourceParts "{d}/none";
Dir::Etc::Preferences "{d}/preferences";
Dir::Etc::PreferencesParts "{d}/none";
Dir::State::Lists "{d}/lists";
Dir::State::status "{d}/status";
Dir::Cache "{d}/cache";
APT::Sandbox::User "root";
APT::Get::Download-Only "true";
Dir::Bin::dpkg "/bin/false";
''')
    os.replace(os.path.join(d, "apt.conf.new"), os.path.join(d, "apt.conf"))


def origins(wanted):
    """{package: the suites apt would take it from} for WANTED, a dict of
    package: version (one apt-cache call for them all)."""
    out = subprocess.run(["apt-cache", "policy", *wanted], check=True,
                         capture_output=True, text=True).stdout
    found, pkg, mine = {}, None, False
    for line in out.splitlines():
        m = re.match(r"^(\S+):$", line)
        if m:
            pkg, mine = m.group(1), False
            found.setdefault(pkg, set())
            continue
        m = re.match(r"^ (\*\*\*| {3}) (\S+) -?\d+$", line)
        if m:
            mine = pkg in wanted and m.group(2) == wanted[pkg]
        elif mine:
            m = re.match(r"^\s+-?\d+ \S+ (\S+)/\S+ \S+ Packages$", line)
            if m:
                found[pkg].add(m.group(1))
    return found


def check(allow, packages):
    allow = set(allow)
    # From an empty status, so that every package the build needs, and
    # everything it depends on, is resolved, whatever this host has now
    empty = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"debian-pool-status-{os.getpid()}")
    open(empty, "w").close()
    try:
        p = subprocess.run(["apt-get", "install", "-s", "-q", "--no-install-recommends",
                            "-o", f"Dir::State::status={empty}", *packages],
                           capture_output=True, text=True)
    finally:
        os.unlink(empty)
    if p.returncode:
        die(f"apt cannot resolve {' '.join(packages)}:\n{p.stderr.strip()}")
    wanted = dict(m.groups() for m in
                  re.finditer(r"(?m)^Inst (\S+) (?:\[\S+\] )?\((\S+) ", p.stdout))
    n = len(wanted)
    found = origins(wanted) if wanted else {}
    bad = [f"{pkg} {ver} from {', '.join(sorted(found.get(pkg, ()))) or 'no suite'}"
           for pkg, ver in sorted(wanted.items()) if not found.get(pkg, set()) & allow]
    if not n:
        die("apt would install nothing: cannot tell where packages come from")
    if bad:
        print(f"error: {len(bad)} of {n} packages would come from a suite other than "
              f"{', '.join(sorted(allow))}:", file=sys.stderr)
        for b in bad:
            print(f"    {b}", file=sys.stderr)
        sys.exit(1)
    print(f"{n} packages, all from {', '.join(sorted(allow))}")


def main():
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "config":
        config(a[1], a[2:])
    elif a and a[0] == "check":
        allow, pkgs = [], []
        it = iter(a[1:])
        for x in it:
            if x == "--allow":
                allow.append(next(it, None) or die("--allow needs a suite"))
            else:
                pkgs.append(x)
        if not pkgs or not allow:
            die("check: no package named, or no --allow SUITE")
        check(allow, pkgs)
    else:
        die("usage: debian-pool.py config DIR SUITE... | check --allow SUITE... PACKAGE...")


if __name__ == "__main__":
    main()
