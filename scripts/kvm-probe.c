// SPDX-License-Identifier: MIT
/*
 * kvm-probe: does KVM run a guest on this host?
 *
 * /dev/kvm can be present and read-writable where KVM cannot run a guest
 * (nested virtualisation switched off, a container passing the node through):
 * QEMU with -accel kvm then prints nothing at all. Some such hosts run
 * guest code, but through a software emulator at a few million instructions
 * a second, so a kernel never gets to its first line of output. This probe
 * asks the only question that counts: it builds a VM with one vCPU, runs a
 * real-mode loop of 2 M instructions and a port write through KVM_RUN, and
 * answers yes only when the port write and the halt come back, and the loop
 * ran at hardware speed (well above what TCG would manage), within a time
 * limit. The speed is measured in the thread's CPU time, so that a busy host
 * preempting the probe does not make KVM look slow.
 *
 * Usage: kvm-probe [--device PATH] [--timeout SECONDS]
 * Prints one line, "yes: ..." or "no: <the reason>", and exits 0 for yes,
 * 1 for no, 2 for bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define GUEST_CODE_ADDR 0x1000
#define PROBE_PORT 0xe9
#define PROBE_VALUE 0x2a
#define LOOP_ITERATIONS 1000000 /* two instructions each */
/* Hardware virtualisation runs the loop in about 1 ms; TCG would need
 * about 10 ms; the software-emulated KVM this probe exists for, 1.4 s.
 */
#define LOOP_CPU_LIMIT_MS 50.0

static const uint8_t guest_code[] = {
	0x66, 0xb9,		/* mov ecx, LOOP_ITERATIONS */
	LOOP_ITERATIONS & 0xff, (LOOP_ITERATIONS >> 8) & 0xff,
	(LOOP_ITERATIONS >> 16) & 0xff, LOOP_ITERATIONS >> 24,
	0x66, 0x49,		/* 1: dec ecx */
	0x75, 0xfc,		/* jnz 1b */
	0xb0, PROBE_VALUE,	/* mov al, 0x2a */
	0xe6, PROBE_PORT,	/* out 0xe9, al */
	0xf4,			/* hlt */
};

static void on_alarm(int sig)
{
	(void)sig; /* only there to make KVM_RUN return EINTR */
}

static int answer_no(const char *what, int err)
{
	if (err)
		printf("no: %s: %s\n", what, strerror(err));
	else
		printf("no: %s\n", what);
	return 1;
}

/* CPU time of this thread since *start: KVM_RUN's time is the thread's. */
static double cpu_ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return (now.tv_sec - start->tv_sec) * 1e3 +
	       (now.tv_nsec - start->tv_nsec) / 1e6;
}

static int probe(const char *device, unsigned int timeout_s)
{
	struct kvm_userspace_memory_region region;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	struct timespec start;
	struct sigaction alarm_action;
	int kvm, vm, vcpu, run_size, saw_port_write = 0;
	double run_ms;
	uint8_t *memory;
	char what[300];

	kvm = open(device, O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		snprintf(what, sizeof(what), "cannot open %s", device);
		return answer_no(what, errno);
	}
	if (ioctl(kvm, KVM_GET_API_VERSION, 0) != KVM_API_VERSION) {
		snprintf(what, sizeof(what), "%s does not speak KVM API %d",
			 device, KVM_API_VERSION);
		return answer_no(what, 0);
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		return answer_no("KVM_CREATE_VM failed", errno);

	memory = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (memory == MAP_FAILED)
		return answer_no("cannot map guest memory", errno);
	memcpy(memory, guest_code, sizeof(guest_code));
	region = (struct kvm_userspace_memory_region){
		.slot = 0,
		.guest_phys_addr = GUEST_CODE_ADDR,
		.memory_size = 0x1000,
		.userspace_addr = (uintptr_t)memory,
	};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return answer_no("KVM_SET_USER_MEMORY_REGION failed", errno);

	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		return answer_no("KVM_CREATE_VCPU failed", errno);
	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size < (int)sizeof(*run))
		return answer_no("KVM_GET_VCPU_MMAP_SIZE failed", errno);
	run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		return answer_no("cannot map the vCPU's kvm_run", errno);

	/* Real mode, code segment at 0, starting at the probe's code. */
	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		return answer_no("KVM_GET_SREGS failed", errno);
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0)
		return answer_no("KVM_SET_SREGS failed", errno);
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_CODE_ADDR;
	regs.rflags = 0x2; /* bit 1 is reserved and must be set */
	if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		return answer_no("KVM_SET_REGS failed", errno);

	/* A KVM_RUN that never comes back is this probe's main subject. */
	memset(&alarm_action, 0, sizeof(alarm_action));
	alarm_action.sa_handler = on_alarm; /* no SA_RESTART: EINTR */
	sigaction(SIGALRM, &alarm_action, NULL);
	alarm(timeout_s);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR) {
				snprintf(what, sizeof(what),
					 "KVM_RUN did not finish the test guest within %u s",
					 timeout_s);
				return answer_no(what, 0);
			}
			return answer_no("KVM_RUN failed", errno);
		}
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			if (run->io.direction == KVM_EXIT_IO_OUT &&
			    run->io.port == PROBE_PORT && run->io.size == 1 &&
			    *((uint8_t *)run + run->io.data_offset) ==
				    PROBE_VALUE) {
				saw_port_write = 1;
				continue;
			}
			return answer_no("the test guest wrote to an unexpected port", 0);
		case KVM_EXIT_HLT:
			alarm(0);
			if (!saw_port_write)
				return answer_no("the test guest halted before its port write", 0);
			run_ms = cpu_ms_since(&start);
			if (run_ms > LOOP_CPU_LIMIT_MS) {
				snprintf(what, sizeof(what),
					 "KVM ran the test guest's 2 M instructions in %.0f ms, slower than TCG would (no hardware virtualisation)",
					 run_ms);
				return answer_no(what, 0);
			}
			printf("yes: ran 2 M instructions of a test guest through KVM_RUN in %.1f ms\n",
			       run_ms);
			return 0;
		case KVM_EXIT_FAIL_ENTRY:
			snprintf(what, sizeof(what),
				 "the CPU refused to enter the guest (hardware reason 0x%llx)",
				 (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
			return answer_no(what, 0);
		case KVM_EXIT_INTERNAL_ERROR:
			snprintf(what, sizeof(what),
				 "KVM internal error (suberror %u)",
				 run->internal.suberror);
			return answer_no(what, 0);
		default:
			snprintf(what, sizeof(what),
				 "the test guest stopped with KVM exit reason %u",
				 run->exit_reason);
			return answer_no(what, 0);
		}
	}
}

int main(int argc, char **argv)
{
	const char *device = "/dev/kvm";
	unsigned int timeout_s = 3;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			device = argv[++i];
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			timeout_s = (unsigned int)strtoul(argv[++i], NULL, 10);
			if (timeout_s == 0) {
				fprintf(stderr, "kvm-probe: --timeout needs a positive number of seconds\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: kvm-probe [--device PATH] [--timeout SECONDS]\n");
			return 2;
		}
	}
	return probe(device, timeout_s);
}
