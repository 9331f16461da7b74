// SPDX-License-Identifier: MIT
/*
 * simtgpu-device-test: exercises the simtgpu PCI device from userspace, with
 * no kernel driver, the way a driver would (docs/hardware.md):
 *
 *  - finds the device in /sys/bus/pci/devices by vendor/device ID, enables
 *    it and bus mastering, maps BAR0 (resource0) and BAR2 (resource2);
 *  - checks the identity and capability registers against simtgpu/hw.h;
 *  - builds four-level page tables and a kernel ring in VRAM, loads the
 *    embedded device kernel, launches it and polls for the fence (there is
 *    no interrupt handler without a driver), and checks the result in VRAM
 *    against a CPU reference;
 *  - copies between host memory (a locked buffer whose bus address comes
 *    from /proc/self/pagemap, mapped with HOST PTEs) and VRAM;
 *  - runs a kernel that stores to an unmapped address and checks the
 *    exception record, then acknowledges it and checks the ring resumes.
 *
 * Must run as root. Prints one line per check and "N passed, N failed".
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "simtgpu/counters.h"
#include "simtgpu/hw.h"
#include "device_kernel.h"

extern const unsigned char device_test_elf[];
extern const unsigned char device_test_elf_end[];

#define POLL_TIMEOUT_NS (60ull * 1000 * 1000 * 1000)

/* VRAM layout (physical offsets). */
#define RING_OFFSET 0x0000u
#define RING_BYTES 0x1000u
#define FENCE_OFFSET 0x1000u
#define PT_POOL_OFFSET 0x2000u
#define PT_POOL_END 0x40000u
#define DATA_POOL_OFFSET 0x40000u

/* GPU virtual addresses. */
#define DATA_VA 0x10000000ull
#define HOST_VA 0x20000000ull
#define FAULT_VA 0x30000000ull /* never mapped */

#define CONTEXT_ID 7u
#define AFFINE_COUNT 1000u
#define AFFINE_BLOCK 128u

struct device {
	char path[512];
	volatile uint32_t *regs;
	volatile uint8_t *vram;
	uint64_t vram_size;
	uint64_t root_table; /* VRAM offset of the level-3 table */
	uint64_t next_table; /* page-table pool allocator */
	uint64_t next_data; /* data pool allocator */
	uint32_t ring_tail; /* bytes written to the ring so far */
	uint64_t fence_seq;
};

static int checks_passed;
static int checks_failed;

static void check(bool ok, const char *name, const char *fmt, ...)
{
	char detail[512] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", name, detail[0] ? ": " : "", detail);
	fflush(stdout);
	if (ok)
		checks_passed++;
	else
		checks_failed++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ sysfs --- */

static bool read_hex_file(const char *dir, const char *name, unsigned *value)
{
	char path[768];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fscanf(f, "%x", value) == 1;
	fclose(f);
	return ok;
}

static bool find_device(struct device *dev, unsigned *class_code)
{
	const char *base = "/sys/bus/pci/devices";
	DIR *d = opendir(base);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char dir[sizeof(dev->path)];
		unsigned vendor, device;

		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, e->d_name);
		if (read_hex_file(dir, "vendor", &vendor) &&
		    read_hex_file(dir, "device", &device) &&
		    vendor == SIMTGPU_PCI_VENDOR_ID &&
		    device == SIMTGPU_PCI_DEVICE_ID) {
			snprintf(dev->path, sizeof(dev->path), "%s", dir);
			found = read_hex_file(dir, "class", class_code);
		}
	}
	closedir(d);
	return found;
}

static bool write_sysfs(const char *dir, const char *name, const char *value)
{
	char path[768];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return false;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok;
}

/* Sets Memory Space and Bus Master in the PCI command register. */
static bool enable_bus_master(const struct device *dev)
{
	char path[768];
	uint16_t command;
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "%s/config", dev->path);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return false;
	ok = pread(fd, &command, 2, 4) == 2;
	command |= 0x6;
	ok = ok && pwrite(fd, &command, 2, 4) == 2;
	close(fd);
	return ok;
}

