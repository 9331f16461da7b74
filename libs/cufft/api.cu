// cuFFT's API (cufft.h): plans made and checked here, executed by fft.cu.
// Each call returns cuFFT's result codes and prints one line on stderr
// naming the problem.
#include "plan.h"

#include "cufftXt.h"

#include <cstdarg>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

namespace simtgpu::cufftlib {
namespace {

std::mutex plans_lock;
std::map<cufftHandle, std::unique_ptr<Plan>> plans;
cufftHandle next_handle = 1;

cufftResult fail(cufftResult result, const char *call, const char *format, ...)
{
    std::fprintf(stderr, "cufft: %s: ", call);
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fputc('\n', stderr);
    return result;
}

Plan *find(cufftHandle handle)
{
    std::lock_guard<std::mutex> hold(plans_lock);
    auto it = plans.find(handle);
    return it == plans.end() ? nullptr : it->second.get();
}

bool is_double(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
bool real_in(cufftType t) { return t == CUFFT_R2C || t == CUFFT_D2Z; }
bool real_out(cufftType t) { return t == CUFFT_C2R || t == CUFFT_Z2D; }

// A layout: the caller's (embed given) or the basic one of `shape`.
Layout layout_of(const Shape &shape, const long long *embed, long long stride, long long dist)
{
    Layout l;
    if (!embed) {
        for (int d = 0; d < shape.rank; ++d)
            l.embed[d] = shape.n[d];
        l.dist = shape.count();
        return l;
    }
    for (int d = 0; d < shape.rank; ++d)
        l.embed[d] = embed[d];
    l.stride = stride;
    l.dist = dist;
    return l;
}

// Checks and fills `plan` (not yet allocated): lengths, layouts, axes.
cufftResult describe(Plan &plan, int rank, const long long *n, const long long *inembed,
                     long long istride, long long idist, const long long *onembed,
                     long long ostride, long long odist, cufftType type, long long batch,
                     const char *call)
{
    switch (type) {
    case CUFFT_C2C: case CUFFT_R2C: case CUFFT_C2R:
    case CUFFT_Z2Z: case CUFFT_D2Z: case CUFFT_Z2D:
        break;
    default:
        return fail(CUFFT_INVALID_TYPE, call, "type 0x%x is not a cufftType", unsigned(type));
    }
    if (rank < 1 || rank > kMaxRank)
        return fail(CUFFT_INVALID_SIZE, call, "rank %d: cuFFT transforms have 1 to 3 dimensions",
                    rank);
    if (!n)
        return fail(CUFFT_INVALID_VALUE, call, "n is NULL");
    if (batch < 1)
        return fail(CUFFT_INVALID_SIZE, call, "batch (%lld) must be at least 1", batch);
    plan.type = type;
    plan.dbl = is_double(type);
    plan.batch = batch;
    plan.shape.rank = rank;
    for (int d = 0; d < rank; ++d) {
        if (n[d] < 1)
            return fail(CUFFT_INVALID_SIZE, call, "n[%d] (%lld) must be at least 1", d, n[d]);
        plan.shape.n[d] = n[d];
    }
    if ((inembed && (istride < 1 || idist < 1)) || (onembed && (ostride < 1 || odist < 1)))
        return fail(CUFFT_INVALID_VALUE, call,
                    "with inembed/onembed, the strides and distances must be at least 1");
    Shape half = plan.shape;
    half.n[rank - 1] = plan.shape.n[rank - 1] / 2 + 1;
    plan.in = layout_of(real_out(type) ? half : plan.shape, inembed, istride, idist);
    plan.out = layout_of(real_in(type) ? half : plan.shape, onembed, ostride, odist);
    plan.in_default = !inembed;
    plan.out_default = !onembed;
    const long long total = plan.shape.count();
    long long stride = total;
    plan.axes.clear();
    plan.bluestein_elements = 0;
    for (int d = 0; d < rank; ++d) {
        Axis axis;
        axis.n = plan.shape.n[d];
        stride /= axis.n;
        axis.stride = stride;
        axis.radices = radices_of(axis.n);
        if (axis.radices.empty() && axis.n > 1) { // a prime factor above kMaxRadix
            axis.bluestein_m = 1;
            while (axis.bluestein_m < 2 * axis.n - 1)
                axis.bluestein_m *= 2;
            axis.radices = radices_of(axis.bluestein_m);
            plan.bluestein_elements =
                std::max(plan.bluestein_elements, total * batch / axis.n * axis.bluestein_m);
        }
        plan.axes.push_back(axis);
    }
    const size_t complex_bytes = plan.dbl ? 16 : 8;
    plan.work_bytes = complex_bytes * size_t(2 * total * batch + 2 * plan.bluestein_elements);
    return CUFFT_SUCCESS;
}

cufftResult make(cufftHandle handle, int rank, const long long *n, const long long *inembed,
                 long long istride, long long idist, const long long *onembed, long long ostride,
                 long long odist, cufftType type, long long batch, size_t *work_size,
                 const char *call)
{
    Plan *plan = find(handle);
    if (!plan)
        return fail(CUFFT_INVALID_PLAN, call, "plan %d was not made by cufftCreate", handle);
    if (plan->made)
        return fail(CUFFT_INVALID_PLAN, call, "plan %d is already made: destroy it first", handle);
    if (cufftResult r = describe(*plan, rank, n, inembed, istride, idist, onembed, ostride, odist,
                                 type, batch, call))
        return r;
    if (cudaError_t e = make_filters(*plan)) {
        free_filters(*plan);
        return fail(CUFFT_SETUP_FAILED, call, "Bluestein's filters: %s", cudaGetErrorString(e));
    }
    if (plan->auto_allocate) {
        if (cudaError_t e = cudaMalloc(&plan->work, plan->work_bytes)) {
            free_filters(*plan);
            return fail(CUFFT_ALLOC_FAILED, call, "%zu bytes of work area: %s", plan->work_bytes,
                        cudaGetErrorString(e));
        }
        plan->own_work = true;
    }
    if (work_size)
        *work_size = plan->work_bytes;
    plan->made = true;
    return CUFFT_SUCCESS;
}

cufftResult create(cufftHandle *handle)
{
    if (!handle)
        return fail(CUFFT_INVALID_VALUE, "cufftCreate", "handle is NULL");
    std::lock_guard<std::mutex> hold(plans_lock);
    *handle = next_handle++;
    plans[*handle] = std::make_unique<Plan>();
    return CUFFT_SUCCESS;
}

void destroy(cufftHandle handle)
{
    std::unique_ptr<Plan> plan;
    {
        std::lock_guard<std::mutex> hold(plans_lock);
        auto it = plans.find(handle);
        if (it == plans.end())
            return;
        plan = std::move(it->second);
        plans.erase(it);
    }
    free_filters(*plan);
    if (plan->own_work)
        cudaFree(plan->work);
}

// Plan1d/2d/3d/Many through cufftCreate and MakePlan*, the plan destroyed again on failure.
cufftResult plan_of(cufftHandle *handle, int rank, const long long *n, const long long *inembed,
                    long long istride, long long idist, const long long *onembed,
                    long long ostride, long long odist, cufftType type, long long batch,
                    const char *call)
{
    if (!handle)
        return fail(CUFFT_INVALID_VALUE, call, "plan is NULL");
    if (cufftResult r = create(handle))
        return r;
    cufftResult r = make(*handle, rank, n, inembed, istride, idist, onembed, ostride, odist, type,
                         batch, nullptr, call);
    if (r != CUFFT_SUCCESS)
        destroy(*handle);
    return r;
}

// Copies int arrays of up to kMaxRank into long long ones (NULL stays NULL).
struct Dims {
    long long v[kMaxRank] = {};
    const long long *p = nullptr;
    Dims(const int *a, int rank)
    {
        if (!a || rank < 1 || rank > kMaxRank)
            return;
        for (int d = 0; d < rank; ++d)
            v[d] = a[d];
        p = v;
    }
};

// The plan type of cufftXt's (input, output, execution) data types.
cufftResult xt_type(cudaDataType input, cudaDataType output, cudaDataType execution,
                    cufftType *type, const char *call)
{
    struct Row {
        cudaDataType input, output, execution;
        cufftType type;
    };
    static const Row kRows[] = {
        {CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_C2C}, {CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_R2C},
        {CUDA_C_32F, CUDA_R_32F, CUDA_C_32F, CUFFT_C2R}, {CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_Z2Z},
        {CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_D2Z}, {CUDA_C_64F, CUDA_R_64F, CUDA_C_64F, CUFFT_Z2D},
    };
    for (const Row &row : kRows)
        if (row.input == input && row.output == output && row.execution == execution) {
            *type = row.type;
            return CUFFT_SUCCESS;
        }
    return fail(CUFFT_NOT_SUPPORTED, call,
                "data types (%d, %d, %d): simtgpu's cuFFT has single and double precision "
                "C2C, R2C and C2R (no half precision)",
                int(input), int(output), int(execution));
}

cufftResult exec(cufftHandle handle, const void *in, void *out, int direction, bool want_double,
                 int want_kind, const char *call)
{
    Plan *plan = find(handle);
    if (!plan || !plan->made)
        return fail(CUFFT_INVALID_PLAN, call, "plan %d is not a made plan", handle);
    // want_kind: 0 complex to complex, 1 real to complex, 2 complex to real.
    const int kind = real_in(plan->type) ? 1 : real_out(plan->type) ? 2 : 0;
    if (kind != want_kind || plan->dbl != want_double)
        return fail(CUFFT_INVALID_VALUE, call, "plan %d is of type 0x%x, not for this call",
                    handle, unsigned(plan->type));
    if (direction != CUFFT_FORWARD && direction != CUFFT_INVERSE)
        return fail(CUFFT_INVALID_VALUE, call,
                    "direction (%d) must be CUFFT_FORWARD (-1) or CUFFT_INVERSE (1)", direction);
    if (!in || !out)
        return fail(CUFFT_INVALID_VALUE, call, "idata and odata must not be NULL");
    if (!plan->work)
        return fail(CUFFT_NO_WORKSPACE, call,
                    "plan %d has no work area: cufftSetWorkArea (%zu bytes) or auto-allocation",
                    handle, plan->work_bytes);
    if (cudaError_t e = execute(*plan, in, out, direction))
        return fail(CUFFT_EXEC_FAILED, call, "%s", cudaGetErrorString(e));
    return CUFFT_SUCCESS;
}

} // namespace
} // namespace simtgpu::cufftlib

using namespace simtgpu::cufftlib;

extern "C" {

cufftResult cufftCreate(cufftHandle *handle) { return create(handle); }

cufftResult cufftDestroy(cufftHandle plan)
{
    if (!find(plan))
        return fail(CUFFT_INVALID_PLAN, "cufftDestroy", "plan %d does not exist", plan);
    destroy(plan);
    return CUFFT_SUCCESS;
}

cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch)
{
    const long long n[1] = {nx};
    return plan_of(plan, 1, n, nullptr, 1, 0, nullptr, 1, 0, type, batch, "cufftPlan1d");
}

cufftResult cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type)
{
    const long long n[2] = {nx, ny};
    return plan_of(plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, "cufftPlan2d");
}

