/* aarch64_nr.c: aarch64's syscall numbers for test_aarch64.c, from the
 * kernel's generic table (asm-generic/unistd.h, which arm64 uses), not from
 * libseccomp, whose table the compiler itself reads.  A file of its own:
 * the host's <asm/unistd.h> would define the same names otherwise. */
/* What arch/arm64/include/uapi/asm/unistd.h asks of the generic table. */
#define __ARCH_WANT_RENAMEAT
#define __ARCH_WANT_NEW_STAT
#define __ARCH_WANT_SET_GET_RLIMIT
#define __ARCH_WANT_TIME32_SYSCALLS
#define __ARCH_WANT_SYS_CLONE3
#define __ARCH_WANT_MEMFD_SECRET
#include <asm-generic/unistd.h>

#include "aarch64_nr.h"

const struct a64_nr a64_nr = {
    .getpid = __NR_getpid,
    .read = __NR_read,
    .ioctl = __NR_ioctl,
    .ptrace = __NR_ptrace,
    .process_vm_readv = __NR_process_vm_readv,
    .io_uring_setup = __NR_io_uring_setup,
    .io_uring_enter = __NR_io_uring_enter,
    .userfaultfd = __NR_userfaultfd,
    .unshare = __NR_unshare,
    .clone = __NR_clone,
    .chroot = __NR_chroot,
    .clone3 = __NR_clone3,
    .setns = __NR_setns,
    .mount = __NR_mount,
    .umount2 = __NR_umount2,
    .open_tree = __NR_open_tree,
    .fsopen = __NR_fsopen,
    .move_mount = __NR_move_mount,
    .pivot_root = __NR_pivot_root,
    .init_module = __NR_init_module,
    .finit_module = __NR_finit_module,
    .kexec_load = __NR_kexec_load,
    .reboot = __NR_reboot,
    .swapon = __NR_swapon,
    .keyctl = __NR_keyctl,
    .add_key = __NR_add_key,
    .bpf = __NR_bpf,
    .perf_event_open = __NR_perf_event_open,
    .open_by_handle_at = __NR_open_by_handle_at,
    .name_to_handle_at = __NR_name_to_handle_at,
    .settimeofday = __NR_settimeofday,
    .socket = __NR_socket,
    .pkey_alloc = __NR_pkey_alloc,
    .openat = __NR_openat,
};
