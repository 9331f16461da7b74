/*
 * simtgpu: a PCIe endpoint for the simulated SIMT GPU of the simtgpu project.
 *
 * The device is a thin shell around the simulator library
 * (libsimtgpu-sim.so, C ABI of simtgpu/sim.h), which it dlopen()s at realize
 * time so the simulator can be rebuilt without rebuilding QEMU.
 *
 * PCI identity, registers and packets: simtgpu/hw.h; docs/qemu.md and
 * docs/hardware.md describe them.
 *
 * MMIO regions:
 *  BAR0  64 KiB  registers, every access forwarded to the simulator
 *  BAR2  vram=   VRAM, 64-bit prefetchable RAM; its host pointer is the
 *                simulator's VRAM, so guest and simulator share it directly;
 *                backed by the host only where touched, and given back when
 *                the driver clears it (SIMTGPU_REG_VRAM_CLEAR)
 *  BAR4          MSI-X table and PBA
 * Interrupts:
 *  MSI-X vector 0 (SIMTGPU_MSIX_VEC_FENCE), vector 1 (SIMTGPU_MSIX_VEC_ERROR);
 *  INTx pin A, level = IRQ_STATUS & IRQ_MASK, only while MSI-X is disabled.
 *
 * Threads: the simulator's engines run on its own threads. From there they
 * call simtgpu_dma_read/write/cmpxchg (which use the memory API under RCU, like
 * QEMU's own iothreads, so they never wait for the big QEMU lock that an
 * MMIO handler holds) and simtgpu_raise_irq (which only sets a bit and
 * schedules a bottom half; MSI-X is sent from the bottom half, under the
 * big QEMU lock).
 *
 * Copyright (c) 2026 the simtgpu authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "sysemu/dma.h"
#include "qom/object.h"
#include "exec/cpu-common.h"
#include "trace.h"

#include <dlfcn.h>

#include "simtgpu/hw.h"
#include "simtgpu/sim.h"

#define TYPE_SIMTGPU "simtgpu"
OBJECT_DECLARE_SIMPLE_TYPE(SimtgpuState, SIMTGPU)

#define SIMTGPU_DEFAULT_VRAM (16 * GiB) /* a real GPU's; touched pages cost */
#define SIMTGPU_PCIE_CAP_OFFSET 0x80

/* The simulator's entry points, resolved with dlsym(). */
typedef struct SimtgpuSimOps {
    uint32_t (*abi_version)(void);
    int (*create)(const simtgpu_sim_config *config, simtgpu_sim **out,
                  char *err, size_t err_size);
    void (*destroy)(simtgpu_sim *sim);
    uint64_t (*mmio_read)(simtgpu_sim *sim, uint64_t offset, unsigned size);
    void (*mmio_write)(simtgpu_sim *sim, uint64_t offset, uint64_t value,
                       unsigned size);
    void (*reset)(simtgpu_sim *sim);
} SimtgpuSimOps;

struct SimtgpuState {
    PCIDevice pdev;
    MemoryRegion regs;
    MemoryRegion vram;

    /* Properties. 0 or NULL means the simulator's default. */
    char *sim_path;
    uint64_t vram_size;
    uint32_t num_sms;
    uint32_t warps_per_sm;
    uint32_t warp_size;
    uint32_t ctas_per_sm;
    uint32_t shared_per_sm;
    uint32_t max_threads_per_cta;
    uint32_t clock_khz;
    uint32_t mem_latency;
    uint32_t arch;
    char *warp_scheduler;
    char *reconvergence;
    char *placement;
    char *sm_sharing;
    char *config; /* a preset name or a configuration file */
    char *trace; /* where the device writes its Perfetto trace */
    uint64_t trace_max_events;
    uint32_t threads; /* host threads that run the SMs */

    void *sim_handle; /* from dlopen() */
    SimtgpuSimOps ops;
    simtgpu_sim *sim;

    /*
     * MSI-X vectors raised by simulator threads, one bit per vector, sent
     * by irq_bh. Accessed with qatomic_*.
     */
    uint32_t pending_vectors;
    QEMUBH *irq_bh;
};

