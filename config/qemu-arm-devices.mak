# The devices QEMU is built with (configure --without-default-devices): the
# board, and the virt machine that the PL061 qtest boots.  Kconfig selects
# what each needs (the ARM target itself selects the M-profile code its
# CPU helpers call into, and semihosting); everything else (some forty
# other boards, PCI cards) stays out of the build.
CONFIG_VERSATILE=y
CONFIG_ARM_VIRT=y
