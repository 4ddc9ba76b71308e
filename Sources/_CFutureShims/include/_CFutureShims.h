// FutureCore's C: the libc and kernel calls its process engine needs that Swift's Glibc module
// does not expose (they need _GNU_SOURCE, are macros, or take packed structs). Nothing here knows
// which program uses it; names it shows (the guardian's, a temporary file's) come from the process.
#ifndef CFUTURESHIMS_H
#define CFUTURESHIMS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#pragma clang assume_nonnull begin

// MARK: Spawning (spawn.c)

/// Spawns `argv[0]` (a path, no PATH search) with `envp`, in a new process group, with an empty
/// signal mask and the signals in `default_signals` reset to SIG_DFL, stdin from `stdin_fd`, stdout to
/// `stdout_fd`, stderr to `stderr_fd`, working directory `cwd` (NULL: inherit). Every other
/// descriptor the child gets is one the caller left without O_CLOEXEC.
/// Returns 0 and sets *pid, or an errno value (the child never ran).
int fc_spawn(pid_t *pid, const char *_Nullable const argv[_Nonnull], const char *_Nullable const envp[_Nonnull],
             const char *_Nullable cwd, int stdin_fd, int stdout_fd, int stderr_fd,
             const sigset_t *_Nullable default_signals);

/// Does once, now, what the first `fc_spawn` would otherwise do first: find the signals that have a
/// handler in this process (64 `sigaction` queries). Any thread, any time; later calls return at once.
void fc_spawn_prepare(void);

// MARK: A child's descriptors and its end (child.c)

/// pipe2(fds, O_CLOEXEC | extra). Returns 0 or -1 with errno.
int fc_pipe_cloexec(int fds[_Nonnull 2], int extra_flags);

/// A close-on-exec pipe for a child's output: fds[0] (ours) non-blocking, fds[1] (the child's)
/// blocking. 0 or -1 with errno.
int fc_pipe_for_child_output(int fds[_Nonnull 2]);

/// A close-on-exec pipe for a child's input that already holds `bytes`: fds[0] is the child's,
/// fds[1] ours, non-blocking. The pipe is enlarged when `count` exceeds its usual 64 KiB; all of
/// `bytes` is written before it returns, or it fails (EMSGSIZE when they cannot fit). 0 or -1 with
/// errno, and then no descriptor is left open.
int fc_pipe_for_child_input(int fds[_Nonnull 2], const uint8_t *_Nullable bytes, size_t count);

/// A close-on-exec pipe for a child's input that this process fills as the child reads: fds[0] is
/// the child's, fds[1] ours, non-blocking. For `expected` bytes over 64 KiB the pipe is enlarged
/// (to at most 1 MiB, as far as the system allows), so that a big input costs fewer wake-ups.
/// 0 or -1 with errno, and then no descriptor is left open.
int fc_pipe_for_child_feed(int fds[_Nonnull 2], size_t expected);

/// Moves up to `count` bytes of `file` from `*offset` into the non-blocking pipe `pipe` through
/// the kernel (splice: the page cache's pages, not this process's memory), advancing `*offset`.
/// Returns the bytes moved, 0 at the file's end, or -1 with errno (EAGAIN: the pipe is full;
/// EPIPE: its reader is gone).
ssize_t fc_splice_from_file(int file, int64_t *offset, int pipe, size_t count);

/// pidfd_open(pid, 0) (pidfds are always close-on-exec). -1 with errno where the kernel lacks it.
int fc_pidfd_open(pid_t pid);

/// Whether child `pid` has exited (it is a zombie), without reaping it (waitid WNOWAIT).
int fc_has_exited(pid_t pid);

/// wait4(pid, WNOHANG): returns pid when reaped (status, CPU times in microseconds, peak RSS in
/// bytes filled in), 0 if still running, -1 with errno.
pid_t fc_wait4_nohang(pid_t pid, int *status, int64_t *user_usec, int64_t *sys_usec, int64_t *maxrss_bytes);

/// Wait-status decoding (the W* macros).
int fc_wifexited(int status);
int fc_wexitstatus(int status);
int fc_wtermsig(int status);

// MARK: The guardian (guardian.c)

/// `bytes` of zeroed memory shared with the processes this one starts (MAP_SHARED|MAP_ANONYMOUS),
/// which the guardian reads. NULL on failure.
int32_t *_Nullable fc_map_shared_anonymous(size_t bytes);
/// Atomic store (release) and load (acquire) of a 32-bit word that another process maps too.
void fc_store_shared(int32_t *word, int32_t value);
int32_t fc_load_shared(const int32_t *word);

