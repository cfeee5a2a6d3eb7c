/* rng.h: the per-component PRNG (xoshiro256**, Blackman & Vigna 2018), seeded by SplitMix64
 * from the run seed mixed with a hash of the component's name, so adding a component never
 * changes another's random stream and the same seed always gives the same run. */
#ifndef ARCHSIM_RNG_H
#define ARCHSIM_RNG_H

#include <stdint.h>

typedef struct { uint64_t s[4]; } SimRng;

static inline uint64_t sim_rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void sim_rng_seed(SimRng *r, uint64_t seed, const char *name)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the name */
    for (const char *p = name; p && *p; p++)
        h = (h ^ (uint8_t)*p) * 1099511628211ull;
    uint64_t x = seed ^ h;
    for (int i = 0; i < 4; i++)
        r->s[i] = sim_rng_splitmix(&x);
}

static inline uint64_t sim_rng_next(SimRng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform in [0, n) (n > 0), by Lemire's multiply-shift (bias < 2^-32 for small n). */
static inline uint64_t sim_rng_below(SimRng *r, uint64_t n)
{
    return (uint64_t)(((__uint128_t)sim_rng_next(r) * n) >> 64);
}

#endif
