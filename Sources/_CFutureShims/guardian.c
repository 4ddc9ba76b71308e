// The guardian: a process that stops the children's groups when this process ends, however it ends.
#define _GNU_SOURCE
#include "_CFutureShims.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int32_t *fc_map_shared_anonymous(size_t bytes) {
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

void fc_store_shared(int32_t *word, int32_t value) { __atomic_store_n(word, value, __ATOMIC_RELEASE); }
int32_t fc_load_shared(const int32_t *word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

// Sends `signo` to every group in the table; returns whether there was any.
static int signal_groups(const int32_t *table, int32_t capacity, int signo) {
    int32_t used = fc_load_shared(table);
    if (used > capacity) used = capacity;
    int any = 0;
    for (int32_t entry = 1; entry <= used; entry++) {
        int32_t group = fc_load_shared(table + entry);
        if (group > 1) {
            kill(-group, signo);
            any = 1;
        }
    }
    return any;
}

// Empties and removes the directory `path` (its entries are files: sockets, say), with system calls
// only: getdents64 into a buffer on the stack, unlinkat, rmdir.
static void remove_directory(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    char buffer[4096];
    long count;
    while ((count = syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0) {
        for (long offset = 0; offset < count;) {
            struct dirent64 *entry = (struct dirent64 *)(buffer + offset);
            if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) unlinkat(fd, entry->d_name, 0);
            offset += entry->d_reclen;
        }
    }
    close(fd);
    rmdir(path);
}

// The guardian's whole life, in the child: system calls only, no allocation. It shares this
// process's memory, so its errno is the starting thread's: it sets it only if a system call fails,
// which after its first steps happens only on a signal sent to the guardian itself.
static void _Noreturn guard(int watch_fd, const int32_t *table, int32_t capacity, int grace_ms, const char *name,
                            const char *directory) {
    setpgid(0, 0);
    prctl(PR_SET_NAME, name);  // its name in ps and top (argv is this process's)
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
    // The directory is set once, before it can be needed; an empty path is none.
    if (__atomic_load_n(directory, __ATOMIC_ACQUIRE) != 0) remove_directory(directory);
    _exit(0);
}

struct guardian_start {
    int watch_fd;
    const int32_t *table;
    int32_t capacity;
    int grace_ms;
    const char *directory;
    char name[16];  // PROGRAM-guard, cut to what PR_SET_NAME takes
};

static int guardian_main(void *argument) {
    const struct guardian_start *start = argument;
    guard(start->watch_fd, start->table, start->capacity, start->grace_ms, start->name, start->directory);
}

pid_t fc_start_guardian(int watch_fd, const int32_t *table, int32_t capacity, int grace_ms, const char *directory) {
#ifdef FC_THREAD_SANITIZER
    // The thread sanitizer keeps its state in this process's memory and cannot follow a second
    // process running in it (its clone interceptor fails a check): under it, `make tsan`, a fork.
    // The table is shared memory, so the forked guardian sees it as the other does.
    pid_t forked = fork();
    if (forked == 0) {
        char name[16];
        snprintf(name, sizeof name, "%s-guard", program_invocation_short_name);
        guard(watch_fd, table, capacity, grace_ms, name, directory);
    }
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
    *start = (struct guardian_start){watch_fd, table, capacity, grace_ms, directory, {0}};
    snprintf(start->name, sizeof start->name, "%s-guard", program_invocation_short_name);
    pid_t child = clone(guardian_main, (void *)((uintptr_t)start & ~(uintptr_t)15), CLONE_VM | SIGCHLD, start);
    if (child < 0) {
        int saved = errno;
        munmap(stack, stack_size);
        errno = saved;
    }
    return child;
}

void fc_store_shared_path(char *page, size_t capacity, const char *path) {
    size_t length = path ? strlen(path) : 0;
    if (length >= capacity) length = 0;  // too long to hold: none
    __atomic_store_n(page, 0, __ATOMIC_RELEASE);
    if (length == 0) return;
    memcpy(page + 1, path + 1, length);  // the rest and its NUL first, the first byte last
    __atomic_store_n(page, path[0], __ATOMIC_RELEASE);
}
