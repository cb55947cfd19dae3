#include "runtime/aot_compiler.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <unistd.h>
#include <vector>

#include "runtime/block_guards.h"
#include "runtime/pipeline_library.h"
#include "core/progress.h"
#include "core/quoted.h"

#ifndef SOLDER_LAUNCH_HOOKS_OBJ
#error "SOLDER_LAUNCH_HOOKS_OBJ must name the compiled runtime/launch_hooks.cpp object"
#endif
#ifndef SOLDER_CXX
#define SOLDER_CXX "c++"
#endif

namespace solder {
namespace fs = std::filesystem;

const std::string &launch_hooks_object() {
    static const std::string path = [] {
        // An installed executable uses the installed object, never the build tree it came from.
        std::error_code ec;
        fs::path exe = fs::read_symlink("/proc/self/exe", ec);
        fs::path installed = exe.parent_path().parent_path() / "lib" / "solder" / "launch_hooks.o";
        return fs::exists(installed, ec) ? installed.string() : std::string(SOLDER_LAUNCH_HOOKS_OBJ);
    }();
    return path;
}

namespace {

std::string quote(const std::string &s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

void run_or_throw(const std::string &what, const std::string &cmd, const std::string &log) {
    if (std::system((cmd + " >" + quote(log) + " 2>&1").c_str()) != 0) {
        std::ifstream in(log);
        std::stringstream ss;
        ss << in.rdbuf();
        throw std::runtime_error(what + " failed: " + cmd + "\n" + ss.str());
    }
}

}  // namespace

std::string runtime_object(const Halide::Target &target, const std::string &out_dir) {
    const Halide::Target t = target.without_feature(Halide::Target::NoRuntime);
    const std::string name = "halide_runtime-" + std::to_string(HALIDE_VERSION_MAJOR) + "." +
                             std::to_string(HALIDE_VERSION_MINOR) + "." + std::to_string(HALIDE_VERSION_PATCH) + "-" +
                             t.to_string() + ".o";
    const fs::path path = fs::path(out_dir) / name;
    static std::mutex m;  // (one compilation per process; processes meet at the rename)
    std::lock_guard<std::mutex> lock(m);
    std::error_code ec;
    if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) > 0) return path.string();
    fs::create_directories(out_dir);
    const fs::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
    {
        SlowStepNotice notice("compiling Halide's runtime for " + t.to_string());
        Halide::compile_standalone_runtime(tmp.string(), t);
    }
    fs::rename(tmp, path, ec);  // another process's identical object may already be there: either is right
    if (ec) {
        fs::remove(tmp, ec);
        if (!fs::is_regular_file(path, ec)) throw std::runtime_error("could not write " + path.string());
    }
    return path.string();
}

std::string compile_pipeline_library(const LibraryRequest &req) {
    fs::create_directories(req.out_dir);
    // Every file is written under a name of this compilation's own, then renamed to its own name:
    // two processes building the same library in the same folder (two `solder run`s of one app, or
    // tests side by side in the per-user folder) each linked the other's half-written object ("file
    // truncated"). The rename puts each whole file in place at once.
    static std::atomic<int> compilations{0};
    const std::string final_base = (fs::path(req.out_dir) / req.stem).string();
    const std::string base =
        final_base + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(compilations.fetch_add(1));
    Halide::Pipeline p = req.pipeline;
    // An object file, not a static library: Halide 21 builds a static library in a temporary
    // directory it names its members relative to, and threads compiling side by side (the compile
    // cache's) then failed about one build in ten ("... .a.o: No such file or directory", or an
    // internal error in create_static_library).
    std::map<Halide::OutputFileType, std::string> files = {{Halide::OutputFileType::c_header, base + ".h"},
                                                           {Halide::OutputFileType::object, base + ".o"}};
    std::string device_source = device_source_path(base + ".so", req.target);
    if (!device_source.empty()) files[Halide::OutputFileType::device_code] = device_source;
    {
        SlowStepNotice notice("compiling " + req.stem + " for " + req.target.to_string());
        // (The pipeline is shared with the caller: the pass is taken off again after compiling.)
        const bool had_passes = !p.custom_lowering_passes().empty();
        if (!had_passes) p.add_custom_lowering_pass(new_block_guards_pass());
        try {
            p.compile_to(files, req.arguments, kPipelineEntry, req.target.with_feature(Halide::Target::NoRuntime));
        } catch (...) {
            if (!had_passes) p.clear_custom_lowering_passes();
            throw;
        }
        if (!had_passes) p.clear_custom_lowering_passes();
    }

    std::string info;
    for (auto &[k, v] : req.info) info += k + "=" + v + "\n";
    std::ofstream(base + ".info.cpp") << "extern \"C\" const char *solder_library_info() { return "
                                      << quote_literal(info) << "; }\n";

    std::string so = base + ".so";
    std::string cmd = std::string(SOLDER_CXX) + " -shared -fPIC -O1 -o " + quote(so) + " " + quote(base + ".info.cpp") +
                      " " + quote(base + ".o") + " " + quote(runtime_object(req.target, req.out_dir)) + " " +
                      quote(launch_hooks_object()) + " -ldl -lpthread";
    run_or_throw("linking the pipeline library", cmd, base + ".link.log");
    // (The library last: a reader that finds it finds the rest in place.)
    std::vector<std::pair<std::string, std::string>> moves;
    for (const char *ext : {".h", ".o", ".info.cpp", ".link.log"}) moves.push_back({base + ext, final_base + ext});
    if (!device_source.empty()) moves.push_back({device_source, device_source_path(final_base + ".so", req.target)});
    moves.push_back({so, final_base + ".so"});
    for (auto &[from, to] : moves) fs::rename(from, to);
    return final_base + ".so";
}

std::string device_source_path(const std::string &library_path, const Halide::Target &target) {
    std::string stem = library_path.size() > 3 && library_path.compare(library_path.size() - 3, 3, ".so") == 0
                           ? library_path.substr(0, library_path.size() - 3)
                           : library_path;
    if (target.has_feature(Halide::Target::OpenCL)) return stem + ".kernels.cl";
    if (target.has_feature(Halide::Target::CUDA)) return stem + ".kernels.ptx";
    return "";
}

}  // namespace solder
