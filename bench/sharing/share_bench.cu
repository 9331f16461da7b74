// SPDX-License-Identifier: MIT
// simtgpu-share-bench: how the kernel driver shares the GPU between
// processes (docs/sharing.md). Runs in the guest, as root, on the render
// node (it writes the driver's sysfs files and creates cgroups).
//
//   simtgpu-share-bench fairness [--policy P] [--weights 1,3] [--seconds S]
//                                [--warmup S] [--iters N] [--timeslice MS]
//                                [--tolerance PCT] [--expect 1,1]
//     N processes (one per weight), each in its own cgroup whose gpu_weight
//     is 100 x its weight, run the same kernel loop at once: --warmup
//     seconds (1.5) for the policy to reach its steady state, then S
//     seconds measured. Prints the GPU time each received in the measured
//     window (fdinfo simtgpu-gpu-time), its kernels, its share against the
//     weights' share, the error, and Jain's fairness index of GPU time per
//     unit of weight. With --tolerance it exits 1 when an error exceeds PCT
//     percent. --expect gives other proportions to compare with (a policy
//     that ignores weights: 1,1).
//   simtgpu-share-bench latency [--policy P] [--seconds S]
//                               [--scenario priority|timeslice]
//     A batch process saturates the GPU while a latency-sensitive one times
//     a small kernel (one block) every 10 ms: prints its median and 95th
//     percentile. "priority" (default): the small kernel on a high-priority
//     stream, the batch on a low-priority one with one wave of long blocks
//     (64 blocks that all fit at once, each as long as the kernel), which
//     block-level preemption cannot drain before the kernel ends.
//     "timeslice": both on normal streams, the batch in 8 waves of short
//     blocks (1024), the case time slices are for.
//   simtgpu-share-bench throughput [--seconds S] [--iters N]
//     One process fills every SM of its device (a partition's render node
//     with SIMTGPU_RENDER_NODE) with blocks of the kernel loop for S
//     seconds: prints cudaGetDeviceProperties' SMs and memory, the kernels
//     run, and the throughput per second of device time (fdinfo
//     simtgpu-gpu-time) and of wall time. A partition's isolation shows in
//     the device-time figure; the wall-time one also counts the host CPU
//     that simulates the other partition's SMs.
//
// Every figure comes from the processes' own clocks and fdinfo; the
// expected shares are computed here from the weights.
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

__global__ void spin_kernel(unsigned *out, unsigned iters)
{
	unsigned x = threadIdx.x + 1;
	for (unsigned i = 0; i < iters; ++i)
		x = x * 1664525u + 1013904223u;
	out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

namespace {

using Clock = std::chrono::steady_clock;

const char *const kCgroupRoot = "/sys/fs/cgroup";

bool write_text(const std::string &path, const std::string &text)
{
	int fd = open(path.c_str(), O_WRONLY);
	if (fd < 0)
		return false;
	bool ok = write(fd, text.data(), text.size()) == ssize_t(text.size());
	close(fd);
	return ok;
}

std::string device_dir()
{
	for (int minor = 128; minor < 192; ++minor) {
		std::string dir = "/sys/class/drm/renderD" + std::to_string(minor) + "/device";
		if (access((dir + "/sched_policy").c_str(), W_OK) == 0)
			return dir;
	}
	return "";
}

bool check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess)
		std::fprintf(stderr, "simtgpu-share-bench: %s: %s\n", what, cudaGetErrorString(e));
	return e == cudaSuccess;
}

// The value of KEY in this process's render-node fdinfo (first number).
unsigned long long fdinfo_value(const char *key)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned long long value = 0;
	if (!d)
		return 0;
	while (dirent *e = readdir(d)) {
		char link[256] = {};
		std::string fd = std::string("/proc/self/fd/") + e->d_name;
		if (readlink(fd.c_str(), link, sizeof(link) - 1) <= 0 ||
		    std::strncmp(link, "/dev/dri/renderD", 16) != 0)
			continue;
		FILE *f = std::fopen((std::string("/proc/self/fdinfo/") + e->d_name).c_str(), "r");
		if (!f)
			continue;
		char line[256];
		size_t n = std::strlen(key);
		while (std::fgets(line, sizeof(line), f))
			if (std::strncmp(line, key, n) == 0 && line[n] == ':')
				value = std::strtoull(line + n + 1, nullptr, 10);
		std::fclose(f);
	}
	closedir(d);
	return value;
}

