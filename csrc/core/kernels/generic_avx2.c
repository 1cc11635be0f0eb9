/* The generic kernels for AVX2 + FMA (32-byte vectors, masked edge loads and stores); chosen
 * at run time by kernels/generic.c when the CPU has AVX2 and FMA but not AVX-512. */
#include "kernels/generic_common.h"

#if defined(SA_X86)
#define SA_PRE avx2
#define SA_TGT __attribute__((target("avx2,fma")))
#define SA_VB 32
#define SA_MR 8
#define SA_MRC 4
#define SA_MASK256 1
#include "kernels/generic_target.h"
#endif
