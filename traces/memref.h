/* memref.h: one memory reference of a single-threaded trace, as the front ends hand it on. */
#ifndef ARCHSIM_MEMREF_H
#define ARCHSIM_MEMREF_H

#include <stdint.h>

typedef enum {
    MEMREF_IFETCH = 0,  /* instruction fetch (lackey "I") */
    MEMREF_LOAD = 1,    /* data read (" L") */
    MEMREF_STORE = 2,   /* data write (" S") */
    MEMREF_MODIFY = 3,  /* read-modify-write of one address by one instruction (" M") */
} MemRefKind;

typedef struct {
    uint64_t addr;
    uint32_t size;   /* bytes, >= 1 */
    uint32_t kind;   /* MemRefKind */
} MemRef;

#endif
