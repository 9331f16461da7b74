// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: cgroup v2 VRAM limits and GPU-time weights
 *
 * Until the kernel has the dmem cgroup controller (6.14), the driver keeps
 * its own record per cgroup v2 group, with the controller's semantics:
 *
 * - every BO and page table is charged, when it is allocated, to the
 *   cgroup of the process that opened the render node (the VM's owner);
 *   freeing it uncharges the same group;
 * - a group's "current" is what is charged to it and its descendants;
 * - an allocation that would take any ancestor-or-self's current above its
 *   "max" fails with -ENOMEM, and GET_PARAM(CGROUP_VRAM_MAX/CURRENT) tells
 *   userspace which limit it hit;
 * - a group's GPU-time weight (1..10000, default 100 as cpu.weight) is the
 *   weight of each client in it, or in a descendant without its own, under
 *   the "fair" policy.
 *
 * The files, under /sys/class/drm/renderD*\/device/ (docs/sharing.md):
 * dmem_max ("PATH BYTES" or "PATH max" to set; reads "PATH max" lines),
 * dmem_current (reads "PATH current" for every group the driver knows),
 * gpu_weight ("PATH WEIGHT"). PATH is the group's path below the cgroup2
 * root, as in /proc/PID/cgroup. Writes need CAP_SYS_ADMIN (the files are
 * root's 0644) and name an existing group.
 */

#include <linux/cgroup.h>
#include <linux/device.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "simtgpu_drv.h"
#include "simtgpu_cgroup.h"

void simtgpu_cgroup_init(struct simtgpu_device *sdev)
{
	mutex_init(&sdev->cg_lock);
	INIT_LIST_HEAD(&sdev->cgroups);
}

static void simtgpu_cg_release(struct kref *kref)
{
	struct simtgpu_cg *cg = container_of(kref, struct simtgpu_cg, refcount);

	lockdep_assert_held(&cg->sdev->cg_lock);
	list_del(&cg->link);
	cgroup_put(cg->cgrp);
	atomic_dec(&cg->sdev->counts.cgroups);
	kfree(cg);
}

/* Drops the references the limit and weight files hold. */
void simtgpu_cgroup_fini(struct simtgpu_device *sdev)
{
	struct simtgpu_cg *cg, *tmp;

	mutex_lock(&sdev->cg_lock);
	list_for_each_entry_safe(cg, tmp, &sdev->cgroups, link) {
		if (cg->pinned) {
			cg->pinned = false;
			kref_put(&cg->refcount, simtgpu_cg_release);
		}
	}
	mutex_unlock(&sdev->cg_lock);
}

/* The record of @cgrp, created if needed, with a new reference. */
static struct simtgpu_cg *simtgpu_cg_lookup(struct simtgpu_device *sdev,
					    struct cgroup *cgrp)
{
	struct simtgpu_cg *cg;

	lockdep_assert_held(&sdev->cg_lock);
	list_for_each_entry(cg, &sdev->cgroups, link) {
		if (cg->cgrp == cgrp) {
			kref_get(&cg->refcount);
			return cg;
		}
	}
	cg = kzalloc(sizeof(*cg), GFP_KERNEL);
	if (!cg)
		return NULL;
	kref_init(&cg->refcount);
	cg->sdev = sdev;
	cg->cgrp = cgrp;
	cg->max = SIMTGPU_DMEM_MAX_NONE;
	cgroup_get(cgrp);
	list_add_tail(&cg->link, &sdev->cgroups);
	atomic_inc(&sdev->counts.cgroups);
	return cg;
}

/**
 * simtgpu_cg_get_current - the record of the calling process's cgroup (on
 * the default hierarchy), with a reference; NULL if out of memory.
 */
struct simtgpu_cg *simtgpu_cg_get_current(struct simtgpu_device *sdev)
{
	struct simtgpu_cg *cg;
	struct cgroup *cgrp;

	rcu_read_lock();
	cgrp = task_dfl_cgroup(current);
	cgroup_get(cgrp);
	rcu_read_unlock();
	mutex_lock(&sdev->cg_lock);
	cg = simtgpu_cg_lookup(sdev, cgrp);
	mutex_unlock(&sdev->cg_lock);
	cgroup_put(cgrp);
	return cg;
}

void simtgpu_cg_put(struct simtgpu_cg *cg)
{
	struct simtgpu_device *sdev;

	if (!cg)
		return;
	sdev = cg->sdev;
	mutex_lock(&sdev->cg_lock);
	kref_put(&cg->refcount, simtgpu_cg_release);
	mutex_unlock(&sdev->cg_lock);
}

/* dmem "current" of @cg: its own charges and its descendants'. */
static u64 simtgpu_cg_current(struct simtgpu_cg *cg)
{
	struct simtgpu_cg *other;
	u64 sum = 0;

	lockdep_assert_held(&cg->sdev->cg_lock);
	list_for_each_entry(other, &cg->sdev->cgroups, link)
		if (cgroup_is_descendant(other->cgrp, cg->cgrp))
			sum += other->charged;
	return sum;
}

/*
 * The ancestor-or-self of @cg whose limit leaves the least room, or NULL
 * when none has a limit.
 */
static struct simtgpu_cg *simtgpu_cg_tightest(struct simtgpu_cg *cg)
{
	struct simtgpu_cg *other, *best = NULL;
	u64 room, best_room = 0;

	list_for_each_entry(other, &cg->sdev->cgroups, link) {
		u64 used;

		if (other->max == SIMTGPU_DMEM_MAX_NONE ||
		    !cgroup_is_descendant(cg->cgrp, other->cgrp))
			continue;
		used = simtgpu_cg_current(other);
		room = used < other->max ? other->max - used : 0;
		if (!best || room < best_room) {
			best = other;
			best_room = room;
		}
	}
	return best;
}

/**
 * simtgpu_cg_charge - charge @size bytes of VRAM to @cg, or -ENOMEM when
 * that would exceed the max of @cg or of one of its ancestors.
 */
int simtgpu_cg_charge(struct simtgpu_cg *cg, u64 size)
{
	struct simtgpu_device *sdev = cg->sdev;
	struct simtgpu_cg *limit;
	int ret = 0;

	mutex_lock(&sdev->cg_lock);
	limit = simtgpu_cg_tightest(cg);
	if (limit && !simtgpu_dmem_allows(simtgpu_cg_current(limit), size,
					  limit->max))
		ret = -ENOMEM;
	else
		cg->charged += size;
	mutex_unlock(&sdev->cg_lock);
	return ret;
}

void simtgpu_cg_uncharge(struct simtgpu_cg *cg, u64 size)
{
	struct simtgpu_device *sdev = cg->sdev;

	mutex_lock(&sdev->cg_lock);
	if (!WARN_ON(cg->charged < size))
		cg->charged -= size;
	mutex_unlock(&sdev->cg_lock);
}

/* The GPU-time weight of a client in @cg: the nearest set one. */
u32 simtgpu_cg_weight(struct simtgpu_cg *cg)
{
	struct simtgpu_cg *other, *best = NULL;
	u32 weight = SIMTGPU_WEIGHT_DEFAULT;

	if (!cg)
		return weight;
	mutex_lock(&cg->sdev->cg_lock);
	list_for_each_entry(other, &cg->sdev->cgroups, link) {
		if (!other->weight ||
		    !cgroup_is_descendant(cg->cgrp, other->cgrp))
			continue;
		/* The deepest ancestor is the nearest. */
		if (!best || cgroup_is_descendant(other->cgrp, best->cgrp))
			best = other;
	}
	if (best)
		weight = best->weight;
	mutex_unlock(&cg->sdev->cg_lock);
	return weight;
}

/*
 * The limit that applies to @cg (the tightest ancestor-or-self's max, or
 * SIMTGPU_DMEM_MAX_NONE) and the current of the group that set it (of @cg
 * itself when none), for GET_PARAM.
 */
void simtgpu_cg_limit(struct simtgpu_cg *cg, u64 *max, u64 *current_bytes)
{
	struct simtgpu_cg *limit;

	mutex_lock(&cg->sdev->cg_lock);
	limit = simtgpu_cg_tightest(cg);
	*max = limit ? limit->max : SIMTGPU_DMEM_MAX_NONE;
	*current_bytes = simtgpu_cg_current(limit ? limit : cg);
	mutex_unlock(&cg->sdev->cg_lock);
}

int simtgpu_cg_path(struct simtgpu_cg *cg, char *buf, size_t len)
{
	return cgroup_path(cg->cgrp, buf, len);
}

/* For debugfs "objects" and "cgroups": every record, for leak checks. */
void simtgpu_cgroup_debugfs_show(struct simtgpu_device *sdev,
				 struct seq_file *m)
{
	struct simtgpu_cg *cg;
	char path[128];

	mutex_lock(&sdev->cg_lock);
	list_for_each_entry(cg, &sdev->cgroups, link) {
		if (cgroup_path(cg->cgrp, path, sizeof(path)) < 0)
			strscpy(path, "?", sizeof(path));
		seq_printf(m, "%s charged %llu current %llu max ", path,
			   cg->charged, simtgpu_cg_current(cg));
		if (cg->max == SIMTGPU_DMEM_MAX_NONE)
			seq_puts(m, "max");
		else
			seq_printf(m, "%llu", cg->max);
		seq_printf(m, " weight %u refs %u\n", cg->weight,
			   kref_read(&cg->refcount));
	}
	mutex_unlock(&sdev->cg_lock);
}

/* ------------------------------------------------------------ sysfs --- */

static struct simtgpu_device *simtgpu_cg_dev_to_sdev(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

/*
 * Parses "PATH VALUE" into the group's record (referenced) and VALUE.
 * -EINVAL for a malformed line, -ENOENT for a group that does not exist.
 */
static int simtgpu_cg_parse(struct simtgpu_device *sdev, const char *buf,
			    struct simtgpu_cg **out, char **value, char **copy)
{
	struct cgroup *cgrp;
	char *line, *path, *sep;

	line = kstrdup(buf, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	path = strim(line);
	sep = strpbrk(path, " \t");
	if (!sep || path[0] != '/') {
		kfree(line);
		return -EINVAL;
	}
	*sep = '\0';
	*value = skip_spaces(sep + 1);
	if (!**value || strpbrk(*value, " \t")) {
		kfree(line);
		return -EINVAL;
	}
	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp)) {
		kfree(line);
		return -ENOENT;
	}
	mutex_lock(&sdev->cg_lock);
	*out = simtgpu_cg_lookup(sdev, cgrp);
	mutex_unlock(&sdev->cg_lock);
	cgroup_put(cgrp);
	if (!*out) {
		kfree(line);
		return -ENOMEM;
	}
	*copy = line;
	return 0;
}

/* Keeps @cg while it has a limit or a weight; drops the parse reference. */
static void simtgpu_cg_settle(struct simtgpu_cg *cg)
{
	struct simtgpu_device *sdev = cg->sdev;
	bool want = cg->max != SIMTGPU_DMEM_MAX_NONE || cg->weight;

	lockdep_assert_held(&sdev->cg_lock);
	if (want && !cg->pinned) {
		cg->pinned = true;
		kref_get(&cg->refcount);
	} else if (!want && cg->pinned) {
		cg->pinned = false;
		kref_put(&cg->refcount, simtgpu_cg_release);
	}
	kref_put(&cg->refcount, simtgpu_cg_release);
}

static ssize_t dmem_max_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct simtgpu_device *sdev = simtgpu_cg_dev_to_sdev(dev);
	struct simtgpu_cg *cg;
	char path[128];
	ssize_t n = 0;

	mutex_lock(&sdev->cg_lock);
	list_for_each_entry(cg, &sdev->cgroups, link) {
		if (cg->max == SIMTGPU_DMEM_MAX_NONE ||
		    cgroup_path(cg->cgrp, path, sizeof(path)) < 0)
			continue;
		n += sysfs_emit_at(buf, n, "%s %llu\n", path, cg->max);
	}
	mutex_unlock(&sdev->cg_lock);
	return n;
}

static ssize_t dmem_max_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	struct simtgpu_device *sdev = simtgpu_cg_dev_to_sdev(dev);
	struct simtgpu_cg *cg;
	char *value, *copy;
	u64 max;
	int ret;

	ret = simtgpu_cg_parse(sdev, buf, &cg, &value, &copy);
	if (ret)
		return ret;
	if (!strcmp(value, "max")) {
		max = SIMTGPU_DMEM_MAX_NONE;
	} else {
		/* Bytes, or with a K, M or G suffix, as memparse(). */
		char *end;

		max = memparse(value, &end);
		if (*end || end == value || max == SIMTGPU_DMEM_MAX_NONE)
			ret = -EINVAL;
	}
	mutex_lock(&sdev->cg_lock);
	if (!ret)
		cg->max = max;
	simtgpu_cg_settle(cg);
	mutex_unlock(&sdev->cg_lock);
	kfree(copy);
	return ret ? ret : len;
}
static DEVICE_ATTR_RW(dmem_max);

