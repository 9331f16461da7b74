// CUDA graphs, by stream capture and by the explicit API. While a stream
// captures, the runtime's queueing calls hand their work here instead of to
// the device: each becomes a node, in the order the calls came (streams that
// join the capture through an event add theirs to the same sequence, which
// keeps every dependency). Each stream of a capture has its frontier: the
// nodes its next captured work depends on (what cudaStreamGetCaptureInfo
// returns and cudaStreamUpdateCaptureDependencies changes); an event recorded
// in a capture carries its stream's frontier to the streams that wait for it.
// cudaStreamBeginCaptureToGraph captures into an existing graph. The explicit API (cudaGraphCreate,
// cudaGraphAdd*Node) adds nodes with their dependencies. An instantiated
// graph replays its nodes in an order that respects every dependency (capture
// order, or a topological order of the explicit edges) on the launch's
// stream, through the same calls. Graph memory: GraphAllocation below.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "cuda.h"
#include "runtime.h"
#include "simtgpu/hw.h"

struct CUgraphNode_st {
    cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
    // Kernel: the host stub, geometry and a copy of the argument values.
    const void *func = nullptr;
    dim3 grid, block;
    size_t shared = 0;
    std::vector<unsigned char> params;
    std::vector<size_t> param_offsets;
    // Its launch attributes (cudaLaunchKernelEx captured, or
    // cudaGraphKernelNodeSetAttribute), one per id, checked when set.
    std::vector<cudaLaunchAttribute> attrs;
    // Memcpy / memset.
    void *dst = nullptr;
    const void *src = nullptr;
    size_t bytes = 0;
    cudaMemcpyKind kind = cudaMemcpyDefault;
    int value = 0;
    // A 3-D copy (explicit memcpy nodes): replayed by cudaMemcpy3DAsync.
    bool copy_3d = false;
    cudaMemcpy3DParms copy{};
    // A 2-D memset of rows `bytes` wide, `pitch` apart; wider elements than
    // bytes replay as a copy of `pattern` (the filled rows).
    size_t pitch = 0, height = 1;
    std::vector<unsigned char> pattern;
    // Host.
    cudaHostFn_t fn = nullptr;
    void *user_data = nullptr;
    // Conditional: its handle, kind, body graphs and (instantiated) their
    // executables.
    cudaGraphConditionalHandle handle = 0;
    cudaGraphConditionalNodeType condition = cudaGraphCondTypeIf;
    std::vector<CUgraph_st *> bodies;
    std::vector<std::shared_ptr<CUgraphExec_st>> body_execs;
    // Explicit API: the nodes this one waits for (of the same graph).
    std::vector<CUgraphNode_st *> deps;
};

struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
};

struct CUgraphExec_st {
    std::vector<CUgraphNode_st> nodes;
    // cudaGraphInstantiateFlagAutoFreeOnLaunch: a launch frees what the
    // last one allocated and nothing freed since.
    bool auto_free_on_launch = false;
    // Conditional handles assigned their default at each launch.
    std::vector<std::pair<cudaGraphConditionalHandle, unsigned>> defaults;
    std::map<const CUgraphNode_st *, size_t> index; // the graph's node -> nodes[i]
    std::vector<size_t> slot_of_added;              // the graph's k-th node -> nodes[i]
};

