/* A microSD card's fsync, on any disk: an LD_PRELOAD shim that makes fsync(2) and
 * fdatasync(2) take a stated time, with spikes, before doing the real call.
 *
 *   gcc -shared -fPIC -O2 -o slow_fsync.so benchmarks/slow_fsync.c -ldl
 *   SLOW_FSYNC_MS=20 SLOW_FSYNC_SPIKE_MS=120 SLOW_FSYNC_SPIKE_EVERY=50 \
 *       LD_PRELOAD=./slow_fsync.so python ...
 *
 * SLOW_FSYNC_MS: every call's added time (default 20). SLOW_FSYNC_SPIKE_MS and
 * SLOW_FSYNC_SPIKE_EVERY: one call in EVERY (on average, drawn from a fixed seed) takes
 * SPIKE_MS instead (default 0: no spikes). benchmarks/slow_storage.py builds and uses it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <pthread.h>

static long base_ms = -1, spike_ms = 0, spike_every = 0;
static unsigned int seed = 12345;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static long env_long(const char *name, long fallback) {
    const char *text = getenv(name);
    return text && *text ? atol(text) : fallback;
}

static void card_delay(void) {
    long ms;
    pthread_mutex_lock(&lock);
    if (base_ms < 0) {
        base_ms = env_long("SLOW_FSYNC_MS", 20);
        spike_ms = env_long("SLOW_FSYNC_SPIKE_MS", 0);
        spike_every = env_long("SLOW_FSYNC_SPIKE_EVERY", 0);
    }
    ms = base_ms;
    if (spike_every > 0 && spike_ms > 0 && rand_r(&seed) % spike_every == 0)
        ms = spike_ms;
    pthread_mutex_unlock(&lock);
    struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&wait, &wait) != 0) {
    }
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    card_delay();
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    card_delay();
    return real(fd);
}