static void *map_resource(const struct device *dev, int bar, uint64_t *size)
{
	char path[768];
	struct stat st;
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/resource%d", dev->path, bar);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	*size = (uint64_t)st.st_size;
	p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* ------------------------------------------------------ registers --- */

static uint32_t reg_read(const struct device *dev, uint32_t offset)
{
	return dev->regs[offset / 4];
}

static void reg_write(struct device *dev, uint32_t offset, uint32_t value)
{
	dev->regs[offset / 4] = value;
}

/* 64-bit registers: _LO first (it latches _HI). */
static uint64_t reg_read64(const struct device *dev, uint32_t lo_offset)
{
	uint64_t lo = reg_read(dev, lo_offset);

	return lo | (uint64_t)reg_read(dev, lo_offset + 4) << 32;
}

/* ----------------------------------------------------------- VRAM --- */

static volatile uint64_t *vram64(const struct device *dev, uint64_t offset)
{
	return (volatile uint64_t *)(dev->vram + offset);
}

static volatile uint32_t *vram32(const struct device *dev, uint64_t offset)
{
	return (volatile uint32_t *)(dev->vram + offset);
}

static void vram_zero(struct device *dev, uint64_t offset, uint64_t bytes)
{
	for (uint64_t i = 0; i < bytes; i += 8)
		*vram64(dev, offset + i) = 0;
}

static uint64_t alloc_table(struct device *dev)
{
	uint64_t table = dev->next_table;

	if (table >= PT_POOL_END) {
		fprintf(stderr, "device-test: page-table pool exhausted\n");
		exit(2);
	}
	dev->next_table += SIMTGPU_PAGE_SIZE;
	vram_zero(dev, table, SIMTGPU_PAGE_SIZE);
	return table;
}

static uint64_t alloc_data(struct device *dev, uint64_t bytes)
{
	uint64_t offset = dev->next_data;

	dev->next_data += (bytes + SIMTGPU_PAGE_SIZE - 1) & ~(uint64_t)(SIMTGPU_PAGE_SIZE - 1);
	vram_zero(dev, offset, dev->next_data - offset);
	return offset;
}

/* Maps the 4 KiB page at va to addr (a VRAM offset, or a bus address with
 * SIMTGPU_PTE_HOST in flags). */
static void map_page(struct device *dev, uint64_t va, uint64_t addr, uint64_t flags)
{
	uint64_t table = dev->root_table;

	for (int level = SIMTGPU_PT_LEVELS - 1; level > 0; level--) {
		uint64_t slot = table + 8 * SIMTGPU_PT_INDEX(va, level);
		uint64_t pte = *vram64(dev, slot);

		if (!(pte & SIMTGPU_PTE_V)) {
			pte = SIMTGPU_PTE_MAKE(alloc_table(dev), SIMTGPU_PTE_V);
			*vram64(dev, slot) = pte;
		}
		table = SIMTGPU_PTE_ADDR(pte);
	}
	*vram64(dev, table + 8 * SIMTGPU_PT_INDEX(va, 0)) =
		SIMTGPU_PTE_MAKE(addr, flags | SIMTGPU_PTE_V);
}

static void map_vram(struct device *dev, uint64_t va, uint64_t offset, uint64_t bytes,
		     uint64_t flags)
{
	for (uint64_t page = 0; page < bytes; page += SIMTGPU_PAGE_SIZE)
		map_page(dev, va + page, offset + page, flags);
}

/* ---------------------------------------------------------- rings --- */

static void ring_init(struct device *dev)
{
	uint32_t base = SIMTGPU_RING_BASE(0);

	vram_zero(dev, RING_OFFSET, RING_BYTES);
	reg_write(dev, base + SIMTGPU_RING_CTRL, 0);
	reg_write(dev, base + SIMTGPU_RING_ADDR_LO, RING_OFFSET);
	reg_write(dev, base + SIMTGPU_RING_ADDR_HI, 0);
	reg_write(dev, base + SIMTGPU_RING_SIZE, RING_BYTES);
	reg_write(dev, base + SIMTGPU_RING_CTRL, SIMTGPU_RING_CTRL_ENABLE);
	dev->ring_tail = reg_read(dev, base + SIMTGPU_RING_TAIL);
}

static void ring_emit(struct device *dev, uint32_t dword)
{
	*vram32(dev, RING_OFFSET + dev->ring_tail % RING_BYTES) = dword;
	dev->ring_tail += 4;
}

static void ring_packet(struct device *dev, uint32_t opcode, uint32_t flags,
			const void *body, size_t bytes)
{
	ring_emit(dev, SIMTGPU_PKT_HEADER(opcode, flags, bytes / 4));
	for (size_t i = 0; i < bytes / 4; i++) {
		uint32_t dword;

		memcpy(&dword, (const uint8_t *)body + 4 * i, 4);
		ring_emit(dev, dword);
	}
}

/* Emits a fence for the next sequence number and returns it. */
static uint64_t ring_fence(struct device *dev)
{
	struct simtgpu_pkt_fence fence = {
		.addr = FENCE_OFFSET,
		.value = ++dev->fence_seq,
	};

	ring_packet(dev, SIMTGPU_PKT_FENCE, SIMTGPU_PKTF_PHYSICAL, &fence, sizeof(fence));
	return fence.value;
}

static void ring_set_context(struct device *dev)
{
	struct simtgpu_pkt_set_context ctx = {
		.context_id = CONTEXT_ID,
		.page_table = dev->root_table,
	};

	ring_packet(dev, SIMTGPU_PKT_SET_CONTEXT, 0, &ctx, sizeof(ctx));
}

/* The doorbell. */
static void ring_kick(struct device *dev)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	reg_write(dev, SIMTGPU_RING_BASE(0) + SIMTGPU_RING_TAIL, dev->ring_tail % RING_BYTES);
}

