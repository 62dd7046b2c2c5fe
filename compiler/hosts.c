/* hosts.c: the stub's grammar of allowed hosts (stub/hosts.c), built into
 * the compiler too, so that a policy's list and a run's --jail-allow-host
 * are read alike. */
#include "../stub/hosts.c"
