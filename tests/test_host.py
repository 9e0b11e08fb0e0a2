"""The host installs from its own release only; other suites are fetched.

What make deps installs (scripts/deps.sh) is resolved as apt would on a
machine with nothing installed, and every package must come from this
Debian's release (bookworm, its -updates and -security suites); the
build's own apt configuration for the other suites (build/apt: trixie,
trixie-backports, bookworm-backports) installs nothing, and the host's apt
does not list them.  The check itself fails once a suite it must refuse is
planted beside the host's, unpinned."""
import functools
import glob
import os
import re
import shutil
import subprocess

from lib.board import BUILD, versions_sh

# No board boots here: these run beside the exclusive tests (run.py)
GUESTLESS = True

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
POOL_TOOL = os.path.join(TOP, "scripts", "host", "debian-pool.py")
POOL = os.path.join(BUILD, "apt")
HOST = versions_sh("DEBIAN_SUITE")
ALLOW = [a for s in (HOST, f"{HOST}-updates", f"{HOST}-security") for a in ("--allow", s)]
# the suites the build fetches from (scripts/lib.sh derives them)
POOL_SUITES = subprocess.run(["bash", "-c", f'. "{TOP}/scripts/lib.sh" && echo $POOL_SUITES'],
                             capture_output=True, text=True, check=True).stdout.split()


def run(cmd, env=None, timeout=300):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


def debian_cmp(a, b):
    """Debian's order of two versions (dpkg --compare-versions)."""
    if a == b:
        return 0
    return -1 if run(["dpkg", "--compare-versions", a, "lt", b]).returncode == 0 else 1


def deps_packages():
    p = run(["bash", os.path.join(TOP, "scripts", "deps.sh"), "--list"])
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def planted_apt(logdir, pin):
    """An apt configuration with the host's sources and lists, and beside
    them an entry for trixie (indexes from the build's own configuration,
    so no download), pinned at -1 or not at all."""
    d = os.path.join(logdir, "pin" if pin else "nopin")
    shutil.rmtree(d, ignore_errors=True)
    lists = os.path.join(d, "lists")
    os.makedirs(os.path.join(lists, "partial"))
    parts = os.path.join(d, "sources.list.d")
    os.makedirs(parts)
    for f in glob.glob("/etc/apt/sources.list.d/*.sources") + \
            glob.glob("/etc/apt/sources.list.d/*.list"):
        shutil.copy(f, parts)
    if os.path.exists("/etc/apt/sources.list"):
        shutil.copy("/etc/apt/sources.list", os.path.join(d, "sources.list"))
    else:
        open(os.path.join(d, "sources.list"), "w").close()
    for src in ("/var/lib/apt/lists", os.path.join(POOL, "lists")):
        for f in glob.glob(os.path.join(src, "*")):
            if os.path.isfile(f) and not f.endswith("lock"):
                dst = os.path.join(lists, os.path.basename(f))
                if not os.path.exists(dst):
                    os.symlink(f, dst)
    pool_sources = open(os.path.join(POOL, "sources.list")).read()
    trixie = [l for l in pool_sources.splitlines() if l.startswith("deb ") and " trixie " in l]
    assert trixie, f"the build's apt configuration has no trixie entry:\n{pool_sources}"
    with open(os.path.join(parts, "planted.list"), "w") as f:
        f.write(trixie[0] + "\n")
    prefs = os.path.join(d, "preferences")
    with open(prefs, "w") as f:
        if pin:
            f.write("Package: *\nPin: release n=trixie\nPin-Priority: -1\n")
    conf = os.path.join(d, "apt.conf")
    with open(conf, "w") as f:
        f.write(f'Dir::Etc::SourceList "{d}/sources.list";\n'
                f'Dir::Etc::SourceParts "{parts}";\n'
                f'Dir::Etc::Preferences "{prefs}";\n'
                f'Dir::Etc::PreferencesParts "{d}/none";\n'
                f'Dir::State::Lists "{lists}";\n'
                f'Dir::Cache "{d}/cache";\n')
    os.makedirs(os.path.join(d, "cache", "archives", "partial"))
    return conf