namespace simtgpu::cudart {
namespace {

struct Capture {
    simtgpuStream origin;
    cudaStreamCaptureMode mode;
    bool invalidated = false;
    unsigned long long id = 0; // unique per capture in the process, as CUDA's
    // cudaStreamBeginCapture's new graph (graph points to it), or null when
    // capturing into an existing graph (cudaStreamBeginCaptureToGraph).
    std::unique_ptr<CUgraph_st> owned;
    CUgraph_st *graph = nullptr;
    // By stream of the capture: the nodes its next captured work waits for.
    std::map<simtgpuStream, std::vector<CUgraphNode_st *>> frontier;
    // cudaStreamGetCaptureInfo's arrays, valid until the stream's next call.
    std::map<simtgpuStream, std::vector<cudaGraphNode_t>> reported;
    std::vector<cudaGraphEdgeData> reported_edges;
};

// Graph memory: one range of addresses per allocation node, kept for the
// process's life (a later allocation node of the same graph that only runs
// after the range's free node reuses it, as CUDA reuses addresses within a
// graph). Its memory is a BO at that address (simtgpuMemAllocAt), made when
// an allocation node runs and kept after the free node, as CUDA's graph
// pool keeps physical memory, so that the next run finds it. Memory moves
// between ranges only by being freed and made again: when an allocation
// node needs memory, the BOs of ranges freed earlier on the same stream (or
// by cudaFree) go back to the device first, which is how graphs run one
// after another on a stream share memory; cudaDeviceGraphMemTrim gives back
// every BO no allocation holds. docs/cuda-runtime.md, "Graph memory".
struct GraphAllocation {
    size_t range = 0; // bytes of addresses (2 MiB granular)
    int device = 0;
    uint64_t backed = 0; // bytes of the BO at the address; 0: none
    bool live = false;   // allocated by a run and not freed since
    // Where it was last freed: a stream, or by a synchronous cudaFree.
    simtgpuStream freed_on = nullptr;
    bool freed_synchronously = false;
};

struct Graphs {
    std::map<simtgpuStream, std::shared_ptr<Capture>> capturing; // every stream in a capture
    std::map<uint64_t, GraphAllocation> allocations;             // by address
    // cudaDeviceGetGraphMemAttribute's figures, by device: bytes of the BOs
    // of graph memory, held or kept (in use and reserved are the same here:
    // nothing is reserved beyond them).
    std::map<int, uint64_t> graph_memory, graph_memory_high;
    std::map<cudaEvent_t, std::weak_ptr<Capture>> captured_events;
    // An event recorded in a capture: its stream's frontier then.
    std::map<cudaEvent_t, std::vector<CUgraphNode_st *>> captured_event_frontier;
    unsigned long long next_capture_id = 1;
    std::set<cudaGraph_t> graphs;
    std::set<cudaGraphExec_t> execs;
    // Conditional handles: device memory of one unsigned each, by graph.
    struct Handle {
        cudaGraph_t graph;
        unsigned default_value;
        bool assign_default;
    };
    std::map<cudaGraphConditionalHandle, Handle> handles;
};

Graphs &graphs() {
    static Graphs *g = new Graphs; // as runtime(): lives past exit-time code
    return *g;
}

Capture *capture_of(cudaStream_t stream) {
    auto it = graphs().capturing.find(to_stream(stream));
    return it == graphs().capturing.end() ? nullptr : it->second.get();
}

cudaStreamCaptureStatus capture_status(const Capture *c) {
    return !c               ? cudaStreamCaptureStatusNone
           : c->invalidated ? cudaStreamCaptureStatusInvalidated
                            : cudaStreamCaptureStatusActive;
}

// What a capture records after an error: nothing; EndCapture reports it.
cudaError_t add(cudaStream_t stream, std::unique_ptr<CUgraphNode_st> node) {
    Capture *c = capture_of(stream);
    if (c->invalidated)
        return record(cudaErrorStreamCaptureInvalidated);
    std::vector<CUgraphNode_st *> &frontier = c->frontier[to_stream(stream)];
    node->deps = frontier;
    frontier = {node.get()};
    c->graph->nodes.push_back(std::move(node));
    return cudaSuccess;
}

// Adds the nodes of `more` that `to` lacks, keeping its order.
void merge_frontier(std::vector<CUgraphNode_st *> &to, const std::vector<CUgraphNode_st *> &more) {
    for (CUgraphNode_st *n : more)
        if (std::find(to.begin(), to.end(), n) == to.end())
            to.push_back(n);
}

cudaError_t invalidate(Capture *c, cudaError_t err) {
    c->invalidated = true;
    return record(err);
}

// One constructor per node type, for stream capture and the explicit API
// alike; each caller checks its own arguments first.

// A kernel node's contents: the argument values as they are now, copied, as
// CUDA does at capture and at cudaGraphAddKernelNode. Refuses missing
// arguments (without recording: capture invalidates, the API records).
cudaError_t fill_kernel_node(CUgraphNode_st *node, const void *func, simtgpuFunction f, dim3 grid,
                             dim3 block, size_t shared, void **args) {
    int count = 0;
    simtgpuFuncGetAttribute(&count, SIMTGPU_FUNC_ATTRIBUTE_NUM_PARAMS, f);
    if (count > 0 && !args)
        return cudaErrorInvalidValue;
    node->type = cudaGraphNodeTypeKernel;
    node->func = func;
    node->grid = grid;
    node->block = block;
    node->shared = shared;
    node->params.clear();
    node->param_offsets.clear();
    for (unsigned i = 0; i < unsigned(count); ++i) {
        size_t offset = 0, size = 0;
        simtgpuFuncGetParamInfo(f, i, &offset, &size);
        node->param_offsets.push_back(node->params.size());
        const auto *value = static_cast<const unsigned char *>(args[i]);
        node->params.insert(node->params.end(), value, value + size);
    }
    return cudaSuccess;
}

std::unique_ptr<CUgraphNode_st> memcpy_node(void *dst, const void *src, size_t bytes,
                                            cudaMemcpyKind kind) {
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemcpy;
    node->dst = dst;
    node->src = src;
    node->bytes = bytes;
    node->kind = kind;
    return node;
}

// Rows of `bytes` bytes set to `value`, `pitch` apart.
std::unique_ptr<CUgraphNode_st> memset_node(void *dst, int value, size_t bytes, size_t height,
                                            size_t pitch) {
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemset;
    node->dst = dst;
    node->value = value;
    node->bytes = bytes;
    node->height = height;
    node->pitch = pitch;
    return node;
}

std::unique_ptr<CUgraphNode_st> host_node(cudaHostFn_t fn, void *user_data) {
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeHost;
    node->fn = fn;
    node->user_data = user_data;
    return node;
}

// Every node that `deps` wait for, directly or not.
std::set<const CUgraphNode_st *> ancestors(const std::vector<CUgraphNode_st *> &deps) {
    std::set<const CUgraphNode_st *> seen;
    std::vector<const CUgraphNode_st *> todo(deps.begin(), deps.end());
    while (!todo.empty()) {
        const CUgraphNode_st *n = todo.back();
        todo.pop_back();
        if (seen.insert(n).second)
            todo.insert(todo.end(), n->deps.begin(), n->deps.end());
    }
    return seen;
}

// The address of a new allocation node of `graph` after `deps`: the range of
// an earlier allocation node of the graph if every node that allocates it is
// an ancestor and so is a free of it for each, else a new range of its own.
cudaError_t graph_allocation(const CUgraph_st *graph, const std::vector<CUgraphNode_st *> &deps,
                             size_t bytes, void **out) {
    Graphs &g = graphs();
    const std::set<const CUgraphNode_st *> before = ancestors(deps);
    struct Uses {
        int allocations = 0, allocations_before = 0, frees_before = 0;
    };
    std::map<void *, Uses> ranges;
    for (const auto &node : graph->nodes) {
        const bool is_before = before.count(node.get()) != 0;
        if (node->type == cudaGraphNodeTypeMemAlloc) {
            ++ranges[node->dst].allocations;
            ranges[node->dst].allocations_before += is_before;
        } else if (node->type == cudaGraphNodeTypeMemFree && is_before) {
            ++ranges[node->dst].frees_before;
        }
    }
    for (const auto &[range, uses] : ranges)
        if (uses.allocations && uses.allocations == uses.allocations_before &&
            uses.frees_before >= uses.allocations &&
            g.allocations.at(reinterpret_cast<uint64_t>(range)).range >= bytes) {
            *out = range;
            return cudaSuccess;
        }
    CUdeviceptr at = 0;
    const size_t granularity = size_t(2) << 20; // cuMemAddressReserve's
    if (cuMemAddressReserve(&at, (bytes + granularity - 1) / granularity * granularity, 0, 0, 0))
        return record(cudaErrorMemoryAllocation);
    GraphAllocation &a = g.allocations[at];
    a.range = (bytes + granularity - 1) / granularity * granularity;
    a.device = current_device();
    *out = reinterpret_cast<void *>(at);
    return cudaSuccess;
}

// An allocation node of `graph` after `deps`; its memory comes when it runs.
cudaError_t mem_alloc_node(const CUgraph_st *graph, const std::vector<CUgraphNode_st *> &deps,
                           size_t bytes, std::unique_ptr<CUgraphNode_st> *out) {
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemAlloc;
    node->bytes = bytes;
    if (cudaError_t err = graph_allocation(graph, deps, bytes, &node->dst))
        return err;
    *out = std::move(node);
    return cudaSuccess;
}

// The figures of cudaDeviceGetGraphMemAttribute as a BO comes or goes.
void count_graph_memory(int device, int64_t bytes) {
    Graphs &g = graphs();
    g.graph_memory[device] += bytes;
    g.graph_memory_high[device] = std::max(g.graph_memory_high[device], g.graph_memory[device]);
}

// Gives the BO of a range back to the device (the context waits for its
// work first, as cudaFree).
cudaError_t release_graph_memory(simtgpuContext ctx, uint64_t at, GraphAllocation &a) {
    if (simtgpuResult r = simtgpuMemFree(ctx, at))
        return record(r);
    count_graph_memory(a.device, -int64_t(a.backed));
    a.backed = 0;
    return cudaSuccess;
}

// An allocation node runs on `stream`: its range gets memory, the BO kept
// from its last run if that is large enough, else a new one, made after the
// BOs of the ranges freed earlier on this stream went back to the device.
cudaError_t run_alloc_node(const CUgraphNode_st &n, cudaStream_t stream, bool auto_free) {
    CONTEXT(ctx);
    const uint64_t at = reinterpret_cast<uint64_t>(n.dst);
    Graphs &g = graphs();
    GraphAllocation &a = g.allocations.at(at);
    if (a.live && !auto_free) {
        std::fprintf(stderr,
                     "simtgpu: cudaGraphLaunch: the graph's allocation at %p from its last "
                     "launch is not freed: free it (cudaFree, cudaFreeAsync or a free node) "
                     "before launching again, or instantiate with "
                     "cudaGraphInstantiateFlagAutoFreeOnLaunch\n",
                     n.dst);
        return record(cudaErrorInvalidValue);
    }
    const uint64_t bytes = (n.bytes + SIMTGPU_PAGE_SIZE - 1) / SIMTGPU_PAGE_SIZE * SIMTGPU_PAGE_SIZE;
    if (a.backed && a.backed < bytes)
        if (cudaError_t err = release_graph_memory(ctx, at, a))
            return err;
    if (!a.backed) {
        const simtgpuStream st = to_stream(stream);
        for (auto &[other_at, other] : g.allocations)
            if (other.backed && !other.live && other.device == a.device &&
                (other.freed_synchronously || other.freed_on == st))
                if (cudaError_t err = release_graph_memory(ctx, other_at, other))
                    return err;
        if (simtgpuResult r = simtgpuMemAllocAt(ctx, at, bytes))
            return record(r);
        a.backed = bytes;
        count_graph_memory(a.device, int64_t(bytes));
    }
    a.live = true;
    return cudaSuccess;
}

std::unique_ptr<CUgraphNode_st> mem_free_node(void *p) {
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemFree;
    node->dst = p;
    return node;
}

} // namespace

bool is_capturing(cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return capture_of(stream) != nullptr;
}

cudaError_t capture_refuse(cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return invalidate(capture_of(stream), cudaErrorStreamCaptureUnsupported);
}

cudaError_t capture_kernel(const void *func, simtgpuFunction f, dim3 grid, dim3 block, void **args,
                           size_t shared, cudaStream_t stream,
                           const std::vector<cudaLaunchAttribute> &attrs) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto node = std::make_unique<CUgraphNode_st>();
    if (cudaError_t err = fill_kernel_node(node.get(), func, f, grid, block, shared, args))
        return invalidate(capture_of(stream), err);
    node->attrs = attrs;
    return add(stream, std::move(node));
}

