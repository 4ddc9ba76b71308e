// What the scheduler gives this process: its CPUs, and a short time slice for the loop thread.
#define _GNU_SOURCE
#include "_CFutureShims.h"
#include "internal.h"

#include <sched.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int fc_affinity_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}


// struct sched_attr as the kernel defines it (SCHED_ATTR_SIZE_VER0); glibc declares none.
struct fc_sched_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

int fc_request_short_slice(uint64_t nanoseconds) {
    struct fc_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return -1;
    if (attr.policy != SCHED_OTHER && attr.policy != SCHED_BATCH) return -1;
    attr.size = sizeof attr;
    attr.flags = 0x01;  // SCHED_FLAG_RESET_ON_FORK: children get the default slice back
    attr.runtime = nanoseconds;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}

