/* toggles.c: what the toggles mean, the one place the compiler describes
 * one (its name and bit are AJ_TOGGLES').
 *
 * GPU: the NVIDIA nodes (the [0-9] keeps nvidia-caps, a directory, to its
 * own entry), DRM render and card nodes, ROCm's kfd, and the read-only
 * /sys the drivers' user-space libraries read (PCI topology, the DRM and
 * kfd classes, the NVIDIA modules), the latter only on a host that has one
 * of the nodes.  Docker: the Unix socket.  Display: the X11 socket of a
 * local $DISPLAY, the Wayland socket of $WAYLAND_DISPLAY (never the rest of
 * $XDG_RUNTIME_DIR), the X authority file.  A toggle that is on keeps its
 * variables; one that is off drops them, whatever else keeps them. */
#include "toggles.h"
#include "changes.h"
#include "args.h"
#include "diag.h"

enum { GPU_SYS = AJ_MOUNT_OPTIONAL | AJ_MOUNT_WITH_DEVICES };

static const struct toggle_mount mounts[] = {
    {AJ_TOGGLE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidiactl", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia[0-9]*", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia-uvm", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia-uvm-tools", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia-modeset", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia-caps/*", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/dri/*", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/kfd", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/devices", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/bus/pci", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/class/drm", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/class/kfd", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/module/nvidia", 0},
    {AJ_TOGGLE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/module/nvidia_uvm", 0},
    {AJ_TOGGLE_DOCKER, AJ_MOUNT_RW, AJ_MOUNT_OPTIONAL, NULL, AJ_VAR_DOCKER_SOCKET},
    {AJ_TOGGLE_DISPLAY, AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, NULL, AJ_VAR_X11_SOCKET},
    {AJ_TOGGLE_DISPLAY, AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, NULL, AJ_VAR_WAYLAND_SOCKET},
    {AJ_TOGGLE_DISPLAY, AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, NULL, AJ_VAR_XAUTHORITY},
};

static const struct toggle_env envs[] = {
    {AJ_TOGGLE_GPU, true, "CUDA_*"},
    {AJ_TOGGLE_GPU, true, "NVIDIA_*"},
    {AJ_TOGGLE_GPU, true, "ROCR_*"},
    {AJ_TOGGLE_GPU, true, "HIP_*"},
    {AJ_TOGGLE_GPU, true, "HSA_*"},
    {AJ_TOGGLE_GPU, true, "GPU_DEVICE_ORDINAL"},
    {AJ_TOGGLE_DOCKER, true, "DOCKER_HOST"},
    {AJ_TOGGLE_DISPLAY, true, "DISPLAY"},
    {AJ_TOGGLE_DISPLAY, true, "WAYLAND_DISPLAY"},
    {AJ_TOGGLE_DISPLAY, true, "XAUTHORITY"},
    {AJ_TOGGLE_DISPLAY, false, "XDG_RUNTIME_DIR"}, /* a relative $WAYLAND_DISPLAY */
};

const struct toggle_mount *toggles_mounts(size_t *n)
{
	*n = N(mounts);
	return mounts;
}

const struct toggle_env *toggles_envs(size_t *n)
{
	*n = N(envs);
	return envs;
}

int toggles_of_var(int var)
{
	for (size_t i = 0; i < N(mounts); i++)
		if (!mounts[i].path && mounts[i].var == var)
			return mounts[i].toggle;
	return -1;
}

bool toggles_switchable(const struct variant *v, int t)
{
	return (v->features & AJ_TOGGLE_BIT(t)) || !(v->toggles_fixed & AJ_TOGGLE_BIT(t));
}

bool toggles_lower(struct lowering *lw, const struct stmt *s)
{
	static const char *const onoff[] = {"off", "on"};
	if (!args_key_once(lw->first, s) || !args_want(s, 1, 1, ast_printf("%s on|off;", s->key)))
		return false;
	int on = args_choose(s->args, ast_printf("%s setting", s->key), onoff, 2);
	if (on < 0)
		return false;
	struct change c = {.kind = CH_TOGGLE, .loc = s->loc};
	c.toggle.toggle = lw->arg;
	c.toggle.on = on;
	c.toggle.fixed = lw->kind == BLOCK_MODE;
	VEC_PUSH(*lw->out, c);
	return true;
}
