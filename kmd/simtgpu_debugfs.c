// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: debugfs
 *
 * /sys/kernel/debug/dri/N/ holds, for people learning how the driver works:
 *
 * - rings: each ring's registers and the driver's view of it;
 * - fences: the hardware fences not yet signalled, oldest first;
 * - vm: each client's address space and its mappings;
 * - client_usage: VRAM and GPU time per client (DRM's own "clients" lists
 *   the open files);
 * - objects: how many BOs, address spaces, page tables, queues, jobs,
 *   fences and managed pages (in host memory, in VRAM) exist, and VRAM in
 *   use; with no client open, every count is 0 and VRAM holds only the
 *   rings and the fence page (a leak check);
 * - cgroups: each cgroup record: VRAM charged to the group itself, its
 *   current (with descendants), max, weight and references; a record
 *   without a limit or weight goes with the last VM charging it;
 * - vram: the buddy allocator's state;
 * - managed: managed memory's GPU faults serviced, pages moved to VRAM and
 *   back, pages mapped over the bus because VRAM was full, faults that
 *   ended a launch, and the managed pages in host memory and in VRAM now;
 * - preempt: write "RING 1" to park a ring (its grid stops placing CTAs and
 *   drains) and "RING 0" to resume it; reading shows each ring's PREEMPT,
 *   STATUS (4: parked), RESIDENT and how often it alone was reset. What a
 *   scheduling policy does, by hand.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "simtgpu_drv.h"

static struct simtgpu_device *node_to_sdev(struct seq_file *m)
{
	struct drm_info_node *node = m->private;

	return to_simtgpu_device(node->minor->dev);
}

static int simtgpu_debugfs_rings(struct seq_file *m, void *unused)
{
	struct simtgpu_device *sdev = node_to_sdev(m);
	unsigned int i;
	int idx;

	if (!drm_dev_enter(&sdev->drm, &idx))
		return -ENODEV;
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct simtgpu_ring *ring = &sdev->rings[i];
		u64 emitted, completed, slot;
		unsigned long flags;

		spin_lock_irqsave(&ring->lock, flags);
		emitted = ring->emitted;
		completed = ring->completed;
		spin_unlock_irqrestore(&ring->lock, flags);
		slot = readq(sdev->vram + ring->fence_offset);
		seq_printf(m, "%s: vram 0x%llx size %u priority %u\n",
			   ring->name, ring->vram_offset, SIMTGPU_KERNEL_RING_BYTES,
			   ring->hw_priority);
		seq_printf(m, "  head 0x%x tail 0x%x (driver 0x%x) ctrl %#x status %u\n",
			   simtgpu_ring_read(ring, SIMTGPU_RING_HEAD),
			   simtgpu_ring_read(ring, SIMTGPU_RING_TAIL),
			   ring->tail,
			   simtgpu_ring_read(ring, SIMTGPU_RING_CTRL),
			   simtgpu_ring_read(ring, SIMTGPU_RING_STATUS));
		seq_printf(m, "  seqno emitted %llu completed %llu fence slot %llu\n",
			   emitted, completed, slot);
		seq_printf(m, "  progress %llu resident ctas %u preempt %u ring resets %u\n",
			   simtgpu_read64(sdev, SIMTGPU_RING_BASE(i) +
						SIMTGPU_RING_PROGRESS_LO),
			   simtgpu_ring_read(ring, SIMTGPU_RING_RESIDENT),
			   simtgpu_ring_read(ring, SIMTGPU_RING_PREEMPT),
			   ring->resets);
	}
	seq_printf(m, "irq status %#x mask %#x, device status %#x, resets %u\n",
		   simtgpu_read(sdev, SIMTGPU_REG_IRQ_STATUS),
		   simtgpu_read(sdev, SIMTGPU_REG_IRQ_MASK),
		   simtgpu_read(sdev, SIMTGPU_REG_STATUS), sdev->resets);
	drm_dev_exit(idx);
	return 0;
}