cudaError_t capture_memcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                           cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return add(stream, memcpy_node(dst, src, bytes, kind));
}

cudaError_t capture_memset(void *dst, int value, size_t bytes, cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return add(stream, memset_node(dst, value, bytes, 1, bytes));
}

cudaError_t capture_host(cudaHostFn_t fn, void *user_data, cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return add(stream, host_node(fn, user_data));
}

bool is_graph_allocation(const void *p) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return graphs().allocations.count(reinterpret_cast<uint64_t>(p)) != 0;
}

cudaError_t free_graph_allocation(const void *p, cudaStream_t stream, bool synchronously) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = graphs().allocations.find(reinterpret_cast<uint64_t>(p));
    if (it == graphs().allocations.end() || !it->second.live) {
        std::fprintf(stderr,
                     "simtgpu: free of graph memory at %p, which no launch has allocated "
                     "since it was last freed\n",
                     p);
        return record(cudaErrorInvalidValue);
    }
    it->second.live = false;
    it->second.freed_on = to_stream(stream);
    it->second.freed_synchronously = synchronously;
    return cudaSuccess;
}

cudaError_t capture_mem_alloc(void **ptr, size_t bytes, cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Capture *c = capture_of(stream);
    if (c->invalidated)
        return record(cudaErrorStreamCaptureInvalidated);
    std::unique_ptr<CUgraphNode_st> node;
    if (cudaError_t err = mem_alloc_node(c->graph, c->frontier[to_stream(stream)], bytes, &node))
        return invalidate(c, err);
    *ptr = node->dst;
    return add(stream, std::move(node));
}

cudaError_t capture_mem_free(void *p, cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return add(stream, mem_free_node(p));
}

bool capture_event_record(cudaEvent_t event, cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    auto it = g.capturing.find(to_stream(stream));
    if (it == g.capturing.end()) {
        g.captured_events.erase(event); // an ordinary record again
        g.captured_event_frontier.erase(event);
        return false;
    }
    g.captured_events[event] = it->second;
    g.captured_event_frontier[event] = it->second->frontier[to_stream(stream)];
    return true;
}

bool capture_wait_event(cudaStream_t stream, cudaEvent_t event, cudaError_t *err) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    *err = cudaSuccess;
    std::shared_ptr<Capture> from;
    if (auto e = g.captured_events.find(event); e != g.captured_events.end())
        from = e->second.lock();
    auto in = g.capturing.find(to_stream(stream));
    if (!from) {
        if (in == g.capturing.end())
            return false; // ordinary streams and events
        // A capture cannot wait for work outside it.
        *err = invalidate(in->second.get(), cudaErrorStreamCaptureIsolation);
        return true;
    }
    const std::vector<CUgraphNode_st *> &recorded = g.captured_event_frontier[event];
    if (in != g.capturing.end()) {
        if (in->second != from)
            *err = invalidate(in->second.get(), cudaErrorStreamCaptureMerge);
        else // the same capture: its work after what the event recorded
            merge_frontier(from->frontier[to_stream(stream)], recorded);
        return true;
    }
    if (!to_stream(stream)) {
        *err = invalidate(from.get(), cudaErrorStreamCaptureImplicit);
        return true; // the legacy stream cannot join a capture
    }
    g.capturing[to_stream(stream)] = from; // the stream joins the capture
    from->frontier[to_stream(stream)] = recorded;
    return true;
}

void forget_capture_stream(simtgpuStream stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    auto it = g.capturing.find(stream);
    if (it == g.capturing.end())
        return;
    std::shared_ptr<Capture> c = it->second;
    g.capturing.erase(it);
    // The last stream of a capture gone: its unfinished new graph with it.
    bool left = std::any_of(g.capturing.begin(), g.capturing.end(),
                            [&](const auto &entry) { return entry.second == c; });
    if (!left && c->owned)
        g.graphs.erase(c->graph);
}

} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

SIMTCUDA_API cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                                enum cudaStreamCaptureMode mode) {
    if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    (void)ctx;
    if (!to_stream(stream))
        return record(cudaErrorStreamCaptureUnsupported); // the legacy stream
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (capture_of(stream))
        return record(cudaErrorIllegalState);
    auto c = std::make_shared<Capture>();
    c->origin = to_stream(stream);
    c->mode = mode;
    c->id = graphs().next_capture_id++;
    c->owned = std::make_unique<CUgraph_st>();
    c->graph = c->owned.get();
    // A graph already while it is captured: cudaStreamGetCaptureInfo hands
    // it out, and nodes and conditional handles may be added to it.
    graphs().graphs.insert(c->graph);
    graphs().capturing[to_stream(stream)] = c;
    return cudaSuccess;
}