cufftResult cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type)
{
    const long long n[3] = {nx, ny, nz};
    return plan_of(plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, "cufftPlan3d");
}

cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride,
                          int idist, int *onembed, int ostride, int odist, cufftType type,
                          int batch)
{
    const Dims dn(n, rank), di(inembed, rank), d_o(onembed, rank);
    return plan_of(plan, rank, dn.p, di.p, istride, idist, d_o.p, ostride, odist, type, batch,
                   "cufftPlanMany");
}

cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch,
                            size_t *workSize)
{
    const long long n[1] = {nx};
    return make(plan, 1, n, nullptr, 1, 0, nullptr, 1, 0, type, batch, workSize,
                "cufftMakePlan1d");
}

cufftResult cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t *workSize)
{
    const long long n[2] = {nx, ny};
    return make(plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, workSize, "cufftMakePlan2d");
}

cufftResult cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type,
                            size_t *workSize)
{
    const long long n[3] = {nx, ny, nz};
    return make(plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, workSize, "cufftMakePlan3d");
}

cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride,
                              int idist, int *onembed, int ostride, int odist, cufftType type,
                              int batch, size_t *workSize)
{
    const Dims dn(n, rank), di(inembed, rank), d_o(onembed, rank);
    return make(plan, rank, dn.p, di.p, istride, idist, d_o.p, ostride, odist, type, batch,
                workSize, "cufftMakePlanMany");
}

cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int *n,
                                long long int *inembed, long long int istride,
                                long long int idist, long long int *onembed,
                                long long int ostride, long long int odist, cufftType type,
                                long long int batch, size_t *workSize)
{
    return make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                workSize, "cufftMakePlanMany64");
}

// The estimates and sizes: the work area a plan of these arguments needs.
static cufftResult size_of(int rank, const long long *n, const long long *inembed,
                           long long istride, long long idist, const long long *onembed,
                           long long ostride, long long odist, cufftType type, long long batch,
                           size_t *workSize, const char *call)
{
    if (!workSize)
        return fail(CUFFT_INVALID_VALUE, call, "workSize is NULL");
    Plan plan;
    if (cufftResult r = describe(plan, rank, n, inembed, istride, idist, onembed, ostride, odist,
                                 type, batch, call))
        return r;
    *workSize = plan.work_bytes;
    return CUFFT_SUCCESS;
}

cufftResult cufftEstimate1d(int nx, cufftType type, int batch, size_t *workSize)
{
    const long long n[1] = {nx};
    return size_of(1, n, nullptr, 1, 0, nullptr, 1, 0, type, batch, workSize, "cufftEstimate1d");
}

cufftResult cufftEstimate2d(int nx, int ny, cufftType type, size_t *workSize)
{
    const long long n[2] = {nx, ny};
    return size_of(2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, workSize, "cufftEstimate2d");
}

