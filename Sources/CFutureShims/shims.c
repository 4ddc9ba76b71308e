#define _GNU_SOURCE
#include "CFutureShims.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
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

void fr_spawn_prepare(void) { pthread_once(&handled_signals_once, find_handled_signals); }

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
int fr_spawn(pid_t *pid, const char *const argv[], const char *const envp[], const char *cwd,
             int stdin_fd, int stdout_fd, int stderr_fd, const sigset_t *default_signals) {
    fr_spawn_prepare();
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

int32_t *fr_map_shared_anonymous(size_t bytes) {
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

void fr_store_shared(int32_t *word, int32_t value) { __atomic_store_n(word, value, __ATOMIC_RELEASE); }
int32_t fr_load_shared(const int32_t *word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

// Sends `signo` to every group in the table; returns whether there was any.
static int signal_groups(const int32_t *table, int32_t capacity, int signo) {
    int32_t used = fr_load_shared(table);
    if (used > capacity) used = capacity;
    int any = 0;
    for (int32_t entry = 1; entry <= used; entry++) {
        int32_t group = fr_load_shared(table + entry);
        if (group > 1) {
            kill(-group, signo);
            any = 1;
        }
    }
    return any;
}

// The guardian's whole life, in the child: system calls only, no allocation. It shares this
// process's memory, so its errno is the starting thread's: it sets it only if a system call fails,
// which after its first steps happens only on a signal sent to the guardian itself.
static void _Noreturn guard(int watch_fd, const int32_t *table, int32_t capacity, int grace_ms) {
    setpgid(0, 0);
    prctl(PR_SET_NAME, "futurerun-guard");  // its name in ps and top (argv is this process's)
    int null_fd = open("/dev/null", O_RDWR);
    if (watch_fd != 0) dup2(watch_fd, 0);
    if (null_fd >= 0) {
        dup2(null_fd, 1);
        dup2(null_fd, 2);
    }
    // Hold nothing of the parent's: a pipe kept open here would delay its reader's end of file.
    long closed = -1;
#ifdef SYS_close_range
    closed = syscall(SYS_close_range, 3U, ~0U, 0);
#endif
    if (closed != 0) {
        for (int fd = 3; fd < 65536; fd++) close(fd);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    char byte;
    while (1) {
        ssize_t count = read(0, &byte, 1);
        if (count == 0 || (count < 0 && errno != EINTR)) break;
    }
    if (signal_groups(table, capacity, SIGTERM)) {
        struct timespec pause = {.tv_sec = grace_ms / 1000, .tv_nsec = (long)(grace_ms % 1000) * 1000000L};
        while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {}
        signal_groups(table, capacity, SIGKILL);
    }
    _exit(0);
}

struct guardian_start {
    int watch_fd;
    const int32_t *table;
    int32_t capacity;
    int grace_ms;
};

static int guardian_main(void *argument) {
    const struct guardian_start *start = argument;
    guard(start->watch_fd, start->table, start->capacity, start->grace_ms);
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FR_THREAD_SANITIZER 1
#endif
#endif

// Tell the thread sanitizer about a lock it cannot see (``Locked``): no-ops in other builds.
#ifdef FR_THREAD_SANITIZER
void __tsan_acquire(void *address);
void __tsan_release(void *address);
void fr_tsan_acquire(void *address) { __tsan_acquire(address); }
void fr_tsan_release(void *address) { __tsan_release(address); }
#else
void fr_tsan_acquire(void *address) { (void)address; }
void fr_tsan_release(void *address) { (void)address; }
#endif

pid_t fr_start_guardian(int watch_fd, const int32_t *table, int32_t capacity, int grace_ms) {
#ifdef FR_THREAD_SANITIZER
    // The thread sanitizer keeps its state in this process's memory and cannot follow a second
    // process running in it (its clone interceptor fails a check): under it, `make tsan`, a fork.
    // The table is shared memory, so the forked guardian sees it as the other does.
    pid_t forked = fork();
    if (forked == 0) guard(watch_fd, table, capacity, grace_ms);
    return forked;
#endif
    // A process of its own (its own descriptors, process group and signal mask) in this process's
    // memory, on a stack of its own: no page tables to copy and no copy-on-write faults afterwards,
    // as a fork would cost. The memory stays alive while it runs, after this process is gone too.
    enum { stack_size = 64 * 1024 };
    char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    // At the top of its stack, where nothing else writes: the child reads it once, at its start.
    struct guardian_start *start = (struct guardian_start *)(stack + stack_size) - 1;
    *start = (struct guardian_start){watch_fd, table, capacity, grace_ms};
    pid_t child = clone(guardian_main, (void *)((uintptr_t)start & ~(uintptr_t)15), CLONE_VM | SIGCHLD, start);
    if (child < 0) {
        int saved = errno;
        munmap(stack, stack_size);
        errno = saved;
    }
    return child;
}

#include <sys/epoll.h>
#include <sys/eventfd.h>

const uint32_t FR_EPOLLIN = EPOLLIN, FR_EPOLLOUT = EPOLLOUT, FR_EPOLLHUP = EPOLLHUP, FR_EPOLLERR = EPOLLERR,
               FR_EPOLLONESHOT = EPOLLONESHOT;

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

int fr_has_exited(pid_t pid) {
    siginfo_t info;
    info.si_pid = 0;
    int result;
    do {
        result = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
    } while (result < 0 && errno == EINTR);
    return result == 0 && info.si_pid == pid;
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

// struct sched_attr as the kernel defines it (SCHED_ATTR_SIZE_VER0); glibc declares none.
struct fr_sched_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

int fr_request_short_slice(uint64_t nanoseconds) {
    struct fr_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return -1;
    if (attr.policy != SCHED_OTHER && attr.policy != SCHED_BATCH) return -1;
    attr.size = sizeof attr;
    attr.flags = 0x01;  // SCHED_FLAG_RESET_ON_FORK: children get the default slice back
    attr.runtime = nanoseconds;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}
