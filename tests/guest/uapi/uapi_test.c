// SPDX-License-Identifier: MIT
/*
 * simtgpu-uapi-test: the kernel driver's uAPI, exercised from userspace in
 * the guest. Each test checks one ioctl's success path and its refusals, or
 * one behaviour of the driver (memory, submission, dependencies, isolation
 * between processes, faults, hangs, leaks). Expected values are computed
 * here, independently of the driver and the device.
 *
 * Usage: simtgpu-uapi-test [--no-reload]
 *   --no-reload   skip the tests that unload and reload simtgpu.ko (the
 *                 hang test then needs a timeout_ms of at most 10 s)
 * Prints one line per test and ends with "N passed, N failed".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include <drm/simtgpu_drm.h>
#include <simtgpu/counters.h>
#include <simtgpu/hw.h>

#include "device_kernels.h"

extern const unsigned char uapi_device_elf[];
extern const unsigned char uapi_device_elf_end[];

/* ------------------------------------------------------- reporting --- */

static int tests_passed;
static int tests_failed;
static int tests_skipped;
static bool current_failed;
static char skip_reason[160]; /* why the current test could not run here */

/* The current test cannot run on this guest: it is counted as skipped
 * (unless it also failed) and reported as "skip NAME: WHY". */
static void skip_test(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
}

static void fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "  %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	current_failed = true;
}

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond))                                                \
			fail(__FILE__, __LINE__, "%s", #cond);              \
	} while (0)

/* An ioctl that must fail with `err` (a positive errno). */
#define CHECK_ERR(expr, err)                                                \
	do {                                                                \
		int got_ = (expr);                                          \
		if (got_ != -(err))                                         \
			fail(__FILE__, __LINE__, "%s: got %d (%s), want -%s", \
			     #expr, got_, got_ ? strerror(-got_) : "ok",     \
			     #err);                                         \
	} while (0)

#define CHECK_OK(expr)                                                      \
	do {                                                                \
		int got_ = (expr);                                          \
		if (got_)                                                   \
			fail(__FILE__, __LINE__, "%s: %d (%s)", #expr, got_, \
			     strerror(-got_));                              \
	} while (0)

static void run_test(const char *name, void (*fn)(void))
{
	current_failed = false;
	skip_reason[0] = 0;
	fn();
	if (skip_reason[0] && !current_failed) {
		tests_skipped++;
		printf("skip %s: %s\n", name, skip_reason);
	} else if (current_failed) {
		tests_failed++;
		printf("FAIL %s\n", name);
	} else {
		tests_passed++;
		printf("PASS %s\n", name);
	}
	fflush(stdout);
}

/* ------------------------------------------------------- helpers --- */

static int xioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? -errno : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int open_simtgpu(void)
{
	for (int minor = 128; minor < 192; minor++) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		drmVersionPtr v = drmGetVersion(fd);
		bool ours = v && strcmp(v->name, "simtgpu") == 0;

		drmFreeVersion(v);
		if (ours)
			return fd;
		close(fd);
	}
	return -1;
}

static uint64_t get_param(int fd, uint32_t param)
{
	struct drm_simtgpu_get_param p = { .param = param };

	if (xioctl(fd, DRM_IOCTL_SIMTGPU_GET_PARAM, &p))
		return 0;
	return p.value;
}

static int bo_create(int fd, uint64_t size, uint32_t flags, uint32_t *handle,
		     uint64_t *va)
{
	struct drm_simtgpu_bo_create c = { .size = size, .flags = flags };
	int ret = xioctl(fd, DRM_IOCTL_SIMTGPU_BO_CREATE, &c);

	*handle = ret ? 0 : c.handle;
	if (va)
		*va = ret ? 0 : c.gpu_va;
	return ret;
}

static void *bo_map(int fd, uint32_t handle, uint64_t size)
{
	struct drm_simtgpu_bo_mmap_offset m = { .handle = handle };
	void *p;

	if (xioctl(fd, DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &m))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
	return p == MAP_FAILED ? NULL : p;
}

static int queue_create(int fd, uint32_t priority, uint32_t *id)
{
	struct drm_simtgpu_queue_create q = { .priority = priority };
	int ret = xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &q);

	*id = ret ? 0 : q.queue_id;
	return ret;
}

static int queue_state(int fd, uint32_t id,
		       struct drm_simtgpu_queue_get_state *s)
{
	memset(s, 0, sizeof(*s));
	s->queue_id = id;
	return xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, s);
}

static uint32_t syncobj_new(int fd)
{
	uint32_t h = 0;

	if (drmSyncobjCreate(fd, 0, &h))
		fail(__FILE__, __LINE__, "drmSyncobjCreate: %s", strerror(errno));
	return h;
}

/* Waits up to `seconds` for a binary syncobj; 0 when it signalled. */
static int syncobj_wait(int fd, uint32_t h, int seconds)
{
	int64_t deadline = (int64_t)(now_ns() + seconds * 1000000000ull);

	return drmSyncobjWait(fd, &h, 1, deadline,
			      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL) ?
		       -errno : 0;
}

/* The status of a binary syncobj's fence: 1 signalled, <0 its error. */
static int syncobj_status(int fd, uint32_t h)
{
	struct sync_file_info info = { 0 };
	int sync_fd = -1;
	int ret;

	if (drmSyncobjExportSyncFile(fd, h, &sync_fd))
		return -1000;
	ret = ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info);
	close(sync_fd);
	return ret ? -1001 : info.status;
}

/* An indirect buffer being written, in a BO of its own. */
struct ib {
	uint32_t handle;
	uint64_t va;
	uint32_t *map;
	uint32_t dwords;
};

#define IB_BYTES 16384

static bool ib_init(int fd, struct ib *ib)
{
	memset(ib, 0, sizeof(*ib));
	if (bo_create(fd, IB_BYTES, 0, &ib->handle, &ib->va))
		return false;
	ib->map = bo_map(fd, ib->handle, IB_BYTES);
	return ib->map != NULL;
}

static void ib_fini(int fd, struct ib *ib)
{
	if (ib->map)
		munmap(ib->map, IB_BYTES);
	if (ib->handle)
		drmCloseBufferHandle(fd, ib->handle);
	memset(ib, 0, sizeof(*ib));
}

static void ib_packet(struct ib *ib, uint32_t opcode, const void *body,
		      uint32_t bytes)
{
	ib->map[ib->dwords++] = SIMTGPU_PKT_HEADER(opcode, 0, bytes / 4);
	memcpy(&ib->map[ib->dwords], body, bytes);
	ib->dwords += bytes / 4;
}

static void ib_fill(struct ib *ib, uint64_t va, uint64_t bytes,
		    uint32_t pattern)
{
	struct simtgpu_pkt_fill f = { .dst_va = va, .bytes = bytes,
				      .pattern = pattern };

	ib_packet(ib, SIMTGPU_PKT_FILL, &f, sizeof(f));
}

static void ib_copy(struct ib *ib, uint64_t src, uint64_t dst, uint64_t bytes)
{
	struct simtgpu_pkt_copy c = { .src_va = src, .dst_va = dst,
				      .bytes = bytes };

	ib_packet(ib, SIMTGPU_PKT_COPY, &c, sizeof(c));
}

struct submit_opts {
	uint32_t queue;
	const struct drm_simtgpu_bo_ref *bos;
	uint32_t bo_count;
	const struct drm_simtgpu_sync *in;
	uint32_t in_count;
	const struct drm_simtgpu_sync *out;
	uint32_t out_count;
	uint32_t flags;
};

static int submit(int fd, const struct ib *ib, const struct submit_opts *o)
{
	struct drm_simtgpu_submit s = {
		.ib_va = ib->va,
		.ib_dwords = ib->dwords,
		.queue_id = o->queue,
		.bos = (uintptr_t)o->bos,
		.bo_count = o->bo_count,
		.bo_stride = sizeof(struct drm_simtgpu_bo_ref),
		.in_syncs = (uintptr_t)o->in,
		.in_sync_count = o->in_count,
		.sync_stride = sizeof(struct drm_simtgpu_sync),
		.out_syncs = (uintptr_t)o->out,
		.out_sync_count = o->out_count,
		.flags = o->flags,
	};

	/* CPU writes through the write-combined mapping reach VRAM first. */
	__sync_synchronize();
	return xioctl(fd, DRM_IOCTL_SIMTGPU_SUBMIT, &s);
}

/* Submits `ib` on `queue` with one binary out-syncobj and waits for it. */
static int run_ib(int fd, const struct ib *ib, uint32_t queue, int *status)
{
	uint32_t done = syncobj_new(fd);
	struct drm_simtgpu_sync out = { .handle = done };
	struct submit_opts o = { .queue = queue, .out = &out, .out_count = 1 };
	int ret = submit(fd, ib, &o);

	if (!ret)
		ret = syncobj_wait(fd, done, 120);
	if (!ret && status)
		*status = syncobj_status(fd, done);
	drmSyncobjDestroy(fd, done);
	return ret;
}

/* The device image, loaded into an EXEC BO at the VA the kernel chose. */
struct program {
	uint32_t handle;
	uint64_t va;
	uint64_t entry;
};

static bool program_load(int fd, struct program *prog)
{
	const unsigned char *image = uapi_device_elf;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;
	uint64_t lo = UINT64_MAX, hi = 0, size;
	unsigned char *map;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_machine != EM_RISCV)
		return false;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(image + eh->e_phoff +
							    i * eh->e_phentsize);

		if (ph->p_type != PT_LOAD)
			continue;
		lo = ph->p_vaddr < lo ? ph->p_vaddr : lo;
		hi = ph->p_vaddr + ph->p_memsz > hi ? ph->p_vaddr + ph->p_memsz : hi;
	}
	size = (hi - lo + 4095) & ~4095ull;
	if (bo_create(fd, size, SIMTGPU_BO_EXEC, &prog->handle, &prog->va))
		return false;
	map = bo_map(fd, prog->handle, size);
	if (!map)
		return false;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(image + eh->e_phoff +
							    i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD)
			memcpy(map + (ph->p_vaddr - lo), image + ph->p_offset,
			       ph->p_filesz);
	}
	munmap(map, size);
	/* Only pc-relative code: relocating is moving. */
	prog->entry = prog->va + (eh->e_entry - lo);
	return true;
}

/* A LAUNCH of the test kernel with parameters in a BO of their own. */
struct launch {
	uint32_t params_handle;
	uint64_t params_va;
};

