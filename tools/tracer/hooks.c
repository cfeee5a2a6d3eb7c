/* hooks.c: the __tsan_* entry points that `-fsanitize=thread` makes gcc 12 and clang 14 call
 * (names from `nm -u` on instrumented objects and compiler-rt's tsan_interface*.h; docs/
 * references.md §4). Each records one
 * AtRecord with PC = the hook's return address (inside the instrumented code; use PC-1 for
 * addr2line) and, for atomics, performs the real operation.
 *
 * Atomics run with __ATOMIC_SEQ_CST whatever order the program asked for, and the trace records
 * the requested order. seq_cst is at least as strong as every C11 order, so the program stays
 * correct; the cost on x86-64 is that relaxed/release stores become xchg and relaxed/acquire/
 * release fences become mfence (loads and RMWs compile the same for every order). Signal fences
 * are compiler-only barriers and are performed but not recorded.
 */
#include <stdint.h>

#include "rt.h"

#ifdef __clang__
/* 16-byte atomics go through libatomic on purpose (-latomic); clang warns about each one */
#pragma clang diagnostic ignored "-Watomic-alignment"
#endif

static inline __attribute__((always_inline)) void rt_atomic(AtKind kind, unsigned op,
                                                            uint32_t size, const volatile void *a,
                                                            int mo, int mo_fail, uint8_t flags,
                                                            uint64_t pc)
{
    RtThread *t = rt_enter();
    if (t == NULL)
        return;
    t->guard++;
    AtRecord r = { .kind = (uint8_t)kind, .mo = (uint8_t)rt_order(mo),
                   .mo_fail = (uint8_t)rt_order(mo_fail), .op = (uint8_t)op, .flags = flags,
                   .size = size, .addr = (uint64_t)(uintptr_t)a, .pc = pc };
    rt_put(t, &r);
    t->guard--;
}

/* ---- start-up, functions, vtables: no records --------------------------------------------- */

void __tsan_init(void);
void __tsan_func_entry(void *call_pc);
void __tsan_func_exit(void);
void __tsan_vptr_read(void **vptr_p);
void __tsan_vptr_update(void **vptr_p, void *new_val);

void __tsan_init(void)
{
    rt_init();
}

void __tsan_func_entry(void *call_pc)
{
    (void)call_pc;
}

void __tsan_func_exit(void)
{
}

void __tsan_vptr_read(void **vptr_p)
{
    (void)vptr_p;
}

void __tsan_vptr_update(void **vptr_p, void *new_val)
{
    (void)vptr_p;
    (void)new_val;
}

/* ---- plain accesses: read/write, unaligned, volatile, explicit-pc, ranges ------------------ */

#define RT_ACCESS(name, kind, size)                                                               \
    void __tsan_##name(void *addr);                                                               \
    void __tsan_##name(void *addr)                                                                \
    {                                                                                             \
        rt_event(kind, size, (uint64_t)(uintptr_t)addr, 0, RT_PC());                              \
    }
#define RT_ACCESS_PC(name, kind, size)                                                            \
    void __tsan_##name##_pc(void *addr, void *pc);                                                \
    void __tsan_##name##_pc(void *addr, void *pc)                                                 \
    {                                                                                             \
        rt_event(kind, size, (uint64_t)(uintptr_t)addr, 0, (uint64_t)(uintptr_t)pc);             \
    }
