// Private temporary files for spilled output.
#define _GNU_SOURCE
#include "_CFutureShims.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int fc_private_tempfile(const char *dir) {
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    // A named file, unlinked at once: DIR/PROGRAM.XXXXXX, named after the program that asked.
    char path[PATH_MAX];
    int length = snprintf(path, sizeof path, "%s/%s.XXXXXX", dir, program_invocation_short_name);
    if (length < 0 || (size_t)length >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0) unlink(path);
    return fd;
}
