// The floor for a job runner that keeps what futurerun keeps of every job: its stdout and stderr
// captured on pipes of its own, its exit status and its end watched by a pidfd in one epoll loop,
// the program exec'd directly (vfork) with its number as its argument. J jobs at a time until N
// have run; a job is done when it has exited and both of its pipes have ended. What it read is
// counted, not printed. Linux 5.3 or later (pidfd_open).
// usage: capture_floor N J PROGRAM
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { MAX_WIDTH = 256 };
struct job {
    pid_t pid;                  // 0: the slot is free
    int exit_fd, out_fd, err_fd;  // -1 once closed
};
static struct job jobs[MAX_WIDTH];
static int poll_fd;
static long bytes_read, failures;

static void watch(int fd, int slot, int which) {
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = (uint64_t)slot << 2 | which};
    if (epoll_ctl(poll_fd, EPOLL_CTL_ADD, fd, &event) != 0) exit(2);
}

static void start(int slot, const char *program, long number) {
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) exit(2);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    char argument[24];
    snprintf(argument, sizeof argument, "%ld", number);
    char *argv[] = {(char *)program, argument, NULL};
    pid_t pid = vfork();
    if (pid == 0) {
        if (dup2(out[1], 1) == 1 && dup2(err[1], 2) == 2) execve(program, argv, environ);
        _exit(127);
    }
    if (pid < 0) exit(2);
    close(out[1]);
    close(err[1]);
    struct job *job = &jobs[slot];
    *job = (struct job){.pid = pid, .exit_fd = (int)syscall(SYS_pidfd_open, pid, 0), .out_fd = out[0], .err_fd = err[0]};
    watch(job->exit_fd, slot, 0);
    watch(job->out_fd, slot, 1);
    watch(job->err_fd, slot, 2);
}

// Reads what the pipe holds; closes it at its end.
static void drain(int *fd) {
    char buffer[65536];
    for (;;) {
        ssize_t count = read(*fd, buffer, sizeof buffer);
        if (count > 0) { bytes_read += count; continue; }
        if (count < 0) return;  // EAGAIN: more later
        close(*fd);  // closing takes it out of the epoll set
        *fd = -1;
        return;
    }
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: capture_floor N J PROGRAM\n"); return 2; }
    long total = atol(argv[1]), started = 0, finished = 0;
    int width = atoi(argv[2]);
    if (width < 1 || width > MAX_WIDTH) return 2;
    poll_fd = epoll_create1(EPOLL_CLOEXEC);
    for (int slot = 0; slot < width && started < total; slot++) start(slot, argv[3], ++started);
    while (finished < total) {
        struct epoll_event events[MAX_WIDTH * 3];
        int count = epoll_wait(poll_fd, events, MAX_WIDTH * 3, -1);
        for (int index = 0; index < count; index++) {
            int slot = (int)(events[index].data.u64 >> 2), which = (int)(events[index].data.u64 & 3);
            struct job *job = &jobs[slot];
            // A job finished earlier in this batch: its slot is free, or holds the next job,
            // whose pipe this stale event then reads early (no harm: EAGAIN, or what it wrote).
            if (job->pid == 0) continue;
            if (which == 0 && job->exit_fd >= 0) {
                int status;
                if (wait4(job->pid, &status, WNOHANG, NULL) != job->pid) continue;
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failures++;
                close(job->exit_fd);
                job->exit_fd = -1;
                if (job->out_fd >= 0) drain(&job->out_fd);
                if (job->err_fd >= 0) drain(&job->err_fd);
            } else if (which == 1 && job->out_fd >= 0) {
                drain(&job->out_fd);
            } else if (which == 2 && job->err_fd >= 0) {
                drain(&job->err_fd);
            }
            if (job->exit_fd < 0 && job->out_fd < 0 && job->err_fd < 0) {
                job->pid = 0;
                finished++;
                if (started < total) start(slot, argv[3], ++started);
            }
        }
    }
    return failures ? 1 : 0;
}
