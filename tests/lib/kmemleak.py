"""kmemleak on the test kernel: which of its records are ours.

On this 32-bit KASAN kernel kmemleak also lists the kernel's own live
objects by the hundred (dentries, inodes, anon_vmas, task stacks, names
made by core code our probe called): those are kept in the logs, not
judged.  A record is ours if the first frame below the allocator is in
our module, loaded or since unloaded (no other module is loaded in these
tests)."""
import re

KMEMLEAK = "/sys/kernel/debug/kmemleak"

# A backtrace frame in module space (ARM: 0xbf000000-0xbfffffff) that no
# longer resolves: the module was unloaded before kmemleak printed it.
UNLOADED_MODULE_FRAME = re.compile(r"\] 0xbf[0-9a-f]{6}\b")

# Allocator entry points: the first frame below them is the allocating code.
ALLOCATOR = re.compile(r"\] (\w*(kmalloc|kmem_cache_alloc|alloc_skb|kzalloc|kvmalloc|"
                       r"krealloc|kstrdup|kasprintf|kvasprintf|vmalloc|alloc_pages|"
                       r"get_free_pages|devm_k\w+|devres_alloc)\w*)\+")


def allocated_by(record, module):
    for line in record.splitlines():
        if "] " not in line or "[<" not in line:
            continue
        if ALLOCATOR.search(line):
            continue
        return f"[{module}]" in line or bool(UNLOADED_MODULE_FRAME.search(line))
    return False


def leaks_of(report, module):
    """The records of `cat kmemleak` that module allocated itself."""
    return [r for r in report.split("unreferenced object")[1:] if allocated_by(r, module)]
