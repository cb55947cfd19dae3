// Random sibling reductions (autosched/sibling_sums.h): groups of two to four reductions (sums,
// maxima, minima) over one RDom and the same pure vars, each reading a load they share (and some a
// second stage, squares or absolute differences), over a row of an input's run-time width, a column
// of its height, or a window of a scalar parameter's width; read by one output, half the seeds with
// a reduction over other points beside them. Planned at 1024 x 512, run at the random families'
// sizes with a window width drawn per size, and compared with the same pipeline built again with
// every Func at root on the host.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace solder::testing {

struct RandomSiblingResult {
    std::vector<uint64_t> failed_seeds;
    std::vector<std::string> messages;  // one per failure: the seed, what failed, the plan
    int rewritten = 0;                  // seeds whose plan walks their group as one Tuple Func
};

// Plans each seed's pipeline with Solder for `target` ("host", "opencl"), runs it and compares. On
// OpenCL each pipeline is also planned for CUDA and lowered.
RandomSiblingResult run_random_sibling_reductions(const std::vector<uint64_t> &seeds, const std::string &target);

}  // namespace solder::testing