/* ------------------------------------------------------- interrupts --- */

/* INTx mirrors IRQ_STATUS & IRQ_MASK while MSI-X is off (BQL held). */
static void simtgpu_update_intx(SimtgpuState *s)
{
    uint64_t status, mask;

    if (msix_enabled(&s->pdev)) {
        pci_set_irq(&s->pdev, 0);
        return;
    }
    status = s->ops.mmio_read(s->sim, SIMTGPU_REG_IRQ_STATUS, 4);
    mask = s->ops.mmio_read(s->sim, SIMTGPU_REG_IRQ_MASK, 4);
    pci_set_irq(&s->pdev, (status & mask) != 0);
}

/* Bottom half: runs in the main loop with the BQL held. */
static void simtgpu_irq_bh(void *opaque)
{
    SimtgpuState *s = opaque;
    uint32_t pending = qatomic_xchg(&s->pending_vectors, 0);
    unsigned vector;

    for (vector = 0; vector < SIMTGPU_MSIX_VECTORS; vector++) {
        if (pending & (1u << vector)) {
            trace_simtgpu_irq(vector, msix_enabled(&s->pdev));
            msix_notify(&s->pdev, vector);
        }
    }
    simtgpu_update_intx(s);
}

/* Simulator callback, from any simulator thread. */
static void simtgpu_raise_irq(void *opaque, uint32_t vector)
{
    SimtgpuState *s = opaque;

    if (vector >= SIMTGPU_MSIX_VECTORS) {
        return;
    }
    qatomic_or(&s->pending_vectors, 1u << vector);
    qemu_bh_schedule(s->irq_bh);
}

/* -------------------------------------------------------------- DMA --- */

/*
 * Simulator threads are not QEMU threads: register each with RCU on its
 * first DMA (the memory API reads the address space under rcu_read_lock)
 * and unregister it when it exits, through a pthread key destructor.
 */
static pthread_key_t simtgpu_rcu_key;
static pthread_once_t simtgpu_rcu_key_once = PTHREAD_ONCE_INIT;

static void simtgpu_rcu_thread_exit(void *unused)
{
    rcu_unregister_thread();
}

static void simtgpu_rcu_key_init(void)
{
    pthread_key_create(&simtgpu_rcu_key, simtgpu_rcu_thread_exit);
}

static void simtgpu_rcu_register_this_thread(void)
{
    static __thread bool registered;

    if (registered || qemu_mutex_iothread_locked()) {
        return;
    }
    pthread_once(&simtgpu_rcu_key_once, simtgpu_rcu_key_init);
    rcu_register_thread();
    /* Any non-NULL value makes the destructor run at thread exit. */
    pthread_setspecific(simtgpu_rcu_key, &registered);
    registered = true;
}

static int simtgpu_dma_read(void *opaque, uint64_t bus_addr, void *buf,
                            uint64_t len)
{
    SimtgpuState *s = opaque;
    MemTxResult r;

    simtgpu_rcu_register_this_thread();
    r = pci_dma_read(&s->pdev, bus_addr, buf, len);
    trace_simtgpu_dma(bus_addr, len, false, r);
    return r == MEMTX_OK ? 0 : -1;
}

static int simtgpu_dma_write(void *opaque, uint64_t bus_addr, const void *buf,
                             uint64_t len)
{
    SimtgpuState *s = opaque;
    MemTxResult r;

    simtgpu_rcu_register_this_thread();
    r = pci_dma_write(&s->pdev, bus_addr, buf, len);
    trace_simtgpu_dma(bus_addr, len, true, r);
    return r == MEMTX_OK ? 0 : -1;
}

/*
 * An atomic on host memory (a kernel's *_system atomic on mapped or managed
 * memory), as a PCIe AtomicOp CAS: the host's own compare-and-exchange on the
 * guest RAM behind the bus address, so it combines with the guest CPUs'
 * atomics (under TCG those are host atomics only with more than one vCPU).
 * Not RAM (a bounce buffer): refused, a DMA fault for the kernel.
 */