cufftResult cufftEstimate3d(int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    const long long n[3] = {nx, ny, nz};
    return size_of(3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, workSize, "cufftEstimate3d");
}

cufftResult cufftEstimateMany(int rank, int *n, int *inembed, int istride, int idist,
                              int *onembed, int ostride, int odist, cufftType type, int batch,
                              size_t *workSize)
{
    const Dims dn(n, rank), di(inembed, rank), d_o(onembed, rank);
    return size_of(rank, dn.p, di.p, istride, idist, d_o.p, ostride, odist, type, batch, workSize,
                   "cufftEstimateMany");
}

cufftResult cufftGetSize1d(cufftHandle, int nx, cufftType type, int batch, size_t *workSize)
{
    return cufftEstimate1d(nx, type, batch, workSize);
}

cufftResult cufftGetSize2d(cufftHandle, int nx, int ny, cufftType type, size_t *workSize)
{
    return cufftEstimate2d(nx, ny, type, workSize);
}

cufftResult cufftGetSize3d(cufftHandle, int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    return cufftEstimate3d(nx, ny, nz, type, workSize);
}

cufftResult cufftGetSizeMany(cufftHandle, int rank, int *n, int *inembed, int istride, int idist,
                             int *onembed, int ostride, int odist, cufftType type, int batch,
                             size_t *workArea)
{
    return cufftEstimateMany(rank, n, inembed, istride, idist, onembed, ostride, odist, type,
                             batch, workArea);
}

cufftResult cufftGetSize(cufftHandle handle, size_t *workSize)
{
    Plan *plan = find(handle);
    if (!plan || !plan->made)
        return fail(CUFFT_INVALID_PLAN, "cufftGetSize", "plan %d is not a made plan", handle);
    if (!workSize)
        return fail(CUFFT_INVALID_VALUE, "cufftGetSize", "workSize is NULL");
    *workSize = plan->work_bytes;
    return CUFFT_SUCCESS;
}

