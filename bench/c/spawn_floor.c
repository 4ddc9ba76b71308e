// The floor for any job runner: keep J copies of `/bin/sh -c true` running with posix_spawn,
// reaping with waitpid, until N have run. No pipes, no output handling.
// usage: spawn_floor N J
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv) {
    int total = argc > 1 ? atoi(argv[1]) : 1000, width = argc > 2 ? atoi(argv[2]) : 2;
    char *args[] = {"/bin/sh", "-c", "true", NULL};
    int started = 0, running = 0;
    while (started < total || running > 0) {
        while (running < width && started < total) {
            pid_t pid;
            if (posix_spawn(&pid, "/bin/sh", NULL, NULL, args, environ) != 0) return 1;
            started++;
            running++;
        }
        int status;
        if (waitpid(-1, &status, 0) > 0) running--;
    }
    return 0;
}
