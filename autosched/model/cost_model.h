// The cost model: every time and byte formula the planner and the templates use, in one place.
// Callers ask it; nothing else turns bytes and flops into microseconds.
//   - A kernel's time is a roofline: max(bytes / bandwidth, flops / peak) + one launch; a kernel
//     of fewer blocks than the device needs to fill it (DeviceProfile::blocks_per_sm_to_fill)
//     leaves bandwidth unused, and its time grows by that ratio.
//   - A kernel's bytes: each leaf it reads (input or another kernel's root) per block times blocks,
//     unless the leaf's whole footprint fits in half of L2 (then it is read once from DRAM; where a
//     reduction computed whole in every block reads it, each block's reads are timed at L2's rate,
//     and the kernel takes the longer of the two).
#pragma once
#include <cstdint>
#include <set>
#include <vector>

#include "autosched/model/device_profile.h"
#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"

namespace solder::autosched {

class CostModel {
public:
    explicit CostModel(const DeviceProfile &d) : d_(d) {}
    const DeviceProfile &device() const { return d_; }

    // Roofline time of one launch (blocks 0: not known, full).
    double kernel_us(int64_t bytes, double flops, int64_t blocks = 0) const;
    // A launch whose loading and arithmetic are phases apart in each block (barriers between)
    // and whose blocks fill an SM one at a time: memory time plus arithmetic time, not their
    // maximum. With several blocks resident per SM, the roofline.
    double phased_kernel_us(int64_t bytes, double flops, int64_t blocks, int64_t shared_per_block) const;
    // Streaming `bytes` in `launches` launches at full bandwidth (launches 0: the bytes alone).
    double stream_us(int64_t bytes, int launches) const;
    // A chosen kernel that writes `root_bytes`, split-K's launches included.
    double choice_us(const KernelChoice &kc, int64_t root_bytes) const;

    // Bytes read from global memory and arithmetic of a kernel of root `root` computing the nodes
    // `inside`: `whole` is each node's region over the kernel, `per_block` over one of its
    // `blocks` blocks. `inlined`: members are recomputed wherever they are read (a Func read at
    // several points of its consumer through a stencil is evaluated that many times per point);
    // fused reductions are not (templates compute them per block, or per point read one to one).
    // `every_call`: each load of an input counts, not its footprint once (a walk in one block,
    // whose every load is a trip through the caches the whole device is not there to hide).
    // `recomputed` (by node, may be null): members recomputed wherever they are read even where
    // `inlined` is false (those other kernels read too: inline_copies.h's shared_members).
    void kernel_reads(const FuncGraph &g, int root, const std::vector<bool> &inside, const std::vector<Region> &whole,
                      const std::vector<Region> &per_block, int64_t blocks, KernelChoice &kc, bool inlined = false,
                      bool every_call = false, const std::vector<bool> *recomputed = nullptr) const;

    // Arithmetic kernel_reads does not count where the kernel computes its members once per block
    // (inlined false): members with transcendental math (FuncNode::math_calls) inlined into the
    // steps of a fused reduction that runs its RDom per point, evaluated at every step of every
    // point of the reduction's box, unless `once` (computed per block, in shared memory). A
    // Gaussian's weights, exp(-k^2 / 2 sigma^2) at each of 13 taps, in both passes of a blur.
    double step_flops(const FuncGraph &g, const std::vector<bool> &inside, const std::vector<Region> &per_block,
                      int64_t blocks, const std::set<int> &once) const;

private:
    DeviceProfile d_;
};

}  // namespace solder::autosched
