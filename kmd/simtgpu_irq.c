// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: Interrupts
 *
 * The device has two MSI-X vectors. Vector 0 (SIMTGPU_IRQ_FENCE) means a
 * FENCE packet with the IRQ flag ran: the handler acks it first, then reads
 * every ring's fence slot, so a fence written after the ack raises a new
 * interrupt instead of being missed. Vector 1 carries exceptions and ring
 * errors: the handler copies the exception record, fails the job running
 * on the record's ring, then acks, which releases the record and lets the
 * stalled ring resume after the aborted packet. Vector 1 also carries
 * replayable GPU page faults (SIMTGPU_IRQ_FAULT, hardware 1.4): the handler
 * acks and queues the work that drains the fault queue
 * (simtgpu_managed.c), since migrating a page sleeps.
 */

#include <linux/interrupt.h>
#include <linux/pci.h>
#include <drm/drm_print.h>

#include "simtgpu_drv.h"

static irqreturn_t simtgpu_irq_fence(int irq, void *arg)
{
	struct simtgpu_device *sdev = arg;
	unsigned int i;

	simtgpu_write(sdev, SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_FENCE);
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++)
		simtgpu_ring_signal_fences(&sdev->rings[i]);
	return IRQ_HANDLED;
}

static void simtgpu_read_exception(struct simtgpu_device *sdev,
				   struct drm_simtgpu_fault_info *fault)
{
	fault->kind = simtgpu_read(sdev, SIMTGPU_REG_EXC_KIND);
	fault->access = simtgpu_read(sdev, SIMTGPU_REG_EXC_ACCESS);
	fault->address = simtgpu_read64(sdev, SIMTGPU_REG_EXC_ADDR_LO);
	fault->pc = simtgpu_read64(sdev, SIMTGPU_REG_EXC_PC_LO);
	fault->sm = simtgpu_read(sdev, SIMTGPU_REG_EXC_SM);
	fault->warp = simtgpu_read(sdev, SIMTGPU_REG_EXC_WARP);
	fault->lane = simtgpu_read(sdev, SIMTGPU_REG_EXC_LANE);
	fault->detail = simtgpu_read(sdev, SIMTGPU_REG_EXC_DETAIL);
	fault->ctaid[0] = simtgpu_read(sdev, SIMTGPU_REG_EXC_CTAID_X);
	fault->ctaid[1] = simtgpu_read(sdev, SIMTGPU_REG_EXC_CTAID_Y);
	fault->ctaid[2] = simtgpu_read(sdev, SIMTGPU_REG_EXC_CTAID_Z);
	fault->tid[0] = simtgpu_read(sdev, SIMTGPU_REG_EXC_TID_X);
	fault->tid[1] = simtgpu_read(sdev, SIMTGPU_REG_EXC_TID_Y);
	fault->tid[2] = simtgpu_read(sdev, SIMTGPU_REG_EXC_TID_Z);
}

static irqreturn_t simtgpu_irq_error(int irq, void *arg)
{
	struct simtgpu_device *sdev = arg;
	u32 status = simtgpu_read(sdev, SIMTGPU_REG_IRQ_STATUS);

	if (status & SIMTGPU_IRQ_RING_ERROR) {
		unsigned int i;

		simtgpu_write(sdev, SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_RING_ERROR);
		for (i = 0; i < SIMTGPU_NUM_RINGS; i++)
			if (simtgpu_ring_read(&sdev->rings[i],
					      SIMTGPU_RING_STATUS) ==
			    SIMTGPU_RING_STATUS_ERROR)
				dev_err_ratelimited(sdev->drm.dev,
						    "%s is in the ERROR state; the timeout will reset it\n",
						    sdev->rings[i].name);
	}

	if (status & SIMTGPU_IRQ_EXCEPTION) {
		struct drm_simtgpu_fault_info fault = { 0 };
		u32 ring = simtgpu_read(sdev, SIMTGPU_REG_EXC_RING);
		u32 context = simtgpu_read(sdev, SIMTGPU_REG_EXC_CONTEXT);

		simtgpu_read_exception(sdev, &fault);
		if (ring < SIMTGPU_NUM_RINGS &&
		    fault.kind == SIMTGPU_EXC_PREEMPT_TIMEOUT)
			simtgpu_ring_abort_current(&sdev->rings[ring], context);
		else if (ring < SIMTGPU_NUM_RINGS)
			simtgpu_ring_fail_current(&sdev->rings[ring], &fault,
						  context);
		else
			dev_err_ratelimited(sdev->drm.dev,
					    "exception on unknown ring %u\n",
					    ring);
		/* Releases the record: the ring resumes. */
		simtgpu_write(sdev, SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION);
	}

	/* Acked first: a fault queued while the work drains raises it anew. */
	if (status & SIMTGPU_IRQ_FAULT) {
		simtgpu_write(sdev, SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_FAULT);
		simtgpu_managed_fault_irq(sdev);
	}
	return status & (SIMTGPU_IRQ_RING_ERROR | SIMTGPU_IRQ_EXCEPTION |
			 SIMTGPU_IRQ_FAULT) ? IRQ_HANDLED : IRQ_NONE;
}

int simtgpu_irq_init(struct simtgpu_device *sdev)
{
	struct pci_dev *pdev = sdev->pdev;
	int ret;

	/* Freed by pcim when the driver detaches. */
	ret = pci_alloc_irq_vectors(pdev, SIMTGPU_MSIX_VECTORS,
				    SIMTGPU_MSIX_VECTORS, PCI_IRQ_MSIX);
	if (ret < 0)
		return ret;
	ret = devm_request_irq(&pdev->dev,
			       pci_irq_vector(pdev, SIMTGPU_MSIX_VEC_FENCE),
			       simtgpu_irq_fence, 0, "simtgpu-fence", sdev);
	if (ret)
		return ret;
	return devm_request_irq(&pdev->dev,
				pci_irq_vector(pdev, SIMTGPU_MSIX_VEC_ERROR),
				simtgpu_irq_error, 0, "simtgpu-error", sdev);
}

void simtgpu_irq_enable(struct simtgpu_device *sdev)
{
	u32 irqs = SIMTGPU_IRQ_FENCE | SIMTGPU_IRQ_EXCEPTION |
		   SIMTGPU_IRQ_RING_ERROR;

	if (sdev->caps & SIMTGPU_CAP_REPLAYABLE_FAULTS)
		irqs |= SIMTGPU_IRQ_FAULT;
	simtgpu_write(sdev, SIMTGPU_REG_IRQ_ACK, irqs);
	simtgpu_write(sdev, SIMTGPU_REG_IRQ_MASK, irqs);
}

void simtgpu_irq_disable(struct simtgpu_device *sdev)
{
	simtgpu_write(sdev, SIMTGPU_REG_IRQ_MASK, 0);
	synchronize_irq(pci_irq_vector(sdev->pdev, SIMTGPU_MSIX_VEC_FENCE));
	synchronize_irq(pci_irq_vector(sdev->pdev, SIMTGPU_MSIX_VEC_ERROR));
}
