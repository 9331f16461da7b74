#include "sim_transport.h"

namespace simtgpu::umd {

int SimTransport::open(std::unique_ptr<Transport> *out, std::string *error) {
    std::unique_ptr<simkmd::SimFile> file;
    if (int rc = simkmd::open_file(&file, error))
        return rc;
    out->reset(new SimTransport(std::move(file)));
    return 0;
}

void SimTransport::trace_slice(const char *process, const char *track, const char *name,
                               uint64_t begin_ns, uint64_t end_ns) {
    if (file_->tracing())
        file_->trace_slice(process, track, name, begin_ns, end_ns);
}

// The device's BAR0 counter block.
int SimTransport::read_counters(uint64_t *out) {
    file_->read_counters(out);
    return 0;
}

} // namespace simtgpu::umd
