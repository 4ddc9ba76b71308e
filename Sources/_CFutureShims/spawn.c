// Spawning a child: vfork and exec with exactly the descriptors, group and signals it should have.
#define _GNU_SOURCE
#include "_CFutureShims.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// Signals with a handler in this process, found once (the Swift runtime installs its handlers before
// main, futurerun none later). A vfork child shares our memory until it execs: these must be reset
// before it unblocks signals, or a handler could run in it.
static sigset_t handled_signals;
// The signals blocked while a child is being spawned: all of them, except SIGCHLD when no handler
// can run for it. The kernel discards a SIGCHLD nobody handles, unless the thread that spawned the
// child blocks it: then it becomes pending for the whole process and interrupts another of its
// threads (a sleeping printer, say), once for every child that ends during some other's spawn.
static sigset_t spawn_blocked;
static pthread_once_t handled_signals_once = PTHREAD_ONCE_INIT;

static void find_handled_signals(void) {
    sigemptyset(&handled_signals);
    for (int signo = 1; signo < NSIG; signo++) {
        struct sigaction current;
        if (sigaction(signo, NULL, &current) != 0) continue;  // glibc's internal signals
        if (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN) sigaddset(&handled_signals, signo);
    }
    sigfillset(&spawn_blocked);
    if (!sigismember(&handled_signals, SIGCHLD)) sigdelset(&spawn_blocked, SIGCHLD);
}

void fc_spawn_prepare(void) { pthread_once(&handled_signals_once, find_handled_signals); }

// Makes `from` the child's descriptor `to`, inheritable.
static int move_descriptor(int from, int to) {
    if (from == to) return fcntl(to, F_SETFD, 0);
    return dup2(from, to) < 0 ? -1 : 0;
}

// vfork rather than posix_spawn: glibc's posix_spawn maps a fresh stack for every child, checks each
// dup2 action against getrlimit twice, and has the child query all 64 signal dispositions before
// exec, all while the parent waits. Here the child does only what futurerun needs, with the
// parent's thread suspended (vfork) and every signal that could run a handler blocked until just
// before execve.
int fc_spawn(pid_t *pid, const char *const argv[], const char *const envp[], const char *cwd,
             int stdin_fd, int stdout_fd, int stderr_fd, const sigset_t *default_signals) {
    fc_spawn_prepare();
    sigset_t reset = handled_signals;
    if (default_signals) sigorset(&reset, &reset, default_signals);
    sigset_t previous, none;
    sigemptyset(&none);
    volatile int child_error = 0;
    pthread_sigmask(SIG_SETMASK, &spawn_blocked, &previous);
    pid_t child = vfork();
    if (child == 0) {
        // The child, in our memory and on this thread's stack: system calls only, then exec or _exit.
        struct sigaction default_action;
        memset(&default_action, 0, sizeof default_action);
        default_action.sa_handler = SIG_DFL;
        for (int signo = 1; signo < NSIG; signo++) {
            if (sigismember(&reset, signo) == 1) sigaction(signo, &default_action, NULL);
        }
        if (setpgid(0, 0) == 0 && move_descriptor(stdin_fd, 0) == 0 && move_descriptor(stdout_fd, 1) == 0 &&
            move_descriptor(stderr_fd, 2) == 0 && (!cwd || chdir(cwd) == 0) && sigprocmask(SIG_SETMASK, &none, NULL) == 0) {
            execve(argv[0], (char *const *)argv, (char *const *)envp);
        }
        child_error = errno ? errno : ENOEXEC;
        _exit(127);
    }
    int spawn_error = child < 0 ? errno : 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (spawn_error) return spawn_error;
    if (child_error) {
        // It never ran the program: reap it here, no one else knows of it.
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
        return child_error;
    }
    *pid = child;
    return 0;
}
