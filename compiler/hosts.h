/* hosts.h: the stub's grammar of allowed hosts, for the compiler. */
#include "../stub/hosts.h"
