// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD for the KVM probe's tests: ioctl(KVM_RUN) waits for a signal
 * and fails with EINTR, as KVM_RUN does on a host whose /dev/kvm never runs
 * the guest; every other ioctl goes to the C library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <unistd.h>

int ioctl(int fd, unsigned long request, ...)
{
	static int (*real_ioctl)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == KVM_RUN) {
		pause();
		errno = EINTR;
		return -1;
	}
	if (!real_ioctl)
		real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	return real_ioctl(fd, request, arg);
}
