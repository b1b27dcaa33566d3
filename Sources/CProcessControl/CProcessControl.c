#ifdef __linux__
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CProcessControl.h"

int bv_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
int bv_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
int bv_set_thread_name(const char *name) { return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
int bv_pidfd_open(int pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int bv_set_thread_nice(int nice) { return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice); }

int bv_reserve_less_address_space(size_t thread_stack_size) {
    // glibc gives every new malloc arena a 64 MiB reservation, and every thread created without a stack
    // size RLIMIT_STACK's (8 MiB by default): one worker thread alone does not fit in 64 MiB.
    if (mallopt(M_ARENA_MAX, 1) != 1) return -1;
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return -1;
    int failed = pthread_attr_setstacksize(&attributes, thread_stack_size) != 0
        || pthread_setattr_default_np(&attributes) != 0;
    pthread_attr_destroy(&attributes);
    return failed ? -1 : 0;
}

int bv_address_space_available(size_t bytes) {
    void *probe = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (probe == MAP_FAILED) return 0;
    munmap(probe, bytes);
    return 1;
}
#else
#include "CProcessControl.h"

int bv_set_not_dumpable(void) { return 0; }
int bv_get_dumpable(void) { return -1; }
int bv_pidfd_open(int pid) { (void)pid; return -1; }
int bv_set_thread_nice(int nice) { (void)nice; return 0; }
int bv_set_thread_name(const char *name) { (void)name; return 0; }
int bv_reserve_less_address_space(size_t thread_stack_size) { (void)thread_stack_size; return 0; }
int bv_address_space_available(size_t bytes) { (void)bytes; return 1; }
#endif
