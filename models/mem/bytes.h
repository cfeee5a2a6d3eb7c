/* bytes.h: the n <= 8 bytes of a value in simulated memory, read and written a word at a time.
 * The simulated machines are little-endian (x86's order, as the traces and litmus tests are):
 * byte i of a value is bits 8i..8i+7. On a little-endian host that is the host's own order, so
 * an access is one load or store of its width; elsewhere it goes byte by byte.
 */
#ifndef ARCHSIM_BYTES_H
#define ARCHSIM_BYTES_H

#include <stdint.h>
#include <string.h>

/* The low n bytes of v, n in 1..8. */
static inline uint64_t mem_mask_bytes(uint32_t n)
{
    return n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
}

/* Reads n bytes at d as a little-endian number (n in 1..8; more reads the first 8). */
static inline uint64_t mem_load_le(const uint8_t *d, uint32_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    uint32_t v32;
    uint16_t v16;
    switch (n) {
    case 1: return d[0];
    case 2: memcpy(&v16, d, 2); return v16;
    case 4: memcpy(&v32, d, 4); return v32;
    case 8: memcpy(&v, d, 8); return v;
    default: break;
    }
#endif
    uint64_t r = 0;
    for (uint32_t i = 0; i < n && i < 8; i++)
        r |= (uint64_t)d[i] << (8 * i);
    return r;
}

/* Writes the low n bytes of v at d, little-endian (n in 1..8). */
static inline void mem_store_le(uint8_t *d, uint64_t v, uint32_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t v32 = (uint32_t)v;
    uint16_t v16 = (uint16_t)v;
    switch (n) {
    case 1: d[0] = (uint8_t)v; return;
    case 2: memcpy(d, &v16, 2); return;
    case 4: memcpy(d, &v32, 4); return;
    case 8: memcpy(d, &v, 8); return;
    default: break;
    }
#endif
    for (uint32_t i = 0; i < n && i < 8; i++)
        d[i] = (uint8_t)(v >> (8 * i));
}

/* Writes n bytes at d with v's 8 bytes repeated (a store wider than a word: byte i is byte
 * i % 8 of v). */
static inline void mem_fill_le(uint8_t *d, uint64_t v, uint32_t n)
{
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8)
        mem_store_le(d + i, v, 8);
    for (; i < n; i++)
        d[i] = (uint8_t)(v >> (8 * (i % 8)));
}

#endif