#define RT_SIZES(X, prefix)                                                                       \
    X(prefix##read1, AT_LOAD, 1) X(prefix##read2, AT_LOAD, 2) X(prefix##read4, AT_LOAD, 4)        \
    X(prefix##read8, AT_LOAD, 8) X(prefix##read16, AT_LOAD, 16)                                   \
    X(prefix##write1, AT_STORE, 1) X(prefix##write2, AT_STORE, 2)                                 \
    X(prefix##write4, AT_STORE, 4) X(prefix##write8, AT_STORE, 8)                                 \
    X(prefix##write16, AT_STORE, 16)

RT_SIZES(RT_ACCESS, )
RT_SIZES(RT_ACCESS, volatile_)
RT_SIZES(RT_ACCESS_PC, )
RT_ACCESS(unaligned_read2, AT_LOAD, 2)
RT_ACCESS(unaligned_read4, AT_LOAD, 4)
RT_ACCESS(unaligned_read8, AT_LOAD, 8)
RT_ACCESS(unaligned_read16, AT_LOAD, 16)
RT_ACCESS(unaligned_write2, AT_STORE, 2)
RT_ACCESS(unaligned_write4, AT_STORE, 4)
RT_ACCESS(unaligned_write8, AT_STORE, 8)
RT_ACCESS(unaligned_write16, AT_STORE, 16)

void __tsan_read_range(void *addr, unsigned long size);
void __tsan_write_range(void *addr, unsigned long size);

void __tsan_read_range(void *addr, unsigned long size)
{
    rt_event(AT_RANGE_R, 0, (uint64_t)(uintptr_t)addr, size, RT_PC());
}

void __tsan_write_range(void *addr, unsigned long size)
{
    rt_event(AT_RANGE_W, 0, (uint64_t)(uintptr_t)addr, size, RT_PC());
}

/* ---- atomics: 8..128 bits ----------------------------------------------------------------- */

#define RT_SC __ATOMIC_SEQ_CST

#define RT_RMW(bits, T, name, OP, builtin, NEW)                                                   \
    T __tsan_atomic##bits##_##name(volatile T *a, T v, int mo);                                   \
    T __tsan_atomic##bits##_##name(volatile T *a, T v, int mo)                                    \
    {                                                                                             \
        T old = builtin(a, v, RT_SC);                                                             \
        T new_value = (T)(NEW);                                                                   \
        rt_atomic(AT_RMW, OP, bits / 8, a, mo, 0, old == new_value ? AT_F_UNCHANGED : 0,         \
                  RT_PC());                                                                       \
        return old;                                                                               \
    }

#define RT_ATOMICS(bits, T)                                                                       \
    T __tsan_atomic##bits##_load(const volatile T *a, int mo);                                    \
    T __tsan_atomic##bits##_load(const volatile T *a, int mo)                                     \
    {                                                                                             \
        T v = __atomic_load_n(a, RT_SC);                                                          \
        rt_atomic(AT_ALOAD, 0, bits / 8, a, mo, 0, 0, RT_PC());                        \
        return v;                                                                                 \
    }                                                                                             \
    void __tsan_atomic##bits##_store(volatile T *a, T v, int mo);                                 \
    void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)                                  \
    {                                                                                             \
        __atomic_store_n(a, v, RT_SC);                                                            \
        rt_atomic(AT_ASTORE, 0, bits / 8, a, mo, 0, 0, RT_PC());                       \
    }                                                                                             \
    RT_RMW(bits, T, exchange, AT_OP_XCHG, __atomic_exchange_n, v)                                 \
    RT_RMW(bits, T, fetch_add, AT_OP_ADD, __atomic_fetch_add, old + v)                            \
    RT_RMW(bits, T, fetch_sub, AT_OP_SUB, __atomic_fetch_sub, old - v)                            \
    RT_RMW(bits, T, fetch_and, AT_OP_AND, __atomic_fetch_and, old & v)                            \
    RT_RMW(bits, T, fetch_or, AT_OP_OR, __atomic_fetch_or, old | v)                               \
    RT_RMW(bits, T, fetch_xor, AT_OP_XOR, __atomic_fetch_xor, old ^ v)                            \
    RT_RMW(bits, T, fetch_nand, AT_OP_NAND, __atomic_fetch_nand, ~(old & v))                      \
    int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo); \
    int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo)  \
    {                                                                                             \
        int ok = __atomic_compare_exchange_n(a, c, v, 0, RT_SC, RT_SC);                           \
        rt_atomic(ok ? AT_CAS_OK : AT_CAS_FAIL, 0, bits / 8, a, mo, fmo, 0, RT_PC());   \
        return ok;                                                                                \
    }                                                                                             \
    int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo);   \
    int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo)    \
    {                                                                                             \
        int ok = __atomic_compare_exchange_n(a, c, v, 1, RT_SC, RT_SC);                           \
        rt_atomic(ok ? AT_CAS_OK : AT_CAS_FAIL, 0, bits / 8, a, mo, fmo, 0, RT_PC());   \
        return ok;                                                                                \
    }                                                                                             \
    T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo);       \
    T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)        \
    {                                                                                             \
        T seen = c;                                                                               \
        int ok = __atomic_compare_exchange_n(a, &seen, v, 0, RT_SC, RT_SC);                       \
        rt_atomic(ok ? AT_CAS_OK : AT_CAS_FAIL, 0, bits / 8, a, mo, fmo, 0, RT_PC());   \
        return seen;                                                                              \
    }

RT_ATOMICS(8, uint8_t)
RT_ATOMICS(16, uint16_t)
RT_ATOMICS(32, uint32_t)
RT_ATOMICS(64, uint64_t)
RT_ATOMICS(128, unsigned __int128)   /* through libatomic (-latomic) */

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_signal_fence(int mo);

void __tsan_atomic_thread_fence(int mo)
{
    __atomic_thread_fence(RT_SC);
    rt_atomic(AT_FENCE, 0, 0, 0, mo, 0, 0, RT_PC());
}

void __tsan_atomic_signal_fence(int mo)
{
    (void)mo;
    __atomic_signal_fence(RT_SC);
}
