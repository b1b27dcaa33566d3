#ifndef C_PROCESS_CONTROL_H
#define C_PROCESS_CONTROL_H

/// prctl(PR_SET_DUMPABLE, 0): no core dump, no ptrace attach by same-uid processes, /proc/<pid> files
/// owned by root. prctl is variadic, which Swift cannot call; this wrapper is not. Returns 0 or -1 (errno).
int bv_set_not_dumpable(void);

/// prctl(PR_GET_DUMPABLE): 0 or 1, or -1 (errno).
int bv_get_dumpable(void);

#endif