static bool wait_fence(struct device *dev, uint64_t seq)
{
	uint64_t start = now_ns();

	while (*vram64(dev, FENCE_OFFSET) < seq) {
		if (now_ns() - start > POLL_TIMEOUT_NS)
			return false;
	}
	return true;
}

static bool wait_irq_status(struct device *dev, uint32_t bits)
{
	uint64_t start = now_ns();

	while (!(reg_read(dev, SIMTGPU_REG_IRQ_STATUS) & bits)) {
		if (now_ns() - start > POLL_TIMEOUT_NS)
			return false;
		usleep(100);
	}
	return true;
}

/* ----------------------------------------------------- the kernel --- */

struct kernel_image {
	uint64_t entry;
	uint64_t code_start; /* executable segments' VA range */
	uint64_t code_end;
};

/* Loads the embedded ELF's PT_LOAD segments into fresh VRAM pages mapped
 * at their virtual addresses. */
static bool load_kernel(struct device *dev, struct kernel_image *image, char *why, size_t why_size)
{
	const unsigned char *elf = device_test_elf;
	size_t size = (size_t)(device_test_elf_end - device_test_elf);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;

	*image = (struct kernel_image){ 0 };
	snprintf(why, why_size, "no executable segment");

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_RISCV) {
		snprintf(why, why_size, "the embedded image is not an RV64 ELF");
		return false;
	}
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf + eh->e_phoff + (size_t)i * eh->e_phentsize);
		uint64_t first, last, offset;

		if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
			continue;
		if (ph->p_flags & PF_X) {
			if (!image->code_end || ph->p_vaddr < image->code_start)
				image->code_start = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > image->code_end)
				image->code_end = ph->p_vaddr + ph->p_memsz;
		}
		if (ph->p_offset + ph->p_filesz > size) {
			snprintf(why, why_size, "segment %d lies outside the image", i);
			return false;
		}
		first = ph->p_vaddr & ~(uint64_t)(SIMTGPU_PAGE_SIZE - 1);
		last = (ph->p_vaddr + ph->p_memsz + SIMTGPU_PAGE_SIZE - 1) &
		       ~(uint64_t)(SIMTGPU_PAGE_SIZE - 1);
		offset = alloc_data(dev, last - first);
		map_vram(dev, first, offset, last - first,
			 SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_X);
		for (uint64_t b = 0; b < ph->p_filesz; b++)
			dev->vram[offset + (ph->p_vaddr - first) + b] = elf[ph->p_offset + b];
	}
	image->entry = eh->e_entry;
	return image->code_end > image->code_start;
}

struct launch {
	uint64_t params_offset;
	uint64_t params_va;
	uint64_t report_offset;
	uint64_t report_va;
	uint64_t seq; /* fence after the launch */
};

/* Writes SET_CONTEXT, LAUNCH and FENCE to the ring (not yet kicked). */
static void emit_launch(struct device *dev, const struct kernel_image *image,
			const struct device_test_params *params, uint32_t grid, uint32_t block,
			struct launch *l)
{
	struct simtgpu_pkt_launch pkt = {
		.entry_pc = image->entry,
		.grid = { grid, 1, 1 },
		.block = { block, 1, 1 },
		.stack_bytes = 1024,
	};
	uint64_t va;

