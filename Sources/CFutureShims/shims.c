#define _GNU_SOURCE
#include "CFutureShims.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int fr_pipe_cloexec(int fds[2], int extra_flags) { return pipe2(fds, O_CLOEXEC | extra_flags); }

int fr_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int fr_spawn(pid_t *pid, const char *const argv[], const char *const envp[], const char *cwd,
             int stdin_fd, int stdout_fd, int stderr_fd, const sigset_t *default_signals) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int err = posix_spawn_file_actions_init(&actions);
    if (err) return err;
    err = posix_spawnattr_init(&attr);
    if (err) {
        posix_spawn_file_actions_destroy(&actions);
        return err;
    }
    sigset_t empty;
    sigemptyset(&empty);
    short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (!err) err = posix_spawnattr_setflags(&attr, flags);
    if (!err) err = posix_spawnattr_setpgroup(&attr, 0);
    if (!err) err = posix_spawnattr_setsigmask(&attr, &empty);
    if (!err) err = posix_spawnattr_setsigdefault(&attr, default_signals ? default_signals : &empty);
    // dup2 onto 0-2 clears O_CLOEXEC on the copies; the originals stay close-on-exec.
    if (!err) err = posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    if (!err) err = posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
    if (!err) err = posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
    if (!err && cwd) err = posix_spawn_file_actions_addchdir_np(&actions, cwd);
    if (!err) err = posix_spawn(pid, argv[0], &actions, &attr, (char *const *)argv, (char *const *)envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return err;
}

int fr_wifexited(int status) { return WIFEXITED(status); }
int fr_wexitstatus(int status) { return WEXITSTATUS(status); }
int fr_wifsignaled(int status) { return WIFSIGNALED(status); }
int fr_wtermsig(int status) { return WTERMSIG(status); }

void fr_sigset_empty(sigset_t *set) { sigemptyset(set); }
void fr_sigset_add(sigset_t *set, int signo) { sigaddset(set, signo); }

static void fill(sigset_t *set, const int *signals, int count) {
    sigemptyset(set);
    for (int i = 0; i < count; i++) sigaddset(set, signals[i]);
}

int fr_block_signals(const int *signals, int count) {
    sigset_t set;
    fill(&set, signals, count);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int fr_wait_signal(const int *signals, int count) {
    sigset_t set;
    fill(&set, signals, count);
    int signo = 0;
    while (sigwait(&set, &signo) != 0) {}
    return signo;
}

int fr_signal_disposition(int signo) {
    struct sigaction current;
    if (sigaction(signo, NULL, &current) != 0) return 0;
    if (current.sa_handler == SIG_DFL) return 0;
    if (current.sa_handler == SIG_IGN) return 1;
    return 2;
}

void fr_ignore_signal(int signo) { signal(signo, SIG_IGN); }

int fr_affinity_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

int fr_open_nofollow(int dirfd, const char *path, int flags, int mode) {
    return openat(dirfd, path, flags | O_NOFOLLOW | O_CLOEXEC, mode);
}

int fr_private_tempfile(const char *dir) {
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    size_t len = strlen(dir);
    char *template = malloc(len + sizeof "/futurerun.XXXXXX");
    if (!template) return -1;
    memcpy(template, dir, len);
    memcpy(template + len, "/futurerun.XXXXXX", sizeof "/futurerun.XXXXXX");
    fd = mkostemp(template, O_CLOEXEC);
    if (fd >= 0) unlink(template);
    free(template);
    return fd;
}

int fr_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int fr_set_parent_death_signal(int signo) { return prctl(PR_SET_PDEATHSIG, signo); }