struct Options {
	std::string mode, policy = "fair";
	std::vector<unsigned> weights{1, 3};
	std::vector<unsigned> expect; // the shares' proportions; empty: the weights
	std::string scenario = "priority";
	double seconds = 8;
	double warmup = 1.5;
	unsigned iters = 4000;
	unsigned timeslice_ms = 2;
	double tolerance = -1;
};

struct ChildResult {
	unsigned index = 0;
	unsigned long long kernels = 0, gpu_ns = 0, preemptions = 0;
	double seconds = 0;
	double median_us = 0, p95_us = 0; // latency mode
};

// Joins cgroup @cg (its path below the cgroup2 root).
bool join_cgroup(const std::string &cg)
{
	if (write_text(std::string(kCgroupRoot) + cg + "/cgroup.procs", "0"))
		return true;
	std::fprintf(stderr, "simtgpu-share-bench: cannot join cgroup %s: %s\n", cg.c_str(),
		     std::strerror(errno));
	return false;
}

// Waits for the parent's go byte after telling it this process is ready.
bool rendezvous(int ready, int go)
{
	char byte = 1;
	return write(ready, &byte, 1) == 1 && read(go, &byte, 1) == 1;
}

// fairness: the kernel loop for the benchmark's time, in cgroup @cg.
int fairness_child(const Options &o, unsigned index, const std::string &cg, int ready, int go,
		   int report)
{
	if (!join_cgroup(cg))
		return 1;
	unsigned *out = nullptr;
	if (!check(cudaMalloc(&out, 32 * sizeof(unsigned)), "cudaMalloc"))
		return 1;
	spin_kernel<<<1, 32>>>(out, 1);
	if (!check(cudaDeviceSynchronize(), "warm-up") || !rendezvous(ready, go))
		return 1;
	ChildResult r;
	r.index = index;
	// The policy's steady state: under "fair", a client gets up to one
	// time slice of virtual time ahead before it is held back, once, at
	// the start of the contention; the window measures the shares after.
	auto seconds = [](double s) {
		return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
	};
	for (auto warm_end = Clock::now() + seconds(o.warmup); Clock::now() < warm_end;) {
		spin_kernel<<<1, 32>>>(out, o.iters);
		if (!check(cudaDeviceSynchronize(), "kernel"))
			return 1;
	}
	unsigned long long gpu0 = fdinfo_value("simtgpu-gpu-time");
	unsigned long long pre0 = fdinfo_value("simtgpu-preemptions");
	auto start = Clock::now();
	auto end = start + seconds(o.seconds);
	while (Clock::now() < end) {
		spin_kernel<<<1, 32>>>(out, o.iters);
		if (!check(cudaDeviceSynchronize(), "kernel"))
			return 1;
		r.kernels++;
	}
	r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
	r.gpu_ns = fdinfo_value("simtgpu-gpu-time") - gpu0;
	r.preemptions = fdinfo_value("simtgpu-preemptions") - pre0;
	cudaFree(out);
	return write(report, &r, sizeof(r)) == ssize_t(sizeof(r)) ? 0 : 1;
}

