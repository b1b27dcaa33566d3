#ifndef C_PROCESS_CONTROL_H
#define C_PROCESS_CONTROL_H

/// prctl(PR_SET_DUMPABLE, 0): no core dump, no ptrace attach by same-uid processes, /proc/<pid> files
/// owned by root. prctl is variadic, which Swift cannot call; this wrapper is not. Returns 0 or -1 (errno).
int bv_set_not_dumpable(void);

/// setpriority(PRIO_PROCESS, gettid(), nice): the calling thread's nice value alone (Linux keeps one per
/// thread). gettid and syscall have no Swift spelling. Returns 0 or -1 (errno); elsewhere 0, nothing done.
int bv_set_thread_nice(int nice);

/// prctl(PR_SET_NAME, name): the calling thread's name (15 bytes are kept), as `ps -L` and a debugger show
/// it. Returns 0 or -1 (errno); elsewhere 0, nothing done.
int bv_set_thread_name(const char *name);

/// prctl(PR_GET_DUMPABLE): 0 or 1, or -1 (errno).
int bv_get_dumpable(void);

/// pidfd_open(pid, 0) (Linux 5.3 and later), which glibc 2.36 wraps and older ones do not: a descriptor
/// that keeps referring to that process, never to a later one given the same pid. Returns it or -1 (errno).
int bv_pidfd_open(int pid);

#include <stddef.h>

/// For a process under an address-space limit (RLIMIT_AS): one malloc arena (glibc reserves 64 MiB per
/// extra arena) and `thread_stack_size` as the default stack of new threads (instead of RLIMIT_STACK's,
/// 8 MiB by default). Returns 0 or -1.
int bv_reserve_less_address_space(size_t thread_stack_size);

/// Whether `bytes` more of address space can be mapped now (mapped PROT_NONE and unmapped at once): 1 or 0.
int bv_address_space_available(size_t bytes);

#endif