static int simtgpu_dma_cmpxchg(void *opaque, uint64_t bus_addr, uint32_t size,
                               uint64_t expected, uint64_t desired,
                               uint64_t *old)
{
    SimtgpuState *s = opaque;
    dma_addr_t len = size;
    ram_addr_t offset;
    void *host;
    int r = -1;

    if ((size != 4 && size != 8) || bus_addr % size) {
        return -1;
    }
    simtgpu_rcu_register_this_thread();
    host = pci_dma_map(&s->pdev, bus_addr, &len, DMA_DIRECTION_FROM_DEVICE);
    if (!host) {
        trace_simtgpu_dma(bus_addr, size, true, r);
        return r;
    }
    if (len == size && memory_region_from_host(host, &offset)) {
        if (size == 8) {
            *old = qatomic_cmpxchg((uint64_t *)host, expected, desired);
        } else {
            *old = qatomic_cmpxchg((uint32_t *)host, (uint32_t)expected,
                                   (uint32_t)desired);
        }
        r = 0;
    }
    pci_dma_unmap(&s->pdev, host, len, DMA_DIRECTION_FROM_DEVICE,
                  r == 0 ? size : 0);
    trace_simtgpu_dma(bus_addr, size, true, r);
    return r;
}

/*
 * The simulator's VRAM clears (the driver's SIMTGPU_REG_VRAM_CLEAR) hand
 * whole pages back to the host: they read as zero and cost no host memory
 * until written again. Where discarding is disabled (memory pinned for
 * VFIO), the simulator writes the zeros instead.
 */
static int simtgpu_vram_discard(void *opaque, uint64_t offset, uint64_t bytes)
{
    SimtgpuState *s = opaque;
    int ret = -1;

    if (!ram_block_discard_is_disabled()) {
        ret = ram_block_discard_range(s->vram.ram_block, offset, bytes);
    }
    trace_simtgpu_vram_discard(offset, bytes, ret);
    return ret;
}

/* ------------------------------------------------------------- MMIO --- */

static bool simtgpu_check_access(hwaddr addr, unsigned size, const char *what)
{
    if (size != 4 || (addr & 3)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "simtgpu: %s of %u bytes at 0x%" HWADDR_PRIx
                      ": registers take aligned 32-bit accesses\n",
                      what, size, addr);
        return false;
    }
    return true;
}

static uint64_t simtgpu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    SimtgpuState *s = opaque;
    uint64_t val;

    simtgpu_check_access(addr, size, "read");
    /* The simulator answers bad accesses itself (0) and counts them. */
    val = s->ops.mmio_read(s->sim, addr, size);
    trace_simtgpu_mmio_read(addr, size, val);
    return val;
}

static void simtgpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    SimtgpuState *s = opaque;

    simtgpu_check_access(addr, size, "write");
    trace_simtgpu_mmio_write(addr, size, val);
    s->ops.mmio_write(s->sim, addr, val, size);

    switch (addr) {
    case SIMTGPU_REG_IRQ_MASK:
    case SIMTGPU_REG_IRQ_ACK:
    case SIMTGPU_REG_RESET:
        simtgpu_update_intx(s);
        break;
    }
}

