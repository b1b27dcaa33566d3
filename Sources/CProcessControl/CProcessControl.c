#ifdef __linux__
#include <sys/prctl.h>
#include "CProcessControl.h"

int bv_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
int bv_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
#else
#include "CProcessControl.h"

int bv_set_not_dumpable(void) { return 0; }
int bv_get_dumpable(void) { return -1; }
#endif
