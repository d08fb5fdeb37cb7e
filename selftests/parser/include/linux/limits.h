/* SPDX-License-Identifier: GPL-2.0 */
/* System headers include it too: the uapi one serves both. */
#include_next <linux/limits.h>