static ssize_t dmem_current_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct simtgpu_device *sdev = simtgpu_cg_dev_to_sdev(dev);
	struct simtgpu_cg *cg;
	char path[128];
	ssize_t n = 0;

	mutex_lock(&sdev->cg_lock);
	list_for_each_entry(cg, &sdev->cgroups, link) {
		if (cgroup_path(cg->cgrp, path, sizeof(path)) < 0)
			continue;
		n += sysfs_emit_at(buf, n, "%s %llu\n", path,
				   simtgpu_cg_current(cg));
	}
	mutex_unlock(&sdev->cg_lock);
	return n;
}
static DEVICE_ATTR_RO(dmem_current);

static ssize_t gpu_weight_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct simtgpu_device *sdev = simtgpu_cg_dev_to_sdev(dev);
	struct simtgpu_cg *cg;
	char path[128];
	ssize_t n = 0;

	mutex_lock(&sdev->cg_lock);
	list_for_each_entry(cg, &sdev->cgroups, link) {
		if (!cg->weight || cgroup_path(cg->cgrp, path, sizeof(path)) < 0)
			continue;
		n += sysfs_emit_at(buf, n, "%s %u\n", path, cg->weight);
	}
	mutex_unlock(&sdev->cg_lock);
	return n;
}

static ssize_t gpu_weight_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t len)
{
	struct simtgpu_device *sdev = simtgpu_cg_dev_to_sdev(dev);
	struct simtgpu_cg *cg;
	char *value, *copy;
	u32 weight = 0;
	int ret;

	ret = simtgpu_cg_parse(sdev, buf, &cg, &value, &copy);
	if (ret)
		return ret;
	if (kstrtou32(value, 10, &weight) || !simtgpu_weight_valid(weight))
		ret = -EINVAL;
	mutex_lock(&sdev->cg_lock);
	if (!ret)
		cg->weight = weight;
	simtgpu_cg_settle(cg);
	mutex_unlock(&sdev->cg_lock);
	kfree(copy);
	if (!ret)
		simtgpu_policy_reweight(sdev);
	return ret ? ret : len;
}
static DEVICE_ATTR_RW(gpu_weight);

static struct attribute *simtgpu_cgroup_attrs[] = {
	&dev_attr_dmem_max.attr,
	&dev_attr_dmem_current.attr,
	&dev_attr_gpu_weight.attr,
	NULL,
};

const struct attribute_group simtgpu_cgroup_attr_group = {
	.attrs = simtgpu_cgroup_attrs,
};
