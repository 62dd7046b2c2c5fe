/* aarch64_nr.h: see aarch64_nr.c. */
#ifndef AJ_TEST_AARCH64_NR_H
#define AJ_TEST_AARCH64_NR_H

struct a64_nr {
	long getpid, read, ioctl, ptrace, process_vm_readv, io_uring_setup, io_uring_enter,
	    userfaultfd, unshare, clone, chroot, clone3, setns, mount, umount2, open_tree, fsopen,
	    move_mount, pivot_root, init_module, finit_module, kexec_load, reboot, swapon, keyctl,
	    add_key, bpf, perf_event_open, open_by_handle_at, name_to_handle_at, settimeofday,
	    socket, pkey_alloc, openat;
};
extern const struct a64_nr a64_nr;

#endif