static int simtgpu_debugfs_fences(struct seq_file *m, void *unused)
{
	struct simtgpu_device *sdev = node_to_sdev(m);
	ktime_t now = ktime_get();
	unsigned int i;

	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct simtgpu_ring *ring = &sdev->rings[i];
		struct simtgpu_fence *f;
		unsigned long flags;

		spin_lock_irqsave(&ring->lock, flags);
		list_for_each_entry(f, &ring->pending, link) {
			seq_printf(m, "%s seqno %llu age %lld us", ring->name,
				   f->seqno,
				   ktime_to_us(ktime_sub(now, f->emitted)));
			if (f->job)
				seq_printf(m, " pid %d queue %u ib 0x%llx+%u",
					   f->job->pid, f->job->queue->id,
					   f->job->ib_va, f->job->ib_dwords);
			seq_putc(m, '\n');
		}
		spin_unlock_irqrestore(&ring->lock, flags);
	}
	return 0;
}

static int simtgpu_debugfs_vm(struct seq_file *m, void *unused)
{
	struct simtgpu_device *sdev = node_to_sdev(m);
	struct simtgpu_file_priv *fpriv;

	mutex_lock(&sdev->clients_lock);
	list_for_each_entry(fpriv, &sdev->clients, link) {
		struct simtgpu_vm *vm = fpriv->vm;
		struct drm_mm_node *node;

		seq_printf(m, "client %llu pid %d (%s): context %u root 0x%llx\n",
			   fpriv->client_id, fpriv->pid, fpriv->comm, vm->id,
			   simtgpu_vm_root(vm));
		mutex_lock(&vm->lock);
		drm_mm_for_each_node(node, &vm->mm) {
			struct simtgpu_bo *bo = container_of(node,
							     struct simtgpu_bo,
							     va);

			seq_printf(m, "  0x%012llx-0x%012llx %8llu KiB %c%c%c\n",
				   node->start,
				   node->start + bo->base.size - 1,
				   (u64)bo->base.size >> 10, 'r',
				   bo->flags & SIMTGPU_BO_READ_ONLY ? '-' : 'w',
				   bo->flags & SIMTGPU_BO_EXEC ? 'x' : '-');
		}
		mutex_unlock(&vm->lock);
	}
	mutex_unlock(&sdev->clients_lock);
	return 0;
}

static int simtgpu_debugfs_clients(struct seq_file *m, void *unused)
{
	struct simtgpu_device *sdev = node_to_sdev(m);
	struct simtgpu_file_priv *fpriv;

	seq_puts(m, "client      pid comm             vram_kib    bos  low_ns normal_ns high_ns\n");
	mutex_lock(&sdev->clients_lock);
	list_for_each_entry(fpriv, &sdev->clients, link) {
		struct simtgpu_vm *vm = fpriv->vm;

		seq_printf(m, "%6llu %8d %-16s %9llu %6d %llu %llu %llu\n",
			   fpriv->client_id, fpriv->pid, fpriv->comm,
			   (u64)atomic64_read(&vm->vram_bytes) >> 10,
			   atomic_read(&vm->bo_count),
			   (u64)atomic64_read(&vm->engine_ns[0]),
			   (u64)atomic64_read(&vm->engine_ns[1]),
			   (u64)atomic64_read(&vm->engine_ns[2]));
	}
	mutex_unlock(&sdev->clients_lock);
	return 0;
}

static int simtgpu_debugfs_objects(struct seq_file *m, void *unused)
{
	struct simtgpu_device *sdev = node_to_sdev(m);
	struct simtgpu_counts *c = &sdev->counts;
	u64 used;

	mutex_lock(&sdev->mm_lock);
	used = sdev->vram_used;
	mutex_unlock(&sdev->mm_lock);
	seq_printf(m, "bos %d\n", atomic_read(&c->bos));
	seq_printf(m, "vms %d\n", atomic_read(&c->vms));
	seq_printf(m, "page_tables %d\n", atomic_read(&c->page_tables));
	seq_printf(m, "pinned_pages %ld\n", atomic_long_read(&c->pinned_pages));
	seq_printf(m, "queues %d\n", atomic_read(&c->queues));
	seq_printf(m, "jobs %d\n", atomic_read(&c->jobs));
	seq_printf(m, "fences %d\n", atomic_read(&c->fences));
	seq_printf(m, "cgroups %d\n", atomic_read(&c->cgroups));
	seq_printf(m, "managed_host_pages %ld\n",
		   atomic_long_read(&c->managed_host_pages));
	seq_printf(m, "managed_vram_pages %ld\n",
		   atomic_long_read(&c->managed_vram_pages));
	seq_printf(m, "vram_used %llu\n", used);
	seq_printf(m, "vram_kernel %llu\n",
		   (u64)SIMTGPU_NUM_RINGS * SIMTGPU_KERNEL_RING_BYTES +
		   SIMTGPU_PAGE_SIZE + SIMTGPU_JOB_TIMES_BYTES);
	return 0;
}

