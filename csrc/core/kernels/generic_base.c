/* The generic kernels for the baseline instruction set (16-byte vectors: SSE2 on x86-64,
 * NEON on AArch64), compiled with no target attribute; the fallback on every CPU. */
#include "kernels/generic_common.h"

#define SA_PRE base
#define SA_TGT
#define SA_VB 16
#define SA_MR 8
#define SA_MRC 4
#include "kernels/generic_target.h"