	l->params_offset = alloc_data(dev, SIMTGPU_PAGE_SIZE);
	l->report_offset = l->params_offset + 0x800;
	va = DATA_VA + (l->params_offset - DATA_POOL_OFFSET);
	map_vram(dev, va, l->params_offset, SIMTGPU_PAGE_SIZE, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
	l->params_va = va;
	l->report_va = va + 0x800;
	for (size_t i = 0; i < sizeof(*params); i++)
		dev->vram[l->params_offset + i] = ((const uint8_t *)params)[i];

	pkt.param_va = l->params_va;
	pkt.report_va = l->report_va;
	ring_set_context(dev);
	ring_packet(dev, SIMTGPU_PKT_LAUNCH, 0, &pkt, sizeof(pkt));
	l->seq = ring_fence(dev);
}

static void read_report(const struct device *dev, const struct launch *l,
			struct simtgpu_launch_report *r)
{
	for (size_t i = 0; i < sizeof(*r); i++)
		((uint8_t *)r)[i] = dev->vram[l->report_offset + i];
}

/* Allocates VRAM for `bytes` and maps it at the matching DATA_VA. */
static uint64_t alloc_mapped(struct device *dev, uint64_t bytes, uint64_t *va)
{
	uint64_t offset = alloc_data(dev, bytes);

	*va = DATA_VA + (offset - DATA_POOL_OFFSET);
	map_vram(dev, *va, offset, bytes, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
	return offset;
}

/* ---------------------------------------------------------- tests --- */

static void test_identity(struct device *dev)
{
	uint32_t id = reg_read(dev, SIMTGPU_REG_ID);
	uint32_t version = reg_read(dev, SIMTGPU_REG_HW_VERSION);
	uint32_t arch = reg_read(dev, SIMTGPU_REG_ARCH);
	uint32_t caps = reg_read(dev, SIMTGPU_REG_CAPS);
	uint32_t sms = reg_read(dev, SIMTGPU_REG_NUM_SMS);
	uint32_t warps = reg_read(dev, SIMTGPU_REG_WARPS_PER_SM);
	uint32_t warp_size = reg_read(dev, SIMTGPU_REG_WARP_SIZE);
	uint32_t rings = reg_read(dev, SIMTGPU_REG_NUM_RINGS);
	uint64_t vram = reg_read64(dev, SIMTGPU_REG_VRAM_SIZE_LO);
	uint32_t counters = reg_read(dev, SIMTGPU_REG_NUM_COUNTERS);
	uint32_t known_caps = SIMTGPU_CAP_FP64 | SIMTGPU_CAP_ATOMICS | SIMTGPU_CAP_HOST_PTE |
			      SIMTGPU_CAP_TIMESTAMP | SIMTGPU_CAP_VRAM_CLEAR |
			      SIMTGPU_CAP_REPLAYABLE_FAULTS;
	const char *expect_sms = getenv("SIMTGPU_EXPECT_SMS");

	check(id == SIMTGPU_ID_MAGIC, "id register", "0x%08x", id);
	check(version == SIMTGPU_HW_VERSION, "hardware version", "0x%08x (hw.h 0x%08x)", version,
	      SIMTGPU_HW_VERSION);
	check(counters == SIMTGPU_NUM_COUNTERS, "counter block", "%u counters (counters.h %d)",
	      counters, SIMTGPU_NUM_COUNTERS);
	check(arch >= SIMTGPU_ARCH_SIMT1 && arch <= SIMTGPU_ARCH_NEWEST, "architecture",
	      "simt_%u", arch);
	check((caps & ~known_caps) == 0 && (caps & SIMTGPU_CAP_HOST_PTE), "capabilities",
	      "0x%x", caps);
	check(sms >= 1 && (!expect_sms || sms == (uint32_t)atoi(expect_sms)), "SM count", "%u", sms);
	check(warps >= 1, "warp slots per SM", "%u", warps);
	check(warp_size >= 1 && warp_size <= 64, "warp size", "%u", warp_size);
	check(rings == SIMTGPU_NUM_RINGS, "ring count", "%u", rings);
	check(vram == dev->vram_size, "VRAM size", "register %" PRIu64 ", BAR2 %" PRIu64, vram,
	      dev->vram_size);
	check(reg_read(dev, SIMTGPU_REG_CLOCK_KHZ) > 0, "clock", "%u kHz",
	      reg_read(dev, SIMTGPU_REG_CLOCK_KHZ));

	reg_write(dev, SIMTGPU_REG_SCRATCH, 0xdeadbeef);
	uint32_t a = reg_read(dev, SIMTGPU_REG_SCRATCH);
	reg_write(dev, SIMTGPU_REG_SCRATCH, 0x12345678);
	uint32_t b = reg_read(dev, SIMTGPU_REG_SCRATCH);
	check(a == 0xdeadbeef && b == 0x12345678, "scratch register", "read 0x%08x, 0x%08x", a, b);
}

/* VRAM_CLEAR through BAR0 zeroes exactly its range, as BAR2 shows (QEMU gives
 * the pages back to the host); a range past the end is refused. */
static uint32_t vram_clear(struct device *dev, uint64_t offset, uint64_t bytes)
{
	reg_write(dev, SIMTGPU_REG_VRAM_CLEAR_ADDR_LO, (uint32_t)offset);
	reg_write(dev, SIMTGPU_REG_VRAM_CLEAR_ADDR_HI, (uint32_t)(offset >> 32));
	reg_write(dev, SIMTGPU_REG_VRAM_CLEAR_BYTES_LO, (uint32_t)bytes);
	reg_write(dev, SIMTGPU_REG_VRAM_CLEAR_BYTES_HI, (uint32_t)(bytes >> 32));
	reg_write(dev, SIMTGPU_REG_VRAM_CLEAR, SIMTGPU_VRAM_CLEAR_GO);
	return reg_read(dev, SIMTGPU_REG_VRAM_CLEAR);
}

static void test_vram_clear(struct device *dev)
{
	const uint64_t page = SIMTGPU_PAGE_SIZE, offset = alloc_data(dev, 4 * page);
	uint64_t wrong = 0;

	for (uint64_t i = 0; i < 4 * page; i += 8)
		*vram64(dev, offset + i) = 0x0123456789abcdefull + i;
	uint32_t result = vram_clear(dev, offset + page, 2 * page);
	for (uint64_t i = 0; i < 4 * page; i += 8) {
		bool cleared = i >= page && i < 3 * page;
		wrong += *vram64(dev, offset + i) != (cleared ? 0 : 0x0123456789abcdefull + i);
	}
	check(result == SIMTGPU_VRAM_CLEAR_DONE && wrong == 0, "VRAM_CLEAR of two pages",
	      "result %u, %" PRIu64 " wrong words", result, wrong);
	result = vram_clear(dev, dev->vram_size - page, 2 * page);
	check(result == SIMTGPU_VRAM_CLEAR_BAD_RANGE && *vram64(dev, offset) == 0x0123456789abcdefull,
	      "VRAM_CLEAR past the end is refused", "result %u", result);
}

static void test_launch(struct device *dev, const struct kernel_image *image)
{
	const uint32_t multiplier = 2654435761u; /* wraps: every bit matters */
	uint64_t in_va, out_va;
	uint64_t in = alloc_mapped(dev, AFFINE_COUNT * 4, &in_va);
	uint64_t out = alloc_mapped(dev, AFFINE_COUNT * 4, &out_va);
	struct device_test_params params = {
		.in_va = in_va,
		.out_va = out_va,
		.count = AFFINE_COUNT,
		.mode = DEVICE_TEST_AFFINE,
		.multiplier = multiplier,
	};
	uint32_t grid = (AFFINE_COUNT + AFFINE_BLOCK - 1) / AFFINE_BLOCK;
	uint64_t launches_before = reg_read64(dev, SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_launches));
	struct simtgpu_launch_report report;
	struct launch l;
	unsigned mismatches = 0, first_bad = 0;

	for (uint32_t i = 0; i < AFFINE_COUNT; i++) {
		*vram32(dev, in + 4 * i) = i * 7919u + 13u;
		*vram32(dev, out + 4 * i) = 0xffffffffu;
	}
	emit_launch(dev, image, &params, grid, AFFINE_BLOCK, &l);
	ring_kick(dev);
	bool done = wait_fence(dev, l.seq);
	check(done, "launch: fence written", "sequence %" PRIu64 ", memory %" PRIu64, l.seq,
	      *vram64(dev, FENCE_OFFSET));
	if (!done)
		return;

	read_report(dev, &l, &report);
	check(report.exception == 0 && report.exit_status == 0 && report.nonzero_exits == 0,
	      "launch: report", "exception %u, exit status %u, non-zero exits %u, %" PRIu64
	      " thread instructions", report.exception, report.exit_status, report.nonzero_exits,
	      report.thread_instructions);
	for (uint32_t i = 0; i < AFFINE_COUNT; i++) {
		uint32_t expected = (i * 7919u + 13u) * multiplier + i;

		if (*vram32(dev, out + 4 * i) != expected && mismatches++ == 0)
			first_bad = i;
	}
	check(mismatches == 0, "launch: result matches the CPU", "%u of %u elements differ%s",
	      mismatches, AFFINE_COUNT, mismatches ? " (see the first below)" : "");
	if (mismatches)
		printf("  out[%u] = 0x%08x, expected 0x%08x\n", first_bad,
		       *vram32(dev, out + 4 * first_bad),
		       (first_bad * 7919u + 13u) * multiplier + first_bad);
	uint64_t launches_after = reg_read64(dev, SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_launches));
	check(launches_after == launches_before + 1, "launch: performance counter",
	      "launches %" PRIu64 " -> %" PRIu64, launches_before, launches_after);
}