// CUDA 12.3: captures into `graph`, the stream's first work after
// `dependencies` (nodes of graph; default edges only).
SIMTCUDA_API cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                       const cudaGraphNode_t *dependencies,
                                                       const cudaGraphEdgeData *dependencyData,
                                                       size_t numDependencies,
                                                       enum cudaStreamCaptureMode mode) {
    if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed ||
        (numDependencies && !dependencies))
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    (void)ctx;
    if (!to_stream(stream))
        return record(cudaErrorStreamCaptureUnsupported); // the legacy stream
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    if (!g.graphs.count(graph))
        return record(cudaErrorInvalidValue);
    std::vector<CUgraphNode_st *> frontier;
    for (size_t i = 0; i < numDependencies; ++i) {
        const cudaGraphEdgeData *e = dependencyData ? &dependencyData[i] : nullptr;
        bool owned = std::any_of(graph->nodes.begin(), graph->nodes.end(),
                                 [&](const auto &n) { return n.get() == dependencies[i]; });
        if (!owned || (e && (e->from_port || e->to_port || e->type)))
            return record(cudaErrorInvalidValue);
        merge_frontier(frontier, {dependencies[i]});
    }
    if (capture_of(stream))
        return record(cudaErrorIllegalState);
    for (const auto &[s, other] : g.capturing)
        if (other->graph == graph)
            return record(cudaErrorIllegalState); // one capture into a graph at a time
    auto c = std::make_shared<Capture>();
    c->origin = to_stream(stream);
    c->mode = mode;
    c->id = g.next_capture_id++;
    c->graph = graph;
    c->frontier[to_stream(stream)] = std::move(frontier);
    g.capturing[to_stream(stream)] = c;
    return cudaSuccess;
}

// pGraph may be NULL for a capture into an existing graph (which it returns
// otherwise), as CUDA's.
SIMTCUDA_API cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    auto it = g.capturing.find(to_stream(stream));
    if (it == g.capturing.end())
        return record(cudaErrorIllegalState);
    std::shared_ptr<Capture> c = it->second;
    if (!pGraph && c->owned)
        return record(cudaErrorInvalidValue);
    if (c->origin != to_stream(stream)) {
        invalidate(c.get(), cudaErrorStreamCaptureUnmatched);
        return cudaErrorStreamCaptureUnmatched;
    }
    // Every stream of the capture leaves it.
    for (auto s = g.capturing.begin(); s != g.capturing.end();)
        s = s->second == c ? g.capturing.erase(s) : std::next(s);
    if (pGraph)
        *pGraph = nullptr;
    if (c->invalidated) {
        if (c->owned)
            g.graphs.erase(c->graph); // deleted with c
        return record(cudaErrorStreamCaptureInvalidated);
    }
    c->owned.release(); // the caller's now (registered since BeginCapture)
    if (pGraph)
        *pGraph = c->graph;
    return cudaSuccess;
}

// CUDA 12's cudaStreamGetCaptureInfo (_v2) and 12.3's _v3 with edge data:
// the capture's id, graph and the stream's frontier, while it captures.
SIMTCUDA_API cudaError_t cudaStreamGetCaptureInfo_v3(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out) {
    if (!captureStatus_out || (edgeData_out && !dependencies_out))
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Capture *c = capture_of(stream);
    *captureStatus_out = capture_status(c);
    if (*captureStatus_out != cudaStreamCaptureStatusActive)
        return cudaSuccess; // the other outputs only for an active capture
    if (id_out)
        *id_out = c->id;
    if (graph_out)
        *graph_out = c->graph;
    const std::vector<CUgraphNode_st *> &frontier = c->frontier[to_stream(stream)];
    std::vector<cudaGraphNode_t> &reported = c->reported[to_stream(stream)];
    reported.assign(frontier.begin(), frontier.end());
    if (dependencies_out)
        *dependencies_out = reported.empty() ? nullptr : reported.data();
    if (edgeData_out) {
        c->reported_edges.assign(reported.size(), cudaGraphEdgeData{});
        *edgeData_out = reported.empty() ? nullptr : c->reported_edges.data();
    }
    if (numDependencies_out)
        *numDependencies_out = reported.size();
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t
cudaStreamGetCaptureInfo_v2(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                            unsigned long long *id_out, cudaGraph_t *graph_out,
                            const cudaGraphNode_t **dependencies_out, size_t *numDependencies_out) {
    return cudaStreamGetCaptureInfo_v3(stream, captureStatus_out, id_out, graph_out,
                                       dependencies_out, nullptr, numDependencies_out);
}

SIMTCUDA_API cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                                  enum cudaStreamCaptureStatus *captureStatus_out,
                                                  unsigned long long *id_out,
                                                  cudaGraph_t *graph_out,
                                                  const cudaGraphNode_t **dependencies_out,
                                                  size_t *numDependencies_out) {
    return cudaStreamGetCaptureInfo_v3(stream, captureStatus_out, id_out, graph_out,
                                       dependencies_out, nullptr, numDependencies_out);
}

// The stream's frontier becomes `dependencies` (cudaStreamSetCaptureDependencies)
// or gains them (cudaStreamAddCaptureDependencies); nodes of the capture's graph.
SIMTCUDA_API cudaError_t cudaStreamUpdateCaptureDependencies_v2(
    cudaStream_t stream, cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, unsigned int flags) {
    if ((numDependencies && !dependencies) ||
        (flags != cudaStreamAddCaptureDependencies && flags != cudaStreamSetCaptureDependencies))
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Capture *c = capture_of(stream);
    if (!c)
        return record(cudaErrorIllegalState);
    if (c->invalidated)
        return record(cudaErrorStreamCaptureInvalidated);
    std::vector<CUgraphNode_st *> nodes;
    for (size_t i = 0; i < numDependencies; ++i) {
        const cudaGraphEdgeData *e = dependencyData ? &dependencyData[i] : nullptr;
        bool owned = std::any_of(c->graph->nodes.begin(), c->graph->nodes.end(),
                                 [&](const auto &n) { return n.get() == dependencies[i]; });
        if (!owned || (e && (e->from_port || e->to_port || e->type)))
            return record(cudaErrorInvalidValue);
        merge_frontier(nodes, {dependencies[i]});
    }
    std::vector<CUgraphNode_st *> &frontier = c->frontier[to_stream(stream)];
    if (flags == cudaStreamSetCaptureDependencies)
        frontier = std::move(nodes);
    else
        merge_frontier(frontier, nodes);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                             cudaGraphNode_t *dependencies,
                                                             size_t numDependencies,
                                                             unsigned int flags) {
    return cudaStreamUpdateCaptureDependencies_v2(stream, dependencies, nullptr, numDependencies,
                                                  flags);
}