// latency: index 0 saturates the GPU; index 1 times a small kernel every
// 10 ms (see the scenarios at the top).
int latency_child(const Options &o, unsigned index, const std::string &cg, int ready, int go,
		  int report)
{
	if (!join_cgroup(cg))
		return 1;
	int least = 0, greatest = 0;
	if (!check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "priority range"))
		return 1;
	const bool by_priority = o.scenario == "priority";
	cudaStream_t stream;
	if (!check(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking,
						!by_priority ? 0 : index ? greatest : least),
		   "stream"))
		return 1;
	// The same work per batch kernel in both: 64 x 4 iters or 1024 x iters / 4.
	const unsigned blocks = index ? 1 : by_priority ? 64 : 1024;
	const unsigned batch_iters = by_priority ? o.iters * 4 : o.iters / 4;
	unsigned *out = nullptr;
	if (!check(cudaMalloc(&out, blocks * 32 * sizeof(unsigned)), "cudaMalloc"))
		return 1;
	spin_kernel<<<blocks, 32, 0, stream>>>(out, 1);
	if (!check(cudaStreamSynchronize(stream), "warm-up") || !rendezvous(ready, go))
		return 1;
	ChildResult r;
	r.index = index;
	std::vector<double> us;
	auto start = Clock::now();
	auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
	if (index == 1)
		usleep(200000); // the batch is running
	while (Clock::now() < end) {
		auto t0 = Clock::now();
		spin_kernel<<<blocks, 32, 0, stream>>>(out, index ? o.iters / 4 : batch_iters);
		if (!check(cudaStreamSynchronize(stream), "kernel"))
			return 1;
		r.kernels++;
		if (index == 1) {
			us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
			usleep(10000);
		}
	}
	r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
	if (!us.empty()) {
		std::sort(us.begin(), us.end());
		r.median_us = us[us.size() / 2];
		r.p95_us = us[std::min(us.size() - 1, us.size() * 95 / 100)];
	}
	cudaFree(out);
	return write(report, &r, sizeof(r)) == ssize_t(sizeof(r)) ? 0 : 1;
}

// Runs one child per cgroup at once; their results, by index.
bool run_children(const Options &o, size_t n,
		  int (*child)(const Options &, unsigned, const std::string &, int, int, int),
		  const std::string &dev, std::vector<ChildResult> *results)
{
	std::vector<std::string> cgs;
	for (size_t i = 0; i < n; ++i) {
		std::string cg = "/simtgpu-bench-" + std::to_string(i);
		if (mkdir((kCgroupRoot + cg).c_str(), 0755) != 0 && errno != EEXIST) {
			std::perror("mkdir cgroup");
			return false;
		}
		unsigned weight = i < o.weights.size() ? o.weights[i] : 1;
		if (!write_text(dev + "/gpu_weight", cg + " " + std::to_string(100 * weight))) {
			std::fprintf(stderr, "simtgpu-share-bench: cannot set %s's gpu_weight\n", cg.c_str());
			return false;
		}
		cgs.push_back(cg);
	}
	int go[2], ready[2], report[2];
	if (pipe(go) || pipe(ready) || pipe(report))
		return false;
	std::vector<pid_t> pids;
	for (size_t i = 0; i < n; ++i) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(child(o, unsigned(i), cgs[i], ready[1], go[0], report[1]));
		pids.push_back(pid);
	}
	bool ok = true;
	char byte;
	for (size_t i = 0; i < n && ok; ++i)
		ok = read(ready[0], &byte, 1) == 1;
	for (size_t i = 0; i < n && ok; ++i)
		ok = write(go[1], "g", 1) == 1;
	close(go[1]); // a child waiting on a failed start sees EOF
	for (size_t i = 0; i < n; ++i) {
		int status = 0;
		waitpid(pids[i], &status, 0);
		ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	results->assign(n, ChildResult{});
	for (size_t i = 0; i < n && ok; ++i) {
		ChildResult r;
		ok = read(report[0], &r, sizeof(r)) == ssize_t(sizeof(r)) && r.index < n;
		if (ok)
			(*results)[r.index] = r;
	}
	for (const std::string &cg : cgs)
		rmdir((kCgroupRoot + cg).c_str());
	return ok;
}

bool set_policy(const std::string &dev, const std::string &policy, unsigned timeslice_ms)
{
	if (write_text(dev + "/timeslice_duration_ms", std::to_string(timeslice_ms)) &&
	    write_text(dev + "/sched_policy", policy))
		return true;
	std::fprintf(stderr, "simtgpu-share-bench: cannot select policy %s\n", policy.c_str());
	return false;
}