static const MemoryRegionOps simtgpu_mmio_ops = {
    .read = simtgpu_mmio_read,
    .write = simtgpu_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/* ---------------------------------------------------- the simulator --- */

static bool simtgpu_load_sim(SimtgpuState *s, Error **errp)
{
    const char *path = s->sim_path ? s->sim_path : SIMTGPU_SIM_LIBRARY;
    uint32_t version;

    s->sim_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!s->sim_handle) {
        error_setg(errp, "simtgpu: cannot load the simulator library %s "
                   "(this device needs simulator ABI version %u): %s",
                   path, SIMTGPU_SIM_ABI_VERSION, dlerror());
        return false;
    }

    s->ops.abi_version = dlsym(s->sim_handle, SIMTGPU_SIM_ABI_VERSION_SYMBOL);
    if (!s->ops.abi_version) {
        error_setg(errp, "simtgpu: %s has no %s: not a simtgpu simulator "
                   "(this device needs simulator ABI version %u)",
                   path, SIMTGPU_SIM_ABI_VERSION_SYMBOL,
                   SIMTGPU_SIM_ABI_VERSION);
        return false;
    }
    version = s->ops.abi_version();
    if (version != SIMTGPU_SIM_ABI_VERSION) {
        error_setg(errp, "simtgpu: %s implements simulator ABI version %u, "
                   "this device needs version %u: rebuild one of them",
                   path, version, SIMTGPU_SIM_ABI_VERSION);
        return false;
    }

#define SIMTGPU_RESOLVE(field, symbol)                                      \
    do {                                                                    \
        s->ops.field = dlsym(s->sim_handle, #symbol);                       \
        if (!s->ops.field) {                                                \
            error_setg(errp, "simtgpu: %s (ABI version %u) lacks %s",       \
                       path, version, #symbol);                             \
            return false;                                                   \
        }                                                                   \
    } while (0)

    SIMTGPU_RESOLVE(create, simtgpu_sim_create);
    SIMTGPU_RESOLVE(destroy, simtgpu_sim_destroy);
    SIMTGPU_RESOLVE(mmio_read, simtgpu_sim_mmio_read);
    SIMTGPU_RESOLVE(mmio_write, simtgpu_sim_mmio_write);
    SIMTGPU_RESOLVE(reset, simtgpu_sim_reset);
#undef SIMTGPU_RESOLVE
    return true;
}

static void simtgpu_unload_sim(SimtgpuState *s)
{
    if (s->sim) {
        s->ops.destroy(s->sim);
        s->sim = NULL;
    }
    if (s->sim_handle) {
        dlclose(s->sim_handle);
        s->sim_handle = NULL;
    }
}

static bool simtgpu_create_sim(SimtgpuState *s, Error **errp)
{
    simtgpu_sim_config config = {
        .struct_size = sizeof(config),
        .arch = s->arch,
        .vram_bytes = s->vram_size,
        .num_sms = s->num_sms,
        .warps_per_sm = s->warps_per_sm,
        .warp_size = s->warp_size,
        .ctas_per_sm = s->ctas_per_sm,
        .shared_bytes_per_sm = s->shared_per_sm,
        .max_threads_per_cta = s->max_threads_per_cta,
        .clock_khz = s->clock_khz,
        .mem_latency = s->mem_latency,
        .warp_scheduler = s->warp_scheduler,
        .reconvergence = s->reconvergence,
        .placement = s->placement,
        .sm_sharing = s->sm_sharing,
        .config = s->config,
        .vram = memory_region_get_ram_ptr(&s->vram),
        .opaque = s,
        .dma_read = simtgpu_dma_read,
        .dma_write = simtgpu_dma_write,
        .dma_cmpxchg = simtgpu_dma_cmpxchg,
        .raise_irq = simtgpu_raise_irq,
        .vram_discard = simtgpu_vram_discard,
        .trace = s->trace,
        .trace_max_events = s->trace_max_events,
        .host_threads = s->threads,
    };
    char message[1024] = "";
    int ret;

    ret = s->ops.create(&config, &s->sim, message, sizeof(message));
    if (ret < 0) {
        s->sim = NULL;
        error_setg(errp, "simtgpu: the simulator refused its configuration: "
                   "%s", message[0] ? message : strerror(-ret));
        return false;
    }
    return true;
}

/* ---------------------------------------------------- realize/exit --- */

static void simtgpu_realize(PCIDevice *pdev, Error **errp)
{
    ERRP_GUARD();
    SimtgpuState *s = SIMTGPU(pdev);
    unsigned vector;

    if (s->vram_size == 0 || !is_power_of_2(s->vram_size)) {
        error_setg(errp, "simtgpu: vram=%" PRIu64 " must be a power of two "
                   "(it is the size of BAR%d)", s->vram_size,
                   SIMTGPU_BAR_VRAM);
        return;
    }
    if (!simtgpu_load_sim(s, errp)) {
        simtgpu_unload_sim(s);
        return;
    }

    memory_region_init_io(&s->regs, OBJECT(s), &simtgpu_mmio_ops, s,
                          "simtgpu-regs", SIMTGPU_REGS_SIZE);
    /*
     * RAM_NORESERVE: a VRAM as large as a real GPU's reserves no host
     * memory or swap up front; only the pages the guest touches are backed.
     */
    memory_region_init_ram_flags_nomigrate(&s->vram, OBJECT(s), "simtgpu-vram",
                                           s->vram_size, RAM_NORESERVE, errp);
    if (*errp) {
        simtgpu_unload_sim(s);
        return;
    }
    vmstate_register_ram(&s->vram, DEVICE(s));

    s->irq_bh = qemu_bh_new(simtgpu_irq_bh, s);
    if (!simtgpu_create_sim(s, errp)) {
        qemu_bh_delete(s->irq_bh);
        simtgpu_unload_sim(s);
        return;
    }

    pci_config_set_interrupt_pin(pdev->config, 1);
    pci_register_bar(pdev, SIMTGPU_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->regs);
    pci_register_bar(pdev, SIMTGPU_BAR_VRAM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH,
                     &s->vram);

    if (pcie_endpoint_cap_init(pdev, SIMTGPU_PCIE_CAP_OFFSET) < 0) {
        error_setg(errp, "simtgpu: cannot add the PCIe capability");
        goto fail;
    }
    pcie_cap_flr_init(pdev);
    if (msix_init_exclusive_bar(pdev, SIMTGPU_MSIX_VECTORS, SIMTGPU_BAR_MSIX,
                                errp)) {
        goto fail;
    }
    for (vector = 0; vector < SIMTGPU_MSIX_VECTORS; vector++) {
        msix_vector_use(pdev, vector);
    }
    return;

fail:
    simtgpu_unload_sim(s);
    qemu_bh_delete(s->irq_bh);
}

static void simtgpu_exit(PCIDevice *pdev)
{
    SimtgpuState *s = SIMTGPU(pdev);

    /* Joins the simulator's threads: no callback can follow. */
    simtgpu_unload_sim(s);
    qemu_bh_delete(s->irq_bh);
    msix_unuse_all_vectors(pdev);
    msix_uninit_exclusive_bar(pdev);
}

/* Device reset, and function-level reset (FLR) through the PCI core. */
static void simtgpu_reset(DeviceState *dev)
{
    SimtgpuState *s = SIMTGPU(dev);

    trace_simtgpu_reset();
    s->ops.reset(s->sim);
    qatomic_set(&s->pending_vectors, 0);
    pci_set_irq(&s->pdev, 0);
}

/* Config space writes: the PCIe FLR bit resets the function. */
static void simtgpu_config_write(PCIDevice *pdev, uint32_t address,
                                 uint32_t val, int len)
{
    pci_default_write_config(pdev, address, val, len);
    pcie_cap_flr_write_config(pdev, address, val, len);
}

/* ------------------------------------------------------------- QOM --- */

static Property simtgpu_properties[] = {
    DEFINE_PROP_STRING("sim", SimtgpuState, sim_path),
    DEFINE_PROP_SIZE("vram", SimtgpuState, vram_size, SIMTGPU_DEFAULT_VRAM),
    DEFINE_PROP_UINT32("sms", SimtgpuState, num_sms, 0),
    DEFINE_PROP_UINT32("warps-per-sm", SimtgpuState, warps_per_sm, 0),
    DEFINE_PROP_UINT32("warp-size", SimtgpuState, warp_size, 0),
    DEFINE_PROP_UINT32("ctas-per-sm", SimtgpuState, ctas_per_sm, 0),
    DEFINE_PROP_UINT32("shared-per-sm", SimtgpuState, shared_per_sm, 0),
    DEFINE_PROP_UINT32("max-threads-per-cta", SimtgpuState,
                       max_threads_per_cta, 0),
    DEFINE_PROP_UINT32("clock-khz", SimtgpuState, clock_khz, 0),
    DEFINE_PROP_UINT32("mem-latency", SimtgpuState, mem_latency, 0),
    DEFINE_PROP_UINT32("arch", SimtgpuState, arch, 0),
    DEFINE_PROP_STRING("warp-scheduler", SimtgpuState, warp_scheduler),
    DEFINE_PROP_STRING("reconvergence", SimtgpuState, reconvergence),
    DEFINE_PROP_STRING("placement", SimtgpuState, placement),
    DEFINE_PROP_STRING("sm-sharing", SimtgpuState, sm_sharing),
    DEFINE_PROP_STRING("config", SimtgpuState, config),
    DEFINE_PROP_STRING("trace", SimtgpuState, trace),
    DEFINE_PROP_UINT64("trace-max-events", SimtgpuState, trace_max_events, 0),
    DEFINE_PROP_UINT32("threads", SimtgpuState, threads, 0),
    DEFINE_PROP_END_OF_LIST(),
};

typedef struct SimtgpuPropertyHelp {
    const char *name;
    const char *help;
} SimtgpuPropertyHelp;

static const SimtgpuPropertyHelp simtgpu_property_help[] = {
    { "sim", "path of libsimtgpu-sim.so (default: the loader's search)" },
    { "vram", "VRAM and BAR2 size, a power of two" },
    { "sms", "streaming multiprocessors (0: simulator default)" },
    { "warps-per-sm", "resident warp slots per SM (0: default)" },
    { "warp-size", "lanes per warp, 1..64 (0: default)" },
    { "ctas-per-sm", "resident CTA slots per SM (0: default)" },
    { "shared-per-sm", "shared memory bytes per SM (0: default)" },
    { "max-threads-per-cta", "largest CTA (0: default)" },
    { "clock-khz", "simulated SM clock in kHz (0: default)" },
    { "mem-latency", "cycles per global memory access (0: default)" },
    { "arch", "SIMTGPU_ARCH_* of the SMs (0: newest)" },
    { "warp-scheduler", "warp scheduling policy name (default round-robin)" },
    { "reconvergence", "reconvergence policy name (default min-pc)" },
    { "placement", "block placement policy name (default breadth-first)" },
    { "sm-sharing", "which grids one SM holds at once: same-context (default), "
                    "exclusive, any" },
    { "config", "preset (functional, teaching, volta) or configuration file; "
                "the other properties, when set, override it" },
    { "trace", "write the device's Perfetto trace (trace-event JSON: SMs, "
               "warps, CTAs, grids) to this host file (docs/trace.md)" },
    { "trace-max-events", "slices and instants the trace holds at most "
                          "(0: 1000000)" },
    { }
};

/* The simulator's state lives outside QEMU and is not migrated. */
static const VMStateDescription simtgpu_vmstate = {
    .name = TYPE_SIMTGPU,
    .unmigratable = 1,
};

static void simtgpu_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = simtgpu_realize;
    k->exit = simtgpu_exit;
    k->config_write = simtgpu_config_write;
    k->vendor_id = SIMTGPU_PCI_VENDOR_ID;
    k->device_id = SIMTGPU_PCI_DEVICE_ID;
    k->revision = SIMTGPU_PCI_REVISION;
    k->class_id = SIMTGPU_PCI_CLASS;
    dc->desc = "simtgpu simulated SIMT GPU";
    dc->reset = simtgpu_reset;
    dc->vmsd = &simtgpu_vmstate;
    device_class_set_props(dc, simtgpu_properties);
    for (const SimtgpuPropertyHelp *h = simtgpu_property_help; h->name; h++) {
        object_class_property_set_description(klass, h->name, h->help);
    }
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
}

static const TypeInfo simtgpu_info = {
    .name = TYPE_SIMTGPU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SimtgpuState),
    .class_init = simtgpu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void simtgpu_register_types(void)
{
    type_register_static(&simtgpu_info);
}

type_init(simtgpu_register_types)
