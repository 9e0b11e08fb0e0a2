# The devices QEMU is built with (configure --without-default-devices): the
# board, and the virt machine that the PL061 qtest boots.  Kconfig selects
# what each needs; everything else (some forty other boards, PCI cards)
# stays out of the build.
CONFIG_VERSATILE=y
CONFIG_ARM_VIRT=y
# QEMU builds the M-profile CPU code into every ARM target
# (target/arm/tcg/m_helper.c), and it calls into the NVIC and
# semihosting: without them it does not link
CONFIG_ARM_V7M=y
CONFIG_SEMIHOSTING=y
CONFIG_ARM_COMPATIBLE_SEMIHOSTING=y