static bool ib_launch(int fd, struct ib *ib, const struct program *prog,
		      const struct uapi_kernel_params *params, uint32_t ctas,
		      uint32_t threads, struct launch *l)
{
	struct simtgpu_pkt_launch p = { 0 };
	void *map;

	if (bo_create(fd, 4096, SIMTGPU_BO_READ_ONLY, &l->params_handle,
		      &l->params_va))
		return false;
	map = bo_map(fd, l->params_handle, 4096);
	if (!map)
		return false;
	memcpy(map, params, sizeof(*params));
	munmap(map, 4096);

	p.entry_pc = prog->entry;
	p.param_va = l->params_va;
	p.grid[0] = ctas;
	p.grid[1] = p.grid[2] = 1;
	p.block[0] = threads;
	p.block[1] = p.block[2] = 1;
	p.stack_bytes = 256;
	ib_packet(ib, SIMTGPU_PKT_LAUNCH, &p, sizeof(p));
	return true;
}

static char *read_file(const char *path)
{
	static char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

/* A "key value" or "key: value" number from a text file, or -1. */
static long long file_value(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;

	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == ':' || *p == '\t')
		p++;
	return strtoll(p, NULL, 10);
}

/* The debugfs directory of our device, e.g. /sys/kernel/debug/dri/128. */
static bool debugfs_dir(char *out, size_t len)
{
	DIR *d = opendir("/sys/kernel/debug/dri");
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char path[600];
		char *name;

		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/name",
			 e->d_name);
		name = read_file(path);
		if (name && strncmp(name, "simtgpu", 7) == 0) {
			snprintf(out, len, "/sys/kernel/debug/dri/%.200s",
				 e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* ------------------------------------------------------------ state --- */

static int fd = -1; /* the main test file */
static bool reload = true;

/* ------------------------------------------------------------- tests --- */

static void test_open(void)
{
	drmVersionPtr v;

	fd = open_simtgpu();
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	v = drmGetVersion(fd);
	CHECK(v && v->version_major == SIMTGPU_UAPI_VERSION_MAJOR);
	drmFreeVersion(v);
}

static void test_get_param(void)
{
	struct drm_simtgpu_get_param p = { 0 };

	for (uint32_t i = 0; i <= SIMTGPU_PARAM_MEM_CLOCK_KHZ; i++) {
		p.param = i;
		p.pad = 0;
		CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_GET_PARAM, &p));
	}
	CHECK(get_param(fd, SIMTGPU_PARAM_UAPI_VERSION) ==
	      ((SIMTGPU_UAPI_VERSION_MAJOR << 16) | SIMTGPU_UAPI_VERSION_MINOR));
	CHECK(get_param(fd, SIMTGPU_PARAM_HW_VERSION) >> 16 ==
	      SIMTGPU_HW_VERSION_MAJOR);
	CHECK(get_param(fd, SIMTGPU_PARAM_VRAM_SIZE) >= (4 << 20));
	CHECK(get_param(fd, SIMTGPU_PARAM_NUM_SMS) > 0);
	CHECK(get_param(fd, SIMTGPU_PARAM_WARP_SIZE) > 0);
	CHECK(get_param(fd, SIMTGPU_PARAM_NUM_QUEUES_MAX) > 0);
	CHECK(get_param(fd, SIMTGPU_PARAM_ARCH) >= SIMTGPU_ARCH_SIMT1);
	uint64_t t0 = get_param(fd, SIMTGPU_PARAM_TIMESTAMP);
	usleep(10000);
	CHECK(get_param(fd, SIMTGPU_PARAM_TIMESTAMP) >= t0);

	/* A DRAM has a width and a clock, or the device models none (1.4;
	 * umd_uapi_tests compares them with the configuration file). */
	CHECK((get_param(fd, SIMTGPU_PARAM_MEM_BUS_WIDTH) == 0) ==
	      (get_param(fd, SIMTGPU_PARAM_MEM_CLOCK_KHZ) == 0));

	/* Persisting L2 lines (1.7): a set-aside and a window, or neither. */
	CHECK((get_param(fd, SIMTGPU_PARAM_L2_PERSISTING_MAX) == 0) ==
	      (get_param(fd, SIMTGPU_PARAM_L2_WINDOW_MAX) == 0));
	CHECK(get_param(fd, SIMTGPU_PARAM_L2_PERSISTING_MAX) <=
	      get_param(fd, SIMTGPU_PARAM_L2_SIZE));

	/* Read-only duplicates (1.10), remote pages and evictions (1.11):
	 * none in a file that made none.
	 */
	CHECK(get_param(fd, SIMTGPU_PARAM_MANAGED_DUPLICATED) == 0);
	CHECK(get_param(fd, SIMTGPU_PARAM_MANAGED_REMOTE) == 0);
	CHECK(get_param(fd, SIMTGPU_PARAM_MANAGED_EVICTED) == 0);

	p.param = SIMTGPU_PARAM_MANAGED_EVICTED + 1; /* the last one + 1 */
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_GET_PARAM, &p), EINVAL);
	p.param = 0xffffffff;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_GET_PARAM, &p), EINVAL);
	p.param = SIMTGPU_PARAM_ARCH;
	p.pad = 1;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_GET_PARAM, &p), EINVAL);
}

static void test_bo_create_refusals(void)
{
	uint64_t vram = get_param(fd, SIMTGPU_PARAM_VRAM_SIZE);
	struct drm_simtgpu_bo_create c;

	memset(&c, 0, sizeof(c));
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_CREATE, &c), EINVAL);
	c.size = 4096;
	c.flags = 1u << 7;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_CREATE, &c), EINVAL);
	c.flags = 0;
	c.extensions = 1;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_CREATE, &c), EINVAL);
	c.extensions = 0;
	c.size = UINT64_MAX;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_CREATE, &c), EINVAL);
	c.size = UINT64_MAX - 4094;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_CREATE, &c), EINVAL);
	c.size = vram + 4096;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_CREATE, &c), ENOSPC);
	c.size = 1ull << 62;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_CREATE, &c), ENOSPC);
	/* All of VRAM cannot be had: the rings and page tables use some. */
	c.size = vram;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_CREATE, &c), ENOSPC);
}

static void test_bo_create_info(void)
{
	struct drm_simtgpu_bo_info info = { 0 };
	uint32_t a, b;
	uint64_t va_a, va_b;

	CHECK_OK(bo_create(fd, 5000, SIMTGPU_BO_EXEC, &a, &va_a));
	CHECK_OK(bo_create(fd, 4096, SIMTGPU_BO_READ_ONLY, &b, &va_b));
	CHECK(va_a % 4096 == 0 && va_b % 4096 == 0);
	CHECK(va_a >= 0x100000 && va_a < SIMTGPU_LOCAL_BASE);
	/* Disjoint, with at least one unmapped guard page between them. */
	CHECK(va_b >= va_a + 8192 + 4096 || va_a >= va_b + 4096 + 4096);

	info.handle = a;
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_INFO, &info));
	CHECK(info.size == 8192);
	CHECK(info.flags == SIMTGPU_BO_EXEC);
	CHECK(info.gpu_va == va_a);
	info.handle = b;
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_INFO, &info));
	CHECK(info.flags == SIMTGPU_BO_READ_ONLY && info.size == 4096);
	info.handle = 0xdead;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_INFO, &info), ENOENT);

	CHECK_OK(drmCloseBufferHandle(fd, a));
	info.handle = a;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_INFO, &info), ENOENT);
	CHECK(drmCloseBufferHandle(fd, a) != 0);
	CHECK_OK(drmCloseBufferHandle(fd, b));
}

static void test_bo_mmap(void)
{
	const uint64_t size = 256 * 1024;
	struct drm_simtgpu_bo_mmap_offset m = { 0 };
	uint32_t h;
	uint32_t *p;
	bool zero = true, same = true;

	CHECK_OK(bo_create(fd, size, 0, &h, NULL));
	m.handle = h;
	m.flags = 1;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &m), EINVAL);
	m.flags = 0;
	m.handle = 0xdead;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &m), ENOENT);

	p = bo_map(fd, h, size);
	CHECK(p != NULL);
	if (!p)
		return;
	for (uint64_t i = 0; i < size / 4; i++) {
		zero &= p[i] == 0;
		p[i] = (uint32_t)(i * 2654435761u);
	}
	CHECK(zero); /* fresh VRAM is cleared */
	munmap(p, size);
	/* A mapping larger than the BO is refused. */
	m.handle = h;
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &m));
	CHECK(mmap(NULL, size + 4096, PROT_READ, MAP_SHARED, fd, m.offset) ==
	      MAP_FAILED);

	p = bo_map(fd, h, size);
	CHECK(p != NULL);
	if (!p)
		return;
	for (uint64_t i = 0; i < size / 4; i++)
		same &= p[i] == (uint32_t)(i * 2654435761u);
	CHECK(same);
	munmap(p, size);
	drmCloseBufferHandle(fd, h);
}

static void test_queues(void)
{
	uint32_t max = (uint32_t)get_param(fd, SIMTGPU_PARAM_NUM_QUEUES_MAX);
	struct drm_simtgpu_queue_create c = { 0 };
	struct drm_simtgpu_queue_destroy d = { 0 };
	struct drm_simtgpu_queue_get_state s;
	uint32_t ids[256], n = 0, q;

	for (uint32_t prio = SIMTGPU_PRIORITY_LOW; prio <= SIMTGPU_PRIORITY_HIGH;
	     prio++) {
		CHECK_OK(queue_create(fd, prio, &q));
		CHECK_OK(queue_state(fd, q, &s));
		CHECK(s.state == 0 && s.last_error == 0);
		d.queue_id = q;
		CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_DESTROY, &d));
		CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_DESTROY, &d),
			  ENOENT);
		CHECK_ERR(queue_state(fd, q, &s), ENOENT);
	}
	c.priority = SIMTGPU_PRIORITY_HIGH + 1;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &c), EINVAL);
	c.priority = 0;
	c.flags = 1;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &c), EINVAL);
	c.flags = 0;
	c.pad = 1;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &c), EINVAL);
	d.queue_id = 1;
	d.pad = 1;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_DESTROY, &d), EINVAL);
	memset(&s, 0, sizeof(s));
	s.pad = 1;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, &s), EINVAL);

	/* Exactly NUM_QUEUES_MAX queues per file. */
	while (n < 256 && queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &ids[n]) == 0)
		n++;
	CHECK(n == max);
	CHECK_ERR(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &q), EBUSY);
	for (uint32_t i = 0; i < n; i++) {
		d.queue_id = ids[i];
		d.pad = 0;
		CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_DESTROY, &d));
	}
}

static void test_submit_refusals(void)
{
	struct drm_simtgpu_bo_ref refs[2];
	struct drm_simtgpu_sync sync = { 0 };
	struct submit_opts o = { 0 };
	struct drm_simtgpu_submit s;
	uint32_t q, fresh = syncobj_new(fd);
	struct ib ib;

	CHECK(ib_init(fd, &ib));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &q));
	ib.map[ib.dwords++] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, 0);
	o.queue = q;