/* Doorbell to fence of a one-thread launch, the median of several. */
static void test_round_trip(struct device *dev, const struct kernel_image *image)
{
	enum { RUNS = 9 };
	uint64_t out_va;
	uint64_t times[RUNS];
	struct device_test_params params = { .mode = DEVICE_TEST_AFFINE, .count = 1 };
	bool ok = true;

	alloc_mapped(dev, SIMTGPU_PAGE_SIZE, &out_va);
	params.in_va = out_va;
	params.out_va = out_va;
	for (int run = 0; run < RUNS && ok; run++) {
		struct launch l;
		uint64_t start;

		emit_launch(dev, image, &params, 1, 1, &l);
		start = now_ns();
		ring_kick(dev);
		ok = wait_fence(dev, l.seq);
		times[run] = now_ns() - start;
	}
	if (ok) {
		for (int i = 1; i < RUNS; i++)
			for (int j = i; j > 0 && times[j - 1] > times[j]; j--) {
				uint64_t t = times[j];

				times[j] = times[j - 1];
				times[j - 1] = t;
			}
	}
	check(ok, "round trip of a one-thread launch", ok ? "median %.1f us (min %.1f, max %.1f)" : "",
	      times[RUNS / 2] / 1e3, times[0] / 1e3, times[RUNS - 1] / 1e3);
}

