/* SPDX-License-Identifier: GPL-2.0 */
#include "kernel_shim.h"