def test_host_installs_only_from_its_release(logdir):
    """deps.sh's packages, and all they depend on, come from bookworm (and
    its -updates and -security suites) on a machine with nothing
    installed; the check refuses an unpinned trixie beside them."""
    pkgs = deps_packages()
    results = []
    p = run(["python3", POOL_TOOL, "check", *ALLOW, *pkgs])
    with open(os.path.join(logdir, "host.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    m = re.search(r"^(\d+) packages, all from (.*)$", p.stdout, re.M)
    results.append((f"the {len(pkgs)} packages of deps.sh resolve from {HOST} alone",
                    p.returncode == 0 and m and int(m.group(1)) >= len(pkgs),
                    (p.stdout + p.stderr).strip()[-600:]))
    # the check must be able to fail: trixie beside the host's sources
    for pin, want in ((False, 1), (True, 0)):
        conf = planted_apt(logdir, pin)
        p = run(["python3", POOL_TOOL, "check", *ALLOW, *pkgs], env={"APT_CONFIG": conf})
        with open(os.path.join(logdir, f"planted-{'pin' if pin else 'nopin'}.log"), "w") as f:
            f.write(p.stdout + p.stderr)
        if want:
            ok = p.returncode == 1 and "from trixie" in p.stderr
            results.append(("an unpinned trixie entry fails the check, naming what it would bring",
                            ok, (p.stdout + p.stderr).strip()[-600:]))
        else:
            results.append(("the same entry pinned at -1 passes it", p.returncode == 0,
                            (p.stdout + p.stderr).strip()[-600:]))
    return results


def test_other_suites_are_fetched_never_installed(logdir):
    """The host's apt lists none of the other releases' suites the build
    fetches from; the build's own configuration for them pins every one
    at -1, so apt can install nothing through it; QEMU is the newest
    source of its series that its suite serves, and so is each kernel
    series fetched from another suite."""
    results = []
    p = run(["apt-get", "indextargets", "--format", "$(CODENAME)", "Created-By: Packages"])
    host_suites = set(p.stdout.split())
    foreign = set(POOL_SUITES) - {f"{HOST}-backports"}
    results.append((f"the host's apt lists none of {', '.join(sorted(foreign))} (the build "
                    "adds no entry of its own)",
                    p.returncode == 0 and HOST in host_suites and not host_suites & foreign,
                    f"suites: {sorted(host_suites)}"))
    env = {"APT_CONFIG": os.path.join(POOL, "apt.conf")}
    p = run(["apt-get", "install", "-s", "-q", "qemu-system-arm", "meson"], env=env)
    results.append(("apt has no candidate to install through the build's configuration",
                    p.returncode != 0 and "Inst " not in p.stdout and
                    "has no installation candidate" in p.stdout + p.stderr,
                    (p.stdout + p.stderr).strip()[-400:]))
    # a pin does not stop "apt-get install -t trixie": the configuration
    # is download-only and its dpkg is /bin/false
    p = run(["apt-config", "dump"], env=env)
    conf = dict(re.findall(r'^(APT::Get::Download-Only|Dir::Bin::dpkg) "([^"]*)";$',
                           p.stdout, re.M))
    results.append(("it is download-only and its dpkg is /bin/false",
                    conf.get("APT::Get::Download-Only") == "true" and
                    conf.get("Dir::Bin::dpkg") == "/bin/false", f"{conf}"))
    p = run(["apt-cache", "policy", "meson"], env=env)
    prios = re.findall(r"^\s+(-?\d+) \S+ (\S+)/", p.stdout, re.M)
    listed = set(re.findall(r"^deb (?:\[[^\]]*\] )?\S+ (\S+) ",
                            open(os.path.join(POOL, "sources.list")).read(), re.M))
    results.append((f"it lists {', '.join(POOL_SUITES)}, each pinned at -1",
                    prios and all(int(n) == -1 for n, _ in prios) and listed == set(POOL_SUITES),
                    f"lists {sorted(listed)}; {p.stdout.strip()[-400:]}"))
    series, suite = versions_sh("QEMU_SERIES"), versions_sh("QEMU_SUITE")
    p = run(["apt-cache", "madison", "qemu"], env=env)
    served = sorted((v for v, s in re.findall(r"\|\s*(\S+)\s*\|\s*\S+ (\S+)/\S+ Sources", p.stdout)
                     if s == suite and v.split(":", 1)[-1].startswith(series + ".")),
                    key=functools.cmp_to_key(debian_cmp))
    have = open(os.path.join(BUILD, "qemu", ".pristine-stamp")).read().strip()
    results.append((f"QEMU is the newest {series}.x that {suite} serves",
                    served and have == served[-1], f"built from {have}, served: {served}"))
    version = open(os.path.join(BUILD, "qemu", "pristine", "VERSION")).read().strip()
    results.append((f"its tree is QEMU {series} ({version})", version.startswith(series + "."),
                    f"VERSION says {version}"))
    # each kernel series another suite serves: its newest linux-source-N.M
    for kver in versions_sh("LINUX_VERSIONS").split():
        try:
            suite = versions_sh(f"LINUX_SUITE_{kver.replace('.', '_')}")
        except KeyError:
            continue
        p = run(["apt-cache", "pkgnames", f"linux-source-{kver}."], env=env)
        pkgs = sorted((n for n in p.stdout.split() if re.fullmatch(rf"linux-source-{kver}\.\d+", n)),
                      key=lambda n: int(n.rsplit(".", 1)[1]))
        newest = None
        if pkgs:
            p = run(["apt-cache", "madison", pkgs[-1]], env=env)
            vers = [v for v, s in re.findall(r"\|\s*(\S+)\s*\|\s*\S+ (\S+)/\S+ \S+ Packages",
                                             p.stdout) if s == suite]
            if vers:
                newest = (pkgs[-1], sorted(vers, key=functools.cmp_to_key(debian_cmp))[-1])
        source = os.path.join(BUILD, f"linux-{kver}", "source")
        built = tuple(open(source).read().split()[:2]) if os.path.exists(source) else None
        results.append((f"Linux {kver} is the newest linux-source-{kver}.N that {suite} serves",
                        newest is not None and built == newest,
                        f"built from {built}, newest served: {newest}"))
    return results
