"""kmemleak on the test kernel: its records, and which of them are ours.

Every board on the test kernel scans as it stops and any record fails the
test (lib/board.py); the leak tests also ask whether a record is of memory
our module allocated.  A record is ours if the first frame below the
allocator is in our module, loaded or since unloaded (no other module is
loaded in these tests)."""
import re

KMEMLEAK = "/sys/kernel/debug/kmemleak"

# A backtrace frame in module space (ARM: 0xbf000000-0xbfffffff) that no
# longer resolves: the module was unloaded before kmemleak printed it, or
# the frame is in its init code, freed once the module loaded.
UNLOADED_MODULE_FRAME = re.compile(r"0xbf[0-9a-f]{6}\b")

# Allocator entry points (and kmemleak's own hook, which 6.12 prints): the
# first frame below them is the allocating code.
ALLOCATOR = re.compile(r"\w*(kmalloc|kmem_cache_alloc|alloc_skb|kzalloc|kvmalloc|"
                       r"krealloc|kstrdup|kasprintf|kvasprintf|vmalloc|alloc_pages|"
                       r"get_free_pages|devm_k\w+|devres_alloc|pcpu_alloc|alloc_percpu|kmemleak_alloc)\w*\+")


def allocated_by(record, module):
    caller = allocator_caller(record)
    return f"[{module}]" in caller or bool(UNLOADED_MODULE_FRAME.match(caller))


def backtrace(record):
    """A record's backtrace frames, as "function+off/size [module]" or a
    raw address: 6.1 prints each behind its "[<address>] ", 6.12 without."""
    lines = record.splitlines()
    start = next((i + 1 for i, l in enumerate(lines) if l.strip().startswith("backtrace")),
                 len(lines))
    frames = []
    for line in lines[start:]:
        frame = line.strip()
        if frame.startswith("[<") and "] " in frame:
            frame = frame.split("] ", 1)[1].strip()
        if frame:
            frames.append(frame)
    return frames


def allocator_caller(record):
    """The first backtrace frame below the allocator: who allocated it."""
    return next((f for f in backtrace(record) if not ALLOCATOR.match(f)), "?")


def records(report):
    """The records of `cat kmemleak`, each from its "unreferenced object"."""
    return ["unreferenced object" + r for r in report.split("unreferenced object")[1:]]


def leaks_of(report, module):
    """The records of `cat kmemleak` that module allocated itself."""
    return [r for r in records(report) if allocated_by(r, module)]


def summary(record):
    """One line for a record: address, size, allocating function."""
    head = record.splitlines()[0].strip().rstrip(":")
    return f"{head} allocated by {allocator_caller(record)}"
