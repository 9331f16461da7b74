// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/*
 * MIG-like partitions (docs/sharing.md). An administrator splits the GPU
 * into up to SIMTGPU_MAX_PARTITIONS partitions, each
 *
 * - a contiguous range of SMs: the SM_MASK of a ring of its own, so its
 *   grids never share an SM with another partition's;
 * - a VRAM slice: a range of the buddy allocator that only its files
 *   allocate from (the whole GPU's files keep below every slice);
 * - a DRM device with a render node of its own, so that access to the
 *   partition is access to its device node. GET_PARAM there reports the
 *   partition's SMs and VRAM, and a hang resets only its ring's work.
 *
 * While partitions exist, the whole GPU's render node runs no work (queue
 * creation fails with -EBUSY), as CUDA sees only MIG devices in MIG mode.
 * A partition is created only while no queue exists anywhere, and
 * destroyed only while no file has its node open.
 *
 * sysfs, on the PCI device: partition_create ("SMS VRAM", VRAM in bytes
 * with an optional K/M/G suffix), partition_destroy ("ID"), partitions
 * (one line each). simt-smi partition wraps them.
 */

#include <linux/pci.h>
#include <linux/sizes.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>

#include "simtgpu_drv.h"

/* The smallest slice: a ring's worth of page tables and a few buffers. */
#define SIMTGPU_PARTITION_MIN_VRAM SZ_16M

/* The partition holding VRAM @offset, under mm_lock; NULL: none. */
static struct simtgpu_partition *
simtgpu_partition_at(struct simtgpu_device *sdev, u64 offset)
{
	unsigned int i;

	lockdep_assert_held(&sdev->mm_lock);
	for (i = 0; i < SIMTGPU_MAX_PARTITIONS; i++) {
		struct simtgpu_partition *part = sdev->parts[i];

		if (part && offset >= part->vram_base &&
		    offset < part->vram_base + part->vram_size)
			return part;
	}
	return NULL;
}

/* @bytes more (or fewer) in use at VRAM @offset, under mm_lock. */
void simtgpu_partition_account(struct simtgpu_device *sdev, u64 offset,
			       s64 bytes)
{
	struct simtgpu_partition *part = simtgpu_partition_at(sdev, offset);

	if (part)
		part->vram_used += bytes;
}

/* The first run of @count SMs no partition has; -ENOSPC if none. */
static int simtgpu_partition_find_sms(struct simtgpu_device *sdev, u32 count,
				      u32 *first)
{
	u32 start = 0;
	unsigned int i;

	while (start + count <= sdev->num_sms) {
		u32 next = start;

		for (i = 0; i < SIMTGPU_MAX_PARTITIONS; i++) {
			struct simtgpu_partition *p = sdev->parts[i];

			if (p && p->sm_first < start + count &&
			    start < p->sm_first + p->sm_count)
				next = max(next, p->sm_first + p->sm_count);
		}
		if (next == start) {
			*first = start;
			return 0;
		}
		start = next;
	}
	return -ENOSPC;
}

/*
 * A free VRAM range of @size for a slice, as high as it goes (the whole
 * GPU's files allocate below every slice): on a SIMTGPU_PARTITION_MIN_VRAM
 * boundary, overlapping no slice, and with nothing allocated in it now
 * (the driver's own rings and fences may sit anywhere). Under mm_lock.
 */
static int simtgpu_partition_find_vram(struct simtgpu_device *sdev, u64 size,
				       u64 *base)
{
	u64 start;
	unsigned int j;

	if (size > sdev->vram_size)
		return -ENOSPC;
	start = ALIGN_DOWN(sdev->vram_size - size, SIMTGPU_PARTITION_MIN_VRAM);
	for (;; start -= SIMTGPU_PARTITION_MIN_VRAM) {
		u64 end = start + size;
		LIST_HEAD(probe);
		bool overlaps = false;

		for (j = 0; j < SIMTGPU_MAX_PARTITIONS; j++) {
			struct simtgpu_partition *p = sdev->parts[j];

			if (p && p->vram_base < end &&
			    start < p->vram_base + p->vram_size)
				overlaps = true;
		}
		/* Taking the exact range succeeds only if all of it is free. */
		if (!overlaps &&
		    !drm_buddy_alloc_blocks(&sdev->mm, start, end, size,
					    SIMTGPU_PAGE_SIZE, &probe, 0)) {
			drm_buddy_free_list(&sdev->mm, &probe);
			*base = start;
			return 0;
		}
		if (start < SIMTGPU_PARTITION_MIN_VRAM)
			return -ENOSPC;
	}
}

/* The VRAM below every slice, where the whole GPU's files allocate. */
static void simtgpu_partition_shared_end(struct simtgpu_device *sdev)
{
	unsigned int i;

	lockdep_assert_held(&sdev->mm_lock);
	sdev->vram_shared_end = sdev->vram_size;
	for (i = 0; i < SIMTGPU_MAX_PARTITIONS; i++)
		if (sdev->parts[i])
			sdev->vram_shared_end = min(sdev->vram_shared_end,
						    sdev->parts[i]->vram_base);
}

