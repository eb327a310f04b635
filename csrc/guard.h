/* guard.h -- read-only file mappings that survive their file shrinking.
 *
 * A page of a mapped file that no longer exists (the file was truncated while
 * mapped) raises SIGBUS when touched: the process dies, whatever else it was
 * doing. Endgame levels are mapped files that another program may truncate,
 * so every mapping is registered here, and a SIGBUS handler puts a page of
 * zeros over the lost part of a registered mapping, marks it damaged and
 * returns: the read that faulted is retried and finds zeros. The reader sees
 * wrong values, never a dead process; whoever owns the mapping checks
 * guard_damaged after using it and throws away what it read.
 *
 * A SIGBUS that is not ours goes where it would have gone without us: the
 * handler found installed before ours, or the default action (the process
 * ends with SIGBUS). Registering and removing take the GIL (one writer at a
 * time); the handler only reads the table, with atomic loads.
 */
#ifndef MANCALA_GUARD_H
#define MANCALA_GUARD_H

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { GUARD_REGIONS = 1024 };      /* mappings registered at once: 3 rules x 37 levels, many times over */

typedef struct {
    uintptr_t start;    /* 0: a free slot */
    uintptr_t end;
    int damaged;        /* set by the handler: a page of zeros stands in for part of the file */
} guard_region;

static guard_region guard_regions[GUARD_REGIONS];
static struct sigaction guard_previous;    /* what handled SIGBUS before guard_install */
static uintptr_t guard_page_size;

static void guard_handler(int sig, siginfo_t *info, void *context)
{
    uintptr_t addr = (uintptr_t)info->si_addr, start, end, page;
    int i;
    if (info->si_code > 0) {        /* a fault the kernel raised (not kill or raise) */
        for (i = 0; i < GUARD_REGIONS; i++) {
            start = __atomic_load_n(&guard_regions[i].start, __ATOMIC_ACQUIRE);
            end = guard_regions[i].end;
            if (!start || addr < start || addr >= end)
                continue;
            /* zeros from the faulting page to the mapping's end: the file ends before them */
            page = addr & ~(guard_page_size - 1);
            if (mmap((void *)page, end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                     -1, 0) == MAP_FAILED)
                break;
            __atomic_store_n(&guard_regions[i].damaged, 1, __ATOMIC_RELEASE);
            return;
        }
    }
    if ((guard_previous.sa_flags & SA_SIGINFO) && guard_previous.sa_sigaction) {
        guard_previous.sa_sigaction(sig, info, context);
        return;
    }
    if (!(guard_previous.sa_flags & SA_SIGINFO) && guard_previous.sa_handler != SIG_DFL
            && guard_previous.sa_handler != SIG_IGN) {
        guard_previous.sa_handler(sig);
        return;
    }
    /* the default action: returning retries the access, which now ends the process */
    signal(sig, SIG_DFL);
    if (info->si_code <= 0)
        raise(sig);
}

/* Make guard_handler SIGBUS's handler, unless it is already; 0, or -1 with errno. */
static int guard_install(void)
{
    struct sigaction now, ours;
    if (sigaction(SIGBUS, NULL, &now))
        return -1;
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == guard_handler)
        return 0;
    guard_page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = guard_handler;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&ours.sa_mask);
    guard_previous = now;
    return sigaction(SIGBUS, &ours, NULL);
}

/* Register [start, start + size); the slot, or -1 when every slot is taken. */
static int guard_add(const void *start, uintptr_t size)
{
    int i;
    for (i = 0; i < GUARD_REGIONS; i++) {
        if (guard_regions[i].start)
            continue;
        guard_regions[i].end = (uintptr_t)start + size;
        guard_regions[i].damaged = 0;
        __atomic_store_n(&guard_regions[i].start, (uintptr_t)start, __ATOMIC_RELEASE);
        return i;
    }
    return -1;
}

/* Forget a slot (before its mapping is unmapped). */
static void guard_remove(int slot)
{
    if (slot >= 0 && slot < GUARD_REGIONS)
        __atomic_store_n(&guard_regions[slot].start, 0, __ATOMIC_RELEASE);
}

static int guard_damaged(int slot)
{
    return slot >= 0 && slot < GUARD_REGIONS
        && __atomic_load_n(&guard_regions[slot].damaged, __ATOMIC_ACQUIRE);
}

#endif
