// The only C in futurerun: libc and kernel calls that Swift's Glibc module does not expose.
#ifndef CFUTURESHIMS_H
#define CFUTURESHIMS_H

#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/// pipe2(fds, O_CLOEXEC | extra). Returns 0 or -1 with errno.
int fr_pipe_cloexec(int fds[2], int extra_flags);

/// pidfd_open(pid, 0) with O_CLOEXEC semantics (pidfds are always close-on-exec). -1 with errno
/// where the kernel lacks it.
int fr_pidfd_open(pid_t pid);

/// Spawns `argv[0]` (a path, no PATH search) with `envp`, in a new process group, with an empty
/// signal mask and the signals in `default_signals` reset to SIG_DFL, stdin from `stdin_fd`, stdout to
/// `stdout_fd`, stderr to `stderr_fd`, working directory `cwd` (NULL: inherit). Every other
/// descriptor the child gets is one the caller left without O_CLOEXEC.
/// Returns 0 and sets *pid, or an errno value (the child never ran).
int fr_spawn(pid_t *pid, const char *const argv[], const char *const envp[], const char *cwd,
             int stdin_fd, int stdout_fd, int stderr_fd, const sigset_t *default_signals);

/// Does once, now, what the first `fr_spawn` would otherwise do first: find the signals that have a
/// handler in this process (64 `sigaction` queries). Any thread, any time; later calls return at once.
void fr_spawn_prepare(void);

/// `bytes` of zeroed memory shared with the processes this one starts (MAP_SHARED|MAP_ANONYMOUS),
/// which the guardian reads. NULL on failure.
int32_t *fr_map_shared_anonymous(size_t bytes);
/// Atomic store (release) and load (acquire) of a 32-bit word that another process maps too.
void fr_store_shared(int32_t *word, int32_t value);
int32_t fr_load_shared(const int32_t *word);

/// Starts the guardian: a process of its own (clone with CLONE_VM: this process's memory, its own
/// stack, descriptors and process group), holding no descriptor but `watch_fd` (as stdin) and
/// /dev/null. It waits for `watch_fd`, the read end of a pipe whose write end only this process
/// holds, to reach its end (this process exited or was killed); then it sends SIGTERM to every
/// process group in `table` (entry 0: how many entries follow; 0 and 1 are skipped), waits
/// `grace_ms`, sends SIGKILL, and exits. It runs only system calls (no allocation, no locks), so
/// this is safe from a multithreaded process. Returns the guardian's pid, or -1 with errno.
pid_t fr_start_guardian(int watch_fd, const int32_t *table, int32_t capacity, int grace_ms);

/// A lock taken and released, for the thread sanitizer (no-ops unless it is built in).
void fr_tsan_acquire(void *address);
void fr_tsan_release(void *address);

/// Wait-status decoding (the W* macros).
int fr_wifexited(int status);
int fr_wexitstatus(int status);
int fr_wifsignaled(int status);
int fr_wtermsig(int status);

/// The signal number's bit in `set` (sigaddset), and empty-set creation, for Swift callers.
void fr_sigset_empty(sigset_t *set);
void fr_sigset_add(sigset_t *set, int signo);

/// Blocks `signals` in the calling thread (and so in every thread it starts later). 0 or errno.
int fr_block_signals(const int *signals, int count);
/// Waits for one of `signals` (which must be blocked); returns its number.
int fr_wait_signal(const int *signals, int count);

/// The current disposition of `signo`: 0 default, 1 ignored, 2 handled.
int fr_signal_disposition(int signo);
/// Ignores `signo` in this process.
void fr_ignore_signal(int signo);

/// Number of CPUs in this thread's affinity mask.
int fr_affinity_cpus(void);

/// Opens `path` relative to `dirfd` for writing (create or truncate, 0600 unless `mode`), refusing
/// symbolic links anywhere in the final component (O_NOFOLLOW). -1 with errno.
int fr_open_nofollow(int dirfd, const char *path, int flags, int mode);

/// Creates an unnamed private temporary file in `dir` (O_TMPFILE, 0600), or, where the file system
/// refuses O_TMPFILE, a named one that is unlinked at once. -1 with errno.
int fr_private_tempfile(const char *dir);

/// Sets O_NONBLOCK on `fd` (only on descriptors futurerun created). 0 or -1.
int fr_set_nonblocking(int fd);

/// A close-on-exec pipe for a child's output: fds[0] (ours) non-blocking, fds[1] (the child's)
/// blocking. 0 or -1 with errno.
int fr_pipe_for_child_output(int fds[2]);

/// epoll, with the event's 64-bit token passed separately (epoll_event is packed on x86-64).
int fr_epoll_create(void);
int fr_epoll_add(int epfd, int fd, uint32_t events, uint64_t token);
int fr_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token);
int fr_epoll_remove(int epfd, int fd);
/// Waits up to `timeout_ms` (-1: forever); fills tokens/events; returns the count, or -1 (EINTR…).
int fr_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms);
extern const uint32_t FR_EPOLLIN, FR_EPOLLOUT, FR_EPOLLHUP, FR_EPOLLERR, FR_EPOLLONESHOT;

/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), and a wake-up write / drain read.
int fr_eventfd(void);
void fr_eventfd_signal(int fd);
void fr_eventfd_drain(int fd);

/// Whether child `pid` has exited (it is a zombie), without reaping it (waitid WNOWAIT).
int fr_has_exited(pid_t pid);

/// wait4(pid, WNOHANG): returns pid when reaped (status, CPU times in microseconds, peak RSS in
/// bytes filled in), 0 if still running, -1 with errno.
pid_t fr_wait4_nohang(pid_t pid, int *status, int64_t *user_usec, int64_t *sys_usec, int64_t *maxrss_bytes);

/// Asks the scheduler for a time slice of `nanoseconds` for the calling thread (Linux 6.12 and
/// later, SCHED_OTHER: clamped to 0.1–100 ms; a thread with a shorter slice preempts a running
/// one when it wakes). Children the thread forks get the default slice back. Returns 0, or -1 where
/// the kernel lacks it (nothing changes then).
int fr_request_short_slice(uint64_t nanoseconds);

#endif
