#define _GNU_SOURCE
#include "CFutureShims.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
             int stdin_fd, int stdout_fd, int stderr_fd, int extra_fd, const sigset_t *default_signals) {
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
    if (!err && extra_fd >= 0) err = posix_spawn_file_actions_adddup2(&actions, extra_fd, 3);
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

int fr_pipe_for_child_output(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    // Only our read end is non-blocking; the child's write end stays an ordinary blocking pipe.
    if (fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    return 0;
}

int fr_shared_memory(const char *name, size_t bytes) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)bytes) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int32_t *fr_map_shared(int fd, size_t bytes) {
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

int64_t fr_file_size(int fd) {
    struct stat info;
    return fstat(fd, &info) == 0 ? (int64_t)info.st_size : -1;
}

void fr_store_shared(int32_t *word, int32_t value) { __atomic_store_n(word, value, __ATOMIC_RELEASE); }
int32_t fr_load_shared(const int32_t *word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

#include <sys/epoll.h>
#include <sys/eventfd.h>

const uint32_t FR_EPOLLIN = EPOLLIN, FR_EPOLLOUT = EPOLLOUT, FR_EPOLLHUP = EPOLLHUP, FR_EPOLLERR = EPOLLERR;

int fr_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int epoll_control(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data.u64 = token};
    return epoll_ctl(epfd, op, fd, &event);
}

int fr_epoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
    return epoll_control(epfd, EPOLL_CTL_ADD, fd, events, token);
}

int fr_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token) {
    return epoll_control(epfd, EPOLL_CTL_MOD, fd, events, token);
}

int fr_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int fr_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event ready[256];
    if (max > 256) max = 256;
    int count = epoll_wait(epfd, ready, max, timeout_ms);
    for (int i = 0; i < count; i++) {
        tokens[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return count;
}

int fr_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

void fr_eventfd_signal(int fd) {
    uint64_t one = 1;
    while (write(fd, &one, sizeof one) < 0 && errno == EINTR) {}
}

void fr_eventfd_drain(int fd) {
    uint64_t count;
    while (read(fd, &count, sizeof count) < 0 && errno == EINTR) {}
}

pid_t fr_wait4_nohang(pid_t pid, int *status, int64_t *user_usec, int64_t *sys_usec, int64_t *maxrss_bytes) {
    struct rusage usage;
    pid_t reaped;
    do {
        reaped = wait4(pid, status, WNOHANG, &usage);
    } while (reaped < 0 && errno == EINTR);
    if (reaped > 0) {
        *user_usec = (int64_t)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec;
        *sys_usec = (int64_t)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec;
        *maxrss_bytes = (int64_t)usage.ru_maxrss * 1024;
    }
    return reaped;
}