SIMTCUDA_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                               enum cudaStreamCaptureStatus *pCaptureStatus) {
    if (!pCaptureStatus)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Capture *c = capture_of(stream);
    *pCaptureStatus = capture_status(c);
    return cudaSuccess;
}

namespace simtgpu::cudart {
namespace {

// The nodes of graph in an order that respects every dependency (Kahn's
// algorithm, taking nodes in the order they were added), conditional
// nodes' bodies instantiated with them; cudaErrorInvalidValue for a cycle.
cudaError_t build_exec(cudaGraph_t graph, CUgraphExec_st *exec) {
    std::map<const CUgraphNode_st *, size_t> waiting;
    for (const auto &node : graph->nodes)
        waiting[node.get()] = node->deps.size();
    while (exec->nodes.size() < graph->nodes.size()) {
        const CUgraphNode_st *ready = nullptr;
        for (const auto &node : graph->nodes)
            if (!exec->index.count(node.get()) && waiting[node.get()] == 0) {
                ready = node.get();
                break;
            }
        if (!ready) // a cycle (cudaGraphAddDependencies)
            return cudaErrorInvalidValue;
        exec->index[ready] = exec->nodes.size();
        exec->nodes.push_back(*ready);
        for (const auto &node : graph->nodes)
            for (const CUgraphNode_st *d : node->deps)
                if (d == ready)
                    --waiting[node.get()];
    }
    for (const auto &node : graph->nodes)
        exec->slot_of_added.push_back(exec->index[node.get()]);
    for (CUgraphNode_st &node : exec->nodes)
        for (CUgraph_st *body : node.bodies) {
            node.body_execs.push_back(std::make_shared<CUgraphExec_st>());
            if (cudaError_t err = build_exec(body, node.body_execs.back().get()))
                return err;
        }
    for (const auto &[handle, h] : graphs().handles)
        if (h.graph == graph && h.assign_default)
            exec->defaults.emplace_back(handle, h.default_value);
    return cudaSuccess;
}

} // namespace
} // namespace simtgpu::cudart

SIMTCUDA_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                                       cudaGraph_t graph,
                                                       unsigned long long flags) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    if (!pGraphExec || !g.graphs.count(graph) || (flags & ~1ull))
        return record(cudaErrorInvalidValue);
    auto *exec = new CUgraphExec_st;
    exec->auto_free_on_launch = flags & cudaGraphInstantiateFlagAutoFreeOnLaunch;
    if (cudaError_t err = build_exec(graph, exec)) {
        delete exec;
        return record(err);
    }
    g.execs.insert(exec);
    *pGraphExec = exec;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                              cudaGraphNode_t *pErrorNode, char *pLogBuffer,
                                              size_t bufferSize) {
    if (pErrorNode)
        *pErrorNode = nullptr;
    if (pLogBuffer && bufferSize)
        pLogBuffer[0] = '\0';
    return cudaGraphInstantiateWithFlags(pGraphExec, graph, 0);
}

namespace simtgpu::cudart {
namespace {

// A conditional handle's value once the stream's work before it is done.
cudaError_t condition_value(cudaGraphConditionalHandle handle, cudaStream_t stream,
                            unsigned *value) {
    if (cudaError_t err = cudaMemcpyAsync(value, reinterpret_cast<const void *>(handle),
                                          sizeof(*value), cudaMemcpyDeviceToHost, stream))
        return err;
    return cudaStreamSynchronize(stream);
}

// Replays nodes, in their order, on stream. A conditional node waits for
// the work before it, reads its handle and runs its body (once for IF,
// again while the handle stays non-zero for WHILE). Allocation and free
// nodes act on graph memory at once (run_alloc_node).
cudaError_t run_nodes(std::vector<CUgraphNode_st> &nodes, cudaStream_t stream, bool auto_free) {
    for (CUgraphNode_st &n : nodes) {
        cudaError_t err = cudaSuccess;
        switch (n.type) {
        case cudaGraphNodeTypeKernel: {
            std::vector<void *> args;
            for (size_t offset : n.param_offsets)
                args.push_back(n.params.data() + offset);
            err = launch_with_attributes(n.func, n.grid, n.block, args.data(), n.shared, stream,
                                         n.attrs);
            break;
        }
        case cudaGraphNodeTypeMemcpy:
            err = n.copy_3d ? cudaMemcpy3DAsync(&n.copy, stream)
                            : cudaMemcpyAsync(n.dst, n.src, n.bytes, n.kind, stream);
            break;
        case cudaGraphNodeTypeMemset:
            if (!n.pattern.empty())
                err = cudaMemcpy2DAsync(n.dst, n.pitch, n.pattern.data(), n.bytes, n.bytes,
                                        n.height, cudaMemcpyHostToDevice, stream);
            else if (n.height > 1)
                err = cudaMemset2DAsync(n.dst, n.pitch, n.value, n.bytes, n.height, stream);
            else
                err = cudaMemsetAsync(n.dst, n.value, n.bytes, stream);
            break;
        case cudaGraphNodeTypeHost:
            err = cudaLaunchHostFunc(stream, n.fn, n.user_data);
            break;
        case cudaGraphNodeTypeConditional: {
            unsigned value = 0;
            err = condition_value(n.handle, stream, &value);
            if (err != cudaSuccess)
                break;
            if (n.condition == cudaGraphCondTypeWhile) {
                while (err == cudaSuccess && value) {
                    err = run_nodes(n.body_execs[0]->nodes, stream, auto_free);
                    if (err == cudaSuccess)
                        err = condition_value(n.handle, stream, &value);
                }
                break;
            }
            // IF: body 0 when non-zero, else body 1 if there is one;
            // SWITCH: body[value] if there is one.
            size_t chosen = n.condition == cudaGraphCondTypeIf ? (value ? 0 : 1) : value;
            if (chosen < n.body_execs.size())
                err = run_nodes(n.body_execs[chosen]->nodes, stream, auto_free);
            break;
        }
        case cudaGraphNodeTypeMemAlloc: {
            Runtime &rt = runtime();
            std::lock_guard<std::recursive_mutex> guard(rt.mu);
            err = run_alloc_node(n, stream, auto_free);
            break;
        }
        case cudaGraphNodeTypeMemFree:
            err = free_graph_allocation(n.dst, stream, false);
            break;
        default:
            break;
        }
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

} // namespace
} // namespace simtgpu::cudart

SIMTCUDA_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
    std::vector<CUgraphNode_st> nodes;
    std::vector<std::pair<cudaGraphConditionalHandle, unsigned>> defaults;
    bool auto_free = false;
    {
        Runtime &rt = runtime();
        std::lock_guard<std::recursive_mutex> guard(rt.mu);
        if (!graphs().execs.count(graphExec))
            return record(cudaErrorInvalidValue);
        nodes = graphExec->nodes;
        defaults = graphExec->defaults;
        auto_free = graphExec->auto_free_on_launch;
    }
    for (auto &[handle, value] : defaults)
        if (cudaError_t err = cudaMemcpyAsync(reinterpret_cast<void *>(handle), &value,
                                              sizeof(value), cudaMemcpyHostToDevice, stream))
            return err;
    if (!defaults.empty()) // the copies read `defaults`, which goes on return
        if (cudaError_t err = cudaStreamSynchronize(stream))
            return err;
    return run_nodes(nodes, stream, auto_free);
}

// CUDA copies an instantiated graph's work to the device ahead of its
// launches; here a launch submits the nodes from the host, so there is
// nothing to copy and the upload is done once the graph is known.
SIMTCUDA_API cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
    (void)stream;
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!graphs().execs.count(graphExec))
        return record(cudaErrorInvalidValue);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!graphs().execs.erase(graphExec))
        return record(cudaErrorInvalidValue);
    delete graphExec;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    // Not while a capture adds to it (its capture would own a freed graph).
    for (const auto &[stream, capture] : graphs().capturing)
        if (capture->graph == graph)
            return record(cudaErrorIllegalState);
    if (!graphs().graphs.erase(graph))
        return record(cudaErrorInvalidValue);
    delete graph;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                                           size_t *numNodes) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!graphs().graphs.count(graph) || !numNodes)
        return record(cudaErrorInvalidValue);
    // As CUDA: entries past the graph's nodes are NULL, *numNodes the count.
    if (nodes)
        for (size_t i = 0; i < *numNodes; ++i)
            nodes[i] = i < graph->nodes.size() ? graph->nodes[i].get() : nullptr;
    *numNodes = nodes ? std::min(*numNodes, graph->nodes.size()) : graph->nodes.size();
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType) {
    if (!pType)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    for (cudaGraph_t g : graphs().graphs)
        for (const auto &n : g->nodes)
            if (n.get() == node) {
                *pType = node->type;
                return cudaSuccess;
            }
    return record(cudaErrorInvalidValue); // not a node of a live graph
}