#define BASE_SUBMIT()                                                     \
	do {                                                              \
		memset(&s, 0, sizeof(s));                                 \
		s.ib_va = ib.va;                                          \
		s.ib_dwords = 1;                                          \
		s.queue_id = q;                                           \
		s.bo_stride = sizeof(struct drm_simtgpu_bo_ref);          \
		s.sync_stride = sizeof(struct drm_simtgpu_sync);          \
	} while (0)
#define SUBMIT_ERR(err) CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_SUBMIT, &s), err)

	BASE_SUBMIT();
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_SUBMIT, &s));
	BASE_SUBMIT();
	s.extensions = 8;
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.flags = 1u << 5;
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.ib_dwords = 0;
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.ib_dwords = SIMTGPU_MAX_IB_DWORDS + 1;
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.ib_va += 2;
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.ib_va = 0x200000000000ull; /* mapped nowhere */
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.ib_dwords = IB_BYTES / 4 + 1; /* runs off the IB's BO */
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.queue_id = 9999;
	SUBMIT_ERR(ENOENT);
	BASE_SUBMIT();
	s.bo_count = SIMTGPU_MAX_SUBMIT_BOS + 1;
	s.bos = (uintptr_t)refs;
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.bo_count = 1;
	s.bos = (uintptr_t)refs;
	s.bo_stride = 4;
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.in_sync_count = SIMTGPU_MAX_SUBMIT_SYNCS + 1;
	SUBMIT_ERR(EINVAL);
	BASE_SUBMIT();
	s.in_sync_count = 1;
	s.in_syncs = (uintptr_t)&sync;
	s.sync_stride = 8;
	SUBMIT_ERR(EINVAL);

	/* Bad pointers, handles, flags and padding in the arrays. */
	BASE_SUBMIT();
	s.bo_count = 1;
	s.bos = 16; /* unmapped user address */
	SUBMIT_ERR(EFAULT);
	refs[0].handle = 0xdead;
	refs[0].flags = 0;
	BASE_SUBMIT();
	s.bo_count = 1;
	s.bos = (uintptr_t)refs;
	SUBMIT_ERR(ENOENT);
	refs[0].handle = ib.handle;
	refs[0].flags = 0x10;
	SUBMIT_ERR(EINVAL);
	refs[0].flags = 0;
	refs[1] = refs[0]; /* the same BO twice */
	s.bo_count = 2;
	SUBMIT_ERR(EINVAL);
	s.bo_count = 1;
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_SUBMIT, &s));

	BASE_SUBMIT();
	s.in_sync_count = 1;
	s.in_syncs = (uintptr_t)&sync;
	sync.handle = 0xdead;
	SUBMIT_ERR(ENOENT);
	sync.handle = fresh;
	sync.pad = 1;
	SUBMIT_ERR(EINVAL);
	sync.pad = 0;
	/* A syncobj without a fence is no dependency one can wait for. */
	SUBMIT_ERR(EINVAL);
	s.in_syncs = 16;
	SUBMIT_ERR(EFAULT);

	BASE_SUBMIT();
	s.out_sync_count = 1;
	s.out_syncs = (uintptr_t)&sync;
	sync.handle = 0xdead;
	SUBMIT_ERR(ENOENT);
	sync.handle = fresh;
	sync.pad = 2;
	SUBMIT_ERR(EINVAL);
	sync.pad = 0;
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_SUBMIT, &s));
	CHECK_OK(syncobj_wait(fd, fresh, 60));
	CHECK(syncobj_status(fd, fresh) == 1);

	drmSyncobjDestroy(fd, fresh);
	ib_fini(fd, &ib);
	struct drm_simtgpu_queue_destroy d = { .queue_id = q };
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_QUEUE_DESTROY, &d));
#undef BASE_SUBMIT
#undef SUBMIT_ERR
	(void)o;
}

static void test_wait_bo(void)
{
	struct drm_simtgpu_wait_bo w = { 0 };
	uint32_t h;

	CHECK_OK(bo_create(fd, 4096, 0, &h, NULL));
	w.handle = h;
	w.timeout_ns = 0; /* in the past: a poll */
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_WAIT_BO, &w));
	w.flags = 1;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_WAIT_BO, &w), EINVAL);
	w.flags = 0;
	w.handle = 0xdead;
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_WAIT_BO, &w), ENOENT);
	drmCloseBufferHandle(fd, h);
}

/* A job of FILL packets only: the ring, the IB and the fence path. */
static void test_fill_job(void)
{
	const uint64_t size = 64 * 1024;
	uint32_t q, h;
	uint64_t va;
	uint32_t *p;
	struct ib ib;
	int status = 0;
	bool ok = true;

	CHECK(ib_init(fd, &ib));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &q));
	CHECK_OK(bo_create(fd, size, 0, &h, &va));
	ib_fill(&ib, va, size, 0xc0ffee11);
	ib_fill(&ib, va + 4096, 8, 0x12345678);
	CHECK_OK(run_ib(fd, &ib, q, &status));
	CHECK(status == 1);
	p = bo_map(fd, h, size);
	CHECK(p != NULL);
	for (uint64_t i = 0; p && i < size / 4; i++) {
		uint32_t want = (i == 1024 || i == 1025) ? 0x12345678 : 0xc0ffee11;

		ok &= p[i] == want;
	}
	CHECK(ok);
	if (p)
		munmap(p, size);
	drmCloseBufferHandle(fd, h);
	ib_fini(fd, &ib);
}

/* B copies what A filled, on another queue, ordered only by syncobjs. */
static void test_syncobj_dependencies(void)
{
	const uint64_t size = 1 << 20;
	uint32_t qa, qb, src, dst, timeline, binary;
	uint64_t va_src, va_dst, point = 2;
	struct ib a, b, c;
	uint32_t *p;
	bool ok = true;

	CHECK(ib_init(fd, &a) && ib_init(fd, &b) && ib_init(fd, &c));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_LOW, &qa));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_HIGH, &qb));
	CHECK_OK(bo_create(fd, size, 0, &src, &va_src));
	CHECK_OK(bo_create(fd, size, 0, &dst, &va_dst));
	CHECK_OK(drmSyncobjCreate(fd, 0, &timeline));
	binary = syncobj_new(fd);

	/* A: slow (many fills), then the pattern. */
	for (int i = 0; i < 16; i++)
		ib_fill(&a, va_src, size, 0x11111111u * (i & 7));
	ib_fill(&a, va_src, size, 0x5eed5eed);
	ib_copy(&b, va_src, va_dst, size);
	ib_fill(&c, va_dst, 4, 0xfeedf00d); /* C runs after B: binary sync */

	struct drm_simtgpu_sync a_out = { .handle = timeline, .point = 1 };
	struct drm_simtgpu_sync b_in = { .handle = timeline, .point = 1 };
	struct drm_simtgpu_sync b_out[2] = {
		{ .handle = timeline, .point = 2 }, { .handle = binary } };
	struct drm_simtgpu_sync c_in = { .handle = binary };
	struct submit_opts oa = { .queue = qa, .out = &a_out, .out_count = 1 };
	struct submit_opts ob = { .queue = qb, .in = &b_in, .in_count = 1,
				  .out = b_out, .out_count = 2,
				  .flags = SIMTGPU_SUBMIT_NO_IMPLICIT_SYNC };
	struct submit_opts oc = { .queue = qa, .in = &c_in, .in_count = 1,
				  .flags = SIMTGPU_SUBMIT_NO_IMPLICIT_SYNC };

	CHECK_OK(submit(fd, &a, &oa));
	CHECK_OK(submit(fd, &b, &ob));
	CHECK_OK(submit(fd, &c, &oc));
	CHECK(drmSyncobjTimelineWait(fd, &timeline, &point, 1,
				     (int64_t)(now_ns() + 120000000000ull),
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				     NULL) == 0);
	/* C is the last job on queue A: WAIT_BO on dst covers nothing, so
	 * wait for C through its queue: submit an empty job after it.
	 */
	struct drm_simtgpu_wait_bo w = { .handle = dst,
					 .timeout_ns = (int64_t)(now_ns() +
								 60000000000ull) };
	uint32_t tail = syncobj_new(fd);
	struct drm_simtgpu_sync tail_out = { .handle = tail };
	struct submit_opts ot = { .queue = qa, .out = &tail_out, .out_count = 1 };
	struct ib nop;

	CHECK(ib_init(fd, &nop));
	nop.map[nop.dwords++] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, 0);
	CHECK_OK(submit(fd, &nop, &ot));
	CHECK_OK(syncobj_wait(fd, tail, 120));
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_WAIT_BO, &w));

	p = bo_map(fd, dst, size);
	CHECK(p != NULL);
	for (uint64_t i = 0; p && i < size / 4; i++)
		ok &= p[i] == (i == 0 ? 0xfeedf00d : 0x5eed5eed);
	CHECK(ok);
	if (p)
		munmap(p, size);
	drmSyncobjDestroy(fd, tail);
	drmSyncobjDestroy(fd, timeline);
	drmSyncobjDestroy(fd, binary);
	drmCloseBufferHandle(fd, src);
	drmCloseBufferHandle(fd, dst);
	ib_fini(fd, &a);
	ib_fini(fd, &b);
	ib_fini(fd, &c);
	ib_fini(fd, &nop);
}

static struct program prog;

static void test_kernel_launch(void)
{
	const uint32_t ctas = 4, threads = 64, count = 250;
	struct uapi_kernel_params params = { .mode = UAPI_KERNEL_FILL,
					     .count = count, .value = 1000 };
	struct drm_simtgpu_bo_ref ref;
	struct drm_simtgpu_wait_bo w = { 0 };
	struct launch l;
	uint32_t q, out, done = syncobj_new(fd);
	uint64_t out_va;
	uint32_t *p;
	struct ib ib;
	bool ok = true;

	CHECK(program_load(fd, &prog));
	CHECK(ib_init(fd, &ib));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &q));
	CHECK_OK(bo_create(fd, ctas * threads * 4, 0, &out, &out_va));
	params.out_va = out_va;
	CHECK(ib_launch(fd, &ib, &prog, &params, ctas, threads, &l));

	/* Waited on through the syncobj... */
	ref.handle = out;
	ref.flags = SIMTGPU_BO_REF_WRITE;
	struct drm_simtgpu_sync sync = { .handle = done };
	struct submit_opts o = { .queue = q, .bos = &ref, .bo_count = 1,
				 .out = &sync, .out_count = 1 };
	CHECK_OK(submit(fd, &ib, &o));
	/* ...and, through implicit sync, WAIT_BO on the written BO. */
	w.handle = out;
	w.timeout_ns = (int64_t)(now_ns() + 120000000000ull);
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_WAIT_BO, &w));
	CHECK_OK(syncobj_wait(fd, done, 120));
	CHECK(syncobj_status(fd, done) == 1);

	p = bo_map(fd, out, ctas * threads * 4);
	CHECK(p != NULL);
	for (uint32_t i = 0; p && i < ctas * threads; i++)
		ok &= p[i] == (i < count ? 1000 + i * i : 0);
	CHECK(ok);
	if (p)
		munmap(p, ctas * threads * 4);
	drmSyncobjDestroy(fd, done);
	drmCloseBufferHandle(fd, out);
	drmCloseBufferHandle(fd, l.params_handle);
	ib_fini(fd, &ib);
}

