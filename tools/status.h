/* status.h: what aijail-status's files share (main.c chooses the report). */
#ifndef AIJAIL_STATUS_H
#define AIJAIL_STATUS_H

#include <stdbool.h>

/* What is in force for this process (status.c): 0 in a jail, 1 not,
 * 2 output failed. */
int status_main(bool json);
/* s as a JSON string, or null when NULL (status.c). */
void status_json_str(const char *s);
/* --watchers (watchers.c): 0, or 2 when the output failed. */
int watchers_list(bool json);

#endif