/* Bus address of the page at p, from /proc/self/pagemap (root only). */
static uint64_t bus_address(const void *p)
{
	uint64_t entry = 0;
	long page = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &entry, 8, (off_t)((uintptr_t)p / (uintptr_t)page) * 8) != 8)
		entry = 0;
	close(fd);
	if (!(entry & (1ull << 63)))
		return 0; /* not present */
	return (entry & ((1ull << 55) - 1)) * (uint64_t)page;
}

static void test_dma(struct device *dev)
{
	const uint32_t words = SIMTGPU_PAGE_SIZE / 4;
	uint32_t *host = mmap(NULL, 2 * SIMTGPU_PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	uint64_t vram_va, bus_src, bus_dst;
	uint64_t vram = alloc_mapped(dev, SIMTGPU_PAGE_SIZE, &vram_va);
	unsigned bad_in = 0, bad_out = 0;

	if (host == MAP_FAILED || mlock(host, 2 * SIMTGPU_PAGE_SIZE) != 0) {
		check(false, "DMA: pinned host buffer", "%s", strerror(errno));
		return;
	}
	for (uint32_t i = 0; i < words; i++) {
		host[i] = 0xa5000000u ^ (i * 2246822519u);
		host[words + i] = 0;
	}
	bus_src = bus_address(host);
	bus_dst = bus_address(host + words);
	check(bus_src && bus_dst, "DMA: bus addresses from pagemap",
	      "0x%" PRIx64 ", 0x%" PRIx64, bus_src, bus_dst);
	if (!bus_src || !bus_dst)
		return;
	map_page(dev, HOST_VA, bus_src, SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_HOST);
	map_page(dev, HOST_VA + SIMTGPU_PAGE_SIZE, bus_dst,
		 SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_HOST);

	struct simtgpu_pkt_copy to_vram = {
		.src_va = HOST_VA, .dst_va = vram_va, .bytes = SIMTGPU_PAGE_SIZE
	};
	struct simtgpu_pkt_copy to_host = {
		.src_va = vram_va, .dst_va = HOST_VA + SIMTGPU_PAGE_SIZE, .bytes = SIMTGPU_PAGE_SIZE
	};
	uint64_t bytes_before = reg_read64(dev, SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_dma_bytes));
	ring_set_context(dev);
	ring_packet(dev, SIMTGPU_PKT_COPY, 0, &to_vram, sizeof(to_vram));
	ring_packet(dev, SIMTGPU_PKT_COPY, 0, &to_host, sizeof(to_host));
	uint64_t seq = ring_fence(dev);
	ring_kick(dev);
	bool done = wait_fence(dev, seq);
	check(done, "DMA: fence after the copies", "");
	if (!done)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t i = 0; i < words; i++) {
		uint32_t expected = 0xa5000000u ^ (i * 2246822519u);

		bad_in += *vram32(dev, vram + 4 * i) != expected;
		bad_out += ((volatile uint32_t *)host)[words + i] != expected;
	}
	check(bad_in == 0, "DMA: host to VRAM", "%u of %u words differ", bad_in, words);
	check(bad_out == 0, "DMA: VRAM to host", "%u of %u words differ", bad_out, words);
	uint64_t bytes_after = reg_read64(dev, SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_dma_bytes));
	check(bytes_after - bytes_before >= 2 * SIMTGPU_PAGE_SIZE, "DMA: byte counter",
	      "%" PRIu64 " -> %" PRIu64, bytes_before, bytes_after);
	munlock(host, 2 * SIMTGPU_PAGE_SIZE);
	munmap(host, 2 * SIMTGPU_PAGE_SIZE);
}