// ------------------------------------------------------------ explicit API ---

namespace simtgpu::cudart {
namespace {

bool is_graph(cudaGraph_t graph) {
    return graphs().graphs.count(graph) != 0;
}

bool owns(cudaGraph_t graph, const CUgraphNode_st *node) {
    for (const auto &n : graph->nodes)
        if (n.get() == node)
            return true;
    return false;
}

// Adds node to graph after deps, which must be nodes of graph.
cudaError_t add_node(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                     size_t numDeps, std::unique_ptr<CUgraphNode_st> node) {
    if (!pNode || !is_graph(graph) || (numDeps && !deps))
        return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDeps; ++i) {
        if (!owns(graph, deps[i]))
            return record(cudaErrorInvalidValue);
        node->deps.push_back(deps[i]);
    }
    *pNode = node.get();
    graph->nodes.push_back(std::move(node));
    return cudaSuccess;
}

// A kernel node from the explicit API's parameters.
cudaError_t kernel_node(const cudaKernelNodeParams *p, CUgraphNode_st *node) {
    if (!p || p->extra)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    (void)ctx;
    simtgpuFunction f;
    if (cudaError_t err = function_for(p->func, &f))
        return err;
    return record(fill_kernel_node(node, p->func, f, p->gridDim, p->blockDim, p->sharedMemBytes,
                                   p->kernelParams));
}

} // namespace
} // namespace simtgpu::cudart

SIMTCUDA_API cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
    if (!pGraph || flags)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    *pGraph = new CUgraph_st;
    graphs().graphs.insert(*pGraph);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies,
                                                size_t numDependencies,
                                                const struct cudaKernelNodeParams *pNodeParams) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto node = std::make_unique<CUgraphNode_st>();
    if (cudaError_t err = kernel_node(pNodeParams, node.get()))
        return err;
    return add_node(pGraphNode, graph, pDependencies, numDependencies, std::move(node));
}

SIMTCUDA_API cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies,
                                                size_t numDependencies,
                                                const struct cudaMemcpy3DParms *pCopyParams) {
    if (!pCopyParams)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemcpy;
    node->copy_3d = true;
    node->copy = *pCopyParams;
    return add_node(pGraphNode, graph, pDependencies, numDependencies, std::move(node));
}

SIMTCUDA_API cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies,
                                                size_t numDependencies,
                                                const struct cudaMemsetParams *pMemsetParams) {
    const cudaMemsetParams *p = pMemsetParams;
    if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
        !p->width || !p->height)
        return record(cudaErrorInvalidValue);
    const size_t row = p->width * p->elementSize;
    if (p->height > 1 && p->pitch < row)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto node =
        memset_node(p->dst, int(p->value & 0xff), row, p->height, p->height > 1 ? p->pitch : row);
    // Elements whose bytes differ: the rows are filled here and copied.
    unsigned char element[4];
    std::memcpy(element, &p->value, 4); // little-endian: the low bytes first
    bool bytewise = true;
    for (unsigned i = 1; i < p->elementSize; ++i)
        bytewise = bytewise && element[i] == element[0];
    if (!bytewise) {
        node->pattern.resize(row * p->height);
        for (size_t i = 0; i < node->pattern.size(); ++i)
            node->pattern[i] = element[i % p->elementSize];
    }
    return add_node(pGraphNode, graph, pDependencies, numDependencies, std::move(node));
}

SIMTCUDA_API cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies, void *dst,
                                                  const void *src, size_t count,
                                                  cudaMemcpyKind kind) {
    if (!dst || !src || kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return add_node(pGraphNode, graph, pDependencies, numDependencies,
                    memcpy_node(dst, src, count, kind));
}

SIMTCUDA_API cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies,
                                                  cudaMemAllocNodeParams *nodeParams) {
    if (!nodeParams || !nodeParams->bytesize ||
        nodeParams->poolProps.allocType != cudaMemAllocationTypePinned ||
        nodeParams->poolProps.location.type != cudaMemLocationTypeDevice)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!pGraphNode || !is_graph(graph) || (numDependencies && !pDependencies))
        return record(cudaErrorInvalidValue);
    std::vector<CUgraphNode_st *> deps;
    for (size_t i = 0; i < numDependencies; ++i) {
        if (!owns(graph, pDependencies[i]))
            return record(cudaErrorInvalidValue);
        deps.push_back(pDependencies[i]);
    }
    std::unique_ptr<CUgraphNode_st> node;
    if (cudaError_t err = mem_alloc_node(graph, deps, nodeParams->bytesize, &node))
        return err;
    nodeParams->dptr = node->dst;
    return add_node(pGraphNode, graph, pDependencies, numDependencies, std::move(node));
}

