/* The descriptor's own function (api/array.h): what every part of the core needs to know
 * about a dtype code, apart from any one job that uses it (packing, matmul, the kernels). */
#include "base/array_internal.h"

int sa_itemsize(int dtype)
{
    switch (dtype) {
#define SA_SIZE_CASE(code, ctype, sfx) case code: return (int)sizeof(ctype);
        SA_FOR_EACH_DTYPE(SA_SIZE_CASE)
#undef SA_SIZE_CASE
    default: return 0;
    }
}