/* A store to an unmapped VA: -EFAULT, the queue faulted, the rest works. */
static void test_fault(void)
{
	const uint64_t bad = 0x300000000000ull;
	struct uapi_kernel_params params = { .mode = UAPI_KERNEL_STORE,
					     .out_va = bad, .value = 7 };
	struct drm_simtgpu_queue_get_state s;
	struct launch l;
	uint32_t q, other;
	struct ib ib, fill;
	int status = 0;

	CHECK(ib_init(fd, &ib) && ib_init(fd, &fill));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &q));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &other));
	CHECK(ib_launch(fd, &ib, &prog, &params, 1, 32, &l));
	CHECK_OK(run_ib(fd, &ib, q, &status));
	CHECK(status == -EFAULT);
	CHECK_OK(queue_state(fd, q, &s));
	CHECK(s.state & SIMTGPU_QUEUE_STATE_FAULTED);
	CHECK(s.last_error == -EFAULT);
	CHECK(s.fault.kind == SIMTGPU_EXC_PAGE_FAULT);
	CHECK(s.fault.address == bad);
	CHECK(s.fault.access == SIMTGPU_ACCESS_WRITE);
	CHECK(s.fault.tid[0] == 0 && s.fault.ctaid[0] == 0);
	/* A faulted queue takes no more work... */
	CHECK_ERR(run_ib(fd, &ib, q, NULL), ECANCELED);
	/* ...but the file's other queues do. */
	uint32_t h;
	uint64_t va;

	CHECK_OK(bo_create(fd, 4096, 0, &h, &va));
	ib_fill(&fill, va, 4096, 0xabcdef01);
	CHECK_OK(run_ib(fd, &fill, other, &status));
	CHECK(status == 1);
	CHECK_OK(queue_state(fd, other, &s));
	CHECK(s.state == 0);

	/* A FILL packet at an address mapped nowhere faults the same way. */
	uint32_t q2;

	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_LOW, &q2));
	fill.dwords = 0;
	ib_fill(&fill, bad, 4096, 1);
	CHECK_OK(run_ib(fd, &fill, q2, &status));
	CHECK(status == -EFAULT);
	CHECK_OK(queue_state(fd, q2, &s));
	CHECK(s.fault.address == bad && s.fault.access == SIMTGPU_ACCESS_WRITE);

	drmCloseBufferHandle(fd, h);
	drmCloseBufferHandle(fd, l.params_handle);
	ib_fini(fd, &ib);
	ib_fini(fd, &fill);
}

/* A managed BO's three counters of this file (GET_PARAM, uAPI 1.6). */
struct managed_counts {
	uint64_t faults, to_vram, to_host, remote, evicted;
};

static struct managed_counts managed_counts(int fd)
{
	struct managed_counts c = {
		get_param(fd, SIMTGPU_PARAM_MANAGED_GPU_FAULTS),
		get_param(fd, SIMTGPU_PARAM_MANAGED_TO_VRAM),
		get_param(fd, SIMTGPU_PARAM_MANAGED_TO_HOST),
		get_param(fd, SIMTGPU_PARAM_MANAGED_REMOTE),
		get_param(fd, SIMTGPU_PARAM_MANAGED_EVICTED),
	};

	return c;
}

/* Where the pages of managed_round_trip() must go. */
enum managed_expect {
	MANAGED_ALL_VRAM, /* every page fits */
	/* The file's VRAM limit leaves room for fewer: pages evict older
	 * ones, or go over the bus where a fault drain wants more than fit
	 * (its own pages are not evicted before its warps retry).
	 */
	MANAGED_AT_LIMIT,
	MANAGED_REMOTE, /* the limit is reached first: all over the bus */
};

/* Take every page the file's VRAM limit still allows, in 4 KiB BOs, into
 * @handles (up to @max); returns how many.
 */
static unsigned int fill_vram_limit(int fd, uint32_t *handles, unsigned int max)
{
	unsigned int n = 0;

	while (n < max && bo_create(fd, 4096, 0, &handles[n], NULL) == 0)
		n++;
	return n;
}

static bool has_replayable_faults(int fd)
{
	return get_param(fd, SIMTGPU_PARAM_CAPS) & SIMTGPU_CAP_REPLAYABLE_FAULTS;
}

/*
 * The host writes a managed BO, a kernel adds to every element (each page
 * moves to VRAM on its GPU fault), the host reads the sums (each page comes
 * back on its CPU fault); GET_PARAM counts exactly that. MANAGED_AT_LIMIT:
 * the file's VRAM limit leaves room for fewer pages; each still reaches the
 * GPU, moved (evicting older ones, which then come back without a CPU
 * fault) or over the bus, and fewer than all stay in VRAM. MANAGED_REMOTE:
 * the limit is filled once the kernel is set up, nothing can be evicted,
 * and the GPU maps every page over the bus. Returns the BO.
 */
static uint32_t managed_round_trip(int fd, const struct program *p,
				   uint32_t pages, enum managed_expect expect)
{
	uint64_t moved, remote, evicted;
	uint32_t fill[64];
	unsigned int filled = 0;
	const uint32_t count = pages * 1024, threads = 128;
	struct uapi_kernel_params params = { .mode = UAPI_KERNEL_ADD,
					     .count = count, .value = 5 };
	struct managed_counts before, mid, after;
	uint32_t h, q;
	uint64_t va;
	struct launch l;
	struct ib ib;
	int status = 0;
	uint32_t *m;
	bool ok = true;

	CHECK_OK(bo_create(fd, pages * 4096ull, SIMTGPU_BO_MANAGED, &h, &va));
	m = bo_map(fd, h, pages * 4096ull);
	CHECK(m != NULL);
	if (!m)
		return h;
	for (uint32_t i = 0; i < count; i++)
		m[i] = 3 * i;
	before = managed_counts(fd);
	CHECK(ib_init(fd, &ib));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &q));
	params.out_va = va;
	CHECK(ib_launch(fd, &ib, p, &params, count / threads, threads, &l));
	if (expect == MANAGED_REMOTE) {
		filled = fill_vram_limit(fd, fill, 64);
		CHECK(filled < 64);
	}
	CHECK_OK(run_ib(fd, &ib, q, &status));
	CHECK(status == 1);
	mid = managed_counts(fd);
	moved = mid.to_vram - before.to_vram;
	remote = mid.remote - before.remote;
	evicted = mid.evicted - before.evicted;
	CHECK(moved + remote == pages);
	switch (expect) {
	case MANAGED_ALL_VRAM:
		CHECK(moved == pages && evicted == 0);
		break;
	case MANAGED_AT_LIMIT:
		CHECK(moved - evicted < pages && (evicted || remote));
		break;
	case MANAGED_REMOTE:
		CHECK(remote == pages && evicted == 0);
		break;
	}
	CHECK(mid.faults - before.faults >= pages);
	CHECK(mid.to_host == before.to_host);
	for (uint32_t i = 0; i < count; i++)
		ok &= m[i] == 3 * i + 5 + i;
	CHECK(ok);
	after = managed_counts(fd);
	/* Every page that went to VRAM came back once: evicted or read. */
	CHECK(after.to_host - mid.to_host + evicted == moved);
	CHECK(after.evicted == mid.evicted);
	while (filled)
		drmCloseBufferHandle(fd, fill[--filled]);
	munmap(m, pages * 4096ull);
	drmCloseBufferHandle(fd, l.params_handle);
	ib_fini(fd, &ib);
	return h;
}

/*
 * Managed BOs (uAPI 1.6): refusals, the round trip host -> VRAM -> host,
 * and in a file that has one, a GPU access to an address that is no BO
 * still ends the job with a page fault. A file closed while its managed
 * BO is still mapped leaves the mapping working and leaks nothing (the
 * leak test afterwards checks).
 */
static void test_managed(void)
{
	const uint64_t bad = 0x300000000000ull;
	struct uapi_kernel_params params = { .mode = UAPI_KERNEL_STORE,
					     .out_va = bad, .value = 7 };
	struct drm_simtgpu_bo_mmap_offset mo = { 0 };
	struct drm_simtgpu_queue_get_state s;
	struct program p2;
	struct launch l;
	uint32_t h, q;
	struct ib ib;
	int status = 0, other;
	void *priv;

	CHECK_ERR(bo_create(fd, 4096, SIMTGPU_BO_MANAGED | SIMTGPU_BO_EXEC, &h,
			    NULL), EINVAL);
	CHECK_ERR(bo_create(fd, 4096, SIMTGPU_BO_MANAGED | SIMTGPU_BO_READ_ONLY,
			    &h, NULL), EINVAL);
	if (!has_replayable_faults(fd)) {
		CHECK_ERR(bo_create(fd, 4096, SIMTGPU_BO_MANAGED, &h, NULL),
			  ENODEV);
		skip_test("a device without replayable faults has no managed memory");
		return;
	}
	h = managed_round_trip(fd, &prog, 16, MANAGED_ALL_VRAM);
	/* A private mapping would never see the GPU's writes. */
	mo.handle = h;
	CHECK_OK(xioctl(fd, DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &mo));
	priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		    mo.offset);
	CHECK(priv == MAP_FAILED && errno == EINVAL);
	drmCloseBufferHandle(fd, h);

	/* Not managed memory, in a file with managed memory: a page fault. */
	CHECK(ib_init(fd, &ib));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &q));
	CHECK_OK(bo_create(fd, 8192, SIMTGPU_BO_MANAGED, &h, NULL));
	CHECK(ib_launch(fd, &ib, &prog, &params, 1, 32, &l));
	CHECK_OK(run_ib(fd, &ib, q, &status));
	CHECK(status == -EFAULT);
	CHECK_OK(queue_state(fd, q, &s));
	CHECK(s.fault.kind == SIMTGPU_EXC_PAGE_FAULT);
	CHECK(s.fault.address == bad);
	drmCloseBufferHandle(fd, h);
	drmCloseBufferHandle(fd, l.params_handle);
	ib_fini(fd, &ib);

	/* Closed with the BO mapped and in VRAM: the mapping still works. */
	other = open_simtgpu();
	CHECK(other >= 0);
	if (other < 0)
		return;
	CHECK(program_load(other, &p2));
	h = managed_round_trip(other, &p2, 4, MANAGED_ALL_VRAM);
	{
		uint32_t count = 4 * 1024, threads = 128, q2;
		struct uapi_kernel_params add = { .mode = UAPI_KERNEL_ADD,
						  .count = count, .value = 1 };
		struct drm_simtgpu_bo_info info = { .handle = h };
		uint32_t *m = bo_map(other, h, 4 * 4096);
		bool ok = true;

		CHECK(m != NULL);
		CHECK_OK(xioctl(other, DRM_IOCTL_SIMTGPU_BO_INFO, &info));
		CHECK(ib_init(other, &ib));
		CHECK_OK(queue_create(other, SIMTGPU_PRIORITY_NORMAL, &q2));
		add.out_va = info.gpu_va;
		CHECK(ib_launch(other, &ib, &p2, &add, count / threads, threads,
				&l));
		CHECK_OK(run_ib(other, &ib, q2, &status));
		CHECK(status == 1);
		drmCloseBufferHandle(other, l.params_handle);
		ib_fini(other, &ib); /* its mapping would keep the file open */
		close(other); /* the pages are in VRAM, the mapping stays */
		for (uint32_t i = 0; m && i < count; i++)
			ok &= m[i] == 3 * i + 5 + i + 1 + i;
		CHECK(ok);
		if (m)
			munmap(m, 4 * 4096);
	}
}

