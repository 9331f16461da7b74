// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: sysfs attributes
 *
 * The PCI device's directory in sysfs (/sys/bus/pci/devices/<address>/, or
 * /sys/class/drm/renderD<n>/device/) carries the files that simt-smi and
 * scripts read, one value per file as sysfs wants it:
 *
 * - vram_total, vram_used: bytes of VRAM, and how many are allocated;
 * - utilisation: the percentage of time since the previous read during
 *   which at least one job was on the device (nvidia-smi's utilization.gpu);
 * - sm_count, arch: what the device reported at probe;
 * - temperature and counters/NAME: read straight from BAR0 at each read,
 *   the sensor and one file per counter of include/simtgpu/counters.h;
 * - sched_policy, timeslice_duration_ms, client_weight: the sharing knobs
 *   of simtgpu_policy.c, readable and writable at run time, in the shape of
 *   i915's per-engine files;
 * - gpu_resets: whole-device resets since probe.
 *
 * Probe adds the two groups here (and those of simtgpu_cgroup.c and
 * simtgpu_partition.c) as managed resources, so they go with the device.
 * A file that reads the hardware holds drm_dev_enter() and answers -ENODEV
 * once the device is unplugged.
 */

#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/pci.h>
#include <linux/sysfs.h>
#include <drm/drm_drv.h>

#include "simtgpu_drv.h"

static struct simtgpu_device *dev_to_sdev(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

static ssize_t vram_total_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", dev_to_sdev(dev)->vram_size);
}
static DEVICE_ATTR_RO(vram_total);

static ssize_t vram_used_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct simtgpu_device *sdev = dev_to_sdev(dev);
	u64 used;

	mutex_lock(&sdev->mm_lock);
	used = sdev->vram_used;
	mutex_unlock(&sdev->mm_lock);
	return sysfs_emit(buf, "%llu\n", used);
}
static DEVICE_ATTR_RO(vram_used);

/*
 * Percentage of time since the previous read during which at least one
 * job was on the device, as nvidia-smi's utilization.gpu.
 */
static ssize_t utilisation_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct simtgpu_device *sdev = dev_to_sdev(dev);
	ktime_t now = ktime_get();
	u64 busy, elapsed, percent = 0;

	spin_lock_irq(&sdev->util_lock);
	busy = sdev->busy_ns;
	if (sdev->active_jobs)
		busy += ktime_to_ns(ktime_sub(now, sdev->busy_since));
	elapsed = ktime_to_ns(ktime_sub(now, sdev->util_last_time));
	if (elapsed)
		percent = div64_u64((busy - sdev->util_last_busy) * 100,
				    elapsed);
	sdev->util_last_time = now;
	sdev->util_last_busy = busy;
	spin_unlock_irq(&sdev->util_lock);
	return sysfs_emit(buf, "%llu\n", min_t(u64, percent, 100));
}
static DEVICE_ATTR_RO(utilisation);

static ssize_t sm_count_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_sdev(dev)->num_sms);
}
static DEVICE_ATTR_RO(sm_count);

static ssize_t arch_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "simt_%u\n", dev_to_sdev(dev)->arch);
}
static DEVICE_ATTR_RO(arch);

/*
 * Device readings straight from BAR0, for simt-smi: the sensor and the
 * counters (64-bit counters read low half first).
 */
static ssize_t simtgpu_show_reg(struct device *dev, char *buf, u32 reg,
				bool is_64bit)
{
	struct simtgpu_device *sdev = dev_to_sdev(dev);
	u64 value;
	int idx;

	if (!drm_dev_enter(&sdev->drm, &idx))
		return -ENODEV;
	value = is_64bit ? simtgpu_read64(sdev, reg) : simtgpu_read(sdev, reg);
	drm_dev_exit(idx);
	return sysfs_emit(buf, "%llu\n", value);
}

/* Millidegrees Celsius, as hwmon's temp1_input. */
static ssize_t temperature_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return simtgpu_show_reg(dev, buf, SIMTGPU_REG_TEMPERATURE, false);
}
static DEVICE_ATTR_RO(temperature);

/*
 * counters/NAME: one file per counter of include/simtgpu/counters.h, read
 * from the device's counter block. Counters the device does not serve
 * (beyond its NUM_COUNTERS: an older device) are not shown.
 */
struct simtgpu_counter_attr {
	struct device_attribute attr;
	u32 index;
};