static void test_fault(struct device *dev, const struct kernel_image *image)
{
	struct device_test_params params = {
		.fault_va = FAULT_VA + 0x124,
		.mode = DEVICE_TEST_FAULT,
		.count = 1,
	};
	struct simtgpu_launch_report report;
	struct launch l;
	uint32_t ring0 = SIMTGPU_RING_BASE(0);

	emit_launch(dev, image, &params, 2, 32, &l);
	ring_kick(dev);
	bool raised = wait_irq_status(dev, SIMTGPU_IRQ_EXCEPTION);
	check(raised, "fault: exception interrupt status", "IRQ_STATUS 0x%x",
	      reg_read(dev, SIMTGPU_REG_IRQ_STATUS));
	if (!raised)
		return;

	uint32_t kind = reg_read(dev, SIMTGPU_REG_EXC_KIND);
	uint32_t access = reg_read(dev, SIMTGPU_REG_EXC_ACCESS);
	uint32_t detail = reg_read(dev, SIMTGPU_REG_EXC_DETAIL);
	uint64_t addr = reg_read64(dev, SIMTGPU_REG_EXC_ADDR_LO);
	uint32_t context = reg_read(dev, SIMTGPU_REG_EXC_CONTEXT);
	uint32_t ring = reg_read(dev, SIMTGPU_REG_EXC_RING);
	uint32_t tid = reg_read(dev, SIMTGPU_REG_EXC_TID_X);
	uint32_t ctaid = reg_read(dev, SIMTGPU_REG_EXC_CTAID_X);
	uint32_t lane = reg_read(dev, SIMTGPU_REG_EXC_LANE);
	uint64_t pc = reg_read64(dev, SIMTGPU_REG_EXC_PC_LO);

	check(kind == SIMTGPU_EXC_PAGE_FAULT && access == SIMTGPU_ACCESS_WRITE &&
		      detail == SIMTGPU_FAULT_NOT_PRESENT,
	      "fault: record kind, access, reason", "kind %u, access %u, detail %u", kind, access,
	      detail);
	check(addr == params.fault_va && context == CONTEXT_ID && ring == 0,
	      "fault: record address, context, ring", "0x%" PRIx64 ", context %u, ring %u", addr,
	      context, ring);
	check(tid == 0 && ctaid == 0 && lane == 0 && pc >= image->code_start && pc < image->code_end,
	      "fault: record thread", "ctaid %u, tid %u, lane %u, pc 0x%" PRIx64, ctaid, tid,
	      lane, pc);
	check((reg_read(dev, SIMTGPU_REG_STATUS) & SIMTGPU_STATUS_EXCEPTION) &&
		      reg_read(dev, ring0 + SIMTGPU_RING_STATUS) == SIMTGPU_RING_STATUS_STALLED,
	      "fault: ring stalled until the ack", "STATUS 0x%x, ring status %u",
	      reg_read(dev, SIMTGPU_REG_STATUS), reg_read(dev, ring0 + SIMTGPU_RING_STATUS));

	reg_write(dev, SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION);
	bool resumed = wait_fence(dev, l.seq);
	check(resumed && !(reg_read(dev, SIMTGPU_REG_IRQ_STATUS) & SIMTGPU_IRQ_EXCEPTION),
	      "fault: ack resumes the ring", "fence %" PRIu64 " of %" PRIu64,
	      *vram64(dev, FENCE_OFFSET), l.seq);
	read_report(dev, &l, &report);
	check(report.exception == SIMTGPU_EXC_PAGE_FAULT, "fault: launch report",
	      "exception %u", report.exception);
}

/* The PCI status register's Interrupt Status bit: INTx asserted. */
static int intx_asserted(const struct device *dev)
{
	char path[768];
	uint16_t status;
	int fd;

	snprintf(path, sizeof(path), "%s/config", dev->path);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &status, 2, 6) != 2)
		status = 0xffff;
	close(fd);
	return status == 0xffff ? -1 : !!(status & 0x8);
}

/*
 * Without a driver MSI-X is off, so the device signals on INTx, as long as
 * IRQ_STATUS & IRQ_MASK is non-zero. No handler owns the line (the kernel
 * keeps it masked); the PCI status register shows its level.
 */
static void test_intx(struct device *dev)
{
	struct simtgpu_pkt_fence fence = { .addr = FENCE_OFFSET };
	int before, raised, acked;

	reg_write(dev, SIMTGPU_REG_IRQ_ACK, ~0u);
	reg_write(dev, SIMTGPU_REG_IRQ_MASK, SIMTGPU_IRQ_FENCE);
	before = intx_asserted(dev);
	fence.value = ++dev->fence_seq;
	ring_packet(dev, SIMTGPU_PKT_FENCE, SIMTGPU_PKTF_PHYSICAL | SIMTGPU_PKTF_IRQ, &fence,
		    sizeof(fence));
	ring_kick(dev);
	bool done = wait_fence(dev, fence.value) && wait_irq_status(dev, SIMTGPU_IRQ_FENCE);
	/* The level follows from a bottom half in QEMU's main loop. */
	uint64_t start = now_ns();
	do {
		raised = intx_asserted(dev);
	} while (raised == 0 && now_ns() - start < 1000000000ull);
	reg_write(dev, SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_FENCE);
	acked = intx_asserted(dev);
	reg_write(dev, SIMTGPU_REG_IRQ_MASK, 0);
	check(done && before == 0 && raised == 1 && acked == 0,
	      "INTx follows a fence interrupt", "fence %s, level before %d, after the fence %d, "
	      "after the ack %d", done ? "written" : "missing", before, raised, acked);
}

