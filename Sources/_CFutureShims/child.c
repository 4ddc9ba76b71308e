// A child's pipes, its exit descriptor, and reaping it with its resource use.
#define _GNU_SOURCE
#include "_CFutureShims.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int fc_pipe_cloexec(int fds[2], int extra_flags) { return pipe2(fds, O_CLOEXEC | extra_flags); }

int fc_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int fc_pipe_for_child_output(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    // Only our read end is non-blocking; the child's write end stays an ordinary blocking pipe.
    if (fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    return 0;
}

int fc_pipe_for_child_input(int fds[2], const uint8_t *bytes, size_t count) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    int saved;
    if (fcntl(fds[1], F_SETFL, O_NONBLOCK) != 0) goto fail;
    if (count > 65536 && fcntl(fds[1], F_SETPIPE_SZ, (int)count) < 0) goto fail;
    size_t written = 0;
    while (written < count) {
        ssize_t now = write(fds[1], bytes + written, count - written);
        if (now < 0 && errno == EINTR) continue;
        if (now < 0 && errno == EAGAIN) errno = EMSGSIZE;
        if (now <= 0) goto fail;
        written += (size_t)now;
    }
    return 0;
fail:
    saved = errno;
    close(fds[0]);
    close(fds[1]);
    errno = saved;
    return -1;
}

int fc_pipe_for_child_feed(int fds[2], size_t expected) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    if (fcntl(fds[1], F_SETFL, O_NONBLOCK) != 0) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
        return -1;
    }
    // Best effort: a system that refuses (pipe-max-size, pipe-user-pages-soft) keeps 64 KiB.
    if (expected > 65536) (void)fcntl(fds[1], F_SETPIPE_SZ, (int)(expected < (1 << 20) ? expected : (1 << 20)));
    return 0;
}

ssize_t fc_splice_from_file(int file, int64_t *offset, int pipe, size_t count) {
    loff_t position = (loff_t)*offset;
    ssize_t moved;
    do {
        moved = splice(file, &position, pipe, NULL, count, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
    } while (moved < 0 && errno == EINTR);
    if (moved > 0) *offset = (int64_t)position;
    return moved;
}

int fc_has_exited(pid_t pid) {
    siginfo_t info;
    info.si_pid = 0;
    int result;
    do {
        result = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
    } while (result < 0 && errno == EINTR);
    return result == 0 && info.si_pid == pid;
}

pid_t fc_wait4_nohang(pid_t pid, int *status, int64_t *user_usec, int64_t *sys_usec, int64_t *maxrss_bytes) {
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

int fc_wifexited(int status) { return WIFEXITED(status); }
int fc_wexitstatus(int status) { return WEXITSTATUS(status); }
int fc_wtermsig(int status) { return WTERMSIG(status); }
