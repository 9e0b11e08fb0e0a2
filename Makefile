# ENCX24J600 on an emulated versatilepb board.
#
#   make demo    build what is missing, boot, ping, iperf3, report (main job)
#   make test    build what is missing, run the test suite
#
# Both install the Debian packages they need first (as root).  Every build
# step is keyed on its inputs and skipped when nothing changed.

SHELL := /bin/bash
S := scripts

# The kernel flavour the build steps work on: the production kernel unless
# a recipe below asks for the test kernel (images-debug).  Never taken from
# the environment, where the test harness sets it for the guests it boots.
override KFLAVOR := $(if $(filter command line,$(origin KFLAVOR)),$(KFLAVOR),)
export KFLAVOR

# The kernel version (config/versions.sh: LINUX_VERSIONS, LINUX_DEFAULT):
# make KVER=6.12 demo|bench|images ...
export KVER
LINUX_SUITE_VERSIONS := $(shell . config/versions.sh; echo $$LINUX_SUITE_VERSIONS)
LINUX_TEST_KERNELS := $(shell . config/versions.sh; echo $$LINUX_TEST_KERNELS)
KVER_MAIN := $(or $(KVER),$(shell . config/versions.sh; echo $$LINUX_DEFAULT))

.PHONY: all demo test bench soak fuzz deps kernel driver driver-check kunit kunit-check qemu qemu-asan qemu-patches upstream upstream-tree rootfs images images-debug images-others build clean distclean

all: demo

deps:
	@$(S)/deps.sh

kernel: deps
	@$(S)/build-kernel.sh

driver: kernel
	@$(S)/build-driver.sh

driver-check: kernel
	@$(S)/build-driver.sh check

kunit-check: kernel
	@$(S)/build-kunit.sh check

kunit: kernel
	@$(S)/build-kunit.sh

qemu: deps
	@$(S)/build-qemu.sh

# patches/qemu, the series the build makes from the model's sources in qemu/
qemu-patches: deps
	@$(S)/build-qemu.sh --export

# The kernel series for upstream, made from drivers/ and tests/kunit/ into
# build/upstream (never stored: the code lives once), and the tree they make:
# applied to a fresh Debian tree, built as the board's kernel (the suite
# boots it: tests/test_upstream.py)
upstream: deps
	@$(S)/export-upstream.sh

upstream-tree: deps
	@$(MAKE) --no-print-directory images KVER=$$(. config/versions.sh; echo $$LINUX_UPSTREAM_BASE)
	@$(S)/build-upstream-tree.sh build/upstream-tree

# QEMU with ASan + UBSan, for the fuzz runs
qemu-asan: deps
	@SANITIZE=1 $(S)/build-qemu.sh

rootfs: driver kunit kernel
	@$(S)/build-rootfs.sh

images: kernel rootfs
	@$(S)/build-images.sh

# The test kernel (lockdep, KASAN, UBSAN, kmemleak ...) with the same
# modules and guest: the same steps with KFLAVOR=debug.
images-debug:
	@$(MAKE) --no-print-directory images KFLAVOR=debug

# The kernels of each other kernel the suite boots (LINUX_SUITE_VERSIONS):
# the tests marked every_kernel run on each (tests/run.py), the driver's
# efficiency tests on its production kernel; the test kernel only of
# those of LINUX_TEST_KERNELS
images-others:
	@for v in $(filter-out $(KVER_MAIN),$(LINUX_SUITE_VERSIONS)); do \
		$(MAKE) --no-print-directory images KVER=$$v || exit 1; \
		case " $(LINUX_TEST_KERNELS) " in *" $$v "*) \
			$(MAKE) --no-print-directory images KFLAVOR=debug KVER=$$v || exit 1;; \
		esac; \
	done

# One step after another.  Two at once (QEMU's two builds beside the 6.1
# kernel) took 1190 s on two cores where the same steps in turn took 1061:
# the overlap of one's serial steps with the other's compiling is lost to
# six compilers on two cores.
build: qemu qemu-asan images images-debug images-others

demo: qemu images
	@python3 $(S)/demo.py

test:
	@$(S)/test.sh

clean:
	rm -rf build/test-logs build/test-cache build/driver* build/kunit* build/images* build/rootfs/tree* build/rootfs/modules* build/rootfs/initramfs*

distclean:
	rm -rf build

# One million random SPI commands against the model on the ASan build
# Load, link flaps, module reloads and every injected fault 100 times, on
# the test kernel (scripts/soak.py; about an hour)
soak: qemu images-debug
	@KFLAVOR=debug python3 $(S)/soak.py

fuzz: qemu-asan
	@python3 $(S)/fuzz-model.py

bench: qemu images
	@python3 $(S)/bench.py
