/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Linux 6.12 moved the unaligned access helpers to <linux/unaligned.h>;
 * older kernels have them in <asm/unaligned.h> only.  The Kbuild file puts
 * this directory on the include path after the kernel's own, so a kernel
 * with the new header uses it, and the driver's sources use the current
 * name everywhere.
 */
#ifndef ENC424J600_COMPAT_LINUX_UNALIGNED_H
#define ENC424J600_COMPAT_LINUX_UNALIGNED_H

#include <asm/unaligned.h>

#endif
