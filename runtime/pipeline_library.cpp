#include "runtime/pipeline_library.h"
#include "runtime/library_check.h"

#include <dlfcn.h>

#include <algorithm>
#include <sstream>

#include "runtime/buffer_checks.h"

namespace solder {

std::unique_ptr<PipelineLibrary> PipelineLibrary::open(const std::string &path, std::string *error) {
    std::unique_ptr<PipelineLibrary> lib(new PipelineLibrary());
    lib->path_ = path;
    // A truncated file would be mapped and then fault (SIGBUS) on first use: check it first.
    if (std::string bad = elf_problem(path); !bad.empty()) {
        *error = "cannot load pipeline library: " + bad;
        return nullptr;
    }
    // RTLD_LOCAL: each library keeps its own copy of Halide's runtime and hooks.
    lib->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle_) {
        *error = "cannot load pipeline library '" + path + "': " + dlerror();
        return nullptr;
    }
    auto sym = [&](const std::string &name) { return dlsym(lib->handle_, name.c_str()); };
    lib->argv_ = reinterpret_cast<int (*)(void **)>(sym(std::string(kPipelineEntry) + "_argv"));
    lib->metadata_ =
        reinterpret_cast<const halide_filter_metadata_t *(*)()>(sym(std::string(kPipelineEntry) + "_metadata"));
    lib->info_ = reinterpret_cast<const char *(*)()>(sym("solder_library_info"));
    lib->launches_ = reinterpret_cast<int64_t (*)()>(sym("solder_hooks_launches"));
    lib->records_ = reinterpret_cast<int (*)(const solder_launch_record **)>(sym("solder_hooks_records"));
    lib->reset_ = reinterpret_cast<void (*)()>(sym("solder_hooks_reset"));
    lib->last_error_ = reinterpret_cast<const char *(*)()>(sym("solder_hooks_last_error"));
    lib->inject_fault_ = reinterpret_cast<void (*)(int)>(sym("solder_hooks_inject_launch_fault"));
    lib->failed_kernel_ = reinterpret_cast<const char *(*)()>(sym("solder_hooks_failed_kernel"));
    lib->set_timing_ = reinterpret_cast<void (*)(int)>(sym("solder_hooks_set_timing"));
    lib->times_ = reinterpret_cast<int (*)(const float **, int)>(sym("solder_hooks_times"));
    lib->reuse_ = reinterpret_cast<int (*)(void *, bool)>(sym("halide_reuse_device_allocations"));
    if (!lib->argv_ || !lib->metadata_ || !lib->info_ || !lib->launches_ || !lib->records_ || !lib->reset_ ||
        !lib->last_error_) {
        *error = "'" + path + "' is not a Solder pipeline library (missing " + kPipelineEntry +
                 "_argv, _metadata, solder_library_info or the launch hooks)";
        return nullptr;
    }
    return lib;
}

bool PipelineLibrary::reuse_device_allocations(bool on) { return reuse_ && reuse_(nullptr, on) == 0; }

PipelineLibrary::~PipelineLibrary() {
    if (handle_) dlclose(handle_);
}

namespace {

// Stores v in the scalar argument's type; false for a type a scalar parameter cannot have here.
bool store_scalar(const halide_type_t &t, double v, uint64_t *slot) {
    *slot = 0;
    void *p = slot;
    if (t.lanes != 1) return false;
    if (t.code == halide_type_float && t.bits == 32)
        *static_cast<float *>(p) = float(v);
    else if (t.code == halide_type_float && t.bits == 64)
        *static_cast<double *>(p) = v;
    else if (t.code == halide_type_int && t.bits == 8)
        *static_cast<int8_t *>(p) = int8_t(v);
    else if (t.code == halide_type_int && t.bits == 16)
        *static_cast<int16_t *>(p) = int16_t(v);
    else if (t.code == halide_type_int && t.bits == 32)
        *static_cast<int32_t *>(p) = int32_t(v);
    else if (t.code == halide_type_int && t.bits == 64)
        *static_cast<int64_t *>(p) = int64_t(v);
    else if (t.code == halide_type_uint && t.bits == 1)
        *static_cast<bool *>(p) = v != 0;
    else if (t.code == halide_type_uint && t.bits == 8)
        *static_cast<uint8_t *>(p) = uint8_t(v);
    else if (t.code == halide_type_uint && t.bits == 16)
        *static_cast<uint16_t *>(p) = uint16_t(v);
    else if (t.code == halide_type_uint && t.bits == 32)
        *static_cast<uint32_t *>(p) = uint32_t(v);
    else if (t.code == halide_type_uint && t.bits == 64)
        *static_cast<uint64_t *>(p) = uint64_t(v);
    else
        return false;
    return true;
}

}  // namespace