/*
 * Function-level reset through sysfs (the kernel picks FLR, which the device
 * advertises): registers return to their reset values, VRAM keeps its
 * contents, and the kernel restores the BARs so the mappings stay valid.
 */
static void test_function_reset(struct device *dev)
{
	const uint64_t probe = DATA_POOL_OFFSET - 8; /* unused VRAM */
	char method[64] = "";
	char path[768];
	FILE *f;

	snprintf(path, sizeof(path), "%s/reset_method", dev->path);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(method, sizeof(method), f))
			method[0] = 0;
		method[strcspn(method, "\n")] = 0;
		fclose(f);
	}
	check(strstr(method, "flr") != NULL, "FLR is a reset method", "%s", method);

	reg_write(dev, SIMTGPU_REG_SCRATCH, 0x5a5a5a5a);
	reg_write(dev, SIMTGPU_REG_IRQ_MASK, SIMTGPU_IRQ_FENCE);
	*vram64(dev, probe) = 0x0123456789abcdefull;
	bool reset = write_sysfs(dev->path, "reset", "1");
	check(reset, "function reset through sysfs", "%s", reset ? "" : strerror(errno));
	if (!reset)
		return;
	uint32_t scratch = reg_read(dev, SIMTGPU_REG_SCRATCH);
	uint32_t mask = reg_read(dev, SIMTGPU_REG_IRQ_MASK);
	uint32_t ring_ctrl = reg_read(dev, SIMTGPU_RING_BASE(0) + SIMTGPU_RING_CTRL);
	check(scratch == 0 && mask == 0 && ring_ctrl == 0, "reset clears the registers",
	      "scratch 0x%x, IRQ mask 0x%x, ring 0 control 0x%x", scratch, mask, ring_ctrl);
	check(*vram64(dev, probe) == 0x0123456789abcdefull, "reset keeps VRAM", "0x%" PRIx64,
	      *vram64(dev, probe));
	check(reg_read(dev, SIMTGPU_REG_ID) == SIMTGPU_ID_MAGIC, "registers answer after the reset",
	      "id 0x%08x", reg_read(dev, SIMTGPU_REG_ID));
}

int main(void)
{
	struct device dev = { 0 };
	struct kernel_image image;
	unsigned class_code = 0;
	uint64_t regs_size = 0;
	char why[256];

	bool found = find_device(&dev, &class_code);
	check(found, "device on the PCI bus", "%04x:%04x at %s, class 0x%06x",
	      SIMTGPU_PCI_VENDOR_ID, SIMTGPU_PCI_DEVICE_ID, found ? dev.path : "(none)",
	      class_code);
	if (!found)
		goto out;
	check(class_code >> 8 == SIMTGPU_PCI_CLASS, "PCI class", "0x%06x", class_code);

	bool enabled = write_sysfs(dev.path, "enable", "1");
	check(enabled, "enable through sysfs", "%s", enabled ? "" : strerror(errno));
	bool master = enable_bus_master(&dev);
	check(master, "memory space and bus master", "%s", master ? "" : strerror(errno));
	dev.regs = map_resource(&dev, SIMTGPU_BAR_REGS, &regs_size);
	dev.vram = map_resource(&dev, SIMTGPU_BAR_VRAM, &dev.vram_size);
	check(dev.regs && dev.vram && regs_size == SIMTGPU_REGS_SIZE, "map BAR0 and BAR2",
	      "BAR0 %" PRIu64 " bytes, BAR2 %" PRIu64 " bytes", regs_size, dev.vram_size);
	if (!dev.regs || !dev.vram)
		goto out;

	/* A known state: whatever ran before (a driver, a crashed run). */
	reg_write(&dev, SIMTGPU_REG_RESET, SIMTGPU_RESET_MAGIC);
	test_identity(&dev);

	dev.next_table = PT_POOL_OFFSET;
	dev.next_data = DATA_POOL_OFFSET;
	dev.root_table = alloc_table(&dev);
	*vram64(&dev, FENCE_OFFSET) = 0;
	ring_init(&dev);

	if (!load_kernel(&dev, &image, why, sizeof(why))) {
		check(false, "load the device kernel", "%s", why);
		goto out;
	}
	check(true, "load the device kernel", "entry 0x%" PRIx64 ", code 0x%" PRIx64 "-0x%" PRIx64,
	      image.entry, image.code_start, image.code_end);
	test_launch(&dev, &image);
	test_round_trip(&dev, &image);
	test_dma(&dev);
	test_vram_clear(&dev);
	test_fault(&dev, &image);
	test_intx(&dev);
	test_function_reset(&dev);

out:
	printf("%d passed, %d failed\n", checks_passed, checks_failed);
	return checks_failed ? 1 : 0;
}