/*
 * Two processes, two address spaces: the parent writes to a VA that is
 * the child's buffer. It faults in the parent's VM, the child's data stays,
 * and the child's own jobs complete meanwhile.
 */
/*
 * A user-pointer BO pins its pages while it lives; a process killed with
 * the BO open gives them back (the GPU filled part of it first).
 */
static void test_userptr_killed(void)
{
	const uint64_t bytes = 1 << 20;
	int to_parent[2];
	char dir[256], path[300], ready = 0;
	long long pinned = -1, before;
	char *text;
	pid_t pid;

	CHECK(debugfs_dir(dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/objects", dir);
	text = read_file(path);
	CHECK(text);
	if (!text)
		return;
	before = file_value(text, "pinned_pages");
	CHECK(pipe(to_parent) == 0);
	pid = fork();
	if (pid == 0) {
		struct drm_simtgpu_bo_userptr u = { 0 };
		int cfd = open_simtgpu(), status = 0;
		uint32_t *mem, q;
		struct ib ib;

		mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (cfd < 0 || mem == MAP_FAILED)
			_exit(2);
		u.user_ptr = (uintptr_t)mem;
		u.size = bytes;
		if (ioctl(cfd, DRM_IOCTL_SIMTGPU_BO_USERPTR, &u) ||
		    !ib_init(cfd, &ib) ||
		    queue_create(cfd, SIMTGPU_PRIORITY_NORMAL, &q))
			_exit(3);
		ib_fill(&ib, u.gpu_va + 4096, 4096, 0x5eed5eed);
		if (run_ib(cfd, &ib, q, &status) || status != 1 ||
		    mem[1024] != 0x5eed5eed || mem[2048] != 0 || mem[0] != 0)
			_exit(4);
		if (write(to_parent[1], "r", 1) != 1)
			_exit(5);
		pause();
		_exit(6);
	}
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	CHECK(read(to_parent[0], &ready, 1) == 1 && ready == 'r');
	text = read_file(path);
	if (text)
		pinned = file_value(text, "pinned_pages");
	CHECK(pinned == before + (long long)(bytes / 4096));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (int i = 0; i < 200 && pinned != before; i++) {
		usleep(50000);
		text = read_file(path);
		pinned = text ? file_value(text, "pinned_pages") : -1;
	}
	CHECK(pinned == before);
	close(to_parent[0]);
	close(to_parent[1]);
}

static void test_two_processes(void)
{
	const uint64_t child_size = 8 << 20;
	int to_parent[2], to_child[2];
	uint64_t child_va = 0;
	pid_t pid;
	int wstatus = 0;

	CHECK(pipe(to_parent) == 0 && pipe(to_child) == 0);
	pid = fork();
	if (pid == 0) {
		int cfd = open_simtgpu();
		uint32_t h, q;
		uint64_t va = 0;
		uint32_t *p;
		struct ib ib;
		char go;
		int status = 0, ok = 1;

		if (cfd < 0 || bo_create(cfd, child_size, 0, &h, &va) ||
		    !(p = bo_map(cfd, h, child_size)))
			_exit(2);
		for (uint64_t i = 0; i < child_size / 4; i++)
			p[i] = 0xc1d0c1d0;
		__sync_synchronize();
		if (write(to_parent[1], &va, sizeof(va)) != sizeof(va) ||
		    read(to_child[0], &go, 1) != 1)
			_exit(3);
		/* The child's own job, while the parent's has faulted. */
		if (!ib_init(cfd, &ib) ||
		    queue_create(cfd, SIMTGPU_PRIORITY_NORMAL, &q))
			_exit(4);
		ib_fill(&ib, va, 4096, 0x600d600d);
		if (run_ib(cfd, &ib, q, &status) || status != 1)
			_exit(5);
		for (uint64_t i = 0; i < child_size / 4; i++)
			ok &= p[i] == (i < 1024 ? 0x600d600d : 0xc1d0c1d0);
		_exit(ok ? 0 : 6);
	}
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	CHECK(read(to_parent[0], &child_va, sizeof(child_va)) ==
	      sizeof(child_va));

	/* A fresh file: its VM holds only its own small IB. */
	int pfd = open_simtgpu();
	uint32_t q;
	struct ib ib;
	int status = 0;
	struct drm_simtgpu_queue_get_state s;
	const uint64_t target = child_va + child_size / 2;

	CHECK(pfd >= 0);
	CHECK(ib_init(pfd, &ib));
	CHECK(ib.va + IB_BYTES <= target); /* not ours in the parent's VM */
	CHECK_OK(queue_create(pfd, SIMTGPU_PRIORITY_NORMAL, &q));
	ib_fill(&ib, target, 4096, 0xbadbad00);
	CHECK_OK(run_ib(pfd, &ib, q, &status));
	CHECK(status == -EFAULT);
	CHECK_OK(queue_state(pfd, q, &s));
	CHECK(s.fault.address == target);
	CHECK(write(to_child[1], "g", 1) == 1);
	CHECK(waitpid(pid, &wstatus, 0) == pid);
	CHECK(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus))
		printf("  child exit status %d\n", WEXITSTATUS(wstatus));
	ib_fini(pfd, &ib);
	close(pfd);
	close(to_parent[0]);
	close(to_parent[1]);
	close(to_child[0]);
	close(to_child[1]);
}

static void test_fdinfo(void)
{
	char path[64];
	char *text;
	uint32_t h;

	CHECK_OK(bo_create(fd, 1 << 20, 0, &h, NULL));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	text = read_file(path);
	CHECK(text != NULL);
	if (!text)
		return;
	CHECK(strstr(text, "drm-driver:\tsimtgpu\n") != NULL);
	CHECK(file_value(text, "drm-client-id") > 0);
	CHECK(file_value(text, "drm-engine-low") >= 0);
	CHECK(file_value(text, "drm-engine-normal") > 0); /* jobs ran */
	CHECK(file_value(text, "drm-engine-high") >= 0);
	CHECK(file_value(text, "drm-memory-vram") >= 1024);
	drmCloseBufferHandle(fd, h);
}

static void test_sysfs(void)
{
	char path[256];
	char *text;
	char arch[32];

	/* /sys/class/drm/renderDN/device/ is the PCI device. */
	for (int minor = 128; minor < 192; minor++) {
		snprintf(path, sizeof(path),
			 "/sys/class/drm/renderD%d/device/vram_total", minor);
		if (access(path, R_OK) == 0)
			break;
	}
	text = read_file(path);
	CHECK(text != NULL);
	if (!text)
		return;
	CHECK((uint64_t)strtoull(text, NULL, 10) ==
	      get_param(fd, SIMTGPU_PARAM_VRAM_SIZE));
	strcpy(strrchr(path, '/'), "/sm_count");
	text = read_file(path);
	CHECK(text && strtoull(text, NULL, 10) ==
			      get_param(fd, SIMTGPU_PARAM_NUM_SMS));
	strcpy(strrchr(path, '/'), "/arch");
	text = read_file(path);
	snprintf(arch, sizeof(arch), "simt_%" PRIu64 "\n",
		 get_param(fd, SIMTGPU_PARAM_ARCH));
	CHECK(text && strcmp(text, arch) == 0);
	strcpy(strrchr(path, '/'), "/vram_used");
	text = read_file(path);
	CHECK(text && strtoull(text, NULL, 10) > 0);
	strcpy(strrchr(path, '/'), "/utilisation");
	text = read_file(path);
	CHECK(text && strtoull(text, NULL, 10) <= 100);
}

static const char *const counter_names[] = {
#define SIMTGPU_X(name, unit, ncu, meaning) #name,
	SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
};

/* The device's counters/ directory, by SIMTGPU_COUNTER_* index. */
static bool read_counters(uint64_t *values)
{
	char path[256];
	char *text;

	for (int minor = 128; minor < 192; minor++) {
		snprintf(path, sizeof(path), "/sys/class/drm/renderD%d/device/counters", minor);
		if (access(path, R_OK) == 0)
			break;
	}
	for (int i = 0; i < SIMTGPU_NUM_COUNTERS; i++) {
		char file[320];

		snprintf(file, sizeof(file), "%s/%s", path, counter_names[i]);
		text = read_file(file);
		if (!text)
			return false;
		values[i] = strtoull(text, NULL, 10);
	}
	return true;
}

/* One UAPI_KERNEL_WORK launch of @ctas x @threads whose loop runs @steps times. */
static bool run_work(uint32_t q, uint64_t out_va, uint32_t ctas, uint32_t threads,
		     uint32_t steps)
{
	struct uapi_kernel_params params = { .mode = UAPI_KERNEL_WORK, .count = steps,
					     .value = 7, .out_va = out_va };
	uint32_t done = syncobj_new(fd);
	struct drm_simtgpu_sync sync = { .handle = done };
	struct submit_opts o = { .queue = q, .out = &sync, .out_count = 1 };
	struct launch l = { 0 };
	struct ib ib;
	bool ok;

	ok = ib_init(fd, &ib) && ib_launch(fd, &ib, &prog, &params, ctas, threads, &l) &&
	     submit(fd, &ib, &o) == 0 && syncobj_wait(fd, done, 120) == 0 &&
	     syncobj_status(fd, done) == 1;
	drmSyncobjDestroy(fd, done);
	drmCloseBufferHandle(fd, l.params_handle);
	ib_fini(fd, &ib);
	return ok;
}

/*
 * counters/: one file per counter of include/simtgpu/counters.h, and what
 * launches must make of them. The kernel's loop runs `steps` times in every
 * thread with all lanes active, so between launches of 64, 128 and 192 steps
 * the thread instructions grow by the same amount, a multiple of
 * 64 * threads (k instructions per iteration), the warp instructions by that
 * over the warp size, and the stores (outside the loop) not at all.
 */
static void test_counters(void)
{
	const uint32_t ctas = 2, threads = 64, steps[] = { 64, 128, 192 };
	uint64_t c[4][SIMTGPU_NUM_COUNTERS];
	uint64_t thread_d[3], warp_d[3], store_d[3], per_iteration;
	uint32_t q, out, warp_size = (uint32_t)get_param(fd, SIMTGPU_PARAM_WARP_SIZE);
	uint64_t out_va;
	char path[256];
	struct dirent *e;
	int files = 0;
	DIR *dir;

	for (int minor = 128; minor < 192; minor++) {
		snprintf(path, sizeof(path), "/sys/class/drm/renderD%d/device/counters", minor);
		if (access(path, R_OK) == 0)
			break;
	}
	dir = opendir(path);
	CHECK(dir != NULL);
	while (dir && (e = readdir(dir)))
		files += e->d_name[0] != '.';
	if (dir)
		closedir(dir);
	CHECK(files == SIMTGPU_NUM_COUNTERS);

	CHECK(program_load(fd, &prog));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &q));
	CHECK_OK(bo_create(fd, ctas * threads * 4, 0, &out, &out_va));
	CHECK(read_counters(c[0]));
	for (int i = 0; i < 3; i++) {
		CHECK(run_work(q, out_va, ctas, threads, steps[i]));
		CHECK(read_counters(c[i + 1]));
		thread_d[i] = c[i + 1][SIMTGPU_COUNTER_thread_instructions] -
			      c[i][SIMTGPU_COUNTER_thread_instructions];
		warp_d[i] = c[i + 1][SIMTGPU_COUNTER_warp_instructions] -
			    c[i][SIMTGPU_COUNTER_warp_instructions];
		store_d[i] = c[i + 1][SIMTGPU_COUNTER_mem_writes] -
			     c[i][SIMTGPU_COUNTER_mem_writes];
		CHECK(c[i + 1][SIMTGPU_COUNTER_launches] - c[i][SIMTGPU_COUNTER_launches] == 1);
		CHECK(c[i + 1][SIMTGPU_COUNTER_ctas] - c[i][SIMTGPU_COUNTER_ctas] == ctas);
		CHECK(c[i + 1][SIMTGPU_COUNTER_exceptions] == c[i][SIMTGPU_COUNTER_exceptions]);
		CHECK(store_d[i] >= ctas * threads);
	}
	per_iteration = (thread_d[1] - thread_d[0]) / (64ull * ctas * threads);
	printf("     counters: %d files; %" PRIu64 " thread instructions per loop iteration,"
	       " launch of 64 steps: %" PRIu64 " thread, %" PRIu64 " warp instructions\n",
	       files, per_iteration, thread_d[0], warp_d[0]);
	CHECK(thread_d[2] - thread_d[1] == thread_d[1] - thread_d[0]);
	CHECK((thread_d[1] - thread_d[0]) % (64ull * ctas * threads) == 0);
	CHECK(per_iteration >= 2 && per_iteration <= 16);
	CHECK(warp_d[1] - warp_d[0] == (thread_d[1] - thread_d[0]) / warp_size);
	CHECK(warp_d[2] - warp_d[1] == warp_d[1] - warp_d[0]);
	CHECK(store_d[0] == store_d[1] && store_d[1] == store_d[2]);
	drmCloseBufferHandle(fd, out);
}

