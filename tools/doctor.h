/* doctor.h: aijail-status --doctor (doctor.c) and the machine's facts it
 * measures without a stub (doctor_probe.c). */
#ifndef AIJAIL_DOCTOR_H
#define AIJAIL_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* status.c's: the first n-1 bytes of a small kernel file, NUL-terminated;
 * -1 if it cannot be read. */
ssize_t read_small(const char *path, char *buf, size_t n);

int doctor_main(bool json);
/* --apparmor-profile: the stubs' profile for the folder they are in. */
int doctor_profile(void);

/* Part of proc covered by another mount, as the stubs test it
 * (stub/variant/nscause.c). */
bool doctor_proc_covered(const char *proc);
/* The cgroup version of /sys/fs/cgroup (0 unknown), this process's
 * cgroup, the controllers it may hand down, whether it may write there. */
void doctor_cgroup(int *version, char *path, size_t path_n, char *ctl, size_t ctl_n, int *writable);
/* 1 int 0x80 answers, 0 it faults, -1 not x86_64, -2 unknown (killed
 * otherwise: a seccomp filter). */
int doctor_ia32(void);
/* The Docker socket the stubs would find ($DOCKER_HOST's unix:// path,
 * else /var/run/docker.sock), "" when none. */
void doctor_docker(char *out, size_t n);

#endif