int fairness(const Options &o, const std::string &dev)
{
	size_t n = o.weights.size();
	std::vector<ChildResult> r;
	if (!set_policy(dev, o.policy, o.timeslice_ms))
		return 1;
	bool ok = run_children(o, n, fairness_child, dev, &r);
	set_policy(dev, "fifo", 20);
	if (!ok) {
		std::fprintf(stderr, "simtgpu-share-bench: a process failed\n");
		return 1;
	}
	const std::vector<unsigned> &expect = o.expect.empty() ? o.weights : o.expect;
	double total_gpu = 0, total_w = 0, sum_x = 0, sum_x2 = 0, worst = 0;
	for (size_t i = 0; i < n; ++i) {
		total_gpu += double(r[i].gpu_ns);
		total_w += expect[i];
	}
	std::printf("fairness: policy %s, weights", o.policy.c_str());
	for (unsigned w : o.weights)
		std::printf(" %u", w);
	std::printf(", %.1f s after %.1f s of warm-up, %u iterations per kernel, time slice %u ms\n",
		    o.seconds, o.warmup, o.iters, o.timeslice_ms);
	std::printf("  %-7s %-6s %10s %12s %8s %8s %8s %11s\n", "process", "weight", "kernels",
		    "gpu_ms", "share", "expected", "error", "preemptions");
	for (size_t i = 0; i < n; ++i) {
		double share = total_gpu > 0 ? double(r[i].gpu_ns) / total_gpu : 0;
		double expected = expect[i] / total_w;
		double error = std::fabs(share - expected) / expected;
		double x = double(r[i].gpu_ns) / expect[i];
		sum_x += x;
		sum_x2 += x * x;
		worst = std::max(worst, error);
		std::printf("  %-7zu %-6u %10llu %12.2f %8.4f %8.4f %7.2f%% %11llu\n", i, o.weights[i],
			    r[i].kernels, double(r[i].gpu_ns) / 1e6, share, expected, 100 * error,
			    r[i].preemptions);
	}
	double jain = sum_x2 > 0 ? sum_x * sum_x / (double(n) * sum_x2) : 0;
	std::printf("fairness: jain %.4f, worst error %.2f%% (GPU time per unit of %s)\n", jain,
		    100 * worst, o.expect.empty() ? "weight" : "expected share");
	if (total_gpu <= 0) {
		std::fprintf(stderr, "simtgpu-share-bench: no GPU time was measured\n");
		return 1;
	}
	if (o.tolerance >= 0 && 100 * worst > o.tolerance) {
		std::printf("fairness: FAIL: error above %.1f%%\n", o.tolerance);
		return 1;
	}
	return 0;
}

int latency(const Options &o, const std::string &dev)
{
	std::vector<ChildResult> r;
	if (!set_policy(dev, o.policy, o.timeslice_ms))
		return 1;
	bool ok = run_children(o, 2, latency_child, dev, &r);
	set_policy(dev, "fifo", 20);
	if (!ok || r[1].kernels == 0) {
		std::fprintf(stderr, "simtgpu-share-bench: a process failed\n");
		return 1;
	}
	std::printf("latency: scenario %s, policy %s: small kernel median %.0f us, p95 %.0f us "
		    "(%llu kernels); batch %llu kernels in %.1f s\n",
		    o.scenario.c_str(), o.policy.c_str(), r[1].median_us, r[1].p95_us, r[1].kernels,
		    r[0].kernels, r[0].seconds);
	return 0;
}

