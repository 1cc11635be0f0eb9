/* The generic kernels for AVX-512 (64-byte vectors, masked edge loads and stores); chosen at
 * run time by kernels/generic.c when the CPU has AVX-512F/DQ/BW/VL and FMA. */
#include "kernels/generic_common.h"

#if defined(SA_X86)
#define SA_PRE avx512
#define SA_TGT __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")))
#define SA_VB 64
#define SA_MR 8
#define SA_MRC 4
#define SA_MASK512 1
#include "kernels/generic_target.h"
#endif
