// The event loop's epoll set and its eventfd wake-ups.
#define _GNU_SOURCE
#include "_CFutureShims.h"
#include "internal.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

const uint32_t FC_EPOLLIN = EPOLLIN, FC_EPOLLOUT = EPOLLOUT, FC_EPOLLHUP = EPOLLHUP, FC_EPOLLONESHOT = EPOLLONESHOT;

int fc_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int epoll_control(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data.u64 = token};
    return epoll_ctl(epfd, op, fd, &event);
}

int fc_epoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
    return epoll_control(epfd, EPOLL_CTL_ADD, fd, events, token);
}

int fc_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token) {
    return epoll_control(epfd, EPOLL_CTL_MOD, fd, events, token);
}

int fc_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int fc_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event ready[256];
    if (max > 256) max = 256;
    int count = epoll_wait(epfd, ready, max, timeout_ms);
    for (int i = 0; i < count; i++) {
        tokens[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return count;
}

int fc_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

void fc_eventfd_signal(int fd) {
    uint64_t one = 1;
    while (write(fd, &one, sizeof one) < 0 && errno == EINTR) {}
}

void fc_eventfd_drain(int fd) {
    uint64_t count;
    while (read(fd, &count, sizeof count) < 0 && errno == EINTR) {}
}