cufftResult cufftSetWorkArea(cufftHandle handle, void *workArea)
{
    Plan *plan = find(handle);
    if (!plan)
        return fail(CUFFT_INVALID_PLAN, "cufftSetWorkArea", "plan %d does not exist", handle);
    if (plan->own_work)
        cudaFree(plan->work);
    plan->own_work = false;
    plan->work = workArea;
    return CUFFT_SUCCESS;
}

cufftResult cufftSetAutoAllocation(cufftHandle handle, int autoAllocate)
{
    Plan *plan = find(handle);
    if (!plan)
        return fail(CUFFT_INVALID_PLAN, "cufftSetAutoAllocation", "plan %d does not exist", handle);
    if (plan->made)
        return fail(CUFFT_INVALID_PLAN, "cufftSetAutoAllocation",
                    "plan %d is already made: set this between cufftCreate and cufftMakePlan*",
                    handle);
    plan->auto_allocate = autoAllocate != 0;
    return CUFFT_SUCCESS;
}

cufftResult cufftSetStream(cufftHandle handle, cudaStream_t stream)
{
    Plan *plan = find(handle);
    if (!plan)
        return fail(CUFFT_INVALID_PLAN, "cufftSetStream", "plan %d does not exist", handle);
    plan->stream = stream;
    return CUFFT_SUCCESS;
}

cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata,
                         int direction)
{
    return exec(plan, idata, odata, direction, false, 0, "cufftExecC2C");
}

cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata)
{
    return exec(plan, idata, odata, CUFFT_FORWARD, false, 1, "cufftExecR2C");
}

cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata)
{
    return exec(plan, idata, odata, CUFFT_INVERSE, false, 2, "cufftExecC2R");
}

cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata,
                         int direction)
{
    return exec(plan, idata, odata, direction, true, 0, "cufftExecZ2Z");
}

cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata)
{
    return exec(plan, idata, odata, CUFFT_FORWARD, true, 1, "cufftExecD2Z");
}

cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata)
{
    return exec(plan, idata, odata, CUFFT_INVERSE, true, 2, "cufftExecZ2D");
}

cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long int *n,
                                long long int *inembed, long long int istride,
                                long long int idist, cudaDataType inputtype,
                                long long int *onembed, long long int ostride,
                                long long int odist, cudaDataType outputtype,
                                long long int batch, size_t *workSize,
                                cudaDataType executiontype)
{
    cufftType type;
    if (cufftResult r = xt_type(inputtype, outputtype, executiontype, &type, "cufftXtMakePlanMany"))
        return r;
    return make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                workSize, "cufftXtMakePlanMany");
}

cufftResult cufftXtGetSizeMany(cufftHandle, int rank, long long int *n, long long int *inembed,
                               long long int istride, long long int idist,
                               cudaDataType inputtype, long long int *onembed,
                               long long int ostride, long long int odist,
                               cudaDataType outputtype, long long int batch, size_t *workSize,
                               cudaDataType executiontype)
{
    cufftType type;
    if (cufftResult r = xt_type(inputtype, outputtype, executiontype, &type, "cufftXtGetSizeMany"))
        return r;
    return size_of(rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                   workSize, "cufftXtGetSizeMany");
}

cufftResult cufftXtExec(cufftHandle handle, void *input, void *output, int direction)
{
    Plan *plan = find(handle);
    if (!plan || !plan->made)
        return fail(CUFFT_INVALID_PLAN, "cufftXtExec", "plan %d is not a made plan", handle);
    const int kind = real_in(plan->type) ? 1 : real_out(plan->type) ? 2 : 0;
    const int fixed = kind == 1 ? CUFFT_FORWARD : kind == 2 ? CUFFT_INVERSE : direction;
    return exec(handle, input, output, fixed, plan->dbl, kind, "cufftXtExec");
}

cufftResult cufftGetVersion(int *version)
{
    if (!version)
        return fail(CUFFT_INVALID_VALUE, "cufftGetVersion", "version is NULL");
    *version = CUFFT_VERSION;
    return CUFFT_SUCCESS;
}

} // extern "C"