static void simtgpu_partition_release(struct drm_device *drm, void *data)
{
	kfree(data);
}

/* Gives @ring to @part (or back to the whole GPU with @part NULL). */
static void simtgpu_partition_set_ring(struct simtgpu_device *sdev,
				       struct simtgpu_ring *ring,
				       struct simtgpu_partition *part)
{
	mutex_lock(&sdev->policy_lock);
	ring->part = part;
	ring->sm_first = part ? part->sm_first : 0;
	ring->sm_span = part ? part->sm_count : sdev->num_sms;
	/* Partitions are peers: the device serves their rings alike. */
	ring->hw_priority = part ? SIMTGPU_PRIORITY_NORMAL :
				   simtgpu_ring_priority(ring->index);
	simtgpu_ring_write(ring, SIMTGPU_RING_PRIORITY, ring->hw_priority);
	simtgpu_ring_preempt(ring, false);
	ring->parked_by_policy = false;
	simtgpu_ring_set_sms(ring, ring->sm_span);
	mutex_unlock(&sdev->policy_lock);
}

/**
 * simtgpu_partition_create - a partition of @sms SMs and @vram_size bytes of
 * VRAM with a render node of its own; its id in *@id.
 *
 * Returns -EINVAL for a size out of range, -EBUSY while queues exist,
 * -ENOSPC when the SMs, the VRAM or the rings are all taken.
 */
