// CUDA graphs by stream capture. While a stream captures, the runtime's
// queueing calls hand their work here instead of to the device: each
// becomes a node, in the order the calls came (streams that join the
// capture through an event add theirs to the same sequence, which keeps
// every dependency). An instantiated graph replays its nodes in that order
// on the launch's stream, through the same calls.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "runtime.h"

struct CUgraphNode_st {
    cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
    // Kernel: the host stub, geometry and a copy of the argument values.
    const void *func = nullptr;
    dim3 grid, block;
    size_t shared = 0;
    std::vector<unsigned char> params;
    std::vector<size_t> param_offsets;
    // Memcpy / memset.
    void *dst = nullptr;
    const void *src = nullptr;
    size_t bytes = 0;
    cudaMemcpyKind kind = cudaMemcpyDefault;
    int value = 0;
    // Host.
    cudaHostFn_t fn = nullptr;
    void *user_data = nullptr;
};

struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
};

struct CUgraphExec_st {
    std::vector<CUgraphNode_st> nodes;
};

namespace simtgpu::cudart {
namespace {

struct Capture {
    simtgpuStream origin;
    cudaStreamCaptureMode mode;
    bool invalidated = false;
    std::unique_ptr<CUgraph_st> graph = std::make_unique<CUgraph_st>();
};

struct Graphs {
    std::map<simtgpuStream, std::shared_ptr<Capture>> capturing; // every stream in a capture
    std::map<cudaEvent_t, std::weak_ptr<Capture>> captured_events;
    std::set<cudaGraph_t> graphs;
    std::set<cudaGraphExec_t> execs;
};

Graphs &graphs() {
    static Graphs *g = new Graphs; // as runtime(): lives past exit-time code
    return *g;
}

Capture *capture_of(cudaStream_t stream) {
    auto it = graphs().capturing.find(to_stream(stream));
    return it == graphs().capturing.end() ? nullptr : it->second.get();
}

// What a capture records after an error: nothing; EndCapture reports it.
cudaError_t add(cudaStream_t stream, std::unique_ptr<CUgraphNode_st> node) {
    Capture *c = capture_of(stream);
    if (c->invalidated)
        return record(cudaErrorStreamCaptureInvalidated);
    c->graph->nodes.push_back(std::move(node));
    return cudaSuccess;
}

cudaError_t invalidate(Capture *c, cudaError_t err) {
    c->invalidated = true;
    return record(err);
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
                           size_t shared, cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeKernel;
    node->func = func;
    node->grid = grid;
    node->block = block;
    node->shared = shared;
    // The argument values as they are now, as CUDA copies them at capture.
    int count = 0;
    simtgpuFuncGetAttribute(&count, SIMTGPU_FUNC_ATTRIBUTE_NUM_PARAMS, f);
    if (count > 0 && !args)
        return invalidate(capture_of(stream), cudaErrorInvalidValue);
    for (unsigned i = 0; i < unsigned(count); ++i) {
        size_t offset = 0, size = 0;
        simtgpuFuncGetParamInfo(f, i, &offset, &size);
        node->param_offsets.push_back(node->params.size());
        const auto *value = static_cast<const unsigned char *>(args[i]);
        node->params.insert(node->params.end(), value, value + size);
    }
    return add(stream, std::move(node));
}

cudaError_t capture_memcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                           cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemcpy;
    node->dst = dst;
    node->src = src;
    node->bytes = bytes;
    node->kind = kind;
    return add(stream, std::move(node));
}

cudaError_t capture_memset(void *dst, int value, size_t bytes, cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemset;
    node->dst = dst;
    node->value = value;
    node->bytes = bytes;
    return add(stream, std::move(node));
}

cudaError_t capture_host(cudaHostFn_t fn, void *user_data, cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeHost;
    node->fn = fn;
    node->user_data = user_data;
    return add(stream, std::move(node));
}

bool capture_event_record(cudaEvent_t event, cudaStream_t stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    auto it = g.capturing.find(to_stream(stream));
    if (it == g.capturing.end()) {
        g.captured_events.erase(event); // an ordinary record again
        return false;
    }
    g.captured_events[event] = it->second;
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
    if (in != g.capturing.end()) {
        if (in->second != from)
            *err = invalidate(in->second.get(), cudaErrorStreamCaptureMerge);
        return true; // the same capture: its sequence already orders them
    }
    if (!to_stream(stream)) {
        *err = invalidate(from.get(), cudaErrorStreamCaptureImplicit);
        return true; // the legacy stream cannot join a capture
    }
    g.capturing[to_stream(stream)] = from; // the stream joins the capture
    return true;
}

void forget_capture_stream(simtgpuStream stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    graphs().capturing.erase(stream);
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
    graphs().capturing[to_stream(stream)] = c;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
    if (!pGraph)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    auto it = g.capturing.find(to_stream(stream));
    if (it == g.capturing.end())
        return record(cudaErrorIllegalState);
    std::shared_ptr<Capture> c = it->second;
    if (c->origin != to_stream(stream)) {
        invalidate(c.get(), cudaErrorStreamCaptureUnmatched);
        return cudaErrorStreamCaptureUnmatched;
    }
    // Every stream of the capture leaves it.
    for (auto s = g.capturing.begin(); s != g.capturing.end();)
        s = s->second == c ? g.capturing.erase(s) : std::next(s);
    *pGraph = nullptr;
    if (c->invalidated)
        return record(cudaErrorStreamCaptureInvalidated);
    *pGraph = c->graph.release();
    g.graphs.insert(*pGraph);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                               enum cudaStreamCaptureStatus *pCaptureStatus) {
    if (!pCaptureStatus)
        return record(cudaErrorInvalidValue);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Capture *c = capture_of(stream);
    *pCaptureStatus = !c               ? cudaStreamCaptureStatusNone
                      : c->invalidated ? cudaStreamCaptureStatusInvalidated
                                       : cudaStreamCaptureStatusActive;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                                       cudaGraph_t graph,
                                                       unsigned long long flags) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Graphs &g = graphs();
    if (!pGraphExec || !g.graphs.count(graph) || (flags & ~1ull))
        return record(cudaErrorInvalidValue);
    auto *exec = new CUgraphExec_st;
    for (const auto &node : graph->nodes)
        exec->nodes.push_back(*node);
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

SIMTCUDA_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
    std::vector<CUgraphNode_st> nodes;
    {
        Runtime &rt = runtime();
        std::lock_guard<std::recursive_mutex> guard(rt.mu);
        if (!graphs().execs.count(graphExec))
            return record(cudaErrorInvalidValue);
        nodes = graphExec->nodes;
    }
    for (CUgraphNode_st &n : nodes) {
        cudaError_t err = cudaSuccess;
        switch (n.type) {
        case cudaGraphNodeTypeKernel: {
            std::vector<void *> args;
            for (size_t offset : n.param_offsets)
                args.push_back(n.params.data() + offset);
            err = cudaLaunchKernel(n.func, n.grid, n.block, args.data(), n.shared, stream);
            break;
        }
        case cudaGraphNodeTypeMemcpy:
            err = cudaMemcpyAsync(n.dst, n.src, n.bytes, n.kind, stream);
            break;
        case cudaGraphNodeTypeMemset:
            err = cudaMemsetAsync(n.dst, n.value, n.bytes, stream);
            break;
        case cudaGraphNodeTypeHost:
            err = cudaLaunchHostFunc(stream, n.fn, n.user_data);
            break;
        default:
            break;
        }
        if (err != cudaSuccess)
            return err;
    }
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