SIMTCUDA_API cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies,
                                                 size_t numDependencies, void *dptr) {
    if (!is_graph_allocation(dptr))
        return record(cudaErrorInvalidValue); // as CUDA: graph memory only
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return add_node(pGraphNode, graph, pDependencies, numDependencies, mem_free_node(dptr));
}

// Gives back the memory of every range of graph memory no allocation holds.
SIMTCUDA_API cudaError_t cudaDeviceGraphMemTrim(int device) {
    CONTEXT(ctx);
    if (device < 0 || device >= runtime().device_count)
        return record(cudaErrorInvalidDevice);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    for (auto &[at, a] : graphs().allocations)
        if (a.backed && !a.live && a.device == device)
            if (cudaError_t err = release_graph_memory(ctx, at, a))
                return err;
    return cudaSuccess;
}

// Graph memory in use and reserved: the bytes of the BOs graph allocations
// hold or keep (GraphAllocation); the high-water marks reset to the current
// figure, the lowest a mark of usage since the reset can be.
SIMTCUDA_API cudaError_t cudaDeviceGetGraphMemAttribute(int device,
                                                        enum cudaGraphMemAttributeType attr,
                                                        void *value) {
    CONTEXT(ctx);
    (void)ctx;
    if (device < 0 || device >= runtime().device_count)
        return record(cudaErrorInvalidDevice);
    if (!value)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent:
    case cudaGraphMemAttrReservedMemCurrent:
        *static_cast<uint64_t *>(value) = g.graph_memory[device];
        return cudaSuccess;
    case cudaGraphMemAttrUsedMemHigh:
    case cudaGraphMemAttrReservedMemHigh:
        *static_cast<uint64_t *>(value) = g.graph_memory_high[device];
        return cudaSuccess;
    }
    return record(cudaErrorInvalidValue);
}

SIMTCUDA_API cudaError_t cudaDeviceSetGraphMemAttribute(int device,
                                                        enum cudaGraphMemAttributeType attr,
                                                        void *value) {
    CONTEXT(ctx);
    (void)ctx;
    if (device < 0 || device >= runtime().device_count)
        return record(cudaErrorInvalidDevice);
    // As CUDA: only the high-water marks, and only reset to zero.
    if (!value || *static_cast<const uint64_t *>(value) != 0 ||
        (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh))
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    graphs().graph_memory_high[device] = graphs().graph_memory[device];
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies,
                                              size_t numDependencies,
                                              const struct cudaHostNodeParams *pNodeParams) {
    if (!pNodeParams || !pNodeParams->fn)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return add_node(pGraphNode, graph, pDependencies, numDependencies,
                    host_node(pNodeParams->fn, pNodeParams->userData));
}

SIMTCUDA_API cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return add_node(pGraphNode, graph, pDependencies, numDependencies,
                    std::make_unique<CUgraphNode_st>());
}

// A handle is the device address of its value, which device code sets
// (cudaGraphSetConditional in cuda_runtime.h) and launches read.
SIMTCUDA_API cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
                                                          cudaGraph_t graph,
                                                          unsigned int defaultLaunchValue,
                                                          unsigned int flags) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!pHandle_out || !is_graph(graph) || (flags & ~unsigned(cudaGraphCondAssignDefault)))
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    uint64_t p = 0;
    if (simtgpuResult r = simtgpuMemAlloc(ctx, &p, sizeof(unsigned)))
        return record(r);
    if (simtgpuResult r = simtgpuMemcpyHtoD(ctx, p, &defaultLaunchValue, sizeof(unsigned)))
        return record(r);
    graphs().handles[p] = {graph, defaultLaunchValue, (flags & cudaGraphCondAssignDefault) != 0};
    *pHandle_out = p;
    return cudaSuccess;
}

// cudaGraphAddNode: kernel nodes, and conditional nodes (IF with one body
// or a body and an else, WHILE with one, SWITCH with any number), whose
// body graphs the node owns; the other kinds come by their own calls.
SIMTCUDA_API cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          struct cudaGraphNodeParams *nodeParams) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!nodeParams)
        return record(cudaErrorInvalidValue);
    auto node = std::make_unique<CUgraphNode_st>();
    if (nodeParams->type == cudaGraphNodeTypeKernel) {
        const cudaKernelNodeParamsV2 &k = nodeParams->kernel;
        const cudaKernelNodeParams p = {k.func,           k.gridDim,      k.blockDim,
                                        k.sharedMemBytes, k.kernelParams, k.extra};
        if (cudaError_t err = kernel_node(&p, node.get()))
            return err;
        return add_node(pGraphNode, graph, pDependencies, numDependencies, std::move(node));
    }
    if (nodeParams->type != cudaGraphNodeTypeConditional)
        return record(cudaErrorInvalidValue);
    cudaConditionalNodeParams &c = nodeParams->conditional;
    const bool sized = (c.type == cudaGraphCondTypeIf && (c.size == 1 || c.size == 2)) ||
                       (c.type == cudaGraphCondTypeWhile && c.size == 1) ||
                       (c.type == cudaGraphCondTypeSwitch && c.size >= 1);
    if (!graphs().handles.count(c.handle) || !sized)
        return record(cudaErrorInvalidValue);
    node->type = cudaGraphNodeTypeConditional;
    node->handle = c.handle;
    node->condition = c.type;
    if (cudaError_t err =
            add_node(pGraphNode, graph, pDependencies, numDependencies, std::move(node)))
        return err;
    for (unsigned i = 0; i < c.size; ++i) {
        auto *body = new CUgraph_st;
        (*pGraphNode)->bodies.push_back(body);
        graphs().graphs.insert(body);
    }
    // As CUDA: phGraph_out is an output, the node's own array of its bodies
    // (valid while the node lives), not an array of the caller's.
    c.phGraph_out = (*pGraphNode)->bodies.data();
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to,
                                                  size_t numDependencies) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!is_graph(graph) || (numDependencies && (!from || !to)))
        return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; ++i)
        if (!owns(graph, from[i]) || !owns(graph, to[i]) || from[i] == to[i])
            return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; ++i)
        to[i]->deps.push_back(from[i]);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                                      struct cudaKernelNodeParams *pNodeParams) {
    if (!node || !pNodeParams || node->type != cudaGraphNodeTypeKernel)
        return record(cudaErrorInvalidValue);
    // kernelParams point into the node, as CUDA's do.
    static thread_local std::vector<void *> args;
    args.clear();
    for (size_t offset : node->param_offsets)
        args.push_back(node->params.data() + offset);
    pNodeParams->func = const_cast<void *>(node->func);
    pNodeParams->gridDim = node->grid;
    pNodeParams->blockDim = node->block;
    pNodeParams->sharedMemBytes = unsigned(node->shared);
    pNodeParams->kernelParams = args.data();
    pNodeParams->extra = nullptr;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t
cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams) {
    if (!node || node->type != cudaGraphNodeTypeKernel)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return kernel_node(pNodeParams, node);
}

