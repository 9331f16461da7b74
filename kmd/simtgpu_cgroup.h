/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The simtgpu authors */
#ifndef SIMTGPU_CGROUP_H
#define SIMTGPU_CGROUP_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

struct attribute_group;
struct cgroup;
struct seq_file;
struct simtgpu_device;

/**
 * struct simtgpu_cg - the driver's record of one cgroup v2 group: the VRAM
 * charged to it (not its descendants), its dmem-like limit and its GPU-time
 * weight. Under sdev->cg_lock.
 */
struct simtgpu_cg {
	struct kref refcount; /* the VMs charging it, and a set limit/weight */
	struct simtgpu_device *sdev;
	struct list_head link; /* in sdev->cgroups */
	struct cgroup *cgrp; /* a reference is held */
	u64 charged; /* bytes charged to this group itself */
	u64 max; /* SIMTGPU_DMEM_MAX_NONE: none */
	u32 weight; /* 0: not set */
	bool pinned; /* a limit or weight was written: kept while set */
};

void simtgpu_cgroup_init(struct simtgpu_device *sdev);
void simtgpu_cgroup_fini(struct simtgpu_device *sdev);
struct simtgpu_cg *simtgpu_cg_get_current(struct simtgpu_device *sdev);
void simtgpu_cg_put(struct simtgpu_cg *cg);
int simtgpu_cg_charge(struct simtgpu_cg *cg, u64 size);
void simtgpu_cg_uncharge(struct simtgpu_cg *cg, u64 size);
u32 simtgpu_cg_weight(struct simtgpu_cg *cg);
void simtgpu_cg_limit(struct simtgpu_cg *cg, u64 *max, u64 *current_bytes);
int simtgpu_cg_path(struct simtgpu_cg *cg, char *buf, size_t len);
void simtgpu_cgroup_debugfs_show(struct simtgpu_device *sdev,
				 struct seq_file *m);

extern const struct attribute_group simtgpu_cgroup_attr_group;

#endif /* SIMTGPU_CGROUP_H */
