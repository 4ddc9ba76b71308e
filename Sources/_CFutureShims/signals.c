// Signal sets, blocking, waiting, and dispositions, for Swift callers.
#define _GNU_SOURCE
#include "_CFutureShims.h"
#include "internal.h"

#include <signal.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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

// SIGCHLD to self-pipes: the portable exit watcher's wake-up. The handler writes one byte to each
// registered pipe (async-signal-safe: write only, errno kept); a full pipe already holds a wake-up.
#define FC_MAX_CHILD_PIPES 16
static int child_pipes[FC_MAX_CHILD_PIPES];
static int child_pipe_count;
static pthread_mutex_t child_pipes_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_child_signal(int signo) {
    (void)signo;
    int saved = errno;
    int count = __atomic_load_n(&child_pipe_count, __ATOMIC_ACQUIRE);
    for (int i = 0; i < count; i++) {
        char byte = 0;
        ssize_t written = write(child_pipes[i], &byte, 1);
        (void)written;
    }
    errno = saved;
}

int fc_notify_child_exits(int write_fd) {
    pthread_mutex_lock(&child_pipes_lock);
    int result = 0;
    if (child_pipe_count == FC_MAX_CHILD_PIPES) {
        errno = EMFILE;
        result = -1;
    } else {
        child_pipes[child_pipe_count] = write_fd;
        __atomic_store_n(&child_pipe_count, child_pipe_count + 1, __ATOMIC_RELEASE);
        if (child_pipe_count == 1) {
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_handler = on_child_signal;
            sigemptyset(&action.sa_mask);
            action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
            result = sigaction(SIGCHLD, &action, NULL);
        }
    }
    pthread_mutex_unlock(&child_pipes_lock);
    return result;
}

int fc_self_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC | O_NONBLOCK); }
