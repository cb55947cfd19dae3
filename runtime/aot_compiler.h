// Compiles a scheduled pipeline ahead of time into a shared library Solder can load anywhere:
// Halide's static library of the pipeline + Halide's runtime for the target + the launch hooks +
// an info record, linked with the system C++ compiler. The same library format runs here (host, OpenCL on PoCL) and on the
// GPU machine (CUDA), where no libHalide exists.
#pragma once
#include <map>
#include <string>

#include "Halide.h"

namespace solder {

struct LibraryRequest {
    Halide::Pipeline pipeline;
    std::vector<Halide::Argument> arguments;
    Halide::Target target;
    std::string out_dir;                      // created if missing
    std::string stem;                         // file name without extension
    std::map<std::string, std::string> info;  // app, schedule, target, size, loop_nests, ...
};

// Returns the path of the .so. Throws std::runtime_error naming the step that failed.
std::string compile_pipeline_library(const LibraryRequest &req);
// Halide's runtime for `target`, compiled once into `out_dir` (named by Halide's version and the
// target) and linked into every library built there: it takes about 2 s to compile, the pipeline
// of a small app a tenth of that.
std::string runtime_object(const Halide::Target &target, const std::string &out_dir);
// The compiled runtime/launch_hooks.cpp linked into every library: in an installed Solder,
// lib/solder/launch_hooks.o beside the executable's bin/; in the build tree, the build's object.
const std::string &launch_hooks_object();

// Where compile_pipeline_library leaves, beside the library, the source of the device kernels it
// contains: OpenCL C (<stem>.kernels.cl) or PTX (<stem>.kernels.ptx). Empty for the host target.
// Written in the same compilation (the kernels dump reads it), so nothing is compiled twice.
std::string device_source_path(const std::string &library_path, const Halide::Target &target);

}  // namespace solder
