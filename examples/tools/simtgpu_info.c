// SPDX-License-Identifier: MIT
/*
 * simtgpu-info: what the kernel driver and the device say about themselves,
 * as "key: value" lines (the demo's summary reads them).
 *
 *   simtgpu-info [RENDER_NODE]        default /dev/dri/renderD128
 *
 * The driver: DRM name, version, date and description (DRM_IOCTL_VERSION),
 * and the device properties of GET_PARAM. The device: its counters, which
 * the driver reads from BAR0 and publishes in sysfs (counters/NAME on the
 * PCI device, one per counter of simtgpu/counters.h; docs/counters.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xf86drm.h>

#include "drm/simtgpu_drm.h"
#include "simtgpu/counters.h"

static int get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_simtgpu_get_param p = {.param = param};
	if (drmIoctl(fd, DRM_IOCTL_SIMTGPU_GET_PARAM, &p) != 0)
		return -errno;
	*value = p.value;
	return 0;
}

static const struct {
	uint32_t param;
	const char *key;
} params[] = {
	{SIMTGPU_PARAM_ARCH, "arch"},
	{SIMTGPU_PARAM_NUM_SMS, "sms"},
	{SIMTGPU_PARAM_WARPS_PER_SM, "warps_per_sm"},
	{SIMTGPU_PARAM_WARP_SIZE, "warp_size"},
	{SIMTGPU_PARAM_CLOCK_KHZ, "clock_khz"},
	{SIMTGPU_PARAM_VRAM_SIZE, "vram_bytes"},
	{SIMTGPU_PARAM_VRAM_USED, "vram_used_bytes"},
};

static const char *const counters[] = {
#define SIMTGPU_X(name, unit, ncu, meaning) #name,
	SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
};

/* The PCI device's sysfs file NAME of render node NODE. */
static void device_file(char *path, size_t size, const char *node, const char *name)
{
	const char *base = strrchr(node, '/');
	snprintf(path, size, "/sys/class/drm/%s/device/%s", base ? base + 1 : node, name);
}

/* The counters the driver publishes in sysfs; returns how many it printed. */
static int print_sysfs_counters(const char *node)
{
	int printed = 0;
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); ++i) {
		char path[PATH_MAX];
		char name[128];
		snprintf(name, sizeof(name), "counters/%s", counters[i]);
		device_file(path, sizeof(path), node, name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		uint64_t value;
		if (fscanf(f, "%" SCNu64, &value) == 1) {
			printf("%s: %" PRIu64 "\n", counters[i], value);
			++printed;
		}
		fclose(f);
	}
	return printed;
}

int main(int argc, char **argv)
{
	const char *node = argc > 1 ? argv[1] : "/dev/dri/renderD128";
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: simtgpu-info [RENDER_NODE]\n");
		return 2;
	}
	int fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "simtgpu-info: %s: %s\n", node, strerror(errno));
		return 1;
	}
	drmVersionPtr version = drmGetVersion(fd);
	if (!version) {
		fprintf(stderr, "simtgpu-info: %s: not a DRM device\n", node);
		close(fd);
		return 1;
	}
	printf("node: %s\n", node);
	printf("driver: %s %d.%d.%d (%s), %s\n", version->name, version->version_major,
	       version->version_minor, version->version_patchlevel, version->date, version->desc);
	int ours = strcmp(version->name, "simtgpu") == 0;
	drmFreeVersion(version);
	if (!ours) {
		fprintf(stderr, "simtgpu-info: %s is not driven by simtgpu\n", node);
		close(fd);
		return 1;
	}
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); ++i) {
		uint64_t value = 0;
		int err = get_param(fd, params[i].param, &value);
		if (err)
			printf("%s: unavailable (%s)\n", params[i].key, strerror(-err));
		else
			printf("%s: %" PRIu64 "\n", params[i].key, value);
	}
	close(fd);

	if (print_sysfs_counters(node) == 0)
		printf("counters: unavailable (the loaded simtgpu.ko publishes no counters/ files)\n");
	return 0;
}
