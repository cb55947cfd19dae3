// For tests that build an app's library (runtime/app_build.h): open it and run it once, no warm-up,
// its outputs checked against the app's reference.
#pragma once
#include <string>

#include "apps/app_spec.h"
#include "runtime/app_runner.h"
#include "runtime/pipeline_library.h"

namespace solder::testing {

// The run's report; where the library does not open, a report (not ran, not passed) whose error
// says why.
inline RunReport run_library_once(const std::string &app, const std::string &library_path, AppSize size) {
    RunReport rep;
    auto lib = PipelineLibrary::open(library_path, &rep.error);
    if (!lib) return rep;
    RunOptions opt;
    opt.size = size;
    opt.iters = 1;
    opt.warmup = 0;
    return run_app(*find_app_spec(app), *lib, opt);
}

}  // namespace solder::testing