static int simtgpu_debugfs_cgroups(struct seq_file *m, void *unused)
{
	simtgpu_cgroup_debugfs_show(node_to_sdev(m), m);
	return 0;
}

static int simtgpu_debugfs_vram(struct seq_file *m, void *unused)
{
	struct simtgpu_device *sdev = node_to_sdev(m);
	struct drm_printer p = drm_seq_file_printer(m);

	mutex_lock(&sdev->mm_lock);
	drm_buddy_print(&sdev->mm, &p);
	mutex_unlock(&sdev->mm_lock);
	return 0;
}

static int simtgpu_debugfs_managed(struct seq_file *m, void *unused)
{
	simtgpu_managed_debugfs_show(node_to_sdev(m), m);
	return 0;
}

static const struct drm_info_list simtgpu_debugfs_list[] = {
	{ "rings", simtgpu_debugfs_rings, 0 },
	{ "cgroups", simtgpu_debugfs_cgroups, 0 },
	{ "fences", simtgpu_debugfs_fences, 0 },
	{ "vm", simtgpu_debugfs_vm, 0 },
	{ "client_usage", simtgpu_debugfs_clients, 0 },
	{ "objects", simtgpu_debugfs_objects, 0 },
	{ "vram", simtgpu_debugfs_vram, 0 },
	{ "managed", simtgpu_debugfs_managed, 0 },
};

static int simtgpu_preempt_show(struct seq_file *m, void *unused)
{
	struct simtgpu_device *sdev = m->private;
	unsigned int i;
	int idx;

	if (!drm_dev_enter(&sdev->drm, &idx))
		return -ENODEV;
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct simtgpu_ring *ring = &sdev->rings[i];

		seq_printf(m, "%u preempt %u status %u resident %u resets %u\n",
			   i, simtgpu_ring_read(ring, SIMTGPU_RING_PREEMPT),
			   simtgpu_ring_read(ring, SIMTGPU_RING_STATUS),
			   simtgpu_ring_read(ring, SIMTGPU_RING_RESIDENT),
			   ring->resets);
	}
	drm_dev_exit(idx);
	return 0;
}

static int simtgpu_preempt_open(struct inode *inode, struct file *file)
{
	return single_open(file, simtgpu_preempt_show, inode->i_private);
}

static ssize_t simtgpu_preempt_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *offp)
{
	struct seq_file *m = file->private_data;
	struct simtgpu_device *sdev = m->private;
	unsigned int ring, park;
	char buf[32];
	int idx;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u", &ring, &park) != 2 ||
	    ring >= SIMTGPU_NUM_RINGS || park > 1)
		return -EINVAL;
	if (!drm_dev_enter(&sdev->drm, &idx))
		return -ENODEV;
	simtgpu_ring_preempt(&sdev->rings[ring], park);
	drm_dev_exit(idx);
	return len;
}

static const struct file_operations simtgpu_preempt_fops = {
	.owner = THIS_MODULE,
	.open = simtgpu_preempt_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = simtgpu_preempt_write,
};

void simtgpu_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_create_files(simtgpu_debugfs_list,
				 ARRAY_SIZE(simtgpu_debugfs_list),
				 minor->debugfs_root, minor);
	debugfs_create_file("preempt", 0600, minor->debugfs_root,
			    to_simtgpu_device(minor->dev),
			    &simtgpu_preempt_fops);
}
