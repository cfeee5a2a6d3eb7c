/* list_hoh.c: a sorted singly linked list of integer keys with one mutex per node, traversed
 * with hand-over-hand locking ("lock coupling": hold the predecessor while locking the next
 * node; Herlihy & Shavit, "The Art of Multiprocessor Programming", §9.5 fine-grained list).
 *
 * usage: list_hoh [THREADS=4] [OPS=1000] [KEYS=128]. Each thread performs OPS operations on
 * pseudo-random keys in [0, KEYS): one third insert, one third remove, one third lookup. The
 * list starts with the even keys. Checked: the list is strictly sorted, and its length equals the
 * initial length plus successful inserts minus successful removes.
 */
#include "wl.h"

typedef struct LhNode {
    long key;
    struct LhNode *next;
    pthread_mutex_t lock;
} LhNode;

static LhNode *lh_head;                 /* sentinel with key -1; a tail sentinel has key KEYS */
static long lh_ops, lh_keys;
static long lh_inserted[WL_MAX_THREADS], lh_removed[WL_MAX_THREADS], lh_found[WL_MAX_THREADS];

static LhNode *lh_node(long key, LhNode *next)
{
    LhNode *n = malloc(sizeof *n);
    if (n == NULL)
        wl_fail("list_hoh", "out of memory");
    n->key = key;
    n->next = next;
    pthread_mutex_init(&n->lock, NULL);
    return n;
}

/* Returns with *pred and *curr locked, pred->key < key <= curr->key. */
static void lh_find(long key, LhNode **pred, LhNode **curr)
{
    LhNode *p = lh_head;
    pthread_mutex_lock(&p->lock);
    LhNode *c = p->next;
    pthread_mutex_lock(&c->lock);
    while (c->key < key) {
        pthread_mutex_unlock(&p->lock);
        p = c;
        c = c->next;
        pthread_mutex_lock(&c->lock);
    }
    *pred = p;
    *curr = c;
}

static int lh_insert(long key)
{
    LhNode *p, *c;
    lh_find(key, &p, &c);
    int added = c->key != key;
    if (added)
        p->next = lh_node(key, c);
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_unlock(&p->lock);
    return added;
}

static int lh_remove(long key)
{
    LhNode *p, *c;
    lh_find(key, &p, &c);
    int removed = c->key == key;
    if (removed)
        p->next = c->next;
    pthread_mutex_unlock(&c->lock);
    if (removed) {          /* nobody can wait on c: reaching it needs p's lock, which we hold */
        pthread_mutex_destroy(&c->lock);
        free(c);
    }
    pthread_mutex_unlock(&p->lock);
    return removed;
}

static int lh_contains(long key)
{
    LhNode *p, *c;
    lh_find(key, &p, &c);
    int found = c->key == key;
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_unlock(&p->lock);
    return found;
}

static void *lh_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t s = 0x51ed270b27e5a7b3ULL * (uint64_t)(id + 1);
    long ins = 0, rem = 0, found = 0;
    wl_start();
    archsim_roi_begin();
    for (long i = 0; i < lh_ops; i++) {
        uint64_t r = wl_rand(&s);
        long key = (long)((r >> 8) % (uint64_t)lh_keys);
        switch (r % 3) {
        case 0: ins += lh_insert(key); break;
        case 1: rem += lh_remove(key); break;
        default: found += lh_contains(key); break;
        }
    }
    archsim_roi_end();
    lh_inserted[id] = ins;
    lh_removed[id] = rem;
    lh_found[id] = found;
    return NULL;
}

int main(int argc, char **argv)
{
    int n = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    lh_ops = wl_arg(argc, argv, 2, 1000, 1, 1L << 30, "OPS");
    lh_keys = wl_arg(argc, argv, 3, 128, 1, 1L << 30, "KEYS");
    LhNode *tail = lh_node(lh_keys, NULL);
    lh_head = lh_node(-1, tail);
    long initial = 0;
    for (long k = (lh_keys - 1) & ~1L; k >= 0; k -= 2) {
        lh_head->next = lh_node(k, lh_head->next);
        initial++;
    }
    wl_run(n, lh_worker);
    long ins = 0, rem = 0, found = 0, len = 0;
    for (int i = 0; i < n; i++) {
        ins += lh_inserted[i];
        rem += lh_removed[i];
        found += lh_found[i];
    }
    long prev = -1;
    for (LhNode *c = lh_head->next; c != tail; c = c->next) {
        if (c->key <= prev || c->key >= lh_keys)
            wl_fail("list_hoh", "key %ld after %ld: list not sorted or out of range", c->key,
                    prev);
        prev = c->key;
        len++;
    }
    if (len != initial + ins - rem)
        wl_fail("list_hoh", "length %ld, expected %ld + %ld - %ld", len, initial, ins, rem);
    printf("OK list_hoh threads=%d ops=%ld keys=%ld inserted=%ld removed=%ld found=%ld "
           "length=%ld\n", n, lh_ops, lh_keys, ins, rem, found, len);
    for (LhNode *c = lh_head, *next; c != NULL; c = next) {
        next = c->next;
        pthread_mutex_destroy(&c->lock);
        free(c);
    }
    return 0;
}
