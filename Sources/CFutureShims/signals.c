// Signal sets, blocking, waiting, and dispositions, for Swift callers.
#define _GNU_SOURCE
#include "CFutureShims.h"
#include "internal.h"

#include <signal.h>
#include <pthread.h>

void fc_sigset_empty(sigset_t *set) { sigemptyset(set); }
void fc_sigset_add(sigset_t *set, int signo) { sigaddset(set, signo); }

static void fill(sigset_t *set, const int *signals, int count) {
    sigemptyset(set);
    for (int i = 0; i < count; i++) sigaddset(set, signals[i]);
}

int fc_block_signals(const int *signals, int count) {
    sigset_t set;
    fill(&set, signals, count);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int fc_wait_signal(const int *signals, int count) {
    sigset_t set;
    fill(&set, signals, count);
    int signo = 0;
    while (sigwait(&set, &signo) != 0) {}
    return signo;
}

int fc_signal_disposition(int signo) {
    struct sigaction current;
    if (sigaction(signo, NULL, &current) != 0) return 0;
    if (current.sa_handler == SIG_DFL) return 0;
    if (current.sa_handler == SIG_IGN) return 1;
    return 2;
}

void fc_ignore_signal(int signo) { signal(signo, SIG_IGN); }