int simtgpu_partition_create(struct simtgpu_device *sdev, u32 sms,
			     u64 vram_size, u32 *id)
{
	struct simtgpu_partition *part;
	struct drm_device *drm;
	unsigned int slot;
	int ret, idx;

	if (!sms || sms >= sdev->num_sms ||
	    vram_size < SIMTGPU_PARTITION_MIN_VRAM ||
	    vram_size >= sdev->vram_size ||
	    !IS_ALIGNED(vram_size, SIMTGPU_PAGE_SIZE))
		return -EINVAL;
	if (!drm_dev_enter(&sdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&sdev->part_lock);
	ret = -EBUSY;
	if (atomic_read(&sdev->counts.queues))
		goto out_unlock;
	ret = -ENOSPC;
	for (slot = 0; slot < SIMTGPU_MAX_PARTITIONS; slot++)
		if (!sdev->parts[slot])
			break;
	if (slot == SIMTGPU_MAX_PARTITIONS)
		goto out_unlock;
	ret = -ENOMEM;
	part = kzalloc(sizeof(*part), GFP_KERNEL);
	if (!part)
		goto out_unlock;
	part->sdev = sdev;
	part->id = slot;
	part->sm_count = sms;
	part->vram_size = vram_size;
	part->ring = &sdev->rings[slot];
	ret = simtgpu_partition_find_sms(sdev, sms, &part->sm_first);
	if (ret)
		goto err_free;
	mutex_lock(&sdev->mm_lock);
	ret = simtgpu_partition_find_vram(sdev, vram_size, &part->vram_base);
	if (!ret) {
		sdev->parts[slot] = part;
		simtgpu_partition_shared_end(sdev);
	}
	mutex_unlock(&sdev->mm_lock);
	if (ret)
		goto err_free;

	drm = drm_dev_alloc(&simtgpu_partition_driver, &sdev->pdev->dev);
	if (IS_ERR(drm)) {
		ret = PTR_ERR(drm);
		goto err_unlist;
	}
	drm->dev_private = part;
	part->drm = drm;
	ret = drmm_add_action(drm, simtgpu_partition_release, part);
	if (ret) {
		drm_dev_put(drm);
		goto err_unlist;
	}
	simtgpu_partition_set_ring(sdev, part->ring, part);
	WRITE_ONCE(sdev->num_parts, sdev->num_parts + 1);
	ret = drm_dev_register(drm, 0);
	if (ret) {
		WRITE_ONCE(sdev->num_parts, sdev->num_parts - 1);
		simtgpu_partition_set_ring(sdev, part->ring, NULL);
		mutex_lock(&sdev->mm_lock);
		sdev->parts[slot] = NULL;
		simtgpu_partition_shared_end(sdev);
		mutex_unlock(&sdev->mm_lock);
		drm_dev_put(drm); /* frees @part */
		goto out_unlock;
	}
	*id = slot;
	drm_info(&sdev->drm,
		 "partition %u: SMs %u-%u, %llu MiB of VRAM at %#llx, renderD%d\n",
		 slot, part->sm_first, part->sm_first + sms - 1,
		 vram_size >> 20, part->vram_base, drm->render->index);
	mutex_unlock(&sdev->part_lock);
	drm_dev_exit(idx);
	return 0;

err_unlist:
	mutex_lock(&sdev->mm_lock);
	sdev->parts[slot] = NULL;
	simtgpu_partition_shared_end(sdev);
	mutex_unlock(&sdev->mm_lock);
err_free:
	kfree(part);
out_unlock:
	mutex_unlock(&sdev->part_lock);
	drm_dev_exit(idx);
	return ret;
}

/* Takes @part's node away; its BOs keep the DRM device until freed. */
static void simtgpu_partition_remove(struct simtgpu_partition *part)
{
	struct simtgpu_device *sdev = part->sdev;

	drm_dev_unplug(part->drm);
	mutex_lock(&sdev->mm_lock);
	sdev->parts[part->id] = NULL;
	simtgpu_partition_shared_end(sdev);
	mutex_unlock(&sdev->mm_lock);
	WRITE_ONCE(sdev->num_parts, sdev->num_parts - 1);
	drm_dev_put(part->drm);
}

/**
 * simtgpu_partition_destroy - removes partition @id and its render node; its
 * SMs, VRAM and ring return to the whole GPU. -ENOENT for no such
 * partition, -EBUSY while a file has its node open.
 */
int simtgpu_partition_destroy(struct simtgpu_device *sdev, u32 id)
{
	struct simtgpu_partition *part;
	int ret = 0, idx;

	if (id >= SIMTGPU_MAX_PARTITIONS)
		return -ENOENT;
	if (!drm_dev_enter(&sdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&sdev->part_lock);
	part = sdev->parts[id];
	if (!part) {
		ret = -ENOENT;
		goto out;
	}
	mutex_lock(&sdev->clients_lock);
	if (part->clients)
		ret = -EBUSY;
	else
		part->dying = true;
	mutex_unlock(&sdev->clients_lock);
	if (ret)
		goto out;
	simtgpu_partition_set_ring(sdev, part->ring, NULL);
	drm_info(&sdev->drm, "partition %u destroyed\n", id);
	/* drm_dev_unplug() waits for every drm_dev_enter() section: leave ours. */
	drm_dev_exit(idx);
	simtgpu_partition_remove(part);
	mutex_unlock(&sdev->part_lock);
	return 0;
out:
	mutex_unlock(&sdev->part_lock);
	drm_dev_exit(idx);
	return ret;
}

/* The PCI device goes away: every partition's node goes first. */
void simtgpu_partitions_unplug(struct simtgpu_device *sdev)
{
	unsigned int i;

	mutex_lock(&sdev->part_lock);
	for (i = 0; i < SIMTGPU_MAX_PARTITIONS; i++) {
		struct simtgpu_partition *part = sdev->parts[i];

		if (!part)
			continue;
		part->dying = true;
		unmap_mapping_range(part->drm->anon_inode->i_mapping, 0, 0, 1);
		simtgpu_partition_remove(part);
	}
	mutex_unlock(&sdev->part_lock);
}

/* One line per partition, for sysfs "partitions" and simt-smi. */
ssize_t simtgpu_partition_list(struct simtgpu_device *sdev, char *buf)
{
	ssize_t n = 0;
	unsigned int i;

	mutex_lock(&sdev->part_lock);
	for (i = 0; i < SIMTGPU_MAX_PARTITIONS; i++) {
		struct simtgpu_partition *part = sdev->parts[i];
		u64 used;

		if (!part)
			continue;
		mutex_lock(&sdev->mm_lock);
		used = part->vram_used;
		mutex_unlock(&sdev->mm_lock);
		n += sysfs_emit_at(buf, n,
				   "%u sms=%u-%u vram=%llu used=%llu node=renderD%d clients=%u resets=%u\n",
				   part->id, part->sm_first,
				   part->sm_first + part->sm_count - 1,
				   part->vram_size, used,
				   part->drm->render->index, part->clients,
				   part->ring->resets);
	}
	mutex_unlock(&sdev->part_lock);
	return n;
}

/* ------------------------------------------------------------ sysfs --- */

static struct simtgpu_device *simtgpu_part_sdev(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

static ssize_t partitions_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return simtgpu_partition_list(simtgpu_part_sdev(dev), buf);
}
static DEVICE_ATTR_RO(partitions);

/* "SMS VRAM": VRAM in bytes, with an optional K, M or G suffix. */
static ssize_t partition_create_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	char vram[32], extra;
	u64 bytes;
	char *end;
	u32 sms, id;
	int ret;

	if (sscanf(buf, "%u %31s %c", &sms, vram, &extra) != 2)
		return -EINVAL;
	bytes = memparse(vram, &end);
	if (*end)
		return -EINVAL;
	ret = simtgpu_partition_create(simtgpu_part_sdev(dev), sms, bytes,
				       &id);
	return ret ? ret : len;
}
static DEVICE_ATTR_WO(partition_create);

static ssize_t partition_destroy_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t len)
{
	u32 id;
	int ret;

	if (kstrtou32(buf, 0, &id))
		return -EINVAL;
	ret = simtgpu_partition_destroy(simtgpu_part_sdev(dev), id);
	return ret ? ret : len;
}
static DEVICE_ATTR_WO(partition_destroy);

static struct attribute *simtgpu_partition_attrs[] = {
	&dev_attr_partitions.attr,
	&dev_attr_partition_create.attr,
	&dev_attr_partition_destroy.attr,
	NULL,
};

const struct attribute_group simtgpu_partition_attr_group = {
	.attrs = simtgpu_partition_attrs,
};