SIMTCUDA_API cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node,
                                                         cudaKernelNodeAttrID attr,
                                                         cudaKernelNodeAttrValue *value) {
    if (!node || !value || node->type != cudaGraphNodeTypeKernel)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (attr < cudaLaunchAttributeIgnore || attr > cudaLaunchAttributeLaunchCompletionEvent)
        return record(cudaErrorInvalidValue); // not an id of driver_types.h
    *value = cudaLaunchAttributeValue{}; // never set: the default
    for (const cudaLaunchAttribute &a : node->attrs)
        if (a.id == attr)
            *value = a.val;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node,
                                                         cudaKernelNodeAttrID attr,
                                                         const cudaKernelNodeAttrValue *value) {
    if (!node || !value || node->type != cudaGraphNodeTypeKernel)
        return record(cudaErrorInvalidValue);
    LaunchAttributes check;
    if (cudaError_t err = add_launch_attribute(attr, *value, &check))
        return record(err);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    std::erase_if(node->attrs, [attr](const cudaLaunchAttribute &a) { return a.id == attr; });
    cudaLaunchAttribute a{};
    a.id = attr;
    a.val = *value;
    node->attrs.push_back(a);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst,
                                                           cudaGraphNode_t src) {
    if (!dst || !src || dst->type != cudaGraphNodeTypeKernel ||
        src->type != cudaGraphNodeTypeKernel)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    dst->attrs = src->attrs;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!pGraphClone || !is_graph(originalGraph))
        return record(cudaErrorInvalidValue);
    // As CUDA: a clone would share the allocation nodes' address ranges.
    for (const auto &node : originalGraph->nodes)
        if (node->type == cudaGraphNodeTypeMemAlloc || node->type == cudaGraphNodeTypeMemFree) {
            std::fprintf(stderr, "simtgpu: cudaGraphClone: graphs with memory allocation or "
                                 "free nodes cannot be cloned (as in CUDA)\n");
            return record(cudaErrorNotSupported);
        }
    auto *clone = new CUgraph_st;
    std::map<const CUgraphNode_st *, CUgraphNode_st *> copy_of;
    for (const auto &node : originalGraph->nodes) {
        clone->nodes.push_back(std::make_unique<CUgraphNode_st>(*node));
        copy_of[node.get()] = clone->nodes.back().get();
    }
    for (auto &node : clone->nodes)
        for (CUgraphNode_st *&d : node->deps)
            d = copy_of[d];
    graphs().graphs.insert(clone);
    *pGraphClone = clone;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                               size_t *pNumRootNodes) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!is_graph(graph) || !pNumRootNodes)
        return record(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> roots;
    for (const auto &node : graph->nodes)
        if (node->deps.empty())
            roots.push_back(node.get());
    if (pRootNodes)
        for (size_t i = 0; i < *pNumRootNodes; ++i)
            pRootNodes[i] = i < roots.size() ? roots[i] : nullptr;
    *pNumRootNodes = pRootNodes ? std::min(*pNumRootNodes, roots.size()) : roots.size();
    return cudaSuccess;
}

// CUDA's form: entries past the node's dependencies are NULL,
// *pNumDependencies the count (all of them when pDependencies is NULL).
SIMTCUDA_API cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                                      cudaGraphNode_t *pDependencies,
                                                      size_t *pNumDependencies) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!pNumDependencies)
        return record(cudaErrorInvalidValue);
    bool live = false;
    for (cudaGraph_t g : graphs().graphs)
        live = live || owns(g, node);
    if (!live)
        return record(cudaErrorInvalidValue); // not a node of a live graph
    const std::vector<CUgraphNode_st *> &deps = node->deps;
    if (pDependencies)
        for (size_t i = 0; i < *pNumDependencies; ++i)
            pDependencies[i] = i < deps.size() ? deps[i] : nullptr;
    *pNumDependencies = pDependencies ? std::min(*pNumDependencies, deps.size()) : deps.size();
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t
cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                 const struct cudaKernelNodeParams *pNodeParams) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!graphs().execs.count(hGraphExec))
        return record(cudaErrorInvalidValue);
    auto it = hGraphExec->index.find(node);
    if (it == hGraphExec->index.end() ||
        hGraphExec->nodes[it->second].type != cudaGraphNodeTypeKernel)
        return record(cudaErrorInvalidValue);
    CUgraphNode_st updated = hGraphExec->nodes[it->second];
    if (cudaError_t err = kernel_node(pNodeParams, &updated))
        return err;
    if (updated.func != hGraphExec->nodes[it->second].func)
        return record(cudaErrorInvalidValue); // as CUDA: the function cannot change
    hGraphExec->nodes[it->second] = std::move(updated);
    return cudaSuccess;
}

// CUDA 11's form: the graph must have the executable's topology; its nodes'
// parameters replace the executable's.
SIMTCUDA_API cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                             cudaGraphNode_t *hErrorNode_out,
                                             enum cudaGraphExecUpdateResult *updateResult_out) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!graphs().execs.count(hGraphExec) || !is_graph(hGraph) || !updateResult_out)
        return record(cudaErrorInvalidValue);
    if (hErrorNode_out)
        *hErrorNode_out = nullptr;
    auto refuse = [&](cudaGraphExecUpdateResult why, cudaGraphNode_t node) {
        *updateResult_out = why;
        if (hErrorNode_out)
            *hErrorNode_out = node;
        return record(cudaErrorGraphExecUpdateFailure);
    };
    if (hGraph->nodes.size() != hGraphExec->nodes.size())
        return refuse(cudaGraphExecUpdateErrorTopologyChanged, nullptr);
    // Nodes pair up in the order they were added, as CUDA pairs them.
    std::vector<CUgraphNode_st> updated = hGraphExec->nodes;
    for (size_t k = 0; k < hGraph->nodes.size(); ++k) {
        const CUgraphNode_st &node = *hGraph->nodes[k];
        CUgraphNode_st &slot = updated[hGraphExec->slot_of_added[k]];
        if (node.type != slot.type)
            return refuse(cudaGraphExecUpdateErrorNodeTypeChanged, hGraph->nodes[k].get());
        if (node.type == cudaGraphNodeTypeKernel && node.func != slot.func)
            return refuse(cudaGraphExecUpdateErrorFunctionChanged, hGraph->nodes[k].get());
        if (node.deps.size() != slot.deps.size())
            return refuse(cudaGraphExecUpdateErrorTopologyChanged, hGraph->nodes[k].get());
        std::vector<CUgraphNode_st *> deps = slot.deps;
        slot = node;
        slot.deps = deps;
    }
    hGraphExec->nodes = std::move(updated);
    *updateResult_out = cudaGraphExecUpdateSuccess;
    return cudaSuccess;
}