static void test_debugfs(void)
{
	char dir[256], path[300];
	char *text;

	CHECK(debugfs_dir(dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/rings", dir);
	text = read_file(path);
	CHECK(text && strstr(text, "simtgpu-ring0"));
	snprintf(path, sizeof(path), "%s/vm", dir);
	text = read_file(path);
	CHECK(text && strstr(text, "client"));
	snprintf(path, sizeof(path), "%s/client_usage", dir);
	CHECK(read_file(path) != NULL);
	snprintf(path, sizeof(path), "%s/fences", dir);
	CHECK(read_file(path) != NULL);
	snprintf(path, sizeof(path), "%s/objects", dir);
	text = read_file(path);
	CHECK(text && file_value(text, "vms") >= 1);
}

/* A job that never ends: reset by the timeout; another queue goes on. */
static void test_timeout_reset(void)
{
	struct uapi_kernel_params spin = { .mode = UAPI_KERNEL_SPIN };
	char *text = read_file("/sys/module/simtgpu/parameters/timeout_ms");
	long long timeout_ms = text ? strtoll(text, NULL, 10) : -1;
	struct drm_simtgpu_queue_get_state s;
	uint32_t hang_q, good_q, hung = syncobj_new(fd), h;
	uint64_t va;
	struct launch l;
	struct ib ib, fill;
	int status = 0;

	CHECK(timeout_ms > 0);
	if (timeout_ms <= 0 || timeout_ms > 10000) {
		skip_test("timeout_ms is %lld, over 10 s (reload simtgpu with a shorter one)",
			  timeout_ms);
		return;
	}
	CHECK(program_load(fd, &prog));
	CHECK(ib_init(fd, &ib) && ib_init(fd, &fill));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_LOW, &hang_q));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_HIGH, &good_q));
	CHECK(ib_launch(fd, &ib, &prog, &spin, 1, 32, &l));
	struct drm_simtgpu_sync out = { .handle = hung };
	struct submit_opts o = { .queue = hang_q, .out = &out, .out_count = 1 };
	CHECK_OK(submit(fd, &ib, &o));

	CHECK_OK(bo_create(fd, 4096, 0, &h, &va));
	ib_fill(&fill, va, 4096, 0x0dd0dd0d);
	CHECK_OK(run_ib(fd, &fill, good_q, &status));
	CHECK(status == 1);
	if (status != 1)
		printf("  good job status %d\n", status);
	CHECK_OK(syncobj_wait(fd, hung, (int)(timeout_ms * 4 / 1000) + 60));
	status = syncobj_status(fd, hung);
	CHECK(status == -ETIMEDOUT);
	if (status != -ETIMEDOUT)
		printf("  hung job status %d\n", status);
	CHECK_OK(queue_state(fd, hang_q, &s));
	CHECK(s.state & SIMTGPU_QUEUE_STATE_GUILTY);
	CHECK(s.last_error == -ETIMEDOUT);
	CHECK_OK(queue_state(fd, good_q, &s));
	CHECK(s.state == 0);
	/* After the reset, the device runs jobs again. */
	CHECK_OK(run_ib(fd, &fill, good_q, &status));
	CHECK(status == 1);

	drmSyncobjDestroy(fd, hung);
	drmCloseBufferHandle(fd, h);
	drmCloseBufferHandle(fd, l.params_handle);
	drmCloseBufferHandle(fd, prog.handle);
	ib_fini(fd, &ib);
	ib_fini(fd, &fill);
}

/* Writes "RING PARK" to debugfs' preempt file. */
static bool preempt_ring(unsigned int ring, int park)
{
	char dir[256], path[300], line[16];
	int f, n;
	bool ok;

	if (!debugfs_dir(dir, sizeof(dir)))
		return false;
	snprintf(path, sizeof(path), "%s/preempt", dir);
	f = open(path, O_WRONLY);
	if (f < 0)
		return false;
	n = snprintf(line, sizeof(line), "%u %d\n", ring, park);
	ok = write(f, line, n) == n;
	close(f);
	return ok;
}

/* Ring @ring's value of @key ("status", "resident") in debugfs' preempt. */
static long long ring_preempt_value(unsigned int ring, const char *key)
{
	char dir[256], path[300], prefix[16];
	const char *line;
	char *text;

	if (!debugfs_dir(dir, sizeof(dir)))
		return -1;
	snprintf(path, sizeof(path), "%s/preempt", dir);
	text = read_file(path);
	snprintf(prefix, sizeof(prefix), "%u preempt", ring);
	line = text ? strstr(text, prefix) : NULL;
	return line ? file_value(line, key) : -1;
}

/*
 * The driver parks a busy ring (a high queue's job: ring 3) in the middle
 * of a grid of many waves: its CTAs drain, it is parked, the job does not
 * finish while parked; resumed, the grid goes on from its next CTA and every
 * result is right (hardware.md, "Grids").
 */
static void test_preempt_park_resume(void)
{
	const uint32_t ctas = 256, threads = 32, steps = 20000;
	struct uapi_kernel_params params = { .mode = UAPI_KERNEL_WORK,
					     .count = steps, .value = 7 };
	uint32_t q, out, done = syncobj_new(fd);
	struct launch l;
	uint64_t out_va;
	uint32_t *p;
	struct ib ib;
	bool ok = true;
	int i;

	CHECK(program_load(fd, &prog));
	CHECK(ib_init(fd, &ib));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_HIGH, &q));
	CHECK_OK(bo_create(fd, ctas * threads * 4, 0, &out, &out_va));
	params.out_va = out_va;
	CHECK(ib_launch(fd, &ib, &prog, &params, ctas, threads, &l));
	struct drm_simtgpu_sync sync = { .handle = done };
	struct submit_opts o = { .queue = q, .out = &sync, .out_count = 1 };
	CHECK_OK(submit(fd, &ib, &o));
	for (i = 0; i < 6000 && ring_preempt_value(3, "resident") <= 0; i++)
		usleep(1000);
	CHECK(preempt_ring(3, 1));
	for (i = 0; i < 6000 && ring_preempt_value(3, "status") !=
				    SIMTGPU_RING_STATUS_PARKED; i++)
		usleep(1000);
	CHECK(ring_preempt_value(3, "status") == SIMTGPU_RING_STATUS_PARKED);
	CHECK(ring_preempt_value(3, "resident") == 0);
	usleep(200000);
	CHECK(syncobj_status(fd, done) == 0); /* parked, not finished */
	CHECK(preempt_ring(3, 0));
	CHECK_OK(syncobj_wait(fd, done, 120));
	CHECK(syncobj_status(fd, done) == 1);
	p = bo_map(fd, out, ctas * threads * 4);
	CHECK(p != NULL);
	for (uint32_t t = 0; p && t < ctas * threads; t++) {
		uint32_t v = 7 + t;

		for (uint32_t k = 0; k < steps; k++)
			v = v * 1664525u + 1013904223u;
		ok &= p[t] == v;
	}
	CHECK(ok);
	if (p)
		munmap(p, ctas * threads * 4);
	drmSyncobjDestroy(fd, done);
	drmCloseBufferHandle(fd, out);
	drmCloseBufferHandle(fd, l.params_handle);
	ib_fini(fd, &ib);
}