int PipelineLibrary::call(const std::vector<halide_buffer_t *> &inputs, const std::vector<halide_buffer_t *> &outputs,
                          std::string *error, const std::vector<std::pair<std::string, double>> &scalars) {
    const halide_filter_metadata_t *md = metadata_();
    std::vector<void *> args;
    std::vector<uint64_t> scalar_slots(size_t(md->num_arguments));
    size_t in = 0, out = 0;
    for (int i = 0; i < md->num_arguments; i++) {
        const halide_filter_argument_t &a = md->arguments[i];
        if (a.kind == halide_argument_kind_input_buffer) {
            if (in >= inputs.size()) break;
            args.push_back(inputs[in++]);
        } else if (a.kind == halide_argument_kind_output_buffer) {
            if (out >= outputs.size()) break;
            args.push_back(outputs[out++]);
        } else {
            auto it = std::find_if(scalars.begin(), scalars.end(), [&](auto &s) { return s.first == a.name; });
            if (it == scalars.end()) {
                *error = std::string("pipeline argument '") + a.name + "' is a scalar parameter with no value given";
                return -1;
            }
            if (!store_scalar(a.type, it->second, &scalar_slots[size_t(i)])) {
                *error = std::string("scalar parameter '") + a.name + "' has a type Solder cannot pass";
                return -1;
            }
            args.push_back(&scalar_slots[size_t(i)]);
        }
    }
    if (in != inputs.size() || out != outputs.size() || int(args.size()) != md->num_arguments) {
        std::ostringstream o;
        o << "pipeline in '" << path_ << "' takes " << md->num_arguments << " arguments but was given " << inputs.size()
          << " inputs, " << outputs.size() << " outputs and " << scalars.size() << " scalars";
        *error = o.str();
        return -1;
    }
    for (int i = 0; i < md->num_arguments; i++) {
        if (md->arguments[i].kind == halide_argument_kind_input_scalar) continue;
        std::string bad =
            check_buffer_argument(md->arguments[i], i, static_cast<halide_buffer_t *>(args[i]), !any_shape_);
        if (!bad.empty()) {
            *error = "pipeline in '" + path_ + "': " + bad;
            return -1;
        }
    }
    int rc = argv_(args.data());
    if (rc != 0) {
        std::string msg = last_error_();
        while (!msg.empty() && msg.back() == '\n') msg.pop_back();
        *error = "the pipeline failed with Halide error " + std::to_string(rc) + (msg.empty() ? "" : ": " + msg);
        std::string kernel = failed_kernel_ ? failed_kernel_() : "";
        if (!kernel.empty()) *error += " (launching kernel '" + kernel + "')";
    }
    return rc;
}

bool PipelineLibrary::inject_launch_fault(bool on) {
    if (!inject_fault_) return false;
    inject_fault_(on ? 1 : 0);
    return true;
}

std::string PipelineLibrary::info(const std::string &key) const {
    std::istringstream in(info_());
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, key.size() + 1, key + "=") == 0) return line.substr(key.size() + 1);
    return "";
}

std::vector<solder_launch_record> PipelineLibrary::launch_records() const {
    const solder_launch_record *r = nullptr;
    int n = records_(&r);
    return std::vector<solder_launch_record>(r, r + n);
}

bool PipelineLibrary::set_timing(int mode) {
    if (!set_timing_ || !times_) return false;
    set_timing_(mode);
    return true;
}

std::vector<float> PipelineLibrary::launch_times_us() const {
    if (!times_) return {};
    const float *t = nullptr;
    int n = times_(&t, int(launch_records().size()));
    return std::vector<float>(t, t + n);
}

}  // namespace solder