static ssize_t simtgpu_counter_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	const struct simtgpu_counter_attr *counter =
		container_of(attr, struct simtgpu_counter_attr, attr);

	return simtgpu_show_reg(dev, buf, SIMTGPU_REG_COUNTER(counter->index),
				true);
}

static struct simtgpu_counter_attr simtgpu_counters[SIMTGPU_NUM_COUNTERS] = {
#define SIMTGPU_X(name, unit, ncu, meaning)				\
	[SIMTGPU_COUNTER_##name] = {					\
		.attr = __ATTR(name, 0444, simtgpu_counter_show, NULL),	\
		.index = SIMTGPU_COUNTER_##name,			\
	},
	SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
};

/* One more than the counters: the list ends with NULL. */
static struct attribute *simtgpu_counter_attrs[SIMTGPU_NUM_COUNTERS + 1] = {
#define SIMTGPU_X(name, unit, ncu, meaning) \
	[SIMTGPU_COUNTER_##name] = &simtgpu_counters[SIMTGPU_COUNTER_##name].attr.attr,
	SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
};

static umode_t simtgpu_counter_visible(struct kobject *kobj,
				       struct attribute *attr, int n)
{
	struct simtgpu_device *sdev = dev_to_sdev(kobj_to_dev(kobj));

	return n < sdev->num_counters ? attr->mode : 0;
}

const struct attribute_group simtgpu_counter_attr_group = {
	.name = "counters",
	.attrs = simtgpu_counter_attrs,
	.is_visible = simtgpu_counter_visible,
};

static ssize_t sched_policy_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return simtgpu_policy_name(dev_to_sdev(dev), buf);
}

static ssize_t sched_policy_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t len)
{
	int ret = simtgpu_policy_select(dev_to_sdev(dev), buf);

	return ret ? ret : len;
}
static DEVICE_ATTR_RW(sched_policy);

static ssize_t timeslice_duration_ms_show(struct device *dev,
					  struct device_attribute *attr,
					  char *buf)
{
	struct simtgpu_device *sdev = dev_to_sdev(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(sdev->timeslice_ms));
}

static ssize_t timeslice_duration_ms_store(struct device *dev,
					   struct device_attribute *attr,
					   const char *buf, size_t len)
{
	struct simtgpu_device *sdev = dev_to_sdev(dev);
	unsigned int ms;

	if (kstrtouint(buf, 0, &ms) || ms == 0)
		return -EINVAL;
	WRITE_ONCE(sdev->timeslice_ms, ms);
	return len;
}
static DEVICE_ATTR_RW(timeslice_duration_ms);

/* Each client's weight: "CLIENT_ID WEIGHT" lines; write one to set it. */
static ssize_t client_weight_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct simtgpu_device *sdev = dev_to_sdev(dev);
	struct simtgpu_file_priv *fpriv;
	ssize_t n = 0;

	mutex_lock(&sdev->clients_lock);
	list_for_each_entry(fpriv, &sdev->clients, link)
		n += sysfs_emit_at(buf, n, "%llu %u\n", fpriv->client_id,
				   READ_ONCE(fpriv->vm->sched.weight));
	mutex_unlock(&sdev->clients_lock);
	return n;
}

static ssize_t client_weight_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t len)
{
	u64 client_id;
	u32 weight;
	char extra;
	int ret;

	if (sscanf(buf, "%llu %u %c", &client_id, &weight, &extra) != 2)
		return -EINVAL;
	ret = simtgpu_policy_set_client_weight(dev_to_sdev(dev), client_id,
					       weight);
	return ret ? ret : len;
}
static DEVICE_ATTR_RW(client_weight);

/* Whole-device resets since probe (a partition's own are in "partitions"). */
static ssize_t gpu_resets_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(dev_to_sdev(dev)->resets));
}
static DEVICE_ATTR_RO(gpu_resets);

static struct attribute *simtgpu_attrs[] = {
	&dev_attr_vram_total.attr,
	&dev_attr_vram_used.attr,
	&dev_attr_utilisation.attr,
	&dev_attr_sm_count.attr,
	&dev_attr_arch.attr,
	&dev_attr_temperature.attr,
	&dev_attr_sched_policy.attr,
	&dev_attr_timeslice_duration_ms.attr,
	&dev_attr_client_weight.attr,
	&dev_attr_gpu_resets.attr,
	NULL,
};

const struct attribute_group simtgpu_attr_group = {
	.attrs = simtgpu_attrs,
};