/*
 * A grid whose CTA never ends cannot be parked: after preempt_timeout_ms
 * the driver resets that ring alone (CTRL.ABORT). The job fails with
 * -ETIMEDOUT and its queue is guilty; a job of another ring that ran
 * meanwhile is untouched, and the device was not reset.
 */
static void test_preempt_timeout(void)
{
	struct uapi_kernel_params spin = { .mode = UAPI_KERNEL_SPIN };
	char dir[256], path[300];
	long long resets_before;
	struct drm_simtgpu_queue_get_state s;
	uint32_t spin_q, good_q, spun = syncobj_new(fd), h;
	struct launch l;
	struct ib ib, fill;
	uint64_t va;
	int status = 0, i;

	CHECK(debugfs_dir(dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/rings", dir);
	resets_before = file_value(read_file(path), ", resets");
	CHECK(program_load(fd, &prog));
	CHECK(ib_init(fd, &ib) && ib_init(fd, &fill));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_HIGH, &spin_q));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_LOW, &good_q));
	CHECK(ib_launch(fd, &ib, &prog, &spin, 1, 32, &l));
	struct drm_simtgpu_sync out = { .handle = spun };
	struct submit_opts o = { .queue = spin_q, .out = &out, .out_count = 1 };
	CHECK_OK(submit(fd, &ib, &o));
	for (i = 0; i < 6000 && ring_preempt_value(3, "resident") <= 0; i++)
		usleep(1000);
	CHECK(preempt_ring(3, 1));
	CHECK_OK(syncobj_wait(fd, spun, 60));
	status = syncobj_status(fd, spun);
	CHECK(status == -ETIMEDOUT);
	if (status != -ETIMEDOUT)
		printf("  unpreemptable job status %d\n", status);
	CHECK_OK(queue_state(fd, spin_q, &s));
	CHECK(s.state & SIMTGPU_QUEUE_STATE_GUILTY);
	CHECK_OK(bo_create(fd, 4096, 0, &h, &va));
	ib_fill(&fill, va, 4096, 0x5a5a5a5a);
	CHECK_OK(run_ib(fd, &fill, good_q, &status));
	CHECK(status == 1);
	CHECK_OK(queue_state(fd, good_q, &s));
	CHECK(s.state == 0);
	CHECK(file_value(read_file(path), ", resets") == resets_before);
	CHECK(ring_preempt_value(3, "resets") >= 1);

	drmSyncobjDestroy(fd, spun);
	drmCloseBufferHandle(fd, h);
	drmCloseBufferHandle(fd, l.params_handle);
	ib_fini(fd, &ib);
	ib_fini(fd, &fill);
}

/* Writes @value to the device's sysfs attribute @name. */
static bool write_device_attr(const char *name, const char *value)
{
	char path[256];
	int f, n = (int)strlen(value);
	bool ok;

	for (int minor = 128; minor < 192; minor++) {
		snprintf(path, sizeof(path), "/sys/class/drm/renderD%d/device/%s", minor, name);
		if (access(path, W_OK) == 0)
			break;
	}
	f = open(path, O_WRONLY);
	if (f < 0)
		return false;
	ok = write(f, value, n) == n;
	close(f);
	return ok;
}

/* A long job of UAPI_KERNEL_WORK on queue @q, signalling @done. */
static bool submit_work(struct ib *ib, struct launch *l, uint32_t q, uint32_t done,
			uint64_t out_va, uint32_t ctas, uint32_t steps)
{
	struct uapi_kernel_params params = { .mode = UAPI_KERNEL_WORK, .count = steps,
					     .value = 7, .out_va = out_va };
	struct drm_simtgpu_sync sync = { .handle = done };
	struct submit_opts o = { .queue = q, .out = &sync, .out_count = 1 };

	return ib_launch(fd, ib, &prog, &params, ctas, 32, l) && submit(fd, ib, &o) == 0;
}

/*
 * Whether every ring in @rings (a bit mask) is seen parked at least once
 * within @ms polls of 1 ms. The rings are watched together: the order in
 * which a policy parks them is its own business.
 */
static bool rings_seen_parked(unsigned int rings, int ms)
{
	unsigned int seen = 0;

	for (int i = 0; i < ms && seen != rings; i++) {
		for (unsigned int r = 0; r < SIMTGPU_NUM_RINGS; r++)
			if ((rings & (1u << r)) &&
			    ring_preempt_value(r, "status") == SIMTGPU_RING_STATUS_PARKED)
				seen |= 1u << r;
		usleep(1000);
	}
	return seen == rings;
}

/*
 * sched_policy "priority": while a high queue's job runs, the low queue's
 * busy ring (ring 0) is parked; the high job ends first; back to "fifo",
 * nothing is parked.
 */
static void test_policy_priority(void)
{
	uint32_t low_q, high_q, low_done = syncobj_new(fd), high_done = syncobj_new(fd);
	uint32_t low_out, high_out;
	uint64_t low_va, high_va;
	struct launch ll, hl;
	struct ib lib, hib;

	CHECK(program_load(fd, &prog));
	CHECK(ib_init(fd, &lib) && ib_init(fd, &hib));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_LOW, &low_q));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_HIGH, &high_q));
	CHECK_OK(bo_create(fd, 512 * 32 * 4, 0, &low_out, &low_va));
	CHECK_OK(bo_create(fd, 64 * 32 * 4, 0, &high_out, &high_va));
	CHECK(write_device_attr("sched_policy", "priority"));
	CHECK(submit_work(&lib, &ll, low_q, low_done, low_va, 512, 20000));
	for (int i = 0; i < 6000 && ring_preempt_value(0, "resident") <= 0; i++)
		usleep(1000);
	CHECK(submit_work(&hib, &hl, high_q, high_done, high_va, 64, 20000));
	CHECK(rings_seen_parked(1u << 0, 5000));
	CHECK_OK(syncobj_wait(fd, high_done, 120));
	CHECK(syncobj_status(fd, high_done) == 1);
	CHECK(syncobj_status(fd, low_done) == 0); /* the low job waited */
	CHECK_OK(syncobj_wait(fd, low_done, 120));
	CHECK(syncobj_status(fd, low_done) == 1);
	CHECK(write_device_attr("sched_policy", "fifo"));
	usleep(50000);
	CHECK(ring_preempt_value(0, "preempt") == 0);

	drmSyncobjDestroy(fd, low_done);
	drmSyncobjDestroy(fd, high_done);
	drmCloseBufferHandle(fd, low_out);
	drmCloseBufferHandle(fd, high_out);
	drmCloseBufferHandle(fd, ll.params_handle);
	drmCloseBufferHandle(fd, hl.params_handle);
	ib_fini(fd, &lib);
	ib_fini(fd, &hib);
}

/*
 * sched_policy "round-robin" with 10 ms slices: two normal queues' long
 * jobs (rings 1 and 2) take turns, so each ring is seen parked while the
 * other runs, and both jobs finish.
 */
static void test_policy_round_robin(void)
{
	uint32_t qa, qb, a_done = syncobj_new(fd), b_done = syncobj_new(fd);
	uint32_t a_out, b_out;
	uint64_t a_va, b_va;
	struct launch la, lb;
	struct ib iba, ibb;

	CHECK(program_load(fd, &prog));
	CHECK(ib_init(fd, &iba) && ib_init(fd, &ibb));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &qa));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &qb));
	CHECK_OK(bo_create(fd, 512 * 32 * 4, 0, &a_out, &a_va));
	CHECK_OK(bo_create(fd, 512 * 32 * 4, 0, &b_out, &b_va));
	CHECK(write_device_attr("timeslice_duration_ms", "10"));
	CHECK(write_device_attr("sched_policy", "round-robin"));
	CHECK(submit_work(&iba, &la, qa, a_done, a_va, 512, 20000));
	CHECK(submit_work(&ibb, &lb, qb, b_done, b_va, 512, 20000));
	CHECK(rings_seen_parked(1u << 1 | 1u << 2, 5000));
	CHECK_OK(syncobj_wait(fd, a_done, 120));
	CHECK_OK(syncobj_wait(fd, b_done, 120));
	CHECK(syncobj_status(fd, a_done) == 1);
	CHECK(syncobj_status(fd, b_done) == 1);
	CHECK(write_device_attr("sched_policy", "fifo"));
	CHECK(write_device_attr("timeslice_duration_ms", "20"));

	drmSyncobjDestroy(fd, a_done);
	drmSyncobjDestroy(fd, b_done);
	drmCloseBufferHandle(fd, a_out);
	drmCloseBufferHandle(fd, b_out);
	drmCloseBufferHandle(fd, la.params_handle);
	drmCloseBufferHandle(fd, lb.params_handle);
	ib_fini(fd, &iba);
	ib_fini(fd, &ibb);
}

/* A file near its VRAM limit (vram_limit_mb=16): with the program, a BO
 * taking all but 64 KiB, and a kernel set up. Returns the file, or -1.
 */
static int open_near_vram_limit(struct program *prog, uint32_t *big)
{
	int f = open_simtgpu();

	CHECK(f >= 0);
	if (f < 0)
		return -1;
	CHECK(program_load(f, prog));
	CHECK_OK(bo_create(f, (16 << 20) - (64 << 10), 0, big, NULL));
	return f;
}

/* Managed memory at the file's VRAM limit, each case in a file of its own
 * (BOs are freed after their close, not at it): with room for fewer pages
 * than the kernel touches, pages evict older ones or go over the bus, and
 * fewer than all stay; with no room at all and nothing to evict, every page
 * stays in host memory and the GPU maps it over the bus. The same results.
 */
static void test_managed_vram_full(void)
{
	enum managed_expect cases[] = { MANAGED_AT_LIMIT, MANAGED_REMOTE };
	struct program p2;
	uint32_t big, h;

	if (!has_replayable_faults(fd)) {
		skip_test("a device without replayable faults has no managed memory");
		return;
	}
	for (unsigned int i = 0; i < 2; i++) {
		int f = open_near_vram_limit(&p2, &big);

		if (f < 0)
			return;
		h = managed_round_trip(f, &p2, cases[i] == MANAGED_REMOTE ? 8 : 32,
				       cases[i]);
		drmCloseBufferHandle(f, h);
		close(f);
	}
}

static void test_vram_limit(void)
{
	uint32_t a, b, c;

	CHECK(get_param(fd, SIMTGPU_PARAM_VRAM_LIMIT) == 16 << 20);
	CHECK_OK(bo_create(fd, 12 << 20, 0, &a, NULL));
	CHECK_ERR(bo_create(fd, 8 << 20, 0, &b, NULL), ENOSPC);
	CHECK_OK(bo_create(fd, 4 << 20, 0, &c, NULL));
	drmCloseBufferHandle(fd, a);
	drmCloseBufferHandle(fd, c);
}