/// Starts the guardian: a process of its own (clone with CLONE_VM: this process's memory, its own
/// stack, descriptors and process group), named PROGRAM-guard, holding no descriptor but `watch_fd`
/// (as stdin) and /dev/null. It waits for `watch_fd`, the read end of a pipe whose write end only
/// this process holds, to reach its end (this process exited or was killed); then it sends SIGTERM
/// to every process group in `table` (entry 0: how many entries follow; 0 and 1 are skipped), waits
/// `grace_ms`, sends SIGKILL, then empties and removes the directory whose path `directory` holds
/// (shared memory, NUL-terminated; an empty string is none), and exits. It runs only system calls
/// (no allocation, no locks), so this is safe from a multithreaded process. Returns the guardian's
/// pid, or -1 with errno.
pid_t fc_start_guardian(int watch_fd, const int32_t *table, int32_t capacity, int grace_ms, const char *directory);

/// Stores `path` (NULL: none) in `page`, shared memory of `capacity` bytes the guardian reads, so
/// that a reader sees the whole path or none. A path that does not fit is stored as none.
void fc_store_shared_path(char *page, size_t capacity, const char *_Nullable path);

// MARK: The event loop (events.c)

/// epoll, with the event's 64-bit token passed separately (epoll_event is packed on x86-64).
int fc_epoll_create(void);
int fc_epoll_add(int epfd, int fd, uint32_t events, uint64_t token);
int fc_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token);
int fc_epoll_remove(int epfd, int fd);
/// Waits up to `timeout_ms` (-1: forever); fills tokens/events; returns the count, or -1 (EINTR…).
int fc_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms);
extern const uint32_t FC_EPOLLIN, FC_EPOLLOUT, FC_EPOLLHUP, FC_EPOLLONESHOT;

/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), and a wake-up write / drain read.
int fc_eventfd(void);
void fc_eventfd_signal(int fd);
void fc_eventfd_drain(int fd);

// MARK: Signals (signals.c)

/// The signal number's bit in `set` (sigaddset), and empty-set creation.
void fc_sigset_empty(sigset_t *set);
void fc_sigset_add(sigset_t *set, int signo);

/// Blocks `signals` in the calling thread (and so in every thread it starts later). 0 or errno.
int fc_block_signals(const int *signals, int count);
/// Waits for one of `signals` (which must be blocked); returns its number.
int fc_wait_signal(const int *signals, int count);

/// The current disposition of `signo`: 0 default, 1 ignored, 2 handled.
int fc_signal_disposition(int signo);
/// Ignores `signo` in this process.
void fc_ignore_signal(int signo);

/// Has every SIGCHLD write one byte to `write_fd` (non-blocking), installing the handler on first
/// use (SA_RESTART, SA_NOCLDSTOP): the portable exit watcher. At most 16 such pipes. 0, or -1.
int fc_notify_child_exits(int write_fd);

/// A pipe whose both ends are non-blocking and close-on-exec. 0, or -1 with errno.
int fc_self_pipe(int fds[_Nonnull 2]);

// MARK: Scheduling (scheduling.c)

/// Number of CPUs in this thread's affinity mask (0 if it cannot be read).
int fc_affinity_cpus(void);

/// Asks the scheduler for a time slice of `nanoseconds` for the calling thread (Linux 6.12 and
/// later, SCHED_OTHER: clamped to 0.1–100 ms; a thread with a shorter slice preempts a running
/// one when it wakes). Children the thread forks get the default slice back. Returns 0, or -1 where
/// the kernel lacks it (nothing changes then).
int fc_request_short_slice(uint64_t nanoseconds);


// MARK: Temporary files (tempfile.c)

/// Creates an unnamed private temporary file in `dir` (O_TMPFILE, 0600), or, where the file system
/// refuses O_TMPFILE, a named one (DIR/PROGRAM.XXXXXX) that is unlinked at once. -1 with errno.
int fc_private_tempfile(const char *dir);

// MARK: SHA-256 (sha256.c)

/// A SHA-256 computation in progress (FIPS 180-4): for the cache's keys and checksums.
typedef struct {
    uint32_t state[8];
    uint64_t length;
    uint8_t buffer[64];
    size_t buffered;
} fc_sha256;

void fc_sha256_init(fc_sha256 *context);
/// Adds `count` bytes.
void fc_sha256_update(fc_sha256 *context, const void *bytes, size_t count);
/// Writes the 32-byte digest of everything added; the context is used up.
void fc_sha256_final(fc_sha256 *context, uint8_t *digest);

#pragma clang assume_nonnull end

#endif