int throughput(const Options &o)
{
	cudaDeviceProp prop{};
	if (!check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties"))
		return 1;
	// One-warp blocks, 32 per SM: one wave that fills every CTA slot.
	const unsigned blocks = unsigned(prop.multiProcessorCount) * 32;
	unsigned *out = nullptr;
	if (!check(cudaMalloc(&out, blocks * 32 * sizeof(unsigned)), "cudaMalloc"))
		return 1;
	spin_kernel<<<blocks, 32>>>(out, 1);
	if (!check(cudaDeviceSynchronize(), "warm-up"))
		return 1;
	unsigned long long gpu0 = fdinfo_value("simtgpu-gpu-time"), kernels = 0;
	auto start = Clock::now();
	auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
	while (Clock::now() < end) {
		spin_kernel<<<blocks, 32>>>(out, o.iters);
		if (!check(cudaDeviceSynchronize(), "kernel"))
			return 1;
		kernels++;
	}
	double wall = std::chrono::duration<double>(Clock::now() - start).count();
	double gpu_s = double(fdinfo_value("simtgpu-gpu-time") - gpu0) / 1e9;
	cudaFree(out);
	if (gpu_s <= 0) {
		std::fprintf(stderr, "simtgpu-share-bench: no GPU time was measured\n");
		return 1;
	}
	std::printf("throughput: device %s, %d SMs, %zu MiB: %llu kernels of %u blocks in %.1f s; "
		    "%.1f kernels per device second, %.2f per wall second\n",
		    prop.name, prop.multiProcessorCount, size_t(prop.totalGlobalMem >> 20), kernels,
		    blocks, wall, double(kernels) / gpu_s, double(kernels) / wall);
	return 0;
}

// hold: 8 MiB of VRAM held until killed (the guest suite's leak check).
int hold(const Options &o)
{
	void *p = nullptr;
	if (!check(cudaMalloc(&p, 8u << 20), "cudaMalloc"))
		return 1;
	std::printf("holding 8 MiB\n");
	std::fflush(stdout);
	sleep(unsigned(o.seconds));
	return 0;
}

int usage()
{
	std::fprintf(stderr, "usage: simtgpu-share-bench fairness|latency|throughput|hold [--policy P] [--weights W,W...] "
			     "[--seconds S] [--warmup S] [--scenario priority|timeslice] [--iters N] "
			     "[--timeslice MS] [--tolerance PCT] [--expect W,W...]\n");
	return 2;
}

} // namespace

int main(int argc, char **argv)
{
	Options o;
	if (argc < 2)
		return usage();
	o.mode = argv[1];
	for (int i = 2; i < argc; ++i) {
		std::string a = argv[i];
		if (i + 1 >= argc)
			return usage();
		std::string v = argv[++i];
		char *end = nullptr;
		if (a == "--policy") {
			o.policy = v;
		} else if (a == "--weights" || a == "--expect") {
			std::vector<unsigned> &list = a == "--weights" ? o.weights : o.expect;
			list.clear();
			for (const char *p = v.c_str(); *p;) {
				unsigned long w = std::strtoul(p, &end, 10);
				if (end == p || w == 0 || w > 100 || (*end && *end != ','))
					return usage();
				list.push_back(unsigned(w));
				p = *end ? end + 1 : end;
			}
		} else if (a == "--seconds") {
			o.seconds = std::strtod(v.c_str(), &end);
		} else if (a == "--warmup") {
			o.warmup = std::strtod(v.c_str(), &end);
		} else if (a == "--scenario") {
			o.scenario = v;
			if (v != "priority" && v != "timeslice") {
				std::fprintf(stderr, "simtgpu-share-bench: unknown scenario '%s' "
						     "(priority or timeslice)\n", v.c_str());
				return 2;
			}
		} else if (a == "--iters") {
			o.iters = unsigned(std::strtoul(v.c_str(), &end, 10));
		} else if (a == "--timeslice") {
			o.timeslice_ms = unsigned(std::strtoul(v.c_str(), &end, 10));
		} else if (a == "--tolerance") {
			o.tolerance = std::strtod(v.c_str(), &end);
		} else {
			return usage();
		}
		if (end && *end)
			return usage();
	}
	if (o.mode == "hold")
		return hold(o);
	if (o.mode == "throughput")
		return o.seconds > 0 && o.iters > 0 ? throughput(o) : usage();
	if (o.weights.size() < 2 || (!o.expect.empty() && o.expect.size() != o.weights.size()) ||
	    o.seconds <= 0 || o.warmup < 0 || o.iters < 4 ||
	    o.timeslice_ms == 0)
		return usage();
	std::string dev = device_dir();
	if (dev.empty()) {
		std::fprintf(stderr, "simtgpu-share-bench: no simtgpu render node with a writable "
				     "sched_policy (run as root with simtgpu.ko loaded)\n");
		return 1;
	}
	if (access((std::string(kCgroupRoot) + "/cgroup.procs").c_str(), F_OK) != 0 &&
	    mount("none", kCgroupRoot, "cgroup2", 0, nullptr) != 0) {
		std::perror("simtgpu-share-bench: mounting cgroup2");
		return 1;
	}
	if (o.mode == "fairness")
		return fairness(o, dev);
	if (o.mode == "latency")
		return latency(o, dev);
	return usage();
}