/* With every file closed, debugfs counts no object and VRAM holds only
 * the kernel's rings and fence page (frees are deferred: poll a while).
 */
static void test_nothing_leaked(void)
{
	char dir[256], path[300];
	char *text = NULL;
	bool clean = false;

	if (fd >= 0)
		close(fd);
	fd = -1;
	CHECK(debugfs_dir(dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/objects", dir);
	for (int i = 0; i < 200 && !clean; i++) {
		text = read_file(path);
		clean = text && file_value(text, "bos") == 0 &&
			file_value(text, "vms") == 0 &&
			file_value(text, "page_tables") == 0 &&
			file_value(text, "pinned_pages") == 0 &&
			file_value(text, "queues") == 0 &&
			file_value(text, "jobs") == 0 &&
			file_value(text, "fences") == 0 &&
			file_value(text, "managed_host_pages") == 0 &&
			file_value(text, "managed_vram_pages") == 0 &&
			file_value(text, "vram_used") ==
				file_value(text, "vram_kernel");
		if (!clean)
			usleep(50000);
	}
	CHECK(clean);
	if (!clean && text) {
		printf("%s", text);
		snprintf(path, sizeof(path), "%s/fences", dir);
		text = read_file(path);
		printf("fences:\n%s", text ? text : "?\n");
		snprintf(path, sizeof(path), "%s/rings", dir);
		text = read_file(path);
		printf("rings:\n%s", text ? text : "?\n");
	}
}

static int modprobe(const char *args)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "modprobe -r simtgpu && modprobe simtgpu %s",
		 args);
	return system(cmd);
}

static void test_reload_small_timeout(void)
{
	CHECK(modprobe("timeout_ms=2000 vram_limit_mb=16") == 0);
	test_open();
}

/* The PCI device behind our render node, e.g. /sys/bus/pci/devices/0000:01:00.0. */
static bool pci_device_path(int dev_fd, char *out, size_t len)
{
	char link[128];
	char *real;
	drmVersionPtr v;
	int minor = -1;

	for (int m = 128; m < 192 && minor < 0; m++) {
		char node[64];
		int f;

		snprintf(node, sizeof(node), "/dev/dri/renderD%d", m);
		f = open(node, O_RDWR | O_CLOEXEC);
		if (f < 0)
			continue;
		v = drmGetVersion(f);
		if (v && strcmp(v->name, "simtgpu") == 0)
			minor = m;
		drmFreeVersion(v);
		close(f);
	}
	(void)dev_fd;
	if (minor < 0)
		return false;
	snprintf(link, sizeof(link), "/sys/class/drm/renderD%d/device", minor);
	real = realpath(link, NULL);
	if (!real)
		return false;
	snprintf(out, len, "%s", real);
	free(real);
	return true;
}

static int write_sysfs(const char *path, const char *value)
{
	int f = open(path, O_WRONLY);
	ssize_t n;

	if (f < 0)
		return -errno;
	n = write(f, value, strlen(value));
	close(f);
	return n < 0 ? -errno : 0;
}

/*
 * Hot unplug with a file open, a CPU mapping, and a job running on the
 * GPU: the job ends with -ENODEV, ioctls that need the device fail with
 * -ENODEV, the mapping is gone (SIGBUS), closing is clean, and a rescan
 * brings the device back.
 */
static void test_hot_unplug(void)
{
	struct uapi_kernel_params spin = { .mode = UAPI_KERNEL_SPIN };
	char dev[256], path[300];
	uint32_t q, h, h2, running = syncobj_new(fd);
	uint64_t va;
	uint32_t *p;
	struct launch l;
	struct ib ib;
	pid_t child;
	int wstatus = 0;

	CHECK(pci_device_path(fd, dev, sizeof(dev)));
	CHECK(program_load(fd, &prog));
	CHECK(ib_init(fd, &ib));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_LOW, &q));
	CHECK_OK(bo_create(fd, 4096, 0, &h, &va));
	p = bo_map(fd, h, 4096);
	CHECK(p != NULL);
	CHECK(ib_launch(fd, &ib, &prog, &spin, 1, 32, &l));
	struct drm_simtgpu_sync out = { .handle = running };
	struct submit_opts o = { .queue = q, .out = &out, .out_count = 1 };
	CHECK_OK(submit(fd, &ib, &o));
	usleep(200000);
	/* After the unplug every ioctl of the file is -ENODEV: watch the
	 * job through a sync_file instead.
	 */
	int sync_fd = -1;
	struct sync_file_info info = { 0 };
	struct pollfd pfd;

	CHECK_OK(drmSyncobjExportSyncFile(fd, running, &sync_fd));

	snprintf(path, sizeof(path), "%s/remove", dev);
	CHECK_OK(write_sysfs(path, "1"));
	pfd.fd = sync_fd;
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 30000) == 1);
	CHECK(ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info) == 0);
	CHECK(info.status == -ENODEV);
	if (info.status != -ENODEV)
		printf("  running job status %d\n", info.status);
	close(sync_fd);
	CHECK_ERR(bo_create(fd, 4096, 0, &h2, NULL), ENODEV);
	struct submit_opts none = { .queue = q };

	CHECK_ERR(submit(fd, &ib, &none), ENODEV);
	struct drm_simtgpu_get_param gp = { .param = SIMTGPU_PARAM_ARCH };
	CHECK_ERR(xioctl(fd, DRM_IOCTL_SIMTGPU_GET_PARAM, &gp), ENODEV);
	if (p) {
		child = fork();
		if (child == 0)
			_exit(p[0] == 0x12345678 ? 3 : 0); /* must not return */
		CHECK(waitpid(child, &wstatus, 0) == child);
		CHECK(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGBUS);
		munmap(p, 4096);
	}
	drmSyncobjDestroy(fd, running);
	ib_fini(fd, &ib);
	close(fd);
	fd = -1;

	CHECK_OK(write_sysfs("/sys/bus/pci/rescan", "1"));
	for (int i = 0; i < 50 && fd < 0; i++) {
		fd = open_simtgpu();
		if (fd < 0)
			usleep(100000);
	}
	CHECK(fd >= 0);
}

/* The kernel said nothing alarming while the tests ran. */
static void test_no_kernel_warnings(void)
{
	char line[1024];
	FILE *log = popen("dmesg", "r");
	int bad = 0;

	CHECK(log != NULL);
	if (!log)
		return;
	while (fgets(line, sizeof(line), log)) {
		if (strstr(line, "WARNING:") || strstr(line, "BUG:") ||
		    strstr(line, "Call Trace") || strstr(line, "Oops")) {
			printf("  %s", line);
			bad++;
		}
	}
	pclose(log);
	CHECK(bad == 0);
}

static void test_reload_defaults(void)
{
	int status = 0;
	uint32_t q, h;
	uint64_t va;
	struct ib ib;

	CHECK(modprobe("") == 0);
	test_open();
	if (fd < 0)
		return;
	CHECK(get_param(fd, SIMTGPU_PARAM_VRAM_LIMIT) == 0);
	CHECK(ib_init(fd, &ib));
	CHECK_OK(queue_create(fd, SIMTGPU_PRIORITY_NORMAL, &q));
	CHECK_OK(bo_create(fd, 4096, 0, &h, &va));
	ib_fill(&ib, va, 4096, 1);
	CHECK_OK(run_ib(fd, &ib, q, &status));
	CHECK(status == 1);
	drmCloseBufferHandle(fd, h);
	ib_fini(fd, &ib);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-reload") == 0) {
			reload = false;
		} else {
			fprintf(stderr, "usage: %s [--no-reload]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	run_test("open render node", test_open);
	if (fd < 0) {
		printf("no simtgpu render node\n");
		printf("%d passed, %d failed\n", tests_passed, tests_failed);
		return 1;
	}
	run_test("GET_PARAM", test_get_param);
	run_test("BO_CREATE refusals", test_bo_create_refusals);
	run_test("BO_CREATE, BO_INFO, GEM_CLOSE", test_bo_create_info);
	run_test("BO_MMAP_OFFSET, mmap write and read back", test_bo_mmap);
	run_test("QUEUE_CREATE, QUEUE_DESTROY, QUEUE_GET_STATE", test_queues);
	run_test("SUBMIT refusals", test_submit_refusals);
	run_test("WAIT_BO", test_wait_bo);
	run_test("job of FILL packets, out-syncobj", test_fill_job);
	run_test("dependencies through syncobjs", test_syncobj_dependencies);
	run_test("kernel launch through an IB", test_kernel_launch);
	run_test("GPU page fault fails the job with -EFAULT", test_fault);
	run_test("managed BOs: refusals, host -> VRAM -> host, faults", test_managed);
	run_test("two processes, two address spaces", test_two_processes);
	run_test("BO_USERPTR pins until its process is killed",
		 test_userptr_killed);
	run_test("fdinfo", test_fdinfo);
	run_test("sysfs", test_sysfs);
	run_test("counters", test_counters);
	run_test("debugfs", test_debugfs);
	run_test("the driver parks a busy ring and resumes it", test_preempt_park_resume);
	run_test("a grid that cannot be parked: only its ring is reset", test_preempt_timeout);
	run_test("sched_policy priority parks the lower class", test_policy_priority);
	run_test("sched_policy round-robin gives time slices", test_policy_round_robin);
	if (reload) {
		run_test("nothing leaked", test_nothing_leaked);
		run_test("reload with timeout_ms=2000 vram_limit_mb=16",
			 test_reload_small_timeout);
		if (fd >= 0) {
			run_test("VRAM limit", test_vram_limit);
			run_test("managed memory at the VRAM limit: evicted or over the bus",
				 test_managed_vram_full);
			run_test("hang reset by the timeout", test_timeout_reset);
		}
		run_test("nothing leaked after a reset", test_nothing_leaked);
		run_test("reload with defaults", test_reload_defaults);
		if (fd >= 0)
			run_test("hot unplug with a job running, rescan",
				 test_hot_unplug);
		if (fd >= 0)
			run_test("nothing leaked after a hot unplug",
				 test_nothing_leaked);
	} else {
		run_test("hang reset by the timeout", test_timeout_reset);
	}
	run_test("no kernel warnings", test_no_kernel_warnings);
	if (fd >= 0)
		close(fd);
	/* One line for run-suites.sh, the skips in it (docs/testing.md). */
	printf("%d passed, %d failed, %d skipped\n", tests_passed, tests_failed,
	       tests_skipped);
	return tests_failed ? 1 : 0;
}
